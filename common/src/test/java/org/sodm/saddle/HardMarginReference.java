package org.sodm.saddle;

/**
 * Independent hard-margin references for the tests, on raw points: the primal QP (1) by
 * enumerating active sets (tiny sets), and Gilbert's algorithm for the distance between the hulls.
 */
final class HardMarginReference {
  private HardMarginReference() {}

  /** A hard-margin solution of (1): y_i (w.x_i - b) &gt;= 1, |w| least; the hull distance is 2 / |w|. */
  record Qp(double[] w, double b) {
    double distance() {
      return 2 / Math.sqrt(SaddleTestData.dot(w, w));
    }
  }

  /**
   * (1) by exhaustive active sets: for every set S of at most d + 1 constraints held with equality,
   * the equality-constrained QP's KKT system (w = sum_S lambda_j y_j x_j, sum_S lambda_j y_j = 0,
   * y_i (w.x_i - b) = 1 on S); among the solutions feasible for every constraint, the least |w|.
   * The optimum is one of them (its own active set gives it), and every other is feasible, so no
   * smaller.
   */
  static Qp bruteForce(double[][] x, double[] y) {
    int n = x.length;
    int d = x[0].length;
    Qp best = null;
    double bestNorm = Double.POSITIVE_INFINITY;
    for (int mask = 1; mask < 1 << n; mask++) {
      int m = Integer.bitCount(mask);
      if (m > d + 1) continue;
      int[] s = new int[m];
      for (int i = 0, k = 0; i < n; i++) if ((mask & 1 << i) != 0) s[k++] = i;
      double[][] a = new double[m + 1][m + 2];
      for (int r = 0; r < m; r++) {
        int i = s[r];
        for (int c = 0; c < m; c++) a[r][c] = y[s[c]] * y[i] * SaddleTestData.dot(x[s[c]], x[i]);
        a[r][m] = -y[i];
        a[r][m + 1] = 1;
      }
      for (int c = 0; c < m; c++) a[m][c] = y[s[c]];
      double[] sol = gauss(a);
      if (sol == null) continue;
      double[] w = new double[d];
      for (int c = 0; c < m; c++) for (int j = 0; j < d; j++) w[j] += sol[c] * y[s[c]] * x[s[c]][j];
      double b = sol[m];
      boolean feasible = true;
      for (int i = 0; i < n && feasible; i++) feasible = y[i] * (SaddleTestData.dot(w, x[i]) - b) >= 1 - 1e-9;
      double norm = SaddleTestData.dot(w, w);
      if (feasible && norm < bestNorm) {
        bestNorm = norm;
        best = new Qp(w, b);
      }
    }
    return best;
  }

  /** Gaussian elimination with partial pivoting on the augmented matrix; null when singular. */
  private static double[] gauss(double[][] a) {
    int n = a.length;
    for (int c = 0; c < n; c++) {
      int p = c;
      for (int r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
      if (Math.abs(a[p][c]) < 1e-12) return null;
      double[] t = a[p];
      a[p] = a[c];
      a[c] = t;
      for (int r = c + 1; r < n; r++) {
        double f = a[r][c] / a[c][c];
        for (int k = c; k <= n; k++) a[r][k] -= f * a[c][k];
      }
    }
    double[] x = new double[n];
    for (int r = n - 1; r >= 0; r--) {
      double s = a[r][n];
      for (int k = r + 1; k < n; k++) s -= a[r][k] * x[k];
      x[r] = s / a[r][r];
    }
    return x;
  }

  /** Gilbert's bounds on the hull distance: [lower, upper]. */
  record Interval(double lower, double upper, long iterations) {}

  /**
   * Gilbert's algorithm (1966) for the point of least norm of conv(P) - conv(Q): z moves towards the
   * vertex s = argmin_p &lt;z, p&gt; - argmax_q &lt;z, q&gt; with the exact line search, until the
   * relative gap (|z|^2 - &lt;z, s&gt;) / |z|^2 is at most {@code tol}. |z| bounds the distance
   * from above, &lt;z, s&gt; / |z| from below.
   */
  static Interval gilbert(double[][] x, double[] y, double tol, long maxIterations) {
    int d = x[0].length;
    double[] p = null;
    double[] q = null;
    for (int i = 0; i < x.length; i++) {
      if (y[i] > 0 && p == null) p = x[i].clone();
      if (y[i] < 0 && q == null) q = x[i].clone();
    }
    double[] z = new double[d];
    for (int j = 0; j < d; j++) z[j] = p[j] - q[j];
    for (long it = 0; ; it++) {
      int ip = -1;
      int iq = -1;
      for (int i = 0; i < x.length; i++) {
        double v = SaddleTestData.dot(z, x[i]);
        if (y[i] > 0 && (ip < 0 || v < SaddleTestData.dot(z, x[ip]))) ip = i;
        if (y[i] < 0 && (iq < 0 || v > SaddleTestData.dot(z, x[iq]))) iq = i;
      }
      double[] s = new double[d];
      for (int j = 0; j < d; j++) s[j] = x[ip][j] - x[iq][j];
      double zz = SaddleTestData.dot(z, z);
      double zs = SaddleTestData.dot(z, s);
      double norm = Math.sqrt(zz);
      if (zz - zs <= tol * zz || it == maxIterations) return new Interval(zs / norm, norm, it);
      double[] dir = new double[d];
      for (int j = 0; j < d; j++) dir[j] = s[j] - z[j];
      double t = Math.min(1, Math.max(0, -SaddleTestData.dot(z, dir) / SaddleTestData.dot(dir, dir)));
      for (int j = 0; j < d; j++) z[j] += t * dir[j];
    }
  }
}
