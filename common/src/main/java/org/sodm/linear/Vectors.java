package org.sodm.linear;

import org.sodm.data.SparseVector;

/**
 * Dense weight vectors with the augmented bias feature: {@code w[f-1]} holds feature f
 * (1-based, as {@link SparseVector}) for f = 1..d, and {@code w[d]} the bias coordinate, whose
 * feature value is {@code bf} (1 with the bias, 0 without).
 */
public final class Vectors {
  private Vectors() {}

  /** x'w + bf * w[d] (features beyond the array are ignored: their weight is 0). */
  public static double dot(SparseVector x, double[] w, double bf) {
    int d = w.length - 1;
    double s = 0;
    int[] idx = x.indices();
    double[] val = x.values();
    for (int k = 0; k < idx.length; k++) {
      int i = idx[k] - 1;
      if (i < d) s += val[k] * w[i];
    }
    return s + bf * w[d];
  }

  /** w += a * (x, bf). */
  public static void axpy(double a, SparseVector x, double[] w, double bf) {
    int d = w.length - 1;
    int[] idx = x.indices();
    double[] val = x.values();
    for (int k = 0; k < idx.length; k++) {
      int i = idx[k] - 1;
      if (i >= d) throw new IllegalArgumentException("feature " + idx[k] + " is beyond the dimension " + d);
      w[i] += a * val[k];
    }
    w[d] += a * bf;
  }

  public static double dot(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) s += a[i] * b[i];
    return s;
  }

  public static double squaredNorm(double[] a) {
    return dot(a, a);
  }

  /** |x|^2 + bf^2. */
  public static double squaredNorm(SparseVector x, double bf) {
    return x.squaredNorm() + bf * bf;
  }

  /** The largest feature index of the vectors (the dimension d). */
  public static int dimension(SparseVector[] x) {
    int d = 0;
    for (SparseVector v : x) d = Math.max(d, v.maxIndex());
    return d;
  }
}
