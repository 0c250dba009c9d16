package org.sodm.solver;

import org.sodm.data.SparseVector;

/** The argument checks and the starting point every dual solver shares. */
final class SolveInputs {
  private SolveInputs() {}

  /** x, y and loss present, same length, every label -1 or +1. */
  static void check(SparseVector[] x, double[] y, Loss loss) {
    if (x == null || y == null || loss == null) throw new IllegalArgumentException("x, y and loss are required");
    if (x.length != y.length) {
      throw new IllegalArgumentException("x and y differ in length: " + x.length + " vs " + y.length);
    }
    for (int i = 0; i < y.length; i++) {
      if (y[i] != 1.0 && y[i] != -1.0) {
        throw new IllegalArgumentException("label y[" + i + "] must be -1 or +1, got " + y[i]);
      }
    }
  }

  /**
   * The starting alpha of a problem over n instances: zeros, or {@code initialAlpha} (length
   * n * variablesPerInstance, every entry finite) clipped into the box.
   */
  static double[] start(DualProblem prob, int n, double[] initialAlpha) {
    int vpi = prob.variablesPerInstance();
    double[] alpha = new double[n * vpi];
    if (initialAlpha == null) return alpha;
    if (initialAlpha.length != alpha.length) {
      throw new IllegalArgumentException("initial alpha has length " + initialAlpha.length
          + ", expected n * " + vpi + " = " + alpha.length);
    }
    for (int k = 0; k < alpha.length; k++) {
      if (!Double.isFinite(initialAlpha[k])) {
        throw new IllegalArgumentException("initial alpha[" + k + "] is not finite: " + initialAlpha[k]);
      }
    }
    System.arraycopy(initialAlpha, 0, alpha, 0, alpha.length);
    for (int i = 0; i < n; i++) prob.project(alpha, i);
    return alpha;
  }
}
