package org.sodm.model;

/**
 * Pairwise coupling of Wu, Lin and Weng (2004, "Probability estimates for multi-class
 * classification by pairwise coupling", method 2; LIBSVM's multiclass_probability): from
 * r[i][j] ~ P(y = i | y in {i, j}, x) (r[j][i] = 1 - r[i][j]), the class probabilities p minimise
 * sum_i sum_{j != i} (r[j][i] p_i - r[i][j] p_j)^2 subject to sum p = 1, i.e. p'Qp with
 * Q_tt = sum_{j != t} r[j][t]^2 and Q_tj = -r[j][t] r[t][j]. Solved by the paper's fixed-point
 * iteration (each p_t in turn set so that (Qp)_t = p'Qp, then p renormalised), stopped when
 * max_t |(Qp)_t - p'Qp| &lt; {@code eps}: LIBSVM uses 0.005 / k; {@link #probabilities(double[][])}
 * uses 1e-12 (a few more sweeps, and p agrees with the direct solution of the KKT system to about 1e-10).
 */
public final class Coupling {
  private Coupling() {}

  /** The coupled probabilities with a tight tolerance (1e-12). */
  public static double[] probabilities(double[][] r) {
    return probabilities(r, 1e-12, Math.max(1000, 10 * r.length));
  }

  public static double[] probabilities(double[][] r, double eps, int maxIter) {
    int k = r.length;
    double[][] q = new double[k][k];
    double[] p = new double[k];
    double[] qp = new double[k];
    for (int t = 0; t < k; t++) {
      p[t] = 1.0 / k;
      q[t][t] = 0;
      for (int j = 0; j < t; j++) {
        q[t][t] += r[j][t] * r[j][t];
        q[t][j] = q[j][t];
      }
      for (int j = t + 1; j < k; j++) {
        q[t][t] += r[j][t] * r[j][t];
        q[t][j] = -r[j][t] * r[t][j];
      }
    }
    for (int iter = 0; iter < maxIter; iter++) {
      double pqp = 0;
      for (int t = 0; t < k; t++) {
        qp[t] = 0;
        for (int j = 0; j < k; j++) qp[t] += q[t][j] * p[j];
        pqp += p[t] * qp[t];
      }
      double maxError = 0;
      for (int t = 0; t < k; t++) maxError = Math.max(maxError, Math.abs(qp[t] - pqp));
      if (maxError < eps) break;
      for (int t = 0; t < k; t++) {
        double diff = (-qp[t] + pqp) / q[t][t];
        p[t] += diff;
        pqp = (pqp + diff * (diff * q[t][t] + 2 * qp[t])) / (1 + diff) / (1 + diff);
        for (int j = 0; j < k; j++) {
          qp[j] = (qp[j] + diff * q[t][j]) / (1 + diff);
          p[j] /= (1 + diff);
        }
      }
    }
    return p;
  }
}
