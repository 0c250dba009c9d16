package org.sodm.jobs.predict;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.sodm.avro.Prediction;
import org.sodm.data.Instances;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.Model;
import org.sodm.model.MulticlassModel;
import org.sodm.model.SvmPredictText;

/**
 * {@code sodm predict --text}: {@value #FILE} beside the Avro predictions, in {@code svm-predict}'s output format
 * ({@link SvmPredictText}), one line per scored row in input order. Each map task writes its split's lines (its rows in
 * input order) as a side file of its output ({@link Part}), named by the ids of its first and last rows; the driver
 * puts them in input order (the file's place in the order the inputs were given, then the row's place in it) and
 * concatenates them behind the header ({@link #write}), copying bytes without reading a prediction.
 */
final class PredictionsText {
  private PredictionsText() {}

  static final String FILE = "predictions.txt";
  /** A task's lines: {@value}FIRST-LAST.txt (the ids of its first and last rows, 16 hex digits each). */
  static final String PART_PREFIX = "_text-";

  /**
   * The sort key of row {@code id}: its file's place in the order the inputs were given ({@code filePlace} by ordinal; null:
   * the ordinal itself) above its place in the file.
   */
  static long key(long id, int[] filePlace) {
    if (filePlace == null) return id;
    int ordinal = (int) (id >>> Instances.LINE_BITS);
    if (ordinal >= filePlace.length) throw new SodmException("row id " + id + " names input file " + ordinal + " of " + filePlace.length);
    return ((long) filePlace[ordinal] << Instances.LINE_BITS) | (id & ((1L << Instances.LINE_BITS) - 1));
  }

  /**
   * A map task's output with --text: each prediction to the task's Avro output and its line to the task's text part (in
   * the task's work directory, so that the committer keeps only a successful attempt's), renamed by its rows' ids when
   * the task ends ({@link #close}); a task without rows leaves none.
   */
  static final class Part implements Scorer.Out {
    private final Scorer.Out avro;
    private final Path dir;
    private final Path temp;
    private final FileSystem fs;
    private final Writer w;
    /** Class indices in LIBSVM's label order (a model with probabilities), else null. */
    private final int[] order;
    private final double[] probs;
    /** Without probabilities: each predicted label's line. */
    private final java.util.Map<String, String> lines = new java.util.HashMap<>();
    private long first = -1;
    private long last = -1;

    Part(TaskInputOutputContext<?, ?, ?, ?> context, Model model, Scorer.Out avro) throws IOException, InterruptedException {
      this.avro = avro;
      this.dir = FileOutputFormat.getWorkOutputPath(context);
      this.temp = new Path(dir, PART_PREFIX + context.getTaskAttemptID().getTaskID() + ".tmp");
      this.fs = dir.getFileSystem(context.getConfiguration());
      this.w = new BufferedWriter(new OutputStreamWriter(fs.create(temp, true), StandardCharsets.UTF_8), 1 << 16);
      boolean probabilities = model instanceof MulticlassModel mm && mm.hasProbabilities();
      this.order = probabilities ? ((MulticlassModel) model).classOrder() : null;
      this.probs = probabilities ? new double[order.length] : null;
    }

    @Override
    public void write(Prediction p) throws IOException, InterruptedException {
      avro.write(p);
      if (first < 0) first = p.getId();
      last = p.getId();
      if (probs != null) {
        List<Double> v = p.getProbabilities();
        for (int k = 0; k < probs.length; k++) probs[k] = v.get(order[k]);
      }
      if (probs == null) { // a line per class, formatted once
        w.write(lines.computeIfAbsent(p.getPredicted().toString(), l -> SvmPredictText.line(l, null) + "\n"));
      } else {
        w.write(SvmPredictText.line(p.getPredicted().toString(), probs));
        w.write('\n');
      }
    }

    @Override
    public void close() throws IOException {
      w.close();
      if (first < 0) {
        fs.delete(temp, false);
      } else if (!fs.rename(temp, new Path(dir, String.format(Locale.ROOT, "%s%016x-%016x.txt", PART_PREFIX, first, last)))) {
        throw new IOException("could not rename " + temp + " by its rows' ids " + first + "-" + last);
      }
    }
  }

  /** A task's text part and the ids of its first and last rows. */
  private record Piece(Path path, long first, long last) {}

  /**
   * Writes {@code dir}/{@value #FILE}: with {@code model} a model with probabilities, the {@code labels} line in LIBSVM's
   * label order ({@link MulticlassModel#classOrder}), then the map tasks' text parts of {@code parts} in the order the
   * inputs were given ({@code filePlace}: each file's place by ordinal, {@link org.sodm.jobs.ingest.IngestJob#givenOrder};
   * null for an ingest directory, whose ids are in its order); the parts are deleted. Fails naming both parts when two
   * overlap (their rows would not be in input order). Returns the number of parts.
   */
  static int write(Configuration conf, Path parts, Path dir, Model model, int[] filePlace) throws IOException {
    FileSystem fs = parts.getFileSystem(conf);
    List<Piece> pieces = new ArrayList<>();
    for (FileStatus s : fs.listStatus(parts, p -> p.getName().startsWith(PART_PREFIX))) {
      String n = s.getPath().getName();
      String[] ids = n.substring(PART_PREFIX.length(), n.length() - ".txt".length()).split("-");
      if (!n.endsWith(".txt") || ids.length != 2) throw new SodmException(s.getPath() + ": not a text part of a finished task");
      pieces.add(new Piece(s.getPath(), Long.parseUnsignedLong(ids[0], 16), Long.parseUnsignedLong(ids[1], 16)));
    }
    pieces.sort(Comparator.comparingLong(p -> key(p.first(), filePlace)));
    for (int i = 1; i < pieces.size(); i++) {
      if (key(pieces.get(i).first(), filePlace) <= key(pieces.get(i - 1).last(), filePlace)) {
        throw new SodmException(pieces.get(i - 1).path() + " and " + pieces.get(i).path() + " overlap: the predictions are not in input order");
      }
    }
    Path file = new Path(dir, FILE);
    try (OutputStream out = fs.create(file, false)) {
      if (model instanceof MulticlassModel mm && mm.hasProbabilities()) {
        List<String> ordered = new ArrayList<>();
        for (int c : mm.classOrder()) ordered.add(mm.classes().get(c));
        out.write((SvmPredictText.header(ordered) + "\n").getBytes(StandardCharsets.UTF_8));
      }
      byte[] buf = new byte[1 << 16];
      for (Piece p : pieces) {
        try (InputStream in = fs.open(p.path())) {
          for (int r; (r = in.read(buf)) > 0; ) out.write(buf, 0, r);
        }
      }
    } catch (IOException | RuntimeException e) {
      fs.delete(file, false);
      throw e;
    }
    for (Piece p : pieces) fs.delete(p.path(), false);
    return pieces.size();
  }
}
