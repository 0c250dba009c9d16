package org.sodm.data;

import java.util.Arrays;

/**
 * An immutable sparse feature vector: strictly ascending feature indices (1-based, as in
 * LIBSVM text) with their values, plus the cached squared Euclidean norm used by the RBF
 * kernel. Zero values may be present (they are kept as given) but never change a result.
 */
public final class SparseVector {
  private static final int[] NO_INDICES = new int[0];
  private static final double[] NO_VALUES = new double[0];
  public static final SparseVector EMPTY = new SparseVector(NO_INDICES, NO_VALUES);

  private final int[] indices;
  private final double[] values;
  private final double squaredNorm;

  /**
   * Wraps the arrays (not copied: callers hand over ownership).
   *
   * @throws IllegalArgumentException if lengths differ, an index is &lt;= 0, indices are not
   *     strictly ascending, or a value is not finite
   */
  public SparseVector(int[] indices, double[] values) {
    if (indices.length != values.length) {
      throw new IllegalArgumentException(
          "indices and values differ in length: " + indices.length + " vs " + values.length);
    }
    double s = 0;
    int prev = 0;
    for (int k = 0; k < indices.length; k++) {
      if (indices[k] <= prev) {
        throw new IllegalArgumentException(indices[k] <= 0
            ? "feature index " + indices[k] + " is not positive"
            : "feature index " + indices[k] + " does not ascend (after " + prev + ")");
      }
      if (!Double.isFinite(values[k])) {
        throw new IllegalArgumentException("feature " + indices[k] + " has non-finite value " + values[k]);
      }
      prev = indices[k];
      s += values[k] * values[k];
    }
    this.indices = indices;
    this.values = values;
    this.squaredNorm = s;
  }

  /** A dense vector (index i+1 for element i), zeros dropped. */
  public static SparseVector ofDense(double... dense) {
    int nnz = 0;
    for (double v : dense) {
      if (v != 0) nnz++;
    }
    int[] idx = new int[nnz];
    double[] val = new double[nnz];
    for (int i = 0, k = 0; i < dense.length; i++) {
      if (dense[i] != 0) {
        idx[k] = i + 1;
        val[k++] = dense[i];
      }
    }
    return new SparseVector(idx, val);
  }

  public int nnz() {
    return indices.length;
  }

  /** Largest feature index present, 0 when empty. */
  public int maxIndex() {
    return indices.length == 0 ? 0 : indices[indices.length - 1];
  }

  public int index(int k) {
    return indices[k];
  }

  public double value(int k) {
    return values[k];
  }

  /** The backing index array; callers must not modify it. */
  public int[] indices() {
    return indices;
  }

  /** The backing value array; callers must not modify it. */
  public double[] values() {
    return values;
  }

  public double squaredNorm() {
    return squaredNorm;
  }

  /** Value of feature {@code index} (1-based), 0 if absent. */
  public double get(int index) {
    int k = Arrays.binarySearch(indices, index);
    return k >= 0 ? values[k] : 0.0;
  }

  /** Inner product by merging the two index lists. */
  public double dot(SparseVector o) {
    int[] ai = indices;
    int[] bi = o.indices;
    double[] av = values;
    double[] bv = o.values;
    int i = 0;
    int j = 0;
    double s = 0;
    while (i < ai.length && j < bi.length) {
      int a = ai[i];
      int b = bi[j];
      if (a == b) {
        s += av[i++] * bv[j++];
      } else if (a < b) {
        i++;
      } else {
        j++;
      }
    }
    return s;
  }

  /**
   * The vectors as the columns of a feature-major dense matrix, {@code out[(f - 1) rows.length + j]} = feature f of
   * {@code rows[j]}, for features {@code f <= dim} (the matrix {@link #dotColumns} reads).
   */
  public static double[] featureMajor(SparseVector[] rows, int dim) {
    int m = rows.length;
    double[] out = new double[dim * m];
    for (int j = 0; j < m; j++) {
      int[] idx = rows[j].indices;
      double[] val = rows[j].values;
      for (int t = 0; t < idx.length && idx[t] <= dim; t++) out[(idx[t] - 1) * m + j] = val[t];
    }
    return out;
  }

  /**
   * The inner products with the columns of a feature-major dense matrix, {@code dense[(f - 1) stride + j]} for features
   * {@code f <= dim}: {@code out[j] = sum_f value_f dense[(f - 1) stride + j]} for {@code j in [from, to)}, overwriting
   * {@code out[from, to)}. The terms are added in this vector's feature order, as {@link #dot(SparseVector)} adds the
   * common features (the matrix's zeros add nothing), so a column holding a vector {@code v} gives {@code dot(v)}.
   */
  public void dotColumns(double[] dense, int stride, int dim, double[] out, int from, int to) {
    java.util.Arrays.fill(out, from, to, 0.0);
    for (int t = 0; t < indices.length && indices[t] <= dim; t++) {
      double a = values[t];
      int base = (indices[t] - 1) * stride;
      for (int j = from; j < to; j++) out[j] += a * dense[base + j];
    }
  }

  /** Inner product with a dense array where element i holds feature i+1. */
  public double dot(double[] dense) {
    double s = 0;
    for (int k = 0; k < indices.length; k++) {
      int i = indices[k] - 1;
      if (i < dense.length) s += values[k] * dense[i];
    }
    return s;
  }

  /** ||this - o||^2, never negative. */
  public double squaredDistance(SparseVector o) {
    return Math.max(0.0, squaredNorm + o.squaredNorm - 2 * dot(o));
  }

  /** Dense copy of length {@code dim} (features beyond dim are dropped). */
  public double[] toDense(int dim) {
    double[] d = new double[dim];
    for (int k = 0; k < indices.length && indices[k] <= dim; k++) {
      d[indices[k] - 1] = values[k];
    }
    return d;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SparseVector v
        && Arrays.equals(indices, v.indices)
        && Arrays.equals(values, v.values);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(indices) + Arrays.hashCode(values);
  }

  /** LIBSVM text form: {@code i:v i:v ...}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < indices.length; k++) {
      if (k > 0) sb.append(' ');
      sb.append(indices[k]).append(':').append(values[k]);
    }
    return sb.toString();
  }
}
