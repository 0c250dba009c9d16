package org.sodm.solver;

import java.util.Optional;
import org.sodm.linear.SvmLoss;

/**
 * Hinge (L1) and squared-hinge (L2) SVM duals, one variable per instance, gamma_i = alpha_i.
 * Hinge: 0 &lt;= alpha_i &lt;= C_i, g_i = -alpha_i. Squared hinge: alpha_i &gt;= 0,
 * g_i = alpha_i^2 / (4 C_i) - alpha_i (the diagonal 1/(2 C_i) added to Q). C_i = w_{y_i} C. The
 * constants by class and the primal are the linear primal's ({@link SvmLoss}).
 */
final class HingeProblem implements PairDual {
  private final SvmLoss primal;
  private final boolean squared;
  private final double[] y;
  private final double cPos;
  private final double cNeg;

  HingeProblem(SvmLoss primal, double[] y) {
    this.primal = primal;
    this.squared = primal.squared();
    this.y = y;
    this.cPos = primal.cPos();
    this.cNeg = primal.cNeg();
  }

  @Override
  public double upperBound(int i) {
    return primal.upper(y[i]);
  }

  @Override
  public double upper(double label) {
    return primal.upper(label);
  }

  @Override
  public double extraDiag(double label) {
    return primal.s(label);
  }

  @Override
  public Optional<PairDual> pairs() {
    return Optional.of(this);
  }

  double ci(int i) {
    return y[i] > 0 ? cPos : cNeg;
  }

  @Override
  public int size() {
    return y.length;
  }

  @Override
  public int variablesPerInstance() {
    return 1;
  }

  @Override
  public double gamma(double[] alpha, int i) {
    return alpha[i];
  }

  @Override
  public double step(double[] alpha, int i, double qg, double qii, double thr, double[] info) {
    double a = alpha[i];
    double c = ci(i);
    double g;
    double h;
    double upper;
    if (squared) {
      double d = 0.5 / c;
      g = qg + d * a - 1;
      h = qii + d;
      upper = Double.POSITIVE_INFINITY;
    } else {
      g = qg - 1;
      h = qii;
      upper = c;
    }
    double pg;
    boolean shrink = false;
    if (a <= 0) {
      pg = g < 0 ? g : 0;
      shrink = g > thr;
    } else if (a >= upper) {
      pg = g > 0 ? g : 0;
      shrink = -g > thr;
    } else {
      pg = g;
    }
    info[0] = Math.abs(pg);
    info[1] = shrink ? 1 : 0;
    if (pg == 0) return 0;
    double na;
    if (h > 0) {
      na = a - g / h;
      if (na < 0) na = 0;
      else if (na > upper) na = upper;
    } else {
      na = g < 0 ? upper : 0;
    }
    alpha[i] = na;
    return na - a;
  }

  @Override
  public boolean shrinkable(double[] alpha, int i, double qg, double thr) {
    double a = alpha[i];
    double c = ci(i);
    double g = squared ? qg + 0.5 / c * a - 1 : qg - 1;
    if (a <= 0) return g > thr;
    if (!squared && a >= c) return -g > thr;
    return false;
  }

  @Override
  public double violation(double[] alpha, int i, double qg) {
    double a = alpha[i];
    double c = ci(i);
    double g = squared ? qg + 0.5 / c * a - 1 : qg - 1;
    if (a <= 0) return g < 0 ? -g : 0;
    if (!squared && a >= c) return g > 0 ? g : 0;
    return Math.abs(g);
  }

  @Override
  public int argmaxViolation(double[] alpha, double[] qg, int to, double[] best) {
    int bp = -1;
    double bv = 0;
    double[] yy = y;
    if (squared) {
      double dp = 0.5 / cPos;
      double dn = 0.5 / cNeg;
      for (int i = 0; i < to; i++) {
        double a = alpha[i];
        double g = qg[i] + (yy[i] > 0 ? dp : dn) * a - 1;
        double v = a <= 0 ? -g : Math.abs(g);
        if (v > bv) {
          bv = v;
          bp = i;
        }
      }
    } else {
      double cp = cPos;
      double cn = cNeg;
      for (int i = 0; i < to; i++) {
        double a = alpha[i];
        double g = qg[i] - 1;
        // at a bound an outward gradient gives v <= 0, never selected
        double v = a <= 0 ? -g : (a >= (yy[i] > 0 ? cp : cn) ? g : Math.abs(g));
        if (v > bv) {
          bv = v;
          bp = i;
        }
      }
    }
    best[0] = bv;
    return bp;
  }

  @Override
  public boolean project(double[] alpha, int i) {
    double a = alpha[i];
    double na = a < 0 ? 0 : (!squared && a > ci(i) ? ci(i) : a);
    alpha[i] = na;
    return na != a;
  }

  @Override
  public double separable(double[] alpha, int i) {
    double a = alpha[i];
    return squared ? a * a / (4 * ci(i)) - a : -a;
  }

  @Override
  public double dualObjective(double[] alpha, double[] qg) {
    double quad = 0;
    double lin = 0;
    for (int i = 0; i < alpha.length; i++) {
      double a = alpha[i];
      quad += a * qg[i];
      lin -= a;
      if (squared) lin += a * a / (4 * ci(i));
    }
    return 0.5 * quad + lin;
  }

  @Override
  public double primalObjective(double[] alpha, double[] qg) {
    double quad = 0;
    double loss = 0;
    for (int i = 0; i < alpha.length; i++) {
      quad += alpha[i] * qg[i];
      loss += primal.loss(y[i], qg[i]);
    }
    return 0.5 * quad + loss;
  }
}
