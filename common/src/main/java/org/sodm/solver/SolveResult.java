package org.sodm.solver;

import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.model.KernelExpansion;

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

  /**
   * The model of this solve on x: its support vectors (coef != 0) over the base kernel, with
   * bias {@link #augmentedBias()} when the solve used the bias option ({@code augmented}), else 0.
   */
  public KernelExpansion expansion(Kernel base, SparseVector[] x, boolean augmented) {
    return KernelExpansion.nonZero(base, x, coef, augmented ? augmentedBias() : 0.0);
  }
}
