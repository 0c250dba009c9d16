package org.sodm.jobs.predict;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.Prediction;
import org.sodm.data.Instances;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.SvmPredictText;

/**
 * {@code sodm predict --text}: {@value #FILE} beside the Avro predictions, in {@code svm-predict}'s output format
 * ({@link SvmPredictText}), one line per scored row in input order. Each map task's part file holds its split's rows in
 * input order, so the driver merges the parts by row id (the file's place in the order the inputs were given, and the
 * row's place in it) reading each once.
 */
final class PredictionsText {
  private PredictionsText() {}

  static final String FILE = "predictions.txt";

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

  /** One part file's reader at its current record. */
  private static final class Cursor implements AutoCloseable {
    final Path file;
    final InputStream in;
    final DataFileStream<Prediction> records;
    Prediction current;

    Cursor(FileSystem fs, Path file) throws IOException {
      this.file = file;
      this.in = fs.open(file);
      this.records = new DataFileStream<>(in, new SpecificDatumReader<>(Prediction.class));
    }

    boolean advance() throws IOException {
      current = records.hasNext() ? records.next(current) : null;
      return current != null;
    }

    @Override
    public void close() throws IOException {
      records.close();
      in.close();
    }
  }

  /**
   * Writes {@code dir}/{@value #FILE} from the Avro part files in {@code dir}; with {@code classes} (a model with
   * probabilities, its classes in class-index order) the {@code labels} line first and each row's probabilities, both in
   * {@code order} (class indices: LIBSVM's label order, {@link org.sodm.model.MulticlassModel#classOrder}, so that the
   * columns are svm-predict -b 1's), the rows in the order the inputs were given ({@code filePlace}: each file's place by
   * ordinal, {@link org.sodm.jobs.ingest.IngestJob#givenOrder}; null for an ingest directory, whose ids are in its order).
   * Returns the rows written. Fails naming the file when a part's rows are not in increasing order (they would not be in
   * input order).
   */
  static long write(Configuration conf, Path dir, List<String> classes, int[] order, int[] filePlace) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    List<Cursor> open = new ArrayList<>();
    PriorityQueue<Cursor> queue = new PriorityQueue<>((a, b) -> Long.compare(key(a.current.getId(), filePlace), key(b.current.getId(), filePlace)));
    Path file = new Path(dir, FILE);
    long rows = 0;
    try {
      for (Path p : AvroFiles.dataFiles(conf, dir)) {
        if (!p.getName().endsWith(".avro")) continue;
        Cursor c = new Cursor(fs, p);
        open.add(c);
        if (c.advance()) queue.add(c);
      }
      try (Writer w = new BufferedWriter(new OutputStreamWriter(fs.create(file, false), StandardCharsets.UTF_8), 1 << 16)) {
        if (classes != null) {
          List<String> ordered = new ArrayList<>();
          for (int c : order) ordered.add(classes.get(c));
          w.write(SvmPredictText.header(ordered) + "\n");
        }
        long last = Long.MIN_VALUE;
        double[] probs = classes == null ? null : new double[classes.size()];
        while (!queue.isEmpty()) {
          Cursor c = queue.poll();
          Prediction r = c.current;
          if (key(r.getId(), filePlace) <= last) {
            throw new SodmException(c.file + ": row id " + r.getId() + " after a row before it in input order: the predictions are not in input order");
          }
          last = key(r.getId(), filePlace);
          if (probs != null) {
            List<Double> p = r.getProbabilities();
            if (p == null || p.size() != probs.length) {
              throw new SodmException(c.file + ": row id " + r.getId() + " has " + (p == null ? "no" : p.size()) + " probabilities for "
                  + probs.length + " classes");
            }
            for (int k = 0; k < probs.length; k++) probs[k] = p.get(order[k]);
          }
          w.write(SvmPredictText.line(r.getPredicted().toString(), probs));
          w.write('\n');
          rows++;
          long previous = r.getId();
          if (c.advance()) {
            if (key(c.current.getId(), filePlace) <= key(previous, filePlace)) {
              throw new SodmException(c.file + ": row id " + c.current.getId() + " after id " + previous + " in the same file");
            }
            queue.add(c);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      fs.delete(file, false);
      throw e;
    } finally {
      for (Cursor c : open) c.close();
    }
    return rows;
  }
}
