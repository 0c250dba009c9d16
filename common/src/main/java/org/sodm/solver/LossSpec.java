package org.sodm.solver;

/**
 * A loss with its parameters. All parameters are validated whatever the type (unused ones keep
 * harmless defaults through the factories).
 *
 * <ul>
 *   <li>{@code c}: C of hinge / squared hinge.
 *   <li>{@code lambda, theta, mu}: ODM's lambda, theta and v (seed 000 eq. 1; mu = v).
 *   <li>{@code bias}: fit a bias through the augmented kernel k + 1 (regularized bias, unlike
 *       LIBSVM's equality constraint; see {@link org.sodm.kernel.AugmentedKernel}).
 *   <li>{@code positiveWeight, negativeWeight}: class weights w_{+1}, w_{-1}. Hinge and squared
 *       hinge use C_i = w_{y_i} C (as LIBSVM's -wi). ODM uses lambda_i = w_{y_i} lambda, i.e. the
 *       loss term of instance i is weighted by w_{y_i}; in the dual this makes
 *       c_i = (1-theta)^2 / (lambda_i v), so the diagonal terms become m c_i v (zeta) and m c_i
 *       (beta).
 * </ul>
 */
public record LossSpec(LossType type, double c, double lambda, double theta, double mu, boolean bias,
    double positiveWeight, double negativeWeight) {

  public LossSpec {
    if (type == null) throw new IllegalArgumentException("loss type is required");
    if (!(c > 0) || !Double.isFinite(c)) throw new IllegalArgumentException("C must be > 0 and finite, got " + c);
    if (!(lambda > 0) || !Double.isFinite(lambda)) {
      throw new IllegalArgumentException("lambda must be > 0 and finite, got " + lambda);
    }
    if (!(theta >= 0 && theta < 1)) throw new IllegalArgumentException("theta must be in [0, 1), got " + theta);
    if (!(mu > 0 && mu <= 1)) throw new IllegalArgumentException("mu must be in (0, 1], got " + mu);
    if (!(positiveWeight > 0) || !Double.isFinite(positiveWeight)) {
      throw new IllegalArgumentException("positiveWeight must be > 0 and finite, got " + positiveWeight);
    }
    if (!(negativeWeight > 0) || !Double.isFinite(negativeWeight)) {
      throw new IllegalArgumentException("negativeWeight must be > 0 and finite, got " + negativeWeight);
    }
  }

  public static LossSpec hinge(double c) {
    return new LossSpec(LossType.HINGE, c, 1, 0, 1, false, 1, 1);
  }

  public static LossSpec squaredHinge(double c) {
    return new LossSpec(LossType.SQUARED_HINGE, c, 1, 0, 1, false, 1, 1);
  }

  public static LossSpec odm(double lambda, double theta, double mu) {
    return new LossSpec(LossType.ODM, 1, lambda, theta, mu, false, 1, 1);
  }

  public LossSpec withBias(boolean b) {
    return new LossSpec(type, c, lambda, theta, mu, b, positiveWeight, negativeWeight);
  }

  public LossSpec withWeights(double wPositive, double wNegative) {
    return new LossSpec(type, c, lambda, theta, mu, bias, wPositive, wNegative);
  }

  /** w_{y}. */
  public double weight(double y) {
    return y > 0 ? positiveWeight : negativeWeight;
  }

  /**
   * The dual problem on labels {@code y} (+-1). {@code m} is ODM's m in m*c: the number of
   * instances of the problem being solved (the solvers pass n of the call).
   */
  public DualProblem problem(double[] y, int m) {
    switch (type) {
      case HINGE: return new HingeProblem(this, y, false);
      case SQUARED_HINGE: return new HingeProblem(this, y, true);
      case ODM: return new OdmProblem(this, y, m);
      default: throw new AssertionError(type);
    }
  }
}
