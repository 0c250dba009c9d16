package org.sodm.linear;

/**
 * The linear ODM primal (seed 000 section 3.3, eq. 9):
 *
 * <pre>
 *   p(w) = 1/2 |w|^2 + 1/M sum_i lambda_i / (2 (1-theta)^2) (xi_i^2 + v eps_i^2),
 *   xi_i = max(0, 1 - theta - y_i w'x_i),  eps_i = max(0, y_i w'x_i - 1 - theta),
 * </pre>
 *
 * lambda_i = w_{y_i} lambda (as {@code OdmProblem}, whose dual this is). Written as the mean of
 * p_i(w) = 1/2 |w|^2 + lambda_i / (2 (1-theta)^2) (xi_i^2 + v eps_i^2), the per-instance
 * gradient is grad p_i(w) = w + g_i(y_i w'x_i) y_i x_i with the scalar
 * g_i(m) = lambda_i (m + theta - 1) / (1-theta)^2 for m &lt; 1 - theta,
 * lambda_i v (m - theta - 1) / (1-theta)^2 for m &gt; 1 + theta, 0 between. The bias, when
 * asked for, is an augmented feature (the last element of w).
 */
public record OdmPrimal(double lambdaPos, double lambdaNeg, double theta, double v, boolean bias) implements LinearPrimal {
  public double lambda(double y) {
    return y > 0 ? lambdaPos : lambdaNeg;
  }

  @Override
  public double biasFeature() {
    return bias ? 1.0 : 0.0;
  }

  /** lambda_i / (2 (1-theta)^2) (xi^2 + v eps^2) at the margin m = y w'x. */
  @Override
  public double loss(double y, double m) {
    double om = 1 - theta;
    double xi = om - m;
    if (xi > 0) return lambda(y) * xi * xi / (2 * om * om);
    double ep = m - 1 - theta;
    if (ep > 0) return lambda(y) * v * ep * ep / (2 * om * om);
    return 0;
  }

  /** g_i(m): grad p_i(w) = w + g_i(m) y x. */
  public double coef(double y, double m) {
    double om = 1 - theta;
    if (m < om) return lambda(y) * (m - om) / (om * om);
    if (m > 1 + theta) return lambda(y) * v * (m - 1 - theta) / (om * om);
    return 0;
  }

  /** Largest curvature of the loss part along y x per unit |x|^2: lambda_i max(1, v) / (1-theta)^2. */
  public double curvature() {
    double om = 1 - theta;
    return Math.max(lambdaPos, lambdaNeg) * Math.max(1, v) / (om * om);
  }

  /** p(w) = 1/2 |w|^2 + lossSum / M. */
  public static double objective(double ww, double lossSum, long m) {
    return 0.5 * ww + (m == 0 ? 0 : lossSum / m);
  }
}
