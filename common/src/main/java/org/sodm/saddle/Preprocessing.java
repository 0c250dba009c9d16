package org.sodm.saddle;

import java.util.SplittableRandom;
import org.sodm.data.Seeds;
import org.sodm.data.SparseVector;

/**
 * The data transform of Algorithm 1, lines 1-3 (and Algorithm 3, lines 2-3 and 10-11, where
 * every client builds the same transform from the shared seed): x -&gt; W D x / s, with s the
 * largest input norm (so that every |x|^2 &lt;= 1, footnote 3), D a diagonal of i.i.d. +-1 signs
 * drawn from the seed and W the orthonormal {@link Hadamard} matrix of the input dimension padded
 * to a power of two. WD is orthogonal, so the transform keeps distances up to the factor 1/s and
 * leaves the optimal hyperplane unchanged; it only spreads every point evenly over the
 * coordinates (|(WDx)_j| = O(sqrt(log n / d)) with high probability), which makes the uniform
 * coordinate sampling of Algorithm 2 efficient.
 */
public final class Preprocessing {
  /** The salt of the sign stream: {@code Seeds.mix(seed, SIGN_SALT)}. */
  static final long SIGN_SALT = 0x5ADD1E0000000001L;

  private final int inputDimension;
  private final double scale;
  private final double[] signs;

  private Preprocessing(int inputDimension, double scale, double[] signs) {
    this.inputDimension = inputDimension;
    this.scale = scale;
    this.signs = signs;
  }

  /**
   * The transform for inputs of {@code inputDimension} features (indices 1..inputDimension)
   * whose largest Euclidean norm is {@code maxNorm}.
   *
   * @throws IllegalArgumentException if the dimension is &lt; 1 or maxNorm is not positive and finite
   */
  public static Preprocessing of(int inputDimension, double maxNorm, long seed) {
    if (inputDimension < 1) throw new IllegalArgumentException("input dimension must be >= 1, got " + inputDimension);
    if (!(maxNorm > 0) || !Double.isFinite(maxNorm)) {
      throw new IllegalArgumentException("the largest point norm must be positive and finite, got " + maxNorm
          + (maxNorm == 0 ? " (every point is zero)" : ""));
    }
    int d = Hadamard.paddedLength(inputDimension);
    SplittableRandom r = new SplittableRandom(Seeds.mix(seed, SIGN_SALT));
    double[] signs = new double[d];
    for (int j = 0; j < d; j++) signs[j] = r.nextBoolean() ? 1 : -1;
    return new Preprocessing(inputDimension, maxNorm, signs);
  }

  /** The largest Euclidean norm of the points: W D x / s has the same norm as x / s. */
  public static double maxNorm(SparseVector[] x) {
    double m = 0;
    for (SparseVector v : x) m = Math.max(m, v.squaredNorm());
    return Math.sqrt(m);
  }

  /** The largest feature index of the points (the input dimension). */
  public static int inputDimension(SparseVector[] x) {
    int d = 0;
    for (SparseVector v : x) d = Math.max(d, v.maxIndex());
    return d;
  }

  /** The transformed dimension d (a power of two). */
  public int dimension() {
    return signs.length;
  }

  public int inputDimension() {
    return inputDimension;
  }

  /** s: inputs are divided by it. */
  public double scale() {
    return scale;
  }

  /**
   * W D x / s as a dense vector of {@link #dimension()} entries.
   *
   * @throws IllegalArgumentException if x has a feature beyond the input dimension
   */
  public double[] apply(SparseVector x) {
    if (x.maxIndex() > inputDimension) {
      throw new IllegalArgumentException("feature " + x.maxIndex() + " is beyond the input dimension " + inputDimension);
    }
    double[] v = new double[signs.length];
    for (int k = 0; k < x.nnz(); k++) {
      int j = x.index(k) - 1;
      v[j] = signs[j] * x.value(k) / scale;
    }
    Hadamard.transform(v);
    return v;
  }

  /**
   * The input-space weights of a transformed-space vector w: since w^T (W D x / s) = ((W D)^T w / s)^T x,
   * they are D W w / s restricted to the input features (the padding coordinates of W D x are zero).
   */
  public double[] toInputSpace(double[] w) {
    if (w.length != signs.length) throw new IllegalArgumentException("w has " + w.length + " entries, not " + signs.length);
    double[] v = w.clone();
    Hadamard.transform(v);
    double[] out = new double[inputDimension];
    for (int j = 0; j < inputDimension; j++) out[j] = signs[j] * v[j] / scale;
    return out;
  }
}
