package org.sodm.solver;

import org.sodm.linear.OdmPrimal;

/**
 * The ODM dual (seed 000 eq. 1) on m instances, variables [zeta_i, beta_i] per instance,
 * gamma_i = zeta_i - beta_i:
 * d = 1/2 gamma'Q gamma + sum_i (m c_i / 2)(v zeta_i^2 + beta_i^2) + (theta-1) zeta_i + (theta+1) beta_i,
 * c_i = (1-theta)^2 / (lambda_i v), lambda_i = w_{y_i} lambda. Each coordinate has the closed
 * form update of eq. 3, clipped at 0. The primal is {@link OdmPrimal}'s (whose lambda_i, theta
 * and v these are):
 * 1/2 |w|^2 + sum_i lambda_i / (2 m (1-theta)^2) (max(0, 1-theta-y_i f_i)^2 + v max(0, y_i f_i-1-theta)^2).
 */
final class OdmProblem implements DualProblem {
  private final OdmPrimal primal;
  private final double[] y;
  private final double theta;
  private final double v;
  private final int m;
  /** m c_i for y = +1 and y = -1 (beta's diagonal); zeta's is v times it. */
  private final double mcPos;
  private final double mcNeg;

  OdmProblem(OdmPrimal primal, double[] y, int m) {
    if (m < 1) throw new IllegalArgumentException("ODM m must be >= 1, got " + m);
    this.primal = primal;
    this.y = y;
    this.theta = primal.theta();
    this.v = primal.v();
    this.m = m;
    double om = (1 - theta) * (1 - theta);
    this.mcPos = m * om / (primal.lambdaPos() * v);
    this.mcNeg = m * om / (primal.lambdaNeg() * v);
  }

  /** m c_i. */
  double mc(int i) {
    return y[i] > 0 ? mcPos : mcNeg;
  }

  /** m c for the class of label y (+-1). */
  double mcOf(double label) {
    return label > 0 ? mcPos : mcNeg;
  }

  double theta() {
    return theta;
  }

  double v() {
    return v;
  }

  @Override
  public int size() {
    return y.length;
  }

  @Override
  public int variablesPerInstance() {
    return 2;
  }

  @Override
  public double gamma(double[] alpha, int i) {
    return alpha[2 * i] - alpha[2 * i + 1];
  }

  @Override
  public double step(double[] alpha, int i, double qg, double qii, double thr, double[] info) {
    int k = 2 * i;
    double z = alpha[k];
    double b = alpha[k + 1];
    double mcb = mc(i);
    double mcz = mcb * v;
    double gz = qg + mcz * z + theta - 1;
    double gb = -qg + mcb * b + theta + 1;
    double pgz = z <= 0 ? (gz < 0 ? gz : 0) : gz;
    double pgb = b <= 0 ? (gb < 0 ? gb : 0) : gb;
    info[0] = Math.max(Math.abs(pgz), Math.abs(pgb));
    info[1] = (z <= 0 && b <= 0 && gz > thr && gb > thr) ? 1 : 0;
    double dgam = 0;
    if (pgz != 0) {
      double nz = z - gz / (qii + mcz);
      if (nz < 0) nz = 0;
      double dz = nz - z;
      alpha[k] = nz;
      qg += qii * dz;
      dgam += dz;
      gb = -qg + mcb * b + theta + 1;
      pgb = b <= 0 ? (gb < 0 ? gb : 0) : gb;
    }
    if (pgb != 0) {
      double nb = b - gb / (qii + mcb);
      if (nb < 0) nb = 0;
      alpha[k + 1] = nb;
      dgam -= nb - b;
    }
    return dgam;
  }

  @Override
  public boolean shrinkable(double[] alpha, int i, double qg, double thr) {
    if (alpha[2 * i] > 0 || alpha[2 * i + 1] > 0) return false;
    return qg + theta - 1 > thr && -qg + theta + 1 > thr;
  }

  @Override
  public double violation(double[] alpha, int i, double qg) {
    double z = alpha[2 * i];
    double b = alpha[2 * i + 1];
    double mcb = mc(i);
    double gz = qg + mcb * v * z + theta - 1;
    double gb = -qg + mcb * b + theta + 1;
    double pgz = z <= 0 ? (gz < 0 ? -gz : 0) : Math.abs(gz);
    double pgb = b <= 0 ? (gb < 0 ? -gb : 0) : Math.abs(gb);
    return Math.max(pgz, pgb);
  }

  @Override
  public int argmaxViolation(double[] alpha, double[] qg, int to, double[] best) {
    int bp = -1;
    double bv = 0;
    double[] yy = y;
    double tm = theta - 1;
    double tp = theta + 1;
    for (int i = 0; i < to; i++) {
      double z = alpha[2 * i];
      double b = alpha[2 * i + 1];
      double mcb = yy[i] > 0 ? mcPos : mcNeg;
      double gz = qg[i] + mcb * v * z + tm;
      double gb = -qg[i] + mcb * b + tp;
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

  /** Fused: one pass updates qg and finds the largest violation (the greedy hot loop). */
  @Override
  public int applyArgmax(double[] alpha, double[] qg, double delta, float[] col, int to, double[] best) {
    return applyArgmax2(alpha, qg, delta, col, 0, col, to, best);
  }

  /**
   * qg += d1 c1 + d2 c2 over [0, to) after one or two instances moved (d2 = 0: one), fused with
   * the largest violation ({@link GreedyOdmPairDescent}; {@link #applyArgmax}).
   */
  int applyArgmax2(double[] alpha, double[] qg, double d1, float[] c1, double d2, float[] c2, int to, double[] best) {
    int bp = -1;
    double bv = 0;
    double[] yy = y;
    double tm = theta - 1;
    double tp = theta + 1;
    for (int i = 0; i < to; i++) {
      double q = qg[i] + d1 * c1[i] + d2 * c2[i];
      qg[i] = q;
      double z = alpha[2 * i];
      double b = alpha[2 * i + 1];
      double mcb = yy[i] > 0 ? mcPos : mcNeg;
      double gz = q + mcb * v * z + tm;
      double gb = -q + mcb * b + tp;
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

  @Override
  public boolean project(double[] alpha, int i) {
    boolean ch = false;
    for (int k = 2 * i; k < 2 * i + 2; k++) {
      if (alpha[k] < 0) {
        alpha[k] = 0;
        ch = true;
      }
    }
    return ch;
  }

  @Override
  public double separable(double[] alpha, int i) {
    double z = alpha[2 * i];
    double b = alpha[2 * i + 1];
    return 0.5 * mc(i) * (v * z * z + b * b) + (theta - 1) * z + (theta + 1) * b;
  }

  @Override
  public double dualObjective(double[] alpha, double[] qg) {
    double s = 0;
    for (int i = 0; i < y.length; i++) {
      double z = alpha[2 * i];
      double b = alpha[2 * i + 1];
      double mcb = mc(i);
      s += 0.5 * (z - b) * qg[i] + 0.5 * mcb * (v * z * z + b * b) + (theta - 1) * z + (theta + 1) * b;
    }
    return s;
  }

  @Override
  public double primalObjective(double[] alpha, double[] qg) {
    double s = 0;
    for (int i = 0; i < y.length; i++) {
      double z = alpha[2 * i];
      double b = alpha[2 * i + 1];
      s += 0.5 * (z - b) * qg[i];
      s += primal.loss(y[i], qg[i]) / m;
    }
    return s;
  }
}
