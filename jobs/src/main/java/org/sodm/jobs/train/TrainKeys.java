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
  /** A merge round: the block count of the level below (the warm start's scale, {@link org.sodm.solver.WarmStart}). */
  /** Cascade merge rounds of the tree: carry the non-support vectors along (alpha 0, not solved) instead of dropping them. */
  static final String CASCADE_CARRY = "sodm.internal.train.cascade.carry";
  static final String CHILD_BLOCKS = "sodm.internal.train.child.blocks";
  static final String STATS_DIR = "sodm.internal.train.stats";
  static final String LANDMARKS_DIR = "sodm.internal.train.landmarks";
  /** Blocks per sub-problem at the level below a merge round (block b of sub-problem s is s * blocks + b). */
  static final String BLOCKS_BELOW = "sodm.internal.train.blocks.below";
  /** sodm cv: the number of folds (every task trained once per fold, without it; no full model). */
  public static final String CV_FOLDS = "sodm.internal.train.cv.folds";
  /** sodm cv: the file of every row's fold ({@link CvFolds}). */
  static final String CV_FOLDS_FILE = org.sodm.jobs.phase.MulticlassKeys.CV_FOLDS_FILE;

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

  /** The ingest scaler, or null. */
  static Scaler scaler(Configuration conf) throws IOException {
    return IngestJob.readScaler(conf, new Path(conf.get(INGEST_DIR)));
  }

  static LabelMap labels(Configuration conf) throws IOException {
    return IngestJob.readLabels(conf, new Path(conf.get(INGEST_DIR)));
  }
}
