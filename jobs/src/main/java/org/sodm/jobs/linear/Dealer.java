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
 * +-1 (a multi-class task keeps only its classes' rows; tasks solved together keep the class index) and it goes to block hash(id, seed) mod K,
 * a stateless choice (a re-executed task deals the same way). The one rule of {@link PartitionJob}
 * and of {@link DealtInputFormat} (the resident tasks that deal for themselves).
 */
final class Dealer {
  private final Scaler scaler;
  private final LabelMap labels;
  private final String positive;
  private final String negative;
  /** Class-index mode ({@link LinearKeys#CLASS_INDEX}): the run's classes, y = a row's class index. */
  private final java.util.Map<String, Integer> classIndex;
  private final int blocks;
  private final long seed;
  /** Stratified blocks (DSVRG, {@link LinearStrata}): the strata, and this stream's deck (set by {@link #stream}); else null. */
  private final org.sodm.partition.StratumAssigner strata;
  private org.sodm.partition.StreamingStratifiedAssigner deck;
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
    if (conf.getBoolean(LinearKeys.CLASS_INDEX, false)) {
      classIndex = new java.util.HashMap<>();
      java.util.List<String> classes = org.sodm.jobs.phase.MulticlassKeys.classes(conf);
      for (int c = 0; c < classes.size(); c++) classIndex.put(classes.get(c), c);
    } else {
      classIndex = null;
    }
    labels = positive == null && classIndex == null ? LinearKeys.labels(conf) : null; // a multi-class task labels by class
    blocks = conf.getInt(LinearKeys.BLOCKS, 1);
    seed = TrainSpec.of(conf).seed();
    String lm = conf.get(LinearKeys.LANDMARKS);
    strata = lm == null ? null : LinearStrata.read(conf, new org.apache.hadoop.fs.Path(lm), TrainSpec.of(conf).resolvedKernel().create());
  }

  /** Whether blocks are stratified: dealt per stream ({@link #stream}), not a function of the row alone. */
  boolean stratified() {
    return strata != null;
  }

  /** Stratified blocks: starts the deal of one stream of rows (an ingested part), keyed so that a re-executed task deals the same. */
  void stream(long streamKey) {
    deck = new org.sodm.partition.StreamingStratifiedAssigner(blocks, seed, streamKey);
  }

  /** The block of an instance (whether or not it belongs to this problem). */
  int blockOf(Instance inst) {
    return blockOf(inst.getId());
  }

  /** The block of the instance {@code id}. */
  int blockOf(long id) {
    if (strata != null) throw new IllegalStateException("stratified blocks are dealt per stream by the partition job, not per row");
    return RandomPartitioner.partitionOf(id, blocks, seed);
  }

  /**
   * The y of the row {@code id} labelled {@code label} in this problem: +-1, or the class index; NaN when the row is not
   * this problem's (another class pair's, or the held-out fold's).
   *
   * @throws IOException when the row has no label, or a label the problem does not know
   */
  double y(long id, String label) throws IOException {
    if (label == null) throw new IOException("training row " + id + " has no label");
    if (folds != null && folds.of(id) == heldOut) return Double.NaN; // sodm cv: the fold this problem does not see
    if (heldOut >= 0 && hashFolds > 0 && org.sodm.data.Seeds.fold(seed, id, hashFolds) == heldOut) return Double.NaN; // --probability
    if (classIndex != null) {
      Integer c = classIndex.get(label);
      if (c == null) throw new IOException("training row " + id + " has label " + label + ", not one of the classes " + classIndex.keySet());
      return c;
    }
    if (positive == null) return labels.signed(label);
    if (label.equals(positive)) return 1;
    if (negative.isEmpty() || label.equals(negative)) return -1;
    return Double.NaN;
  }

  /** The scaler of the run, or null (rows as ingested). */
  Scaler scaler() {
    return scaler;
  }

  /** The training record of {@code inst}, or null when it is not a row of this problem (another class pair's, or the held-out fold's). */
  TrainRecord deal(Instance inst) throws IOException {
    double y = y(inst.getId(), inst.getLabel() == null ? null : inst.getLabel().toString());
    if (Double.isNaN(y)) return null;
    SparseVector x = Instances.features(inst.getFeatures());
    if (scaler != null) x = scaler.apply(x);
    int stratum = -1;
    int block;
    if (strata != null) {
      if (deck == null) throw new IllegalStateException("stratified dealing without a stream (Dealer.stream)");
      stratum = strata.assign(x);
      block = deck.next(2 * stratum + (y > 0 ? 1 : 0)); // each (stratum, class) pair dealt evenly over the blocks
    } else {
      block = blockOf(inst);
    }
    // the all-fields constructor: the builder deep-copies the schema defaults of qg, delta and qd for every row (a tenth of
    // a resident task's load of a million rows)
    return new TrainRecord(inst.getId(), y, Instances.toAvro(x), stratum, block, List.of(), 0.0, List.of(), 0.0);
  }
}
