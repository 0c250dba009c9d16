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

  /** Features as the model sees them (scaled when the model has a scaler). */
  default SparseVector prepare(SparseVector raw) {
    Scaler s = scaler();
    return s == null ? raw : s.apply(raw);
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
