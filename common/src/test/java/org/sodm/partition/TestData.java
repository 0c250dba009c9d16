package org.sodm.partition;

import java.util.Random;
import org.sodm.data.SparseVector;

final class TestData {
  private TestData() {}

  /** n dense-ish random points in dim dimensions (some zeros to exercise sparsity). */
  static SparseVector[] random(int n, int dim, long seed) {
    Random r = new Random(seed);
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      double[] d = new double[dim];
      for (int f = 0; f < dim; f++) d[f] = r.nextDouble() < 0.2 ? 0 : r.nextGaussian();
      x[i] = SparseVector.ofDense(d);
    }
    return x;
  }

  /** n points around c well separated centres in dim dimensions; label of blob b is (b odd ? 1 : -1). */
  static SparseVector[] blobs(int n, int c, int dim, double spread, long seed, double[] yOut, int[] blobOut) {
    Random r = new Random(seed);
    double[][] centre = new double[c][dim];
    for (int b = 0; b < c; b++) for (int f = 0; f < dim; f++) centre[b][f] = 10 * r.nextGaussian();
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      int b = i % c;
      double[] d = new double[dim];
      for (int f = 0; f < dim; f++) d[f] = centre[b][f] + spread * r.nextGaussian();
      x[i] = SparseVector.ofDense(d);
      if (yOut != null) yOut[i] = (b % 2 == 1) ? 1 : -1;
      if (blobOut != null) blobOut[i] = b;
    }
    return x;
  }

  /** Determinant by Gaussian elimination with partial pivoting (independent of the Cholesky code). */
  static double det(double[][] a0) {
    int n = a0.length;
    double[][] a = new double[n][];
    for (int i = 0; i < n; i++) a[i] = a0[i].clone();
    double det = 1;
    for (int c = 0; c < n; c++) {
      int p = c;
      for (int r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
      if (a[p][c] == 0) return 0;
      if (p != c) {
        double[] t = a[p];
        a[p] = a[c];
        a[c] = t;
        det = -det;
      }
      det *= a[c][c];
      for (int r = c + 1; r < n; r++) {
        double f = a[r][c] / a[c][c];
        for (int q = c; q < n; q++) a[r][q] -= f * a[c][q];
      }
    }
    return det;
  }
}
