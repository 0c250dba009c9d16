package org.sodm.model;

import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

/**
 * A trained model: a {@link KernelModel} (the blocks of the final level of the merge tree,
 * optionally with a k-means {@link Routing}) or a {@link LinearModel} (the primal linear-kernel
 * solvers). Both score {@code scale(x)}; the Avro form is {@link ModelCodec}'s. Immutable and
 * thread-safe.
 */
public sealed interface Model permits KernelModel, LinearModel, MulticlassModel {

  KernelSpec kernelSpec();

  Loss loss();

  LabelMap labels();

  /** The scaler, or null. */
  Scaler scaler();

  Provenance provenance();

  /** Support vectors over all blocks (0 for a linear model). */
  long supportVectors();

  /** Decision value of an already prepared (scaled) vector. */
  double decisionPrepared(SparseVector x);

  /** Batched {@link #decisionPrepared}: {@code out[t]} for {@code t < count} (kernel models score the rows in blocks). */
  default void decisionsPrepared(SparseVector[] xs, int count, double[] out) {
    for (int t = 0; t < count; t++) out[t] = decisionPrepared(xs[t]);
  }

  /**
   * Largest feature index of the training data (from the provenance), or 0 when the model does
   * not record it (written before it did): then no feature counts as unseen.
   */
  default int dimension() {
    Provenance p = provenance();
    Integer d = p == null ? null : p.getDimension();
    return d == null ? 0 : d;
  }

  /**
   * Features as the model sees them: those above {@link #dimension()} ignored (the one policy
   * for features the model never saw, whatever the model; counted in {@code unseen} when it is
   * not null), then scaled when the model has a scaler.
   */
  default SparseVector prepare(SparseVector raw, UnseenFeatures unseen) {
    SparseVector x = UnseenFeatures.drop(raw, dimension(), unseen);
    Scaler s = scaler();
    return s == null ? x : s.apply(x);
  }

  /** {@link #prepare(SparseVector, UnseenFeatures)} without counting. */
  default SparseVector prepare(SparseVector raw) {
    return prepare(raw, null);
  }

  /** Decision value of a raw (unscaled) vector. */
  default double decision(SparseVector raw) {
    return decisionPrepared(prepare(raw));
  }

  /** Predicted original label. */
  default String predict(SparseVector raw) {
    return labels().original(decision(raw));
  }
}
