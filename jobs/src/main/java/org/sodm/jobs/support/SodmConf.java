package org.sodm.jobs.support;

import org.apache.hadoop.conf.Configuration;
import org.sodm.jobs.spec.Param;

/**
 * Short names of the configuration keys of the {@link Param} table (the one place where a
 * parameter's key, option, type, default, validator and description live; {@code
 * conf/sodm-default.xml} is generated from it), and the creation of a Configuration that carries
 * those defaults.
 */
public final class SodmConf {
  private SodmConf() {}

  public static final String DEFAULT_RESOURCE = "sodm-default.xml";

  public static final String SEED = Param.SEED.key();
  /** Hadoop's key for the file: file system; sodm-default.xml sets {@link NioLocalFileSystem}. */
  public static final String LOCAL_FS_IMPL = Param.LOCAL_FS_IMPL.key();
  public static final String OVERWRITE = Param.OVERWRITE.key();
  public static final String AVRO_CODEC = Param.AVRO_CODEC.key();

  public static final String INGEST_FORMAT = Param.INGEST_FORMAT.key();
  public static final String INGEST_LABEL_COLUMN = Param.INGEST_LABEL_COLUMN.key();
  public static final String INGEST_DELIMITER = Param.INGEST_DELIMITER.key();
  public static final String INGEST_HEADER = Param.INGEST_HEADER.key();
  public static final String INGEST_SKIP_BAD = Param.INGEST_SKIP_BAD.key();
  public static final String INGEST_SCALE = Param.INGEST_SCALE.key();
  public static final String INGEST_MAX_LABELS = Param.INGEST_MAX_LABELS.key();

  public static final String LOSS = Param.LOSS.key();
  public static final String C = Param.C.key();
  public static final String LAMBDA = Param.LAMBDA.key();
  public static final String THETA = Param.THETA.key();
  public static final String MU = Param.MU.key();
  public static final String BIAS = Param.BIAS.key();
  public static final String WEIGHT_POSITIVE = Param.WEIGHT_POSITIVE.key();
  public static final String WEIGHT_NEGATIVE = Param.WEIGHT_NEGATIVE.key();
  public static final String KERNEL = Param.KERNEL.key();
  public static final String GAMMA = Param.GAMMA.key();
  public static final String COEF0 = Param.COEF0.key();
  public static final String DEGREE = Param.DEGREE.key();
  public static final String PARTITIONS = Param.PARTITIONS.key();
  public static final String LEVELS = Param.LEVELS.key();
  public static final String FANOUT = Param.FANOUT.key();
  public static final String LANDMARKS = Param.LANDMARKS.key();
  public static final String LANDMARK_CANDIDATES = Param.LANDMARK_CANDIDATES.key();
  public static final String LANDMARK_DRIVER_ROWS = Param.LANDMARK_DRIVER_ROWS.key();
  public static final String PARTITIONER = Param.PARTITIONER.key();
  public static final String TRAIN_REDUCERS = Param.TRAIN_REDUCERS.key();
  public static final String MERGE = Param.MERGE.key();
  public static final String EARLY_STOP = Param.EARLY_STOP.key();
  public static final String MAX_BLOCK_ROWS = Param.MAX_BLOCK_ROWS.key();
  public static final String EPS = Param.EPS.key();
  public static final String MAX_EPOCHS = Param.MAX_EPOCHS.key();
  public static final String SHRINKING = Param.SHRINKING.key();
  public static final String CACHE_MB = Param.CACHE_MB.key();

  public static final String LINEAR_SOLVER = Param.LINEAR_SOLVER.key();
  public static final String NU = Param.NU.key();
  public static final String LINEAR_BLOCKS = Param.LINEAR_BLOCKS.key();
  public static final String LINEAR_EPS = Param.LINEAR_EPS.key();
  public static final String LINEAR_MAX_ITERATIONS = Param.LINEAR_MAX_ITERATIONS.key();
  public static final String LINEAR_INNER_PASSES = Param.LINEAR_INNER_PASSES.key();
  public static final String LINEAR_TAU = Param.LINEAR_TAU.key();
  public static final String LINEAR_LINE_SEARCH = Param.LINEAR_LINE_SEARCH.key();
  public static final String LINEAR_EPOCHS = Param.LINEAR_EPOCHS.key();
  public static final String LINEAR_STEP = Param.LINEAR_STEP.key();
  public static final String ITERATION_MODE = Param.ITERATION_MODE.key();
  public static final String ALLREDUCE_RENDEZVOUS_TIMEOUT = Param.ALLREDUCE_RENDEZVOUS_TIMEOUT.key();
  public static final String ALLREDUCE_OPERATION_TIMEOUT = Param.ALLREDUCE_OPERATION_TIMEOUT.key();
  public static final String ALLREDUCE_CHECKPOINT_ITERATIONS = Param.ALLREDUCE_CHECKPOINT_ITERATIONS.key();
  public static final String ALLREDUCE_CHECKPOINT_SECONDS = Param.ALLREDUCE_CHECKPOINT_SECONDS.key();
  public static final String ALLREDUCE_MAX_RESTARTS = Param.ALLREDUCE_MAX_RESTARTS.key();
  public static final String ALLREDUCE_BIND_HOST = Param.ALLREDUCE_BIND_HOST.key();

