package org.sodm.kernel;

import org.sodm.data.SparseVector;

/**
 * A positive semi-definite (or, for sigmoid, conditionally so) kernel on sparse vectors.
 * Implementations are immutable and thread-safe.
 */
public interface Kernel {

  /** k(a, b). */
  double eval(SparseVector a, SparseVector b);

  /** k(a, a). */
  default double self(SparseVector a) {
    return eval(a, a);
  }

  /**
   * The hot path: {@code out[t] = k(x, rows[which[t]])} for {@code t < count}. Implementations
   * override it to use cached norms and avoid virtual dispatch per pair.
   */
  default void column(SparseVector x, SparseVector[] rows, int[] which, int count, double[] out) {
    for (int t = 0; t < count; t++) {
      out[t] = eval(x, rows[which[t]]);
    }
  }

  /** {@code out[j] = k(x, rows[j])} for all rows. */
  default void column(SparseVector x, SparseVector[] rows, double[] out) {
    for (int j = 0; j < rows.length; j++) {
      out[j] = eval(x, rows[j]);
    }
  }

  /** The parameters that recreate this kernel. */
  KernelSpec spec();

  /** True when k(x, y) depends on x - y only (RBF): k(x, x) is then constant. */
  default boolean shiftInvariant() {
    return false;
  }
}
