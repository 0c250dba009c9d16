package org.sodm.jobs.train;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.jobs.ingest.IngestJob;

/**
 * Internal configuration keys the training driver sets for its tasks (resolved values, not
 * user parameters), and the task-side readers of the artifacts they point to.
 */
public final class TrainKeys {
  private TrainKeys() {}

  static final String INGEST_DIR = "sodm.internal.train.ingest";
  static final String LEVEL = "sodm.internal.train.level";
  static final String BLOCKS = "sodm.internal.train.blocks";
  /** Cascade merge rounds of the tree: carry the non-support vectors along (alpha 0, not solved) instead of dropping them. */
  static final String CASCADE_CARRY = "sodm.internal.train.cascade.carry";
  /** A merge round: the block count of the level below (the warm start's scale, {@link org.sodm.solver.WarmStart}). */
  static final String CHILD_BLOCKS = "sodm.internal.train.child.blocks";
  /**
   * A merge round that re-clusters (DC-SVM): the rows each block of the level below was solved
   * with, "block:rows,..." (ODM's warm-start scale when a parent holds part of a child).
   */
  static final String CHILD_SIZES = "sodm.internal.train.child.sizes";
  static final String STATS_DIR = "sodm.internal.train.stats";
  /** The rows of the tree's problem (the largest sub-problem's): with sodm.train.block.c.rows, the blocks' C ({@link #blockCFactor}). */
  static final String TREE_ROWS = "sodm.internal.train.tree.rows";

  /** The training data's stored values per row (the driver's memory checks, {@link BlockMemory}). */
  static final String NONZEROS_PER_ROW = "sodm.internal.train.nonzeros.per.row";
  static final String LANDMARKS_DIR = "sodm.internal.train.landmarks";
  /** Blocks per sub-problem at the level below a merge round (block b of sub-problem s is s * blocks + b). */
  static final String BLOCKS_BELOW = "sodm.internal.train.blocks.below";
  /** sodm cv: the number of folds (every task trained once per fold, without it; no full model). */
  public static final String CV_FOLDS = "sodm.internal.train.cv.folds";
  /** sodm cv: the file of every row's fold ({@link CvFolds}). */
  static final String CV_FOLDS_FILE = org.sodm.jobs.phase.MulticlassKeys.CV_FOLDS_FILE;

  /** nu-SVC with sub-problems: each task's nu, "v0,v1,..." by task index ({@link KernelTreeTrainer#resolveNu}). */
  static final String NU_TASKS = "sodm.internal.train.nu.tasks";
  /**
   * --offset auto turned off only because --exact on more than sodm.train.exact.below.rows rows may end with PBM (no equality
   * constraint): the tree's blocks solve without the offset, and exact mode's one warm block, when it is the final solve,
   * with it (LIBSVM's model). Set by {@link TrainPipeline#resolveOffset}.
   */
  static final String EXACT_OFFSET = "sodm.internal.train.exact.offset";
  /**
   * The level is the last one and nothing reads its rows but the model (no exact mode after it): its reducers write only the
   * rows with a non-zero alpha (a block without any: its first row, so that the model still has the block).
   */
  static final String SUPPORT_ONLY = "sodm.internal.train.support.only";

  /** {@link TrainSpec#blockCFactor} for a level of {@code blocks} blocks, with the rows the driver set ({@link #TREE_ROWS}). */
  static double blockCFactor(Configuration conf, org.sodm.jobs.spec.TrainSpec spec, int blocks) {
    long rows = conf.getLong(TREE_ROWS, -1);
    if (rows < 0) throw new IllegalStateException(TREE_ROWS + " is not set: the driver sets the tree's rows before any solve");
    return spec.blockCFactor(blocks, rows);
  }

  static void setNuTasks(Configuration conf, double[] nu) {
    StringBuilder b = new StringBuilder();
    for (double v : nu) b.append(b.length() == 0 ? "" : ",").append(Double.toString(v));
    conf.set(NU_TASKS, b.toString());
  }

  /**
   * Task {@code t}'s loss: nu-SVC's with the task's own nu when the run has them ({@link #NU_TASKS}); with per-class weights
   * ({@link org.sodm.jobs.phase.MulticlassKeys#CLASS_WEIGHTS}) {@code loss} weighted as the task's classes are
   * ({@link org.sodm.jobs.phase.MulticlassKeys#taskLoss}); else {@code loss}.
   */
  static org.sodm.solver.Loss taskLoss(Configuration conf, org.sodm.solver.Loss loss, int t) {
    if (!(loss instanceof org.sodm.solver.Loss.Nu)) return org.sodm.jobs.phase.MulticlassKeys.taskLoss(conf, loss, t);
    String v = conf.get(NU_TASKS);
    if (!(loss instanceof org.sodm.solver.Loss.Nu) || v == null || v.isEmpty()) return loss;
    String[] parts = v.split(",");
    if (t >= parts.length) throw new IllegalStateException(NU_TASKS + " has " + parts.length + " tasks' nu, task " + t + " asked");
    return org.sodm.solver.Loss.nu(Double.parseDouble(parts[t]));
  }

  static void setPlan(Configuration conf, org.sodm.model.Subproblems plan, java.util.List<String> classes) {
    org.sodm.jobs.phase.MulticlassKeys.setPlan(conf, plan, classes);
  }

  /** The sub-problems of a run, or null for a binary run ({@link org.sodm.jobs.phase.MulticlassKeys}). */
  static org.sodm.model.Subproblems plan(Configuration conf) {
    return org.sodm.jobs.phase.MulticlassKeys.plan(conf);
  }

  static java.util.List<String> classes(Configuration conf) {
    return org.sodm.jobs.phase.MulticlassKeys.classes(conf);
  }

  /** Sub-problems of a run (1 for a plain binary run). */
  static int subproblems(Configuration conf) {
    org.sodm.model.Subproblems p = plan(conf);
    return p == null ? 1 : p.count();
  }

  /** Records the level below's block sizes from its stats ({@link #CHILD_SIZES}). */
  static void setChildSizes(Configuration conf, java.util.List<org.sodm.avro.BlockStats> below) {
    StringBuilder b = new StringBuilder();
    for (org.sodm.avro.BlockStats s : below) {
      if (b.length() > 0) b.append(',');
      b.append(s.getBlock()).append(':').append(s.getSize());
    }
    conf.set(CHILD_SIZES, b.toString());
  }

  /** The level below's block sizes, or null when the driver did not set them. */
  static java.util.Map<Integer, Integer> childSizes(Configuration conf) {
    String v = conf.get(CHILD_SIZES);
    if (v == null || v.isEmpty()) return null;
    java.util.Map<Integer, Integer> m = new java.util.HashMap<>();
    for (String e : v.split(",")) {
      int c = e.indexOf(':');
      m.put(Integer.parseInt(e.substring(0, c)), Integer.parseInt(e.substring(c + 1)));
    }
    return m;
  }

  /** The ingest scaler, or null. */
  static Scaler scaler(Configuration conf) throws IOException {
    return IngestJob.readScaler(conf, new Path(conf.get(INGEST_DIR)));
  }

  static LabelMap labels(Configuration conf) throws IOException {
    return IngestJob.readLabels(conf, new Path(conf.get(INGEST_DIR)));
  }
}
