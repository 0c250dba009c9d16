package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Platt's fit and Wu-Lin-Weng coupling against independent solutions of the same problems. */
class PlattCouplingTest {

  /** Negative log-likelihood with Platt's targets, written with softplus (not Platt.objective's case split). */
  private static double nll(double[] f, double[] y, double a, double b) {
    double np = 0, nn = 0;
    for (double v : y) if (v > 0) np++; else nn++;
    double hi = (np + 1) / (np + 2), lo = 1 / (nn + 2);
    double s = 0;
    for (int i = 0; i < f.length; i++) {
      double t = y[i] > 0 ? hi : lo;
      double z = a * f[i] + b; // p = 1 / (1 + e^z): -log p = softplus(z), -log(1 - p) = softplus(-z)
      s += t * softplus(z) + (1 - t) * softplus(-z);
    }
    return s;
  }

  private static double softplus(double z) {
    return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
  }

  /** Minimum over B for fixed A by golden-section search, then over A by golden-section search (the NLL is convex). */
  private static double[] goldenFit(double[] f, double[] y) {
    double lo = -50, hi = 50;
    double g = (Math.sqrt(5) - 1) / 2;
    for (int it = 0; it < 90; it++) {
      double a1 = hi - g * (hi - lo), a2 = lo + g * (hi - lo);
      if (bestB(f, y, a1)[1] < bestB(f, y, a2)[1]) hi = a2;
      else lo = a1;
    }
    double a = (lo + hi) / 2;
    return new double[] {a, bestB(f, y, a)[0]};
  }

  private static double[] bestB(double[] f, double[] y, double a) {
    double lo = -50, hi = 50;
    double g = (Math.sqrt(5) - 1) / 2;
    for (int it = 0; it < 90; it++) {
      double b1 = hi - g * (hi - lo), b2 = lo + g * (hi - lo);
      if (nll(f, y, a, b1) < nll(f, y, a, b2)) hi = b2;
      else lo = b1;
    }
    double b = (lo + hi) / 2;
    return new double[] {b, nll(f, y, a, b)};
  }

  @Test
  void plattMatchesAnIndependentGoldenSectionFit() {
    Random r = new Random(3);
    for (int trial = 0; trial < 4; trial++) {
      int n = 200 + 100 * trial;
      double[] f = new double[n];
      double[] y = new double[n];
      for (int i = 0; i < n; i++) {
        y[i] = r.nextDouble() < 0.4 ? 1 : -1;
        f[i] = y[i] * (0.5 + trial * 0.3) + r.nextGaussian(); // overlapping classes: a finite optimum
      }
      Platt p = Platt.fit(f, y);
      double[] ref = goldenFit(f, y);
      assertEquals(ref[0], p.a(), 1e-6, "A, trial " + trial);
      assertEquals(ref[1], p.b(), 1e-6, "B, trial " + trial);
      assertTrue(p.a() < 0, "larger f means +1: A < 0");
      // the gradient of the likelihood vanishes at the fit
      double h = 1e-6;
      assertEquals(0, (nll(f, y, p.a() + h, p.b()) - nll(f, y, p.a() - h, p.b())) / (2 * h), 1e-4);
    }
  }

  @Test
  void aDecisionThatIsNotFiniteIsRefused() {
    double[] y = {1, -1, 1, -1};
    for (double bad : new double[] {Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY}) {
      double[] f = {0.5, -0.7, bad, -0.2};
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Platt.fit(f, y));
      assertTrue(e.getMessage().contains("decision value 2 is " + bad + ", not finite"), e.getMessage());
    }
  }

  @Test
  void plattIsStableForLargeDecisionValues() {
    double[] f = {-800, -700, 650, 900, 10, -12};
    double[] y = {-1, -1, 1, 1, 1, -1};
    Platt p = Platt.fit(f, y);
    assertTrue(Double.isFinite(p.a()) && Double.isFinite(p.b()));
    assertEquals(1.0, p.probability(1e6), 1e-12);
    assertEquals(0.0, p.probability(-1e6), 1e-12);
    double[] ref = goldenFit(f, y);
    assertEquals(nll(f, y, ref[0], ref[1]), nll(f, y, p.a(), p.b()), 1e-6, "likelihood as good as the grid's");
  }

  /** min p'Qp s.t. sum p = 1 from the KKT system [Q e; e' 0][p; b] = [0; 1], by Gaussian elimination with pivoting. */
  private static double[] direct(double[][] r) {
    int k = r.length;
    double[][] m = new double[k + 1][k + 2];
    for (int t = 0; t < k; t++) {
      for (int j = 0; j < k; j++) {
        if (t == j) {
          for (int s = 0; s < k; s++) if (s != t) m[t][t] += r[s][t] * r[s][t];
        } else {
          m[t][j] = -r[j][t] * r[t][j];
        }
      }
      m[t][k] = 1;
      m[k][t] = 1;
    }
    m[k][k + 1] = 1;
    int n = k + 1;
    for (int c = 0; c < n; c++) {
      int piv = c;
      for (int i = c + 1; i < n; i++) if (Math.abs(m[i][c]) > Math.abs(m[piv][c])) piv = i;
      double[] tmp = m[c];
      m[c] = m[piv];
      m[piv] = tmp;
      for (int i = 0; i < n; i++) {
        if (i == c) continue;
        double q = m[i][c] / m[c][c];
        for (int j = c; j <= n; j++) m[i][j] -= q * m[c][j];
      }
    }
    double[] p = new double[k];
    for (int t = 0; t < k; t++) p[t] = m[t][n] / m[t][t];
    return p;
  }

  @Test
  void couplingMatchesTheDirectSolution() {
    Random rnd = new Random(11);
    for (int trial = 0; trial < 50; trial++) {
      int k = 3 + trial % 8;
      double[][] r = new double[k][k];
      for (int i = 0; i < k; i++) {
        for (int j = i + 1; j < k; j++) {
          r[i][j] = 0.02 + 0.96 * rnd.nextDouble();
          r[j][i] = 1 - r[i][j];
        }
      }
      double[] p = Coupling.probabilities(r);
      double[] q = direct(r);
      double sum = 0;
      for (int t = 0; t < k; t++) {
        assertEquals(q[t], p[t], 1e-9, "trial " + trial + " class " + t);
        assertTrue(p[t] >= 0);
        sum += p[t];
      }
      assertEquals(1, sum, 1e-12);
    }
  }

  @Test
  void consistentPairwiseProbabilitiesAreRecovered() {
    double[] truth = {0.5, 0.3, 0.15, 0.05};
    double[][] r = new double[4][4];
    for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) if (i != j) r[i][j] = truth[i] / (truth[i] + truth[j]);
    double[] p = Coupling.probabilities(r);
    for (int t = 0; t < 4; t++) assertEquals(truth[t], p[t], 1e-10);
  }
}
