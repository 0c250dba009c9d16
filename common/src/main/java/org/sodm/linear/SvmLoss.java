package org.sodm.linear;

/**
 * The L1-SVM (hinge) or L2-SVM (squared hinge) dual of seed 003 eq. (2) with per-instance
 * constants: f(alpha) = 1/2 alpha' (Q + S) alpha - e' alpha, 0 &lt;= alpha_i &lt;= U_i, where
 * (s_i, U_i) = (0, C_i) for L1 and (1/(2 C_i), infinity) for L2, C_i = w_{y_i} C (class weights
 * as LIBLINEAR's -wi). The primal is 1/2 |w|^2 + sum_i C_i xi_i (L1) or C_i xi_i^2 (L2),
 * xi_i = max(0, 1 - y_i w'x_i). The bias, when asked for, is an augmented constant feature
 * (value 1, regularised, as LIBLINEAR's -B 1): it is the last element of every w array.
 */
public record SvmLoss(boolean squared, double cPos, double cNeg, boolean bias) implements LinearPrimal {
  public SvmLoss {
    if (!(cPos > 0) || !(cNeg > 0)) throw new IllegalArgumentException("C must be > 0");
  }

  public double c(double y) {
    return y > 0 ? cPos : cNeg;
  }

  /** U_i. */
  public double upper(double y) {
    return squared ? Double.POSITIVE_INFINITY : c(y);
  }

  /** s_i (the diagonal of Q-bar minus Q). */
  public double s(double y) {
    return squared ? 0.5 / c(y) : 0;
  }

  /** C_i xi or C_i xi^2 at the margin y w'x. */
  @Override
  public double loss(double y, double margin) {
    double xi = 1 - margin;
    if (xi <= 0) return 0;
    return c(y) * (squared ? xi * xi : xi);
  }

  @Override
  public double biasFeature() {
    return bias ? 1.0 : 0.0;
  }
}
