package org.sodm.linear;

/**
 * L2-regularised logistic regression (LIBLINEAR's {@code -s 0}): 1/2 |w|^2 + sum_i C_i log(1 + exp(-y_i w'x_i)), C_i = w_{y_i} C
 * (class weights as LIBLINEAR's -wi). The bias, when asked for, is an augmented constant feature (value 1, regularised, as
 * LIBLINEAR's -B 1): the last element of every w array.
 */
public record LogisticPrimal(double cPos, double cNeg, boolean bias) implements LinearPrimal {
  public LogisticPrimal {
    if (!(cPos > 0) || !(cNeg > 0) || !Double.isFinite(cPos) || !Double.isFinite(cNeg)) {
      throw new IllegalArgumentException("C must be > 0 and finite");
    }
  }

  public double c(double y) {
    return y > 0 ? cPos : cNeg;
  }

  /** C_i log(1 + exp(-margin)), without overflow or cancellation at either end. */
  @Override
  public double loss(double y, double margin) {
    return c(y) * logOnePlusExp(-margin);
  }

  /** log(1 + exp(t)). */
  static double logOnePlusExp(double t) {
    return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
  }

  /** 1 / (1 + exp(-t)), the probability of the label whose margin is t. */
  static double sigmoid(double t) {
    if (t >= 0) return 1 / (1 + Math.exp(-t));
    double e = Math.exp(t);
    return e / (1 + e);
  }

  @Override
  public double biasFeature() {
    return bias ? 1.0 : 0.0;
  }
}
