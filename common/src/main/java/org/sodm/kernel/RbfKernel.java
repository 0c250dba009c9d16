package org.sodm.kernel;

import org.sodm.data.SparseVector;

/** k(u, v) = exp(-gamma |u - v|^2), computed from the cached squared norms and one dot product. */
public final class RbfKernel implements Kernel {
  private final double gamma;

  public RbfKernel(double gamma) {
    if (!(gamma > 0)) throw new IllegalArgumentException("rbf gamma must be > 0, got " + gamma);
    this.gamma = gamma;
  }

  public double gamma() {
    return gamma;
  }

  @Override
  public double eval(SparseVector a, SparseVector b) {
    return Math.exp(-gamma * a.squaredDistance(b));
  }

  @Override
  public double self(SparseVector a) {
    return 1.0;
  }

  @Override
  public void column(SparseVector x, SparseVector[] rows, int[] which, int count, double[] out) {
    double xn = x.squaredNorm();
    double g = -gamma;
    for (int t = 0; t < count; t++) {
      SparseVector r = rows[which[t]];
      double d2 = xn + r.squaredNorm() - 2 * x.dot(r);
      out[t] = Math.exp(g * (d2 > 0 ? d2 : 0));
    }
  }

  @Override
  public void column(SparseVector x, SparseVector[] rows, double[] out) {
    double xn = x.squaredNorm();
    double g = -gamma;
    for (int j = 0; j < rows.length; j++) {
      SparseVector r = rows[j];
      double d2 = xn + r.squaredNorm() - 2 * x.dot(r);
      out[j] = Math.exp(g * (d2 > 0 ? d2 : 0));
    }
  }

  @Override
  public boolean dotBased() {
    return true;
  }

  @Override
  public double fromDot(double dot, double aNorm, double bNorm) {
    double d2 = aNorm + bNorm - 2 * dot;
    return Math.exp(-gamma * (d2 > 0 ? d2 : 0));
  }

  @Override
  public void fromDots(double[] dots, double aNorm, double[] norms, int from, int to) {
    double g = -gamma;
    for (int t = from; t < to; t++) {
      double d2 = aNorm + norms[t] - 2 * dots[t];
      dots[t] = Math.exp(g * (d2 > 0 ? d2 : 0));
    }
  }

  @Override
  public KernelSpec spec() {
    return KernelSpec.rbf(gamma);
  }

  @Override
  public boolean shiftInvariant() {
    return true;
  }
}
