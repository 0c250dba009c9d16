package org.sodm.jobs.ingest;

import org.sodm.jobs.spec.Param;
import org.sodm.data.Seeds;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.avro.FeatureStats;
import org.sodm.avro.Instance;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.RecordException;
import org.sodm.data.Reservoir;
import org.sodm.data.Row;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.SodmConf;

/**
 * What every ingest mapper does with a parsed row, whatever the input format: assign the
 * stable id, update the statistics, write the Instance, and apply the bad-record policy.
 * One per map task (one task per input file).
 */
final class IngestTask {
  private static final Logger LOG = LoggerFactory.getLogger(IngestTask.class);
  static final String FILES_KEY = "sodm.internal.ingest.files";
  static final String STATS_DIR_KEY = "sodm.internal.ingest.stats.dir";
  static final String SAMPLE_DIR_KEY = "sodm.internal.ingest.sample.dir";
  static final String COUNTER_GROUP = "sodm.ingest";
  static final int LOGGED_SAMPLES = 5;

  private final TaskInputOutputContext<?, ?, AvroKey<Instance>, NullWritable> context;
  private final String file;
  private final int ordinal;
  private final long maxBad;
  private final int maxLabels;
  private final StatsAccumulator stats = new StatsAccumulator();
  private final AvroKey<Instance> key = new AvroKey<>();
  private final Reservoir<Instance> sample;
  private long bad;

  IngestTask(Mapper<Object, Object, AvroKey<Instance>, NullWritable>.Context context) {
    AvroClasses.trust();
    this.context = context;
    Configuration conf = context.getConfiguration();
    Path path = ((FileSplit) context.getInputSplit()).getPath();
    this.file = path.toString();
    List<String> files = Arrays.asList(conf.getStrings(FILES_KEY));
    this.ordinal = files.indexOf(file);
    if (ordinal < 0) throw new IllegalStateException("input " + file + " is not among the listed inputs " + files);
    this.maxBad = SodmConf.requireLong(conf, SodmConf.INGEST_SKIP_BAD);
    this.maxLabels = (int) SodmConf.requireLong(conf, SodmConf.INGEST_MAX_LABELS);
    this.sample = new Reservoir<>(conf.get(SAMPLE_DIR_KEY) == null ? 0 : sampleSize(conf), sampleSeed(conf, ordinal),
        UnaryOperator.identity()); // every row is a new Instance
  }

  /** Rows per file in the ingest sample: the landmark candidates a map task of training draws. */
  static int sampleSize(Configuration conf) {
    return (int) SodmConf.requireLong(conf, SodmConf.LANDMARK_CANDIDATES);
  }

  /** The sample of file {@code ordinal} depends on the seed and the file's place only. */
  static long sampleSeed(Configuration conf, int ordinal) {
    return Seeds.ingestFile(Param.SEED.longValue(conf), ordinal);
  }

  String file() {
    return file;
  }

  /** The id for line/record {@code line}, or fails if the file has too many. */
  long id(long line) {
    return Instances.id(ordinal, line);
  }

  void accept(long line, Row row) throws IOException, InterruptedException {
    if (row == null) return;
    long id = id(line);
    boolean newLabel = row.label() != null && stats.firstSeen(row.label()) == null;
    stats.add(row.label(), row.features(), id, file + ":" + line);
    if (newLabel && stats.labelCount() > maxLabels) {
      fail(file + ":" + line + ": label '" + row.label() + "' is a third distinct label (labels so far: "
          + describeLabels() + "); sodm trains binary problems");
    }
    Instance in = Instances.toAvro(id, row.label(), row.features());
    key.datum(in);
    context.write(key, NullWritable.get());
    sample.offer(in);
    context.getCounter(COUNTER_GROUP, "records").increment(1);
  }

  private String describeLabels() {
    StringBuilder sb = new StringBuilder();
    for (String l : stats.labelsByAppearance()) {
      if (sb.length() > 0) sb.append(", ");
      sb.append("'").append(l).append("' first at ").append(stats.firstSeen(l));
    }
    return sb.toString();
  }

  /** Applies the bad-record policy to a malformed line. */
  void bad(long line, RecordException e) throws IOException {
    String msg = e.describe(file, line);
    bad++;
    stats.addBadRecord();
    context.getCounter(COUNTER_GROUP, "bad records").increment(1);
    if (bad > maxBad) {
      fail(maxBad == 0 ? msg
          : msg + " -- more than " + maxBad + " bad records in " + file + " (--skip-bad-records " + maxBad + ")");
    }
    if (bad <= LOGGED_SAMPLES) LOG.warn("skipping bad record {}", msg);
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
   * Writes this file's statistics to the directory the driver chose ({@link #STATS_DIR_KEY}).
   * A re-executed attempt rewrites the same file with the same content (speculation is off).
   */
  void finish() throws IOException {
    FeatureStats s = stats.toAvro();
    Path dir = new Path(context.getConfiguration().get(STATS_DIR_KEY));
    AvroFiles.writeOne(context.getConfiguration(), new Path(dir, statsFileName(ordinal)), FeatureStats.getClassSchema(), s);
    String sdir = context.getConfiguration().get(SAMPLE_DIR_KEY);
    if (sdir != null && sampleSize(context.getConfiguration()) > 0) {
      List<Instance> rows = new ArrayList<>(sample.items());
      rows.sort((a, b) -> Long.compare(a.getId(), b.getId()));
      AvroFiles.write(context.getConfiguration(), new Path(new Path(sdir), sampleFileName(ordinal)), Instance.getClassSchema(), rows);
    }
  }

  static String sampleFileName(int ordinal) {
    return String.format("sample-f%06d.avro", ordinal);
  }

  static String statsFileName(int ordinal) {
    return String.format("stats-f%06d.avro", ordinal);
  }

  static boolean isStatsFile(String name) {
    return name.startsWith("stats-f") && name.endsWith(".avro");
  }
}
