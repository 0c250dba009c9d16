package org.sodm.jobs.ingest;

import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Mapper;
import org.sodm.avro.Instance;
import org.sodm.data.CsvParser;
import org.sodm.data.Instances;
import org.sodm.data.Labels;
import org.sodm.data.LibsvmParser;
import org.sodm.data.RecordException;
import org.sodm.data.Row;
import org.sodm.jobs.support.SodmConf;

/**
 * Parses one split of an input file (LIBSVM or CSV text, or a whole Avro file) into Avro Instances.
 * Text: the key is the byte offset and the value the line; Avro: the key is the record.
 *
 * <p>The ingest writes each Instance ({@link #sink}); a subclass may use it at once instead, with
 * other output types (predict's scoring of raw input: {@code org.sodm.jobs.predict.ScoringIngestMapper}),
 * keeping the same ids, statistics and errors.
 */
public class IngestMapper<KO, VO> extends Mapper<Object, Object, KO, VO> {
  static final String FORMATS_KEY = "sodm.internal.ingest.format";
  /** The first CSV file of the input and its first line: "FILE\nLINE". */
  static final String CSV_FIRST_KEY = "sodm.internal.ingest.csv.first";

  /** Where a parsed row goes: the ingest's Avro output, or a task that uses it at once (predict's scoring). */
  public interface Sink {
    void write(Instance row) throws IOException, InterruptedException;
  }

  private IngestTask task;
  private final AvroKey<Instance> key = new AvroKey<>();
  private LibsvmParser libsvm;
  private CsvParser csv;
  private String header;

  /** What happens to each parsed row: the ingest writes it as the task's output. */
  @SuppressWarnings("unchecked")
  protected Sink sink(Context context) {
    return row -> {
      key.datum(row);
      context.write((KO) key, (VO) NullWritable.get());
    };
  }

  @Override
  protected void setup(Context context) throws IOException {
    task = new IngestTask(context, sink(context));
    Configuration conf = context.getConfiguration();
    String format = conf.get(FORMATS_KEY + "." + task.file(), "libsvm");
    if (format.equals("csv")) {
      csv = csvParser(conf);
      header = SodmConf.require(conf, SodmConf.INGEST_HEADER);
    } else if (format.equals("libsvm")) {
      libsvm = new LibsvmParser();
    }
  }

  static CsvParser csvParser(Configuration conf) {
    String d = SodmConf.require(conf, SodmConf.INGEST_DELIMITER);
    if (d.isEmpty()) throw new IllegalArgumentException(SodmConf.INGEST_DELIMITER + " (--delimiter) is empty");
    char delim = d.equalsIgnoreCase("tab") || d.equals("\\t") ? '\t' : d.charAt(0);
    int col = (int) SodmConf.requireLong(conf, SodmConf.INGEST_LABEL_COLUMN);
    if (col == 0) {
      throw new IllegalArgumentException(SodmConf.INGEST_LABEL_COLUMN
          + " (--label-column) is 1-based (negative counts from the end); 0 is not a column");
    }
    return new CsvParser(delim, col > 0 ? col - 1 : col, 0);
  }

  /** Runs the task; any failure is reported to the driver with the file and line. */
  @Override
  public void run(Context context) throws IOException, InterruptedException {
    try {
      setup(context);
    } catch (RuntimeException e) {
      throw IngestTask.failEarly(context, e);
    }
    try {
      while (context.nextKeyValue()) {
        map(context.getCurrentKey(), context.getCurrentValue(), context);
      }
      cleanup(context);
    } catch (IngestTask.Failure e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw task.fail(task.file() + ":" + (task.absoluteLine() + 1) + ": cannot read: " + e);
    }
  }

  @Override
  protected void map(Object key, Object value, Context context) throws IOException, InterruptedException {
    task.nextLine();
    Row row;
    long id;
    try {
      if (key instanceof AvroKey<?> k) {
        id = task.recordId();
        row = fromAvro((Instance) k.datum());
      } else {
        long offset = ((LongWritable) key).get();
        id = task.textId(offset);
        if (csv != null) {
          String s = ((Text) value).toString();
          if (offset == 0) sameColumnsAsFirstFile(context.getConfiguration(), s);
          if (offset == 0 && isHeader(s)) {
            csv.expectColumnsOf(s);
            return;
          }
          row = csv.parse(s);
        } else {
          Text t = (Text) value;
          row = libsvm.parse(t.getBytes(), 0, t.getLength());
        }
      }
    } catch (RecordException e) {
      task.bad(e);
      return;
    }
    task.accept(id, row);
  }

  private boolean isHeader(String line) {
    return header.equals("true") || (header.equals("auto") && csv.looksLikeHeader(line));
  }

  /**
   * Fails the task when this CSV file's first line has another number of columns than the input's
   * first CSV file's, or both are headers and differ: the columns of the two files would not mean
   * the same features.
   */
  private void sameColumnsAsFirstFile(Configuration conf, String line) throws IOException, RecordException {
    String ref = conf.get(CSV_FIRST_KEY);
    if (ref == null) return;
    int nl = ref.indexOf('\n');
    String refFile = ref.substring(0, nl);
    String refLine = ref.substring(nl + 1);
    if (refFile.equals(task.file())) return;
    java.util.List<String> mine = csv.split(line);
    java.util.List<String> theirs = csv.split(refLine);
    if (isHeader(line) && isHeader(refLine) && !mine.equals(theirs)) {
      throw task.fail(task.file() + ":1: header '" + line + "' differs from the header of " + refFile + ":1 '" + refLine
          + "'; every CSV file of one input must have the same columns");
    }
    if (mine.size() != theirs.size()) {
      throw task.fail(task.file() + ":1: " + mine.size() + " columns, but " + refFile + ":1 has " + theirs.size()
          + "; every CSV file of one input must have the same columns (offending text: '" + line + "')");
    }
  }

  /** The first line of a (possibly compressed) text file, or null when it is empty. */
  static String firstLine(Configuration conf, org.apache.hadoop.fs.Path file) throws IOException {
    org.apache.hadoop.io.compress.CompressionCodec codec = new org.apache.hadoop.io.compress.CompressionCodecFactory(conf).getCodec(file);
    try (java.io.InputStream raw = file.getFileSystem(conf).open(file);
        java.io.InputStream in = codec == null ? raw : codec.createInputStream(raw);
        org.apache.hadoop.util.LineReader r = new org.apache.hadoop.util.LineReader(in, conf)) {
      Text t = new Text();
      return r.readLine(t, 1 << 20, 1 << 20) == 0 ? null : t.toString();
    }
  }

  private static Row fromAvro(Instance in) throws RecordException {
    try {
      String label = in.getLabel() == null ? null : Labels.canonical(in.getLabel());
      return new Row(label, Instances.features(in.getFeatures()));
    } catch (IllegalArgumentException e) {
      throw new RecordException(e.getMessage(), String.valueOf(in));
    }
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    task.finish();
  }
}
