package org.sodm.jobs.ingest;

import org.sodm.jobs.spec.Param;
import org.sodm.data.Seeds;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.util.LineReader;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.avro.Instance;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.RecordException;
import org.sodm.data.BottomK;
import org.sodm.data.Row;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.SodmConf;

/**
 * What every ingest mapper does with a parsed row, whatever the input format: assign the
 * stable id, update the statistics, write the Instance, and apply the bad-record policy.
 * One per map task: a split of an uncompressed text file, or a whole compressed or Avro file.
 *
 * <p>Line numbers: a split knows only how many lines it has read itself. Messages need the line
 * number in the file, so on the failure path only (an error, a logged bad record, a third
 * label) the task counts the lines of the file before its first line ({@link #linesBefore}).
 * First occurrences of labels in the statistics carry the split-relative line; the driver makes
 * them absolute from the line counts of the splits before (in each stats file's name).
 */
final class IngestTask {
  private static final Logger LOG = LoggerFactory.getLogger(IngestTask.class);
  static final String FILES_KEY = "sodm.internal.ingest.files";
  static final String STATS_DIR_KEY = "sodm.internal.ingest.stats.dir";
  /** Where each task writes its part of its file's sample; the driver merges them into sample-cC-sS/. */
  static final String SAMPLE_PARTS_KEY = "sodm.internal.ingest.sample.parts";
  /** Marks a split-relative line in a label's first-seen location (resolved by the driver). */
  static final char RELATIVE = '\u0000';
  static final String COUNTER_GROUP = "sodm.ingest";
  static final int LOGGED_SAMPLES = 5;

  private final org.apache.hadoop.mapreduce.MapContext<?, ?, ?, ?> context;
  private final IngestMapper.Sink sink;
  private final Path path;
  private final String file;
  private final int ordinal;
  private final long splitStart;
  /** Lines (records) read by this task so far; the current one is line {@code line} of the split. */
  private long line;
  /** Byte offset of the split's first line, -1 before it. */
  private long firstOffset = -1;
  /** Lines of the file before the split's first line, -1 until needed. */
  private long linesBefore = -1;
  private final long maxBad;
  private final int maxLabels;
  private final StatsAccumulator stats = new StatsAccumulator();
  private final BottomK<Instance> sample;
  private final long sampleSeed;
  private long bad;
  private org.apache.hadoop.mapreduce.Counter records;

  IngestTask(org.apache.hadoop.mapreduce.MapContext<?, ?, ?, ?> context, IngestMapper.Sink sink) {
    AvroClasses.trust();
    this.context = context;
    this.sink = sink;
    Configuration conf = context.getConfiguration();
    FileSplit split = org.sodm.jobs.support.FilePiece.unwrap(context.getInputSplit());
    this.path = split.getPath();
    this.file = path.toString();
    this.splitStart = split.getStart();
    if (splitStart == 0) linesBefore = 0;
    List<String> files = Arrays.asList(conf.getStrings(FILES_KEY));
    this.ordinal = files.indexOf(file);
    if (ordinal < 0) throw new IllegalStateException("input " + file + " is not among the listed inputs " + files);
    this.maxBad = SodmConf.requireLong(conf, SodmConf.INGEST_SKIP_BAD);
    this.maxLabels = (int) SodmConf.requireLong(conf, SodmConf.INGEST_MAX_LABELS);
    this.sample = new BottomK<>(conf.get(SAMPLE_PARTS_KEY) == null ? 0 : sampleSize(conf));
    this.sampleSeed = sampleSeed(conf, ordinal);
  }

  /** Rows per file in the ingest sample: the landmark candidates a map task of training draws. */
  static int sampleSize(Configuration conf) {
    return conf.getBoolean(IngestJob.SAMPLE_KEY, true) ? (int) SodmConf.requireLong(conf, SodmConf.LANDMARK_CANDIDATES) : 0;
  }

  /** The sample of file {@code ordinal} depends on the seed and the file's place only. */
  static long sampleSeed(Configuration conf, int ordinal) {
    return Seeds.ingestFile(Param.SEED.longValue(conf), ordinal);
  }

