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
final class TrainKeys {
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

  /** The ingest scaler, or null. */
  static Scaler scaler(Configuration conf) throws IOException {
    return IngestJob.readScaler(conf, new Path(conf.get(INGEST_DIR)));
  }

  static LabelMap labels(Configuration conf) throws IOException {
    return IngestJob.readLabels(conf, new Path(conf.get(INGEST_DIR)));
  }
}
