package org.sodm.kernel;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/** {@link RbfSums}'s Vector API path (loaded only when the module is present). */
final class RbfSumsVector {
  private RbfSumsVector() {}

  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;

  static double sum(double[] dots, double xn, double[] norms, double[] coef, int from, int to, double gamma) {
    double g = -gamma;
    DoubleVector acc = DoubleVector.zero(S);
    DoubleVector zero = DoubleVector.zero(S);
    int n = S.length();
    int j = from;
    for (int end = from + S.loopBound(to - from); j < end; j += n) {
      DoubleVector d2 = DoubleVector.fromArray(S, norms, j).add(xn).sub(DoubleVector.fromArray(S, dots, j).mul(2));
      DoubleVector k = d2.max(zero).mul(g).lanewise(VectorOperators.EXP);
      acc = k.fma(DoubleVector.fromArray(S, coef, j), acc);
    }
    double s = acc.reduceLanes(VectorOperators.ADD);
    for (; j < to; j++) {
      double d2 = xn + norms[j] - 2 * dots[j];
      s += coef[j] * Math.exp(g * (d2 > 0 ? d2 : 0));
    }
    return s;
  }

  /**
   * acc[r] += sum_{j in [c0, c1)} coef[j] exp(-gamma max(0, xn[r] + norms[j] - 2 x_r's_j)) for the rows
   * r < rows, the inner products from the feature-major dense support vectors ({@code dense[(f-1) m + j]})
   * accumulated in registers, four lane groups at a time (four independent FMA chains).
   */
  static void dense(double[] dense, int m, int dim, int[][] idx, double[][] val, int rows, double[] xn, double[] norms,
      double[] coef, int c0, int c1, double gamma, double[] acc) {
    double g = -gamma;
    int n = S.length();
    int n4 = 4 * n;
    int end4 = c0 + (c1 - c0) / n4 * n4;
    int end = c0 + S.loopBound(c1 - c0);
    DoubleVector zero = DoubleVector.zero(S);
    for (int r = 0; r < rows; r++) {
      int[] ia = idx[r];
      double[] va = val[r];
      int na = nnzWithin(ia, dim);
      double xa = xn[r];
      DoubleVector sa = zero;
      int j = c0;
      for (; j < end4; j += n4) {
        DoubleVector d0 = zero;
        DoubleVector d1 = zero;
        DoubleVector d2 = zero;
        DoubleVector d3 = zero;
        for (int p = 0; p < na; p++) {
          DoubleVector a = DoubleVector.broadcast(S, va[p]);
          int base = (ia[p] - 1) * m + j;
          d0 = DoubleVector.fromArray(S, dense, base).fma(a, d0);
          d1 = DoubleVector.fromArray(S, dense, base + n).fma(a, d1);
          d2 = DoubleVector.fromArray(S, dense, base + 2 * n).fma(a, d2);
          d3 = DoubleVector.fromArray(S, dense, base + 3 * n).fma(a, d3);
        }
        // the terms written out here, not in a helper taking and returning vectors: a helper C2 compiled on its own (it
        // does, as a hot method) may then not be inlined ("already compiled into a big method"), and out of line its
        // lanewise operations miss their intrinsics and run the Vector API's boxed fallback, 3-4x slower overall (seen
        // in a long-lived JVM: predict after other commands, bench/PROFILE.md)
        sa = DoubleVector.fromArray(S, norms, j).add(xa).sub(d0.mul(2)).max(zero).mul(g).lanewise(VectorOperators.EXP)
            .fma(DoubleVector.fromArray(S, coef, j), sa);
        sa = DoubleVector.fromArray(S, norms, j + n).add(xa).sub(d1.mul(2)).max(zero).mul(g).lanewise(VectorOperators.EXP)
            .fma(DoubleVector.fromArray(S, coef, j + n), sa);
        sa = DoubleVector.fromArray(S, norms, j + 2 * n).add(xa).sub(d2.mul(2)).max(zero).mul(g).lanewise(VectorOperators.EXP)
            .fma(DoubleVector.fromArray(S, coef, j + 2 * n), sa);
        sa = DoubleVector.fromArray(S, norms, j + 3 * n).add(xa).sub(d3.mul(2)).max(zero).mul(g).lanewise(VectorOperators.EXP)
            .fma(DoubleVector.fromArray(S, coef, j + 3 * n), sa);
      }
      for (; j < end; j += n) {
        DoubleVector d0 = zero;
        for (int p = 0; p < na; p++) {
          d0 = DoubleVector.fromArray(S, dense, (ia[p] - 1) * m + j).fma(DoubleVector.broadcast(S, va[p]), d0);
        }
        sa = DoubleVector.fromArray(S, norms, j).add(xa).sub(d0.mul(2)).max(zero).mul(g).lanewise(VectorOperators.EXP)
            .fma(DoubleVector.fromArray(S, coef, j), sa);
      }
      double ta = sa.reduceLanes(VectorOperators.ADD);
      for (; j < c1; j++) ta += coef[j] * Math.exp(g * Math.max(0, xa + norms[j] - 2 * dotAt(dense, m, j, ia, va, na)));
      acc[r] += ta;
    }
  }

  /** The number of leading indices that are <= dim. */
  private static int nnzWithin(int[] idx, int dim) {
    int k = idx.length;
    while (k > 0 && idx[k - 1] > dim) k--;
    return k;
  }

  private static double dotAt(double[] dense, int m, int j, int[] idx, double[] val, int nnz) {
    double d = 0;
    for (int p = 0; p < nnz; p++) d = Math.fma(val[p], dense[(idx[p] - 1) * m + j], d);
    return d;
  }
}
