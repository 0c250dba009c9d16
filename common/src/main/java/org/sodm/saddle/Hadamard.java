package org.sodm.saddle;

/**
 * The fast Walsh-Hadamard transform W of Algorithm 1, line 1 (seed 002): the d x d
 * Walsh-Hadamard matrix in Sylvester order, W_ij = (-1)^popcount(i &amp; j) / sqrt(d), which is
 * symmetric and orthogonal (W = W^T = W^-1), applied in O(d log d) by the butterfly recursion.
 * d must be a power of two; {@link #paddedLength} gives the length a d-dimensional input is
 * padded to with zeros.
 */
public final class Hadamard {
  private Hadamard() {}

  /** The smallest power of two &gt;= {@code d} (1 for d &lt;= 1). */
  public static int paddedLength(int d) {
    if (d > 1 << 30) throw new IllegalArgumentException("dimension " + d + " is too large to pad to a power of two");
    return d <= 1 ? 1 : Integer.highestOneBit(d - 1) << 1;
  }

  /**
   * Replaces {@code v} by W v in place.
   *
   * @throws IllegalArgumentException if the length is not a power of two
   */
  public static void transform(double[] v) {
    int d = v.length;
    if (d == 0 || (d & (d - 1)) != 0) {
      throw new IllegalArgumentException("Walsh-Hadamard length " + d + " is not a power of two");
    }
    for (int h = 1; h < d; h <<= 1) {
      for (int start = 0; start < d; start += h << 1) {
        for (int j = start; j < start + h; j++) {
          double a = v[j];
          double b = v[j + h];
          v[j] = a + b;
          v[j + h] = a - b;
        }
      }
    }
    double s = 1 / Math.sqrt(d);
    for (int j = 0; j < d; j++) v[j] *= s;
  }
}
