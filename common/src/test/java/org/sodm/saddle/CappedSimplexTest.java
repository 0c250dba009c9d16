package org.sodm.saddle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CappedSimplexTest {
  /**
   * The KL projection of v (positive, summing to 1) onto {sum = 1, 0 <= u <= cap} by exhaustive
   * active sets: for every set S of capped entries, u_S = cap and the rest proportional to v with
   * the remaining mass; among the feasible candidates the one of least KL(u || v). The minimiser is
   * one of them (its KKT conditions make the uncapped entries proportional to v).
   */
  static double[] bruteForce(double[] v, double cap) {
    int n = v.length;
    double best = Double.POSITIVE_INFINITY;
    double[] arg = null;
    for (int mask = 0; mask < 1 << n; mask++) {
      int capped = Integer.bitCount(mask);
      double rest = 1 - capped * cap;
      double free = 0;
      for (int i = 0; i < n; i++) if ((mask & 1 << i) == 0) free += v[i];
      if (rest < -1e-15 || (free == 0) != (Math.abs(rest) < 1e-15)) continue;
      double[] u = new double[n];
      boolean ok = true;
      for (int i = 0; i < n; i++) {
        u[i] = (mask & 1 << i) != 0 ? cap : free == 0 ? 0 : v[i] * rest / free;
        if (u[i] > cap * (1 + 1e-12)) ok = false;
      }
      if (!ok) continue;
      double kl = 0;
      for (int i = 0; i < n; i++) if (u[i] > 0) kl += u[i] * Math.log(u[i] / v[i]);
      if (kl < best) {
        best = kl;
        arg = u;
      }
    }
    return arg;
  }

  private static double[] randomDistribution(Random r, int n, double spread) {
    double[] v = new double[n];
    double s = 0;
    for (int i = 0; i < n; i++) {
      v[i] = Math.exp(spread * r.nextGaussian());
      s += v[i];
    }
    for (int i = 0; i < n; i++) v[i] /= s;
    return v;
  }

  private static double[] logs(double[] v) {
    double[] l = new double[v.length];
    for (int i = 0; i < v.length; i++) l[i] = Math.log(v[i]);
    return l;
  }

  @Test
  void bothRulesEqualTheBruteForceProjection() {
    Random r = new Random(11);
    int projected = 0;
    for (int trial = 0; trial < 400; trial++) {
      int n = 2 + r.nextInt(11);
      double[] v = randomDistribution(r, n, 0.5 + 2 * r.nextDouble());
      double cap = (1.0 / n) * (1 + 3 * r.nextDouble());
      double[] expected = bruteForce(v, cap);
      double[] it = v.clone();
      double[] itLog = logs(v);
      int passes = CappedSimplex.projectIterative(it, itLog, cap);
      double[] so = v.clone();
      double[] soLog = logs(v);
      CappedSimplex.projectBySorting(so, soLog, cap);
      if (passes > 0) projected++;
      for (int i = 0; i < n; i++) {
        String where = "trial " + trial + " n " + n + " cap " + cap + " entry " + i + " v " + Arrays.toString(v);
        assertEquals(expected[i], it[i], 1e-12, "iterative: " + where);
        assertEquals(expected[i], so[i], 1e-12, "sorting: " + where);
        assertEquals(Math.log(it[i]), itLog[i], 1e-9, "iterative log: " + where);
        assertEquals(Math.log(so[i]), soLog[i], 1e-9, "sorting log: " + where);
        assertTrue(it[i] <= cap && so[i] <= cap);
      }
      assertEquals(1, Arrays.stream(it).sum(), 1e-12);
    }
    assertTrue(projected > 200, "most cases need a projection: " + projected);
  }

  @Test
  void rulesAgreeOnLargeVectors() {
    Random r = new Random(12);
    for (int trial = 0; trial < 20; trial++) {
      int n = 1000 + r.nextInt(1000);
      double[] v = randomDistribution(r, n, 3);
      double cap = 1 / (0.85 * n);
      double[] it = v.clone();
      double[] itLog = logs(v);
      CappedSimplex.projectIterative(it, itLog, cap);
      double[] so = v.clone();
      double[] soLog = logs(v);
      CappedSimplex.projectBySorting(so, soLog, cap);
      for (int i = 0; i < n; i++) {
        assertEquals(so[i], it[i], 1e-15);
        assertEquals(soLog[i], itLog[i], 1e-9);
      }
    }
  }

  @Test
  void underflowedWeightsKeepTheirLogarithms() {
    // a weight of exp(-800) is 0 in double, its log is not: the rules scale the log
    double[] v = {0.7, 0.3, 0};
    double[] l = {Math.log(0.7), Math.log(0.3), -800};
    CappedSimplex.projectIterative(v, l, 0.5);
    assertEquals(0.5, v[0], 0);
    assertEquals(0.5, v[1], 1e-15);
    assertEquals(-800 + Math.log(0.5 / 0.3), l[2], 1e-12);
  }

  @Test
  void fillCountAndExtremeLinearMatchEnumeration() {
    Random r = new Random(13);
    assertEquals(1, CappedSimplex.fillCount(1));
    assertEquals(10, CappedSimplex.fillCount(0.1));
    assertEquals(3, CappedSimplex.fillCount(0.4));
    for (int trial = 0; trial < 200; trial++) {
      int n = 2 + r.nextInt(8);
      double cap = (1.0 / n) * (1 + 2 * r.nextDouble());
      double[] p = new double[n];
      for (int i = 0; i < n; i++) p[i] = r.nextGaussian();
      // min over the vertices of the capped simplex: every entry 0 or cap but at most one in between
      double best = Double.POSITIVE_INFINITY;
      for (int mask = 0; mask < 1 << n; mask++) {
        int c = Integer.bitCount(mask);
        double rest = 1 - c * cap;
        if (rest < -1e-12) continue;
        double base = 0;
        for (int i = 0; i < n; i++) if ((mask & 1 << i) != 0) base += cap * p[i];
        if (Math.abs(rest) < 1e-12) best = Math.min(best, base);
        for (int i = 0; i < n; i++) {
          if ((mask & 1 << i) == 0 && rest <= cap) best = Math.min(best, base + rest * p[i]);
        }
      }
      double[] sorted = p.clone();
      Arrays.sort(sorted);
      assertEquals(best, CappedSimplex.extremeLinear(sorted, cap), 1e-12, "trial " + trial);
    }
  }
}
