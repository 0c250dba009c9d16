package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OdmProblemTest {
  /**
   * The greedy loop's argmax of the ODM violations, written as seed 000's projected gradient with branches: zeta's gradient
   * q + m c_i v zeta + theta - 1, beta's -q + m c_i beta + theta + 1, each violation -g at 0 and |g| above it, the larger of
   * the two, the first position with the largest.
   */
  private static int reference(double[] alpha, double[] qg, double[] y, double mcPos, double mcNeg, double v, double theta,
      int to, double[] best) {
    int bp = -1;
    double bv = 0;
    for (int i = 0; i < to; i++) {
      double z = alpha[2 * i];
      double b = alpha[2 * i + 1];
      double mcb = y[i] > 0 ? mcPos : mcNeg;
      double gz = qg[i] + mcb * v * z + (theta - 1);
      double gb = -qg[i] + mcb * b + (theta + 1);
      double vz = z <= 0 ? -gz : Math.abs(gz);
      double vb = b <= 0 ? -gb : Math.abs(gb);
      double vv = vz > vb ? vz : vb;
      if (vv > bv) {
        bv = vv;
        bp = i;
      }
    }
    best[0] = bv;
    return bp;
  }

  /**
   * argmaxViolation and the fused applyArgmax (the greedy loop's hot path) give the reference's position and value bit for
   * bit, and applyArgmax's gradient is q + delta col: class weights (two diagonals), variables at 0 (also -0.0 from a warm
   * start) and above it, gradients on both sides of the band, ties at the maximum (the first wins, also after the step), no
   * violation at all (-1), a range shorter than the arrays.
   */
  @Test
  void argmaxIsTheProjectedGradientsArgmax() {
    Random r = new Random(5);
    double theta = 0.3;
    double mu = 0.7;
    int m = 50;
    for (double[] w : new double[][] {{1, 1}, {2.5, 0.4}}) {
      Loss loss = Loss.of("odm", 1, 40, theta, mu, false, w[0], w[1]);
      double[] y = new double[m];
      for (int i = 0; i < m; i++) y[i] = r.nextBoolean() ? 1 : -1;
      DualProblem p = loss.dual(y, m);
      // m c_i as OdmProblem defines it: (1 - theta)^2 m / (lambda_i v)
      double om = (1 - theta) * (1 - theta);
      double mcPos = m * om / (40 * w[0] * mu);
      double mcNeg = m * om / (40 * w[1] * mu);
      for (int round = 0; round < 300; round++) {
        double[] alpha = new double[2 * m];
        double[] qg = new double[m];
        for (int i = 0; i < m; i++) {
          int kind = round % 9 == 0 ? 0 : r.nextInt(4);
          if (kind == 1) alpha[2 * i] = r.nextDouble();
          if (kind == 2) alpha[2 * i + 1] = r.nextDouble() * 1e-3;
          if (kind == 3) alpha[2 * i] = -0.0;
          qg[i] = round % 9 == 0 ? 1 : 1 - 1.5 * theta + 3 * theta * r.nextDouble() + (r.nextBoolean() ? r.nextGaussian() : 0);
        }
        if (round % 3 == 1) { // ties at the maximum: row 7 far outside the band, copied to 20 and 40
          qg[7] = 50 * (r.nextBoolean() ? 1 : -1);
          for (int j : new int[] {20, 40}) {
            alpha[2 * j] = alpha[14];
            alpha[2 * j + 1] = alpha[15];
            qg[j] = qg[7];
            y[j] = y[7];
          }
        }
        int to = round % 4 == 3 ? 37 : m;
        double[] want = new double[1];
        int wp = reference(alpha, qg, y, mcPos, mcNeg, mu, theta, to, want);
        if (round % 3 == 1) assertEquals(7, wp, "the first of the tied rows");
        double[] got = new double[1];
        assertEquals(wp, p.argmaxViolation(alpha, qg, to, got), "argmaxViolation, round " + round);
        assertEquals(Double.doubleToLongBits(want[0]), Double.doubleToLongBits(got[0]), "round " + round);
        if (round % 9 == 0) assertEquals(-1, wp, "every variable at 0 and every row inside the band: no violation");

        float[] col = new float[m];
        for (int i = 0; i < m; i++) col[i] = (float) r.nextGaussian();
        if (round % 3 == 1) col[20] = col[40] = col[7]; // still tied after the step
        double delta = r.nextGaussian() * 0.1;
        double[] moved = qg.clone();
        for (int i = 0; i < to; i++) moved[i] = qg[i] + delta * col[i];
        wp = reference(alpha, moved, y, mcPos, mcNeg, mu, theta, to, want);
        double[] qg2 = qg.clone();
        assertEquals(wp, p.applyArgmax(alpha, qg2, delta, col, to, got), "applyArgmax, round " + round);
        assertEquals(Double.doubleToLongBits(want[0]), Double.doubleToLongBits(got[0]), "round " + round);
        assertArrayEquals(moved, qg2, "q + delta col, round " + round);
        if (round % 3 == 1) assertEquals(7, wp, "the first of the tied rows after the step");
      }
      assertTrue(Arrays.stream(y).anyMatch(v -> v < 0) && Arrays.stream(y).anyMatch(v -> v > 0));
    }
  }
}