  String file() {
    return file;
  }

  /** Counts the next line (record) of the split; returns its split-relative number (1-based). */
  long nextLine() {
    return ++line;
  }

  /** The id of the current Avro record (its 1-based number: Avro files are never split). */
  long recordId() {
    return Instances.id(ordinal, line);
  }

  /** The id of the current text line, which starts at byte {@code offset} of the file. */
  long textId(long offset) {
    if (firstOffset < 0) firstOffset = offset;
    return Instances.idAtOffset(ordinal, offset);
  }

  /**
   * The current line's number in the file. Cheap in a split that starts the file; elsewhere it
   * reads the file up to the split's first line once (failure path only).
   */
  long absoluteLine() throws IOException {
    return absolute(line);
  }

  private long absolute(long relative) throws IOException {
    if (linesBefore < 0) linesBefore = countLines(context.getConfiguration(), path, firstOffset >= 0 ? firstOffset : splitStart);
    return linesBefore + relative;
  }

  /**
   * The number of lines (as {@link org.apache.hadoop.mapreduce.lib.input.LineRecordReader} counts
   * them: ends at \n, \r\n or \r) that start before byte {@code offset} of the (decompressed) file.
   */
  static long countLines(Configuration conf, Path file, long offset) throws IOException {
    if (offset <= 0) return 0;
    FileSystem fs = file.getFileSystem(conf);
    CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(file);
    try (InputStream raw = fs.open(file);
        InputStream in = codec == null ? raw : codec.createInputStream(raw);
        LineReader r = new LineReader(in, conf)) {
      Text t = new Text();
      long pos = 0;
      long lines = 0;
      while (pos < offset) {
        int n = r.readLine(t, 1 << 16, Integer.MAX_VALUE);
        if (n == 0) break;
        pos += n;
        lines++;
      }
      return lines;
    }
  }

  void accept(long id, Row row) throws IOException, InterruptedException {
    if (row == null) return;
    boolean newLabel = row.label() != null && stats.firstSeen(row.label()) == null;
    // within a task ids ascend: only a label's first occurrence needs its location
    String where = !newLabel ? null : linesBefore == 0 ? file + ":" + line : RELATIVE + Long.toString(line);
    stats.add(row.label(), row.features(), id, where);
    if (newLabel && stats.labelCount() > maxLabels) {
      fail(file + ":" + absoluteLine() + ": label '" + row.label() + "' is " + IngestJob.nthLabel(maxLabels + 1) + " (labels so far: "
          + describeLabels() + "); " + IngestJob.limitText(context.getConfiguration(), maxLabels));
    }
    Instance in = Instances.toAvro(id, row.label(), row.features());
    sink.write(in);
    long rank = Seeds.ingestSampleRank(sampleSeed, id);
    if (sample.wants(rank)) sample.offer(rank, in); // every row is a new Instance
    if (records == null) records = context.getCounter(COUNTER_GROUP, "records");
    records.increment(1);
  }

