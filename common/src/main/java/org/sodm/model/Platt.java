package org.sodm.model;

/**
 * Platt's sigmoid P(y = +1 | f) = 1 / (1 + exp(A f + B)), fitted by maximum likelihood on
 * decision values with Platt's regularised targets (N+ + 1) / (N+ + 2) and 1 / (N- + 2), by
 * the Newton method with backtracking of Lin, Lin and Weng (2007, "A note on Platt's
 * probabilistic outputs for support vector machines", Algorithm 1; LIBSVM's sigmoid_train):
 * every log(1 + exp(.)) and p, q evaluated on the side that cannot overflow, a sigma = 1e-12
 * ridge on the Hessian, the sufficient-decrease rule 1e-4. The stopping tolerance on the
 * gradient is tighter than LIBSVM's absolute 1e-5 (here 1e-11 times the number of values, at
 * least 1e-11), which costs one or two Newton steps and fits A and B to about 1e-9.
 *
 * @param a the slope A (negative when larger f means +1)
 * @param b the offset B
 */
public record Platt(double a, double b) {

  /** P(y = +1 | f), computed without overflow. */
  public double probability(double f) {
    double z = f * a + b;
    return z >= 0 ? Math.exp(-z) / (1.0 + Math.exp(-z)) : 1.0 / (1.0 + Math.exp(z));
  }

  /**
   * The fit on decision values {@code f} with labels {@code y} (> 0: +1). A fold model trained on rows of one class only
   * decides +-1 for every row ({@link org.sodm.solver.OffsetSvcSolver}'s b = y; LIBSVM's rule in
   * {@code svm_binary_svc_probability}).
   *
   * @throws IllegalArgumentException for a decision value that is not finite (the fit's Newton steps would all be NaN)
   */
  public static Platt fit(double[] f, double[] y) {
    int l = f.length;
    if (l != y.length) throw new IllegalArgumentException("decision values and labels differ in length");
    if (l == 0) throw new IllegalArgumentException("Platt's fit needs at least one decision value");
    for (int i = 0; i < l; i++) {
      if (!Double.isFinite(f[i])) throw new IllegalArgumentException("decision value " + i + " is " + f[i] + ", not finite");
    }
    double prior1 = 0;
    double prior0 = 0;
    for (double v : y) {
      if (v > 0) prior1++;
      else prior0++;
    }
    int maxIter = 100;
    double minStep = 1e-10;
    double sigma = 1e-12;
    double eps = 1e-11 * Math.max(1, l);
    double hi = (prior1 + 1.0) / (prior1 + 2.0);
    double lo = 1 / (prior0 + 2.0);
    double[] t = new double[l];
    for (int i = 0; i < l; i++) t[i] = y[i] > 0 ? hi : lo;
    double a = 0.0;
    double b = Math.log((prior0 + 1.0) / (prior1 + 1.0));
    double fval = objective(f, t, a, b);
    for (int iter = 0; iter < maxIter; iter++) {
      double h11 = sigma;
      double h22 = sigma;
      double h21 = 0;
      double g1 = 0;
      double g2 = 0;
      for (int i = 0; i < l; i++) {
        double z = f[i] * a + b;
        double p;
        double q;
        if (z >= 0) {
          double e = Math.exp(-z);
          p = e / (1.0 + e);
          q = 1.0 / (1.0 + e);
        } else {
          double e = Math.exp(z);
          p = 1.0 / (1.0 + e);
          q = e / (1.0 + e);
        }
        double d2 = p * q;
        h11 += f[i] * f[i] * d2;
        h22 += d2;
        h21 += f[i] * d2;
        double d1 = t[i] - p;
        g1 += f[i] * d1;
        g2 += d1;
      }
      if (Math.abs(g1) < eps && Math.abs(g2) < eps) break;
      double det = h11 * h22 - h21 * h21;
      double da = -(h22 * g1 - h21 * g2) / det;
      double db = -(-h21 * g1 + h11 * g2) / det;
      double gd = g1 * da + g2 * db;
      double step = 1;
      while (step >= minStep) {
        double na = a + step * da;
        double nb = b + step * db;
        double nf = objective(f, t, na, nb);
        if (nf < fval + 0.0001 * step * gd) {
          a = na;
          b = nb;
          fval = nf;
          break;
        }
        step /= 2.0;
      }
      if (step < minStep) break; // no further decrease representable: (A, B) is optimal to rounding
    }
    return new Platt(a, b);
  }

  /** The negative log-likelihood with targets t: sum t_i z_i + log(1 + exp(-z_i)), z = A f + B, on the stable side. */
  static double objective(double[] f, double[] t, double a, double b) {
    double s = 0;
    for (int i = 0; i < f.length; i++) {
      double z = f[i] * a + b;
      s += z >= 0 ? t[i] * z + Math.log1p(Math.exp(-z)) : (t[i] - 1) * z + Math.log1p(Math.exp(z));
    }
    return s;
  }
}
