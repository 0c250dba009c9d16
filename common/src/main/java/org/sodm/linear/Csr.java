package org.sodm.linear;

import org.sodm.data.SparseVector;

/**
 * Rows of a block in compressed sparse row form: the indices (0-based: feature f at f - 1) and values of row i are at
 * positions {@code from[i]} to {@code to[i]} of two flat arrays, with each row's squared norm. A {@link #subset} is a view
 * sharing those arrays (the sub-problems of one block - class pairs, cross-validation folds - hold the rows once). The coordinate-descent
 * passes stream these arrays in row order instead of chasing one object and two arrays per row; the arithmetic (and so
 * every result) is the same as over the {@link SparseVector}s, term by term.
 */
public final class Csr {
  final int[] from;
  final int[] to;
  final int[] index;
  final double[] value;
  final double[] squaredNorm;

  private Csr(int[] from, int[] to, int[] index, double[] value, double[] squaredNorm) {
    this.from = from;
    this.to = to;
    this.index = index;
    this.value = value;
    this.squaredNorm = squaredNorm;
  }

  public static Csr of(SparseVector[] x) {
    int n = x.length;
    int[] start = new int[n + 1];
    long nnz = 0;
    for (int i = 0; i < n; i++) {
      nnz += x[i].indices().length;
      if (nnz > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("a block holds more than 2^31 stored values; use more blocks");
      start[i + 1] = (int) nnz;
    }
    int[] index = new int[(int) nnz];
    double[] value = new double[(int) nnz];
    double[] sq = new double[n];
    for (int i = 0; i < n; i++) {
      int[] idx = x[i].indices();
      double[] val = x[i].values();
      int s = start[i];
      for (int k = 0; k < idx.length; k++) index[s + k] = idx[k] - 1;
      System.arraycopy(val, 0, value, s, val.length);
      sq[i] = x[i].squaredNorm();
    }
    return new Csr(java.util.Arrays.copyOf(start, n), java.util.Arrays.copyOfRange(start, 1, n + 1), index, value, sq);
  }

  /** The rows {@code rows[0]}, {@code rows[1]}, ... of this block, in that order, as a view sharing its stored values. */
  public Csr subset(int[] rows) {
    int m = rows.length;
    int[] f = new int[m];
    int[] t = new int[m];
    double[] sq = new double[m];
    for (int j = 0; j < m; j++) {
      int i = rows[j];
      f[j] = from[i];
      t[j] = to[i];
      sq[j] = squaredNorm[i];
    }
    return new Csr(f, t, index, value, sq);
  }

  public int rows() {
    return squaredNorm.length;
  }

  /** As {@link Vectors#dot(SparseVector, double[], double)} of row i. */
  double dot(int i, double[] w, double bf) {
    int d = w.length - 1;
    double s = 0;
    for (int k = from[i], e = to[i]; k < e; k++) {
      int f = index[k];
      if (f < d) s += value[k] * w[f];
    }
    return s + bf * w[d];
  }

  /** As {@link Vectors#axpy(double, SparseVector, double[], double)} of row i. */
  void axpy(double a, int i, double[] w, double bf) {
    int d = w.length - 1;
    for (int k = from[i], e = to[i]; k < e; k++) {
      int f = index[k];
      if (f >= d) throw new IllegalArgumentException("feature " + (f + 1) + " is beyond the dimension " + d);
      w[f] += a * value[k];
    }
    w[d] += a * bf;
  }
}
