package org.sodm.kernel;

import org.sodm.data.SparseVector;

/** k(u, v) = u'v. */
public final class LinearKernel implements Kernel {
  @Override
  public double eval(SparseVector a, SparseVector b) {
    return a.dot(b);
  }

  @Override
  public double self(SparseVector a) {
    return a.squaredNorm();
  }

  @Override
  public boolean dotBased() {
    return true;
  }

  @Override
  public double fromDot(double dot, double aNorm, double bNorm) {
    return dot;
  }

  @Override
  public void fromDots(double[] dots, double aNorm, double[] norms, int from, int to) {
    // identity
  }

  @Override
  public KernelSpec spec() {
    return KernelSpec.linear();
  }
}
