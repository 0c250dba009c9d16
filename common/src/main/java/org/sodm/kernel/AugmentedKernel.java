package org.sodm.kernel;

import org.sodm.data.SparseVector;

/**
 * k'(a, b) = k(a, b) + 1: the feature map gains a constant coordinate 1, so a model
 * f(x) = sum_i c_i k'(x_i, x) = sum_i c_i k(x_i, x) + b has the bias b = sum_i c_i. This is how
 * the solvers fit a bias: it is regularized (b^2/2 joins |w|^2/2) instead of LIBSVM's equality
 * constraint sum_i y_i alpha_i = 0, so the dual keeps only box constraints.
 */
public final class AugmentedKernel implements Kernel {
  private final Kernel base;

  public AugmentedKernel(Kernel base) {
    if (base == null) throw new IllegalArgumentException("base kernel is required");
    this.base = base;
  }

  public Kernel base() {
    return base;
  }

  @Override
  public double eval(SparseVector a, SparseVector b) {
    return base.eval(a, b) + 1.0;
  }

  @Override
  public double self(SparseVector a) {
    return base.self(a) + 1.0;
  }

  @Override
  public void column(SparseVector x, SparseVector[] rows, int[] which, int count, double[] out) {
    base.column(x, rows, which, count, out);
    for (int t = 0; t < count; t++) out[t] += 1.0;
  }

  @Override
  public void column(SparseVector x, SparseVector[] rows, double[] out) {
    base.column(x, rows, out);
    for (int j = 0; j < rows.length; j++) out[j] += 1.0;
  }

  @Override
  public boolean dotBased() {
    return base.dotBased();
  }

  @Override
  public double fromDot(double dot, double aNorm, double bNorm) {
    return base.fromDot(dot, aNorm, bNorm) + 1.0;
  }

  @Override
  public void fromDots(double[] dots, double aNorm, double[] norms, int from, int to) {
    base.fromDots(dots, aNorm, norms, from, to);
    for (int t = from; t < to; t++) dots[t] += 1.0;
  }

  /** The base kernel's spec (the +1 is not part of it; the model records the bias option). */
  @Override
  public KernelSpec spec() {
    return base.spec();
  }

  @Override
  public boolean shiftInvariant() {
    return base.shiftInvariant();
  }
}
