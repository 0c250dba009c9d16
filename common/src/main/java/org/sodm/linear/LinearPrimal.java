package org.sodm.linear;

/**
 * The primal of a loss for a linear model w (bias, when asked for, as the augmented last
 * feature): 1/2 |w|^2 plus the per-instance losses of the margins y_i w'x_i
 * ({@link SvmLoss}, {@link LogisticPrimal}: summed; {@link OdmPrimal}: averaged).
 */
public sealed interface LinearPrimal permits SvmLoss, OdmPrimal, LogisticPrimal {

  /** The loss term of an instance of label y at the margin y w'x. */
  double loss(double y, double margin);

  /** The augmented feature's value: 1 with the bias, else 0. */
  double biasFeature();
}