  public static final String EXACT = Param.EXACT.key();
  public static final String EXACT_BELOW_ROWS = Param.EXACT_BELOW_ROWS.key();
  public static final String EXACT_TOLERANCE = Param.EXACT_TOLERANCE.key();
  public static final String EXACT_MAX_ITERATIONS = Param.EXACT_MAX_ITERATIONS.key();
  public static final String EXACT_INNER_EPOCHS = Param.EXACT_INNER_EPOCHS.key();
  public static final String EXACT_LINE_SEARCH = Param.EXACT_LINE_SEARCH.key();
  public static final String EXACT_REFINE = Param.EXACT_REFINE.key();
  public static final String EXACT_SINGLE = Param.EXACT_SINGLE.key();
  public static final String EXACT_REFERENCE = Param.EXACT_REFERENCE.key();
  public static final String EXACT_GAP = Param.EXACT_GAP.key();

  public static final String PREDICT_MODE = Param.PREDICT_MODE.key();
  public static final String PREDICT_TEXT = Param.PREDICT_TEXT.key();

  public static final String GENERATE_ROWS = Param.GENERATE_ROWS.key();
  public static final String GENERATE_FEATURES = Param.GENERATE_FEATURES.key();
  public static final String GENERATE_NOISE = Param.GENERATE_NOISE.key();

  static {
    // JobConf's and HdfsConfiguration's class initialisers register their default resources, and each registration
    // drops every loaded Configuration's properties, so the next read parses every resource again (core-default.xml,
    // mapred-default.xml, ...): every run loads both classes, so they register before anything is parsed
    for (String c : new String[] {"org.apache.hadoop.mapred.JobConf", "org.apache.hadoop.hdfs.HdfsConfiguration"}) {
      try {
        Class.forName(c, true, SodmConf.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        // a class path without it registers nothing either
      }
    }
    Configuration.addDefaultResource(DEFAULT_RESOURCE);
  }

  /** A new Configuration with sodm's defaults; local mode unless the environment says otherwise. */
  public static Configuration create() {
    return withStreamBuffer(new Configuration());
  }

  /** Hadoop's key for the buffer of its file streams (core-default.xml: 4096 bytes). */
  static final String IO_BUFFER = "io.file.buffer.size";
  /** {@link #IO_BUFFER} where only Hadoop's own default sets it: 128 KB, the value clusters commonly configure. */
  static final int IO_BUFFER_BYTES = 128 * 1024;

  /**
   * Sets {@link #IO_BUFFER} to {@link #IO_BUFFER_BYTES} when nothing but core-default.xml sets it (a site file, -conf or -D
   * applied later keep their value). With Hadoop's 4 KB a local stream makes a write or read system call per 4 KB: the
   * ingest of a million rows of 20 features (240 MB of Avro written, then read back by the solve) spent 0.25 s of system
   * time more, and 0.3-0.4 s of wall time, than with 128 KB (3 alternated pairs).
   */
  static Configuration withStreamBuffer(Configuration conf) {
    String[] sources = conf.getPropertySources(IO_BUFFER);
    boolean hadoopDefault = sources == null || java.util.Arrays.stream(sources).allMatch(s -> s.equals("core-default.xml"));
    if (hadoopDefault) conf.setInt(IO_BUFFER, IO_BUFFER_BYTES);
    return conf;
  }

  /** Makes sure the defaults resource is registered (class init does it). */
  public static void init() {
    // the static block ran
  }

  /** Reads a key that sodm-default.xml must define; fails naming it when absent. */
  public static String require(Configuration conf, String key) {
    String v = conf.getTrimmed(key);
    if (v == null) {
      throw new IllegalStateException("configuration key " + key + " has no value (is " + DEFAULT_RESOURCE + " on the classpath?)");
    }
    return v;
  }

  public static long requireLong(Configuration conf, String key) {
    String v = require(conf, key);
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer, got '" + v + "'");
    }
  }

  public static double requireDouble(Configuration conf, String key) {
    String v = require(conf, key);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a number, got '" + v + "'");
    }
  }
}
