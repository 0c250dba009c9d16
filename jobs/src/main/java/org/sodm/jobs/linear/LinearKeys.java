package org.sodm.jobs.linear;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.jobs.ingest.IngestJob;

/** Internal keys the linear drivers set for their tasks, and the broadcast w file. */
final class LinearKeys {
  private LinearKeys() {}

  static final String INGEST_DIR = "sodm.internal.linear.ingest";
  static final String BLOCKS = "sodm.internal.linear.blocks";
  static final String DIM = "sodm.internal.linear.dim";
  /** --penalty l1's method as the driver chose it ({@link org.sodm.linear.TronRank.Solver}'s name). */
  static final String L1_METHOD = "sodm.internal.linear.l1.method";
  /** The expected rows and stored values of one block ("rows,nonZeros"): resident tasks size their arrays once. */
  static final String BLOCK_HINT = "sodm.internal.linear.block.hint";

  /**
   * Sets {@link #BLOCK_HINT} for {@code k} blocks dealt from {@code stats}: one block's share, 5% more when there are several
   * (a random block's deviation; a held-out fold or a class pair's task only makes a block smaller).
   */
  static void hintBlocks(Configuration conf, org.sodm.avro.FeatureStats stats, int k) {
    double share = k == 1 ? 1 : 1.05 / k;
    long rows = Math.min(stats.getRows(), (long) Math.ceil(stats.getRows() * share));
    long nnz = Math.min(stats.getNonZeros(), (long) Math.ceil(stats.getNonZeros() * share));
    conf.set(BLOCK_HINT, rows + "," + nnz);
  }

  /** {@link #BLOCK_HINT}: {rows, stored values}, or null when not set. */
  static long[] blockHint(Configuration conf) {
    String h = conf.get(BLOCK_HINT);
    if (h == null) return null;
    String[] p = h.split(",");
    return new long[] {Long.parseLong(p[0]), Long.parseLong(p[1])};
  }
  static final String ITERATION = "sodm.internal.linear.iteration";
  /** Pending step eta^{t-1}: tasks apply alpha = alpha + eta d before iteration t. */
  static final String ETA = "sodm.internal.linear.eta";
  static final String W_FILE = "sodm.internal.linear.w";
  static final String EVALUATE_ONLY = "sodm.internal.linear.evaluate.only";
  /** Block files inside an iteration directory. */
  static final String BLOCK_GLOB = "block-*.avro";

  /**
   * Writes w as a small binary file (int length, then doubles) for the tasks of one iteration.
   * The file lives in the work directory on the job's file system (HDFS on a cluster) and is
   * also added to the job's distributed cache by the drivers.
   */
  static void writeW(Configuration conf, Path p, double[] w) throws IOException {
    FileSystem fs = p.getFileSystem(conf);
    try (DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(fs.create(p, true), 1 << 16))) {
      out.writeInt(w.length);
      for (double v : w) out.writeDouble(v);
    }
  }

  static double[] readW(Configuration conf, Path p) throws IOException {
    FileSystem fs = p.getFileSystem(conf);
    try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(fs.open(p), 1 << 16))) {
      double[] w = new double[in.readInt()];
      for (int k = 0; k < w.length; k++) w[k] = in.readDouble();
      return w;
    }
  }

  static double[] readW(Configuration conf) throws IOException {
    return readW(conf, new Path(conf.get(W_FILE)));
  }

  /** The ingest scaler, or null. */
  static Scaler scaler(Configuration conf) throws IOException {
    return IngestJob.readScaler(conf, new Path(conf.get(INGEST_DIR)));
  }

  /** DSVRG's stratified partition: the landmarks file ({@link LinearStrata}); unset: random blocks. */
  static final String LANDMARKS = "sodm.internal.linear.landmarks";

  /** Multi-class task: the label of +1 (set: only this task's rows, labelled by class). */
  static final String TASK_POSITIVE = "sodm.internal.linear.task.positive";
  /** Multi-class task: the label of -1, empty for every other class (one-vs-rest). */
  static final String TASK_NEGATIVE = "sodm.internal.linear.task.negative";
  /** sodm cv: the fold this problem is trained without (its rows are not dealt); unset: every row. */
  static final String HELD_OUT_FOLD = "sodm.internal.linear.cv.held.out";
  /** --probability: the internal folds' count; with {@link #HELD_OUT_FOLD}, a row's fold is {@code Seeds.fold(seed, id, folds)} (the kernel tree's rule). */
  static final String HASH_FOLDS = "sodm.internal.linear.probability.folds";

  /** Multi-class tasks solved together: a record's y is its class index in the run's class list (no task set). */
  static final String CLASS_INDEX = "sodm.internal.linear.class.index";

  static LabelMap labels(Configuration conf) throws IOException {
    return IngestJob.readLabels(conf, new Path(conf.get(INGEST_DIR)));
  }

  /**
   * The fold of each row (by id) for a plan with folds: sodm cv's fold file, or --probability's hash of the id (the kernel
   * tree's rule); null when the plan has none. The one rule of the resident multi-task runs (BQO, DSVRG) and the dealer.
   */
  static int[] folds(Configuration conf, org.sodm.model.Subproblems plan, long seed, long[] ids) throws IOException {
    if (plan.folds() == 0) return null;
    org.sodm.jobs.phase.FoldFile cv = plan.full() ? null
        : org.sodm.jobs.phase.FoldFile.read(conf, new Path(conf.get(org.sodm.jobs.phase.MulticlassKeys.CV_FOLDS_FILE)));
    int[] fold = new int[ids.length];
    for (int i = 0; i < ids.length; i++) fold[i] = cv != null ? cv.of(ids[i]) : org.sodm.data.Seeds.fold(seed, ids[i], plan.folds());
    return fold;
  }
}
