package org.sodm.saddle;

/**
 * The step parameters of Algorithm 1, line 4 (seed 002): gamma = eps beta / (2 log n),
 * q = sqrt(log n) (the O(sqrt(log n)) of the paper with constant 1), tau = sqrt(d / gamma) / (2q),
 * sigma = sqrt(d gamma) / (2q), theta = 1 - 1 / (d + q sqrt(d / gamma)); d is the transformed
 * (padded) dimension, n = n1 + n2, log the natural logarithm.
 *
 * <p>beta, the ratio of the smallest to the largest distance among the points, is unknown; the
 * paper (footnote 4) treats it like a step size and tries beta = 10^-k. It enters only through
 * gamma: the entropy terms of (4)/(8) cost at most gamma (log n1 + log n2) &lt;= eps beta of the
 * objective (Lemma 3), so a beta larger than OPT leaves a gap the stopping test never accepts, and
 * a smaller one converges more slowly ({@link SaddleSvc} tries them from the largest).
 */
public record SaddleParameters(int dimension, double eps, double beta, double gamma, double q, double tau, double sigma,
    double theta) {

  /** Line 4 of Algorithm 1 for n points in dimension d. */
  public static SaddleParameters of(double eps, double beta, int n, int dimension) {
    if (n < 2) throw new IllegalArgumentException("need at least 2 points, got " + n);
    double logN = Math.log(n);
    double gamma = eps * beta / (2 * logN);
    double q = Math.sqrt(logN);
    double d = dimension;
    double tau = Math.sqrt(d / gamma) / (2 * q);
    double sigma = Math.sqrt(d * gamma) / (2 * q);
    double theta = 1 - 1 / (d + q * Math.sqrt(d / gamma));
    return new SaddleParameters(dimension, eps, beta, gamma, q, tau, sigma, theta);
  }

  /**
   * The check interval of the paper's experiments (Appendix D): T = d + sqrt(d / (eps beta)),
   * rounded up.
   */
  public long paperCheckInterval() {
    return (long) Math.ceil(dimension + Math.sqrt(dimension / (eps * beta)));
  }

  /** Eq. (9): the maximiser of (d+ - d-) w_i - w_i^2/2 - (w_i - w_i[t])^2 / (2 sigma). */
  public double coordinateStep(double wi, double deltaPositive, double deltaNegative) {
    return (wi + sigma * (deltaPositive - deltaNegative)) / (sigma + 1);
  }

  /** d / tau: the weight of log eta[t] in the exponent of (11). */
  public double previousWeight() {
    return dimension / tau;
  }

  /** 1 / (gamma + d / tau): the factor in front of the exponent of (11). */
  public double exponentScale() {
    return 1 / (gamma + dimension / tau);
  }
}