  private String describeLabels() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (String l : stats.labelsByAppearance()) {
      if (sb.length() > 0) sb.append(", ");
      sb.append("'").append(l).append("' first at ").append(resolve(stats.firstSeen(l)));
    }
    return sb.toString();
  }

  private String resolve(String location) throws IOException {
    if (location == null || location.isEmpty() || location.charAt(0) != RELATIVE) return location;
    return file + ":" + absolute(Long.parseLong(location.substring(1)));
  }

  /** Applies the bad-record policy to a malformed line (the current one). */
  void bad(RecordException e) throws IOException {
    bad++;
    stats.addBadRecord();
    context.getCounter(COUNTER_GROUP, "bad records").increment(1);
    if (bad > maxBad) {
      String msg = e.describe(file, absoluteLine());
      fail(maxBad == 0 ? msg
          : msg + " -- more than " + maxBad + " bad records in " + file + " (--skip-bad-records " + maxBad + ")");
    }
    if (bad <= LOGGED_SAMPLES) LOG.warn("skipping bad record {}", e.describe(file, absoluteLine()));
  }

  /** A task failure already reported to the driver. */
  static final class Failure extends IOException {
    private static final long serialVersionUID = 1L;

    Failure(String msg) {
      super(msg);
    }
  }

  /** Reports the message to the driver and fails the task. */
  Failure fail(String msg) throws Failure {
    JobFailure.report(context, msg);
    throw new Failure(msg);
  }

  /** A failure before the task could start (bad configuration, unknown file). */
  static Failure failEarly(TaskInputOutputContext<?, ?, ?, ?> context, RuntimeException e) {
    String msg = "ingest task could not start: " + e.getMessage();
    JobFailure.report(context, msg);
    return new Failure(msg);
  }

  /**
   * Writes this split's statistics to the directory the driver chose ({@link #STATS_DIR_KEY}),
   * named by file ordinal, split start and line count, and its part of the file's sample. A
   * re-executed attempt rewrites the same files with the same content (speculation is off).
   */
  void finish() throws IOException {
    Configuration conf = context.getConfiguration();
    Path dir = new Path(conf.get(STATS_DIR_KEY));
    writeStats(conf, new Path(dir, statsFileName(ordinal, splitStart, line)), stats);
    String sdir = conf.get(SAMPLE_PARTS_KEY);
    if (sdir != null && sampleSize(conf) > 0) {
      List<Instance> rows = new ArrayList<>(sample.items());
      rows.sort((a, b) -> Long.compare(a.getId(), b.getId()));
      AvroFiles.writeUncompressed(conf, new Path(new Path(sdir), samplePartName(ordinal, splitStart)), Instance.getClassSchema(), rows);
    }
  }

  /** A task's statistics as {@link StatsAccumulator#toBytes} encodes them (read back at once by {@link #mergeStats}). */
  static void writeStats(Configuration conf, Path file, StatsAccumulator stats) throws IOException {
    byte[] bytes = stats.toBytes();
    try (java.io.OutputStream out = file.getFileSystem(conf).create(file, true)) {
      out.write(bytes);
    }
  }

  /** Adds the statistics of a task's file ({@link #writeStats}) to {@code total}, the labels' locations mapped by {@code where}. */
  static void mergeStats(Configuration conf, Path file, StatsAccumulator total, java.util.function.UnaryOperator<String> where)
      throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    long length = fs.getFileStatus(file).getLen();
    if (length > Integer.MAX_VALUE - 8) throw new IOException(file + ": " + length + " bytes is not a task's statistics");
    byte[] bytes = new byte[(int) length];
    try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(file)) {
      in.readFully(0, bytes);
      total.mergeBytes(bytes, where);
    } catch (IOException e) {
      throw new IOException(file + ": cannot read a task's statistics: " + e.getMessage(), e);
    }
  }

  static String sampleFileName(int ordinal) {
    return String.format("sample-f%06d.avro", ordinal);
  }

  /** One task's part of file {@code ordinal}'s sample. */
  static String samplePartName(int ordinal, long splitStart) {
    return String.format("part-f%06d-s%015d.avro", ordinal, splitStart);
  }

  /** The file ordinal of a sample part. */
  static int samplePartOrdinal(String name) {
    return Integer.parseInt(name.substring("part-f".length(), "part-f".length() + 6));
  }

  /** Stats of the split of file {@code ordinal} starting at byte {@code start}, which read {@code lines} lines. */
  static String statsFileName(int ordinal, long start, long lines) {
    return String.format("stats-f%06d-s%015d-n%d.bin", ordinal, start, lines);
  }

  static boolean isStatsFile(String name) {
    return name.startsWith("stats-f") && name.endsWith(".bin");
  }

  /** {ordinal, split start, lines} from a stats file name. */
  static long[] parseStatsFileName(String name) {
    String[] p = name.substring(0, name.length() - ".bin".length()).split("-");
    return new long[] {Long.parseLong(p[1].substring(1)), Long.parseLong(p[2].substring(1)), Long.parseLong(p[3].substring(1))};
  }
}
