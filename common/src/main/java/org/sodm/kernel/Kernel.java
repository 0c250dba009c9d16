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

  /**
   * True when k(a, b) is a function of a'b, |a|^2 and |b|^2 only (all built-in kernels). Then
   * {@link #fromDot} and {@link #fromDots} work, and solvers may compute the inner products
   * themselves (e.g. on a dense copy of low-dimensional data) and convert them in batches.
   */
  default boolean dotBased() {
    return false;
  }

  /** k(a, b) from {@code dot = a'b}, {@code aNorm = |a|^2}, {@code bNorm = |b|^2}; see {@link #dotBased()}. */
  default double fromDot(double dot, double aNorm, double bNorm) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " is not dot-based");
  }

  /**
   * In place, for {@code t} in {@code [from, to)}: {@code dots[t] = k(a, b_t)} where on entry
   * {@code dots[t] = a'b_t}, {@code aNorm = |a|^2}, {@code norms[t] = |b_t|^2}. The batched hot
   * path of the kernel solvers (one virtual call per column, not per element).
   */
  default void fromDots(double[] dots, double aNorm, double[] norms, int from, int to) {
    for (int t = from; t < to; t++) {
      dots[t] = fromDot(dots[t], aNorm, norms[t]);
    }
  }

  /** The parameters that recreate this kernel. */
  KernelSpec spec();

  /** True when k(x, y) depends on x - y only (RBF): k(x, x) is then constant. */
  default boolean shiftInvariant() {
    return false;
  }
}
