package org.sodm.jobs.support;

import org.apache.hadoop.conf.Configuration;

/**
 * Configuration keys (each documented with its default in {@code conf/sodm-default.xml}) and
 * the creation of a Configuration that carries those defaults.
 */
public final class SodmConf {
  private SodmConf() {}

  public static final String DEFAULT_RESOURCE = "sodm-default.xml";

  public static final String SEED = "sodm.seed";
  /** Hadoop's key for the file: file system; sodm-default.xml sets {@link NioLocalFileSystem}. */
  public static final String LOCAL_FS_IMPL = "fs.file.impl";
  public static final String OVERWRITE = "sodm.overwrite";
  public static final String AVRO_CODEC = "sodm.avro.codec";

  public static final String INGEST_FORMAT = "sodm.ingest.format";
  public static final String INGEST_LABEL_COLUMN = "sodm.ingest.csv.label.column";
  public static final String INGEST_DELIMITER = "sodm.ingest.csv.delimiter";
  public static final String INGEST_HEADER = "sodm.ingest.csv.header";
  public static final String INGEST_SKIP_BAD = "sodm.ingest.skip.bad.records";
  public static final String INGEST_SCALE = "sodm.ingest.scale";
  public static final String INGEST_MAX_LABELS = "sodm.ingest.max.labels";

  public static final String LOSS = "sodm.train.loss";
  public static final String C = "sodm.train.c";
  public static final String LAMBDA = "sodm.train.lambda";
  public static final String THETA = "sodm.train.theta";
  public static final String MU = "sodm.train.mu";
  public static final String BIAS = "sodm.train.bias";
  public static final String WEIGHT_POSITIVE = "sodm.train.weight.positive";
  public static final String WEIGHT_NEGATIVE = "sodm.train.weight.negative";
  public static final String KERNEL = "sodm.kernel";
  public static final String GAMMA = "sodm.kernel.gamma";
  public static final String COEF0 = "sodm.kernel.coef0";
  public static final String DEGREE = "sodm.kernel.degree";
  public static final String PARTITIONS = "sodm.train.partitions";
  public static final String LEVELS = "sodm.train.levels";
  public static final String FANOUT = "sodm.train.fanout";
  public static final String LANDMARKS = "sodm.train.landmarks";
  public static final String LANDMARK_CANDIDATES = "sodm.train.landmark.candidates";
  public static final String LANDMARK_DRIVER_ROWS = "sodm.train.landmark.driver.rows";
  public static final String PARTITIONER = "sodm.train.partitioner";
  public static final String TRAIN_REDUCERS = "sodm.train.reducers";
  public static final String MERGE = "sodm.train.merge";
  public static final String EARLY_STOP = "sodm.train.early.stop";
  public static final String MAX_BLOCK_ROWS = "sodm.train.max.block.rows";
  public static final String EPS = "sodm.solver.eps";
  public static final String MAX_EPOCHS = "sodm.solver.max.epochs";
  public static final String SHRINKING = "sodm.solver.shrinking";
  public static final String CACHE_MB = "sodm.cache.mb";

  public static final String LINEAR_SOLVER = "sodm.train.linear.solver";
  public static final String LINEAR_BLOCKS = "sodm.train.linear.blocks";
  public static final String LINEAR_EPS = "sodm.train.linear.eps";
  public static final String LINEAR_MAX_ITERATIONS = "sodm.train.linear.max.iterations";
  public static final String LINEAR_INNER_PASSES = "sodm.train.linear.inner.passes";
  public static final String LINEAR_TAU = "sodm.train.linear.tau";
  public static final String LINEAR_LINE_SEARCH = "sodm.train.linear.line.search";
  public static final String LINEAR_EPOCHS = "sodm.train.linear.epochs";
  public static final String LINEAR_STEP = "sodm.train.linear.step";
  /** BQO / DSVRG: allreduce (one resident job, org.sodm.jobs.allreduce) or jobs (one MapReduce job per iteration). */
  public static final String ITERATION_MODE = "sodm.iteration.mode";
  public static final String ALLREDUCE_RENDEZVOUS_TIMEOUT = "sodm.allreduce.rendezvous.timeout";
  public static final String ALLREDUCE_OPERATION_TIMEOUT = "sodm.allreduce.operation.timeout";
  public static final String ALLREDUCE_CHECKPOINT_ITERATIONS = "sodm.allreduce.checkpoint.iterations";
  public static final String ALLREDUCE_CHECKPOINT_SECONDS = "sodm.allreduce.checkpoint.seconds";
  public static final String ALLREDUCE_MAX_RESTARTS = "sodm.allreduce.max.restarts";
  public static final String ALLREDUCE_BIND_HOST = "sodm.allreduce.bind.host";

  public static final String EXACT = "sodm.train.exact";
  public static final String EXACT_BELOW_ROWS = "sodm.train.exact.below.rows";
  public static final String EXACT_TOLERANCE = "sodm.train.exact.tolerance";
  public static final String EXACT_MAX_ITERATIONS = "sodm.train.exact.max.iterations";
  public static final String EXACT_INNER_EPOCHS = "sodm.train.exact.inner.epochs";
  public static final String EXACT_LINE_SEARCH = "sodm.train.exact.line.search";
  public static final String EXACT_REFINE = "sodm.train.exact.refine";
  public static final String EXACT_SINGLE = "sodm.train.exact.single";
  public static final String EXACT_REFERENCE = "sodm.train.exact.reference";
  public static final String EXACT_GAP = "sodm.train.exact.gap";

  public static final String PREDICT_MODE = "sodm.predict.mode";

  public static final String GENERATE_ROWS = "sodm.generate.rows";
  public static final String GENERATE_FEATURES = "sodm.generate.features";
  public static final String GENERATE_NOISE = "sodm.generate.noise";

  static {
    Configuration.addDefaultResource(DEFAULT_RESOURCE);
  }

  /** A new Configuration with sodm's defaults; local mode unless the environment says otherwise. */
  public static Configuration create() {
    return new Configuration();
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
