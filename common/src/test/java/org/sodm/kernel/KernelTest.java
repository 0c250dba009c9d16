package org.sodm.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;

/** Every kernel path against the textbook formula computed on dense arrays. */
class KernelTest {
  private static double[] dense(Random r, int dim) {
    double[] d = new double[dim];
    for (int k = 0; k < dim; k++) if (r.nextDouble() < 0.6) d[k] = 4 * r.nextDouble() - 2;
    return d;
  }

  private static double dot(double[] a, double[] b) {
    double s = 0;
    for (int k = 0; k < a.length; k++) s += a[k] * b[k];
    return s;
  }

  private static double direct(KernelSpec s, double[] a, double[] b) {
    switch (s.type()) {
      case LINEAR: return dot(a, b);
      case RBF: {
        double d2 = 0;
        for (int k = 0; k < a.length; k++) d2 += (a[k] - b[k]) * (a[k] - b[k]);
        return Math.exp(-s.gamma() * d2);
      }
      case POLY: return Math.pow(s.gamma() * dot(a, b) + s.coef0(), s.degree());
      default: return Math.tanh(s.gamma() * dot(a, b) + s.coef0());
    }
  }

  @Test
  void allPathsMatchDirectFormulas() {
    Random r = new Random(1);
    KernelSpec[] specs = {KernelSpec.linear(), KernelSpec.rbf(0.3), KernelSpec.rbf(2),
        KernelSpec.poly(0.5, 1, 3), KernelSpec.poly(1, 0, 1), KernelSpec.sigmoid(0.1, -0.5)};
    int dim = 7;
    int n = 25;
    double[][] d = new double[n][];
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      d[i] = dense(r, dim);
      x[i] = SparseVector.ofDense(d[i]);
    }
    for (KernelSpec s : specs) {
      for (boolean aug : new boolean[] {false, true}) {
        Kernel k = aug ? new AugmentedKernel(s.create()) : s.create();
        double off = aug ? 1 : 0;
        assertTrue(k.dotBased());
        assertEquals(s, k.spec());
        assertEquals(s.type() == KernelSpec.Type.RBF, k.shiftInvariant());
        double[] col = new double[n];
        double[] col2 = new double[n];
        int[] which = {3, 0, 24, 7};
        double[] part = new double[which.length];
        for (int i = 0; i < n; i++) {
          k.column(x[i], x, col);
          k.column(x[i], x, which, which.length, part);
          for (int j = 0; j < n; j++) col2[j] = x[i].dot(x[j]);
          double[] norms = new double[n];
          for (int j = 0; j < n; j++) norms[j] = x[j].squaredNorm();
          k.fromDots(col2, x[i].squaredNorm(), norms, 0, n);
          double tol = 1e-12;
          assertEquals(direct(s, d[i], d[i]) + off, k.self(x[i]), tol * (1 + Math.abs(k.self(x[i]))), s.toString());
          for (int j = 0; j < n; j++) {
            double e = direct(s, d[i], d[j]) + off;
            double t = tol * (1 + Math.abs(e));
            assertEquals(e, k.eval(x[i], x[j]), t, s + " eval");
            assertEquals(e, col[j], t, s + " column");
            assertEquals(e, col2[j], t, s + " fromDots");
            assertEquals(e, k.fromDot(x[i].dot(x[j]), x[i].squaredNorm(), x[j].squaredNorm()), t, s + " fromDot");
            assertEquals(e, s.evalReference(x[i], x[j]) + off, t, s + " reference");
          }
          for (int t = 0; t < which.length; t++) {
            assertEquals(direct(s, d[i], d[which[t]]) + off, part[t], 1e-12 * (1 + Math.abs(part[t])), s + " which");
          }
        }
      }
    }
  }

  @Test
  void rbfIsOneOnTheDiagonalAndNeverAboveOne() {
    Kernel k = KernelSpec.rbf(5).create();
    SparseVector a = SparseVector.ofDense(1e8, 3);
    assertEquals(1.0, k.eval(a, a), 0);
    double[] out = new double[1];
    k.column(a, new SparseVector[] {a}, out);
    assertTrue(out[0] <= 1.0 && out[0] > 0.999);
    assertFalse(KernelSpec.linear().create().shiftInvariant());
  }

  /** Cholesky of G + 1e-9 I succeeds for a positive semi-definite G (up to rounding). */
  private static boolean cholesky(double[][] g) {
    int n = g.length;
    double[][] l = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j <= i; j++) {
        double s = g[i][j] + (i == j ? 1e-9 : 0);
        for (int k = 0; k < j; k++) s -= l[i][k] * l[j][k];
        if (i == j) {
          if (!(s > 0)) return false;
          l[i][i] = Math.sqrt(s);
        } else {
          l[i][j] = s / l[j][j];
        }
      }
    }
    return true;
  }

  /**
   * The kernels said to be positive semi-definite give Gram matrices that are (Cholesky of random points' Gram matrices); the
   * others are not (a point with k(z,z) &lt; 0 is a 1 x 1 Gram matrix with a negative eigenvalue), and their strata kernel is
   * the linear one.
   */
  @Test
  void positiveSemiDefinitenessAndTheStrataKernel() {
    Random r = new Random(9);
    SparseVector[] z = new SparseVector[25];
    for (int i = 0; i < z.length; i++) z[i] = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble(), r.nextDouble());
    for (KernelSpec psd : List.of(KernelSpec.linear(), KernelSpec.rbf(3), KernelSpec.poly(0.5, 1, 3), KernelSpec.poly(2, 0, 2))) {
      assertTrue(psd.positiveSemiDefinite(), psd.toString());
      assertSame(psd, psd.strataKernel());
      Kernel k = psd.create();
      double[][] g = new double[z.length][z.length];
      for (int i = 0; i < z.length; i++) for (int j = 0; j < z.length; j++) g[i][j] = k.eval(z[i], z[j]);
      assertTrue(cholesky(g), psd + ": a positive semi-definite Gram matrix");
    }
    SparseVector small = SparseVector.ofDense(0.3, 0.2, 0.1, 0.4);
    for (KernelSpec not : List.of(KernelSpec.sigmoid(0.1, -1), KernelSpec.poly(1, -1, 3))) {
      assertFalse(not.positiveSemiDefinite(), not.toString());
      assertTrue(not.create().eval(small, small) < 0, not + ": k(z,z) < 0");
      assertEquals(KernelSpec.linear(), not.strataKernel());
    }
    assertFalse(KernelSpec.sigmoid(0.5, 0).positiveSemiDefinite(), "sigmoid is not for any parameters");
  }
}
