import java.io.*;
import java.util.*;

/**
 * ODM dual in gamma space on a dense double Q: greedy single steps against greedy pairs (second-order j, exact
 * minimiser over the nine faces), counted in O(n) passes (bench/snapshots/odm-pair-steps-2026-11-29.md). Usage:
 * java -Xmx12g bench/OdmPairSim.java FILE.libsvm ROWS GAMMA(0: 1/features) [LAMBDA (1e4)] [EPS (1e-3)]
 */
public class OdmPairSim {
  static int n, d;
  static double[][] Q;
  static double th, A[], B[];

  public static void main(String[] a) throws Exception {
    String f = a[0];
    n = Integer.parseInt(a[1]);
    double gamma = Double.parseDouble(a[2]);
    double lambda = a.length > 3 ? Double.parseDouble(a[3]) : 1e4;
    double eps = a.length > 4 ? Double.parseDouble(a[4]) : 1e-3;
    th = 0.5;
    double v = 0.5;
    List<double[]> xs = new ArrayList<>();
    double[] y = new double[n];
    int dim = 0;
    try (BufferedReader r = new BufferedReader(new FileReader(f))) {
      for (int i = 0; i < n; i++) {
        String[] t = r.readLine().trim().split("\\s+");
        y[i] = Double.parseDouble(t[0]) > 0 ? 1 : -1;
        double[] x = new double[800];
        for (int k = 1; k < t.length; k++) {
          int c = t[k].indexOf(':');
          int idx = Integer.parseInt(t[k].substring(0, c));
          x[idx] = Double.parseDouble(t[k].substring(c + 1));
          dim = Math.max(dim, idx);
        }
        xs.add(x);
      }
    }
    if (gamma <= 0) gamma = 1.0 / dim;
    Q = new double[n][n];
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= i; j++) {
        double s = 0;
        double[] xi = xs.get(i), xj = xs.get(j);
        for (int k = 0; k <= dim; k++) {
          double dd = xi[k] - xj[k];
          s += dd * dd;
        }
        Q[i][j] = Q[j][i] = y[i] * y[j] * Math.exp(-gamma * s);
      }
    double mc = n * (1 - th) * (1 - th) / (lambda * v);
    A = new double[n];
    B = new double[n];
    Arrays.fill(A, mc * v);
    Arrays.fill(B, mc);
    System.out.printf("n=%d dim=%d gamma=%.4f mc=%.4f%n", n, dim, gamma, mc);
    long t0 = System.nanoTime();
    double[] g1 = one(eps);
    long t1 = System.nanoTime();
    double[] g2 = two(eps);
    long t2 = System.nanoTime();
    System.out.printf("obj1=%.9f obj2=%.9f  (%.2f s, %.2f s)%n", obj(g1), obj(g2), (t1 - t0) / 1e9, (t2 - t1) / 1e9);
  }

  static double h(int i, double t) {
    return t >= 0 ? 0.5 * A[i] * t * t - (1 - th) * t : 0.5 * B[i] * t * t - (1 + th) * t;
  }

  static double obj(double[] g) {
    double s = 0;
    for (int i = 0; i < n; i++) {
      double q = 0;
      for (int j = 0; j < n; j++) q += Q[i][j] * g[j];
      s += 0.5 * g[i] * q + h(i, g[i]);
    }
    return s;
  }

  /** violation of i given qg = (Q gamma)_i. */
  static double viol(int i, double gi, double qg) {
    if (gi > 0) return Math.abs(qg + A[i] * gi - (1 - th));
    if (gi < 0) return Math.abs(qg + B[i] * gi - (1 + th));
    double lo = qg - (1 + th), hi = qg - (1 - th);
    if (hi < 0) return -hi;
    if (lo > 0) return lo;
    return 0;
  }

  /** exact 1D minimiser of 1/2 qii (t-g)^2 + qg (t-g) + h(t). */
  static double best1(int i, double gi, double qg, double qii) {
    double c = qii * gi - qg;
    double tp = (c + (1 - th)) / (qii + A[i]);
    if (tp > 0) return tp;
    double tn = (c + (1 + th)) / (qii + B[i]);
    if (tn < 0) return tn;
    return 0;
  }

  static int argmax(double[] g, double[] qg, double[] bv) {
    int b = -1;
    double m = 0;
    for (int i = 0; i < n; i++) {
      double v = viol(i, g[i], qg[i]);
      if (v > m) {
        m = v;
        b = i;
      }
    }
    bv[0] = m;
    return b;
  }

  static double[] one(double eps) {
    double[] g = new double[n], qg = new double[n], bv = new double[1];
    long steps = 0;
    int p = argmax(g, qg, bv);
    while (bv[0] > eps) {
      double t = best1(p, g[p], qg[p], Q[p][p]);
      double dl = t - g[p];
      g[p] = t;
      double[] col = Q[p];
      for (int j = 0; j < n; j++) qg[j] += dl * col[j];
      steps++;
      p = argmax(g, qg, bv);
    }
    System.out.printf("1D: steps %d = %.2f epochs, passes %d%n", steps, steps / (double) n, steps);
    return g;
  }

  static double[] two(double eps) {
    double[] g = new double[n], qg = new double[n], bv = new double[1];
    long its = 0, passes = 0;
    int p = argmax(g, qg, bv);
    while (bv[0] > eps) {
      // i = p; its step direction's curvature and gradient
      double gi = grad(p, g[p], qg[p]);
      double ai = Q[p][p] + curv(p, g[p], gi);
      double[] ci = Q[p];
      int bj = -1;
      double bgain = 0.5 * gi * gi / ai;
      for (int t = 0; t < n; t++) {
        if (t == p) continue;
        double gt = grad(t, g[t], qg[t]);
        if (gt == 0) continue;
        double at = Q[t][t] + curv(t, g[t], gt);
        double q = ci[t];
        double det = ai * at - q * q;
        if (det <= 1e-12) continue;
        double gain = (at * gi * gi - 2 * q * gi * gt + ai * gt * gt) / (2 * det);
        if (gain > bgain) {
          bgain = gain;
          bj = t;
        }
      }
      passes++;
      if (bj < 0) {
        double t = best1(p, g[p], qg[p], Q[p][p]);
        double dl = t - g[p];
        g[p] = t;
        for (int j = 0; j < n; j++) qg[j] += dl * ci[j];
      } else {
        double[] r = best2(p, bj, g, qg);
        double di = r[0] - g[p], dj = r[1] - g[bj];
        g[p] = r[0];
        g[bj] = r[1];
        double[] cj = Q[bj];
        for (int j = 0; j < n; j++) qg[j] += di * ci[j] + dj * cj[j];
      }
      passes++;
      its++;
      p = argmax(g, qg, bv);
    }
    System.out.printf("2D: iterations %d, passes %d = %.2f epochs%n", its, passes, passes / (double) n);
    return g;
  }

  /** projected gradient (0 when at the kink with the subgradient containing 0). */
  static double grad(int i, double gi, double qg) {
    if (gi > 0) return qg + A[i] * gi - (1 - th);
    if (gi < 0) return qg + B[i] * gi - (1 + th);
    double hi = qg - (1 - th), lo = qg - (1 + th);
    if (hi < 0) return hi;
    if (lo > 0) return lo;
    return 0;
  }

  static double curv(int i, double gi, double gr) {
    if (gi > 0) return A[i];
    if (gi < 0) return B[i];
    return gr < 0 ? A[i] : B[i];
  }

  /** exact 2D minimiser by enumerating the 9 faces. */
  static double[] best2(int i, int j, double[] g, double[] qg) {
    double qii = Q[i][i], qjj = Q[j][j], qij = Q[i][j];
    // objective of (ti, tj): 1/2 d'Qd + qg'd + h, d = t - g
    double gi0 = g[i], gj0 = g[j];
    double[] bestT = {gi0, gj0};
    double bestF = f2(i, j, gi0, gj0, g, qg);
    for (int si = -1; si <= 1; si++)
      for (int sj = -1; sj <= 1; sj++) {
        double ti, tj;
        // linear parts: d/dti = qii (ti-gi0) + qij (tj-gj0) + qg_i + c_i ti - l_i
        double ci = si > 0 ? A[i] : B[i], li = si > 0 ? (1 - th) : (1 + th);
        double cj = sj > 0 ? A[j] : B[j], lj = sj > 0 ? (1 - th) : (1 + th);
        double ri = -(qg[i] - qii * gi0 - qij * gj0) + li;
        double rj = -(qg[j] - qij * gi0 - qjj * gj0) + lj;
        if (si != 0 && sj != 0) {
          double a11 = qii + ci, a22 = qjj + cj, det = a11 * a22 - qij * qij;
          ti = (a22 * ri - qij * rj) / det;
          tj = (a11 * rj - qij * ri) / det;
          if (Math.signum(ti) != si || Math.signum(tj) != sj) continue;
        } else if (si != 0) {
          tj = 0;
          ti = ri / (qii + ci);
          if (Math.signum(ti) != si) continue;
        } else if (sj != 0) {
          ti = 0;
          tj = rj / (qjj + cj);
          if (Math.signum(tj) != sj) continue;
        } else {
          ti = 0;
          tj = 0;
        }
        double fv = f2(i, j, ti, tj, g, qg);
        if (fv < bestF) {
          bestF = fv;
          bestT = new double[] {ti, tj};
        }
      }
    return bestT;
  }

  static double f2(int i, int j, double ti, double tj, double[] g, double[] qg) {
    double di = ti - g[i], dj = tj - g[j];
    return 0.5 * (Q[i][i] * di * di + 2 * Q[i][j] * di * dj + Q[j][j] * dj * dj) + qg[i] * di + qg[j] * dj + h(i, ti)
        + h(j, tj);
  }
}
