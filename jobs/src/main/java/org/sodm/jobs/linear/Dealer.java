package org.sodm.jobs.linear;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.partition.RandomPartitioner;

/**
 * How the linear solvers' blocks are dealt: an ingested instance is scaled, its label mapped to
 * +-1 (a multi-class task keeps only its classes' rows) and it goes to block hash(id, seed) mod K,
 * a stateless choice (a re-executed task deals the same way). The one rule of {@link PartitionJob}
 * and of {@link DealtInputFormat} (the resident tasks that deal for themselves).
 */
final class Dealer {
  private final Scaler scaler;
  private final LabelMap labels;
  private final String positive;
  private final String negative;
  private final int blocks;
  private final long seed;
  /** sodm cv: the folds and the fold left out, or null / -1. */
  private final org.sodm.jobs.phase.FoldFile folds;
  private final int heldOut;
  /** --probability's internal folds (a hash of the id), or 0. */
  private final int hashFolds;

  Dealer(Configuration conf) throws IOException {
    heldOut = conf.getInt(LinearKeys.HELD_OUT_FOLD, -1);
    hashFolds = conf.getInt(LinearKeys.HASH_FOLDS, 0);
    folds = heldOut < 0 || hashFolds > 0 ? null : org.sodm.jobs.phase.FoldFile.read(conf, new org.apache.hadoop.fs.Path(
        conf.get(org.sodm.jobs.phase.MulticlassKeys.CV_FOLDS_FILE)));
    scaler = LinearKeys.scaler(conf);
    positive = conf.get(LinearKeys.TASK_POSITIVE);
    negative = conf.get(LinearKeys.TASK_NEGATIVE, "");
    labels = positive == null ? LinearKeys.labels(conf) : null; // a multi-class task labels by class
    blocks = conf.getInt(LinearKeys.BLOCKS, 1);
    seed = TrainSpec.of(conf).seed();
  }

  /** The block of an instance (whether or not it belongs to this problem). */
  int blockOf(Instance inst) {
    return RandomPartitioner.partitionOf(inst.getId(), blocks, seed);
  }

  /** The training record of {@code inst}, or null when it is not a row of this problem (another class pair's, or the held-out fold's). */
  TrainRecord deal(Instance inst) throws IOException {
    if (inst.getLabel() == null) throw new IOException("training row " + inst.getId() + " has no label");
    if (folds != null && folds.of(inst.getId()) == heldOut) return null; // sodm cv: the fold this problem does not see
    if (heldOut >= 0 && hashFolds > 0 && org.sodm.data.Seeds.fold(seed, inst.getId(), hashFolds) == heldOut) return null; // --probability
    double y;
    if (positive == null) {
      y = labels.signed(inst.getLabel());
    } else {
      String l = inst.getLabel().toString();
      if (l.equals(positive)) y = 1;
      else if (negative.isEmpty() || l.equals(negative)) y = -1;
      else return null;
    }
    SparseVector x = Instances.features(inst.getFeatures());
    if (scaler != null) x = scaler.apply(x);
    return TrainRecord.newBuilder().setId(inst.getId()).setY(y).setFeatures(Instances.toAvro(x)).setStratum(-1)
        .setBlock(blockOf(inst)).setAlpha(List.of()).build();
  }
}
