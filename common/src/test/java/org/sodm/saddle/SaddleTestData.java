package org.sodm.saddle;

import java.util.Random;
import org.sodm.data.SparseVector;

/** Data the saddle tests generate. */
final class SaddleTestData {
  private SaddleTestData() {}

  /** Rows and +-1 labels. */
  record Set(SparseVector[] x, double[] y) {}

  /**
   * Separable data as in the paper's Appendix D: points in the unit ball at distance &gt;= gap / 2
   * from a random hyperplane through the ball, labelled by its side (so the hulls are at least gap
   * apart).
   */
  static Set separable(Random r, int n, int d, double gap) {
    double[] u = unit(r, d);
    double c = 0.2 * (r.nextDouble() - 0.5);
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    for (int i = 0; i < n; ) {
      double[] p = inBall(r, d);
      double t = dot(u, p) - c;
      if (Math.abs(t) < gap / 2) continue;
      x[i] = SparseVector.ofDense(p);
      y[i] = t > 0 ? 1 : -1;
      i++;
    }
    ensureBothClasses(y);
    return new Set(x, y);
  }

  /** Two overlapping Gaussian classes (means +-shift e_1, unit variance): not separable for n large. */
  static Set overlapping(Random r, int n, int d, double shift) {
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      y[i] = i % 2 == 0 ? 1 : -1;
      double[] p = new double[d];
      for (int j = 0; j < d; j++) p[j] = r.nextGaussian();
      p[0] += y[i] * shift;
      x[i] = SparseVector.ofDense(p);
    }
    return new Set(x, y);
  }

  static double[] unit(Random r, int d) {
    double[] u = new double[d];
    double s = 0;
    for (int j = 0; j < d; j++) {
      u[j] = r.nextGaussian();
      s += u[j] * u[j];
    }
    s = Math.sqrt(s);
    for (int j = 0; j < d; j++) u[j] /= s;
    return u;
  }

  static double[] inBall(Random r, int d) {
    double[] p = unit(r, d);
    double rad = Math.pow(r.nextDouble(), 1.0 / d);
    for (int j = 0; j < d; j++) p[j] *= rad;
    return p;
  }

  static double dot(double[] a, double[] b) {
    double s = 0;
    for (int j = 0; j < a.length; j++) s += a[j] * b[j];
    return s;
  }

  private static void ensureBothClasses(double[] y) {
    boolean pos = false;
    boolean neg = false;
    for (double v : y) {
      pos |= v > 0;
      neg |= v < 0;
    }
    if (!pos || !neg) throw new IllegalStateException("generated one class only; change the seed");
  }
}
