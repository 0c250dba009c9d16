package org.sodm.kernel;

import org.sodm.data.SparseVector;

/** k(u, v) = tanh(gamma u'v + coef0). Not positive semi-definite in general (as in LIBSVM). */
public final class SigmoidKernel implements Kernel {
  private final double gamma;
  private final double coef0;

  public SigmoidKernel(double gamma, double coef0) {
    this.gamma = gamma;
    this.coef0 = coef0;
  }

  @Override
  public double eval(SparseVector a, SparseVector b) {
    return Math.tanh(gamma * a.dot(b) + coef0);
  }

  @Override
  public boolean dotBased() {
    return true;
  }

  @Override
  public double fromDot(double dot, double aNorm, double bNorm) {
    return Math.tanh(gamma * dot + coef0);
  }

  @Override
  public void fromDots(double[] dots, double aNorm, double[] norms, int from, int to) {
    for (int t = from; t < to; t++) {
      dots[t] = Math.tanh(gamma * dots[t] + coef0);
    }
  }

  @Override
  public KernelSpec spec() {
    return KernelSpec.sigmoid(gamma, coef0);
  }
}
