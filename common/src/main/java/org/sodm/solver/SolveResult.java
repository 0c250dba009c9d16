package org.sodm.solver;

/**
 * A solve's outcome: alpha (instance-major, {@link DualProblem#variablesPerInstance()} per
 * instance, in input order), coef[i] = y_i gamma_i (the coefficient of k(x_i, .) in f; with the
 * bias option the kernel is k + 1 and b = sum_i coef[i]), and the report.
 */
public record SolveResult(double[] alpha, double[] coef, SolveReport report) {

  /** The bias of the augmented-kernel model: sum_i coef[i]. */
  public double augmentedBias() {
    double b = 0;
    for (double c : coef) b += c;
    return b;
  }
}
