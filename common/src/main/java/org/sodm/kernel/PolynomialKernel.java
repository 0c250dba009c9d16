package org.sodm.kernel;

import org.sodm.data.SparseVector;

/** k(u, v) = (gamma u'v + coef0)^degree. */
public final class PolynomialKernel implements Kernel {
  private final double gamma;
  private final double coef0;
  private final int degree;

  public PolynomialKernel(double gamma, double coef0, int degree) {
    this.gamma = gamma;
    this.coef0 = coef0;
    this.degree = degree;
  }

  @Override
  public double eval(SparseVector a, SparseVector b) {
    return powi(gamma * a.dot(b) + coef0, degree);
  }

  /** x^n by repeated squaring (as LIBSVM's powi). */
  static double powi(double x, int n) {
    double r = 1;
    double b = x;
    for (int e = n; e > 0; e >>= 1) {
      if ((e & 1) != 0) r *= b;
      b *= b;
    }
    return r;
  }

  @Override
  public boolean dotBased() {
    return true;
  }

  @Override
  public double fromDot(double dot, double aNorm, double bNorm) {
    return powi(gamma * dot + coef0, degree);
  }

  @Override
  public void fromDots(double[] dots, double aNorm, double[] norms, int from, int to) {
    for (int t = from; t < to; t++) {
      dots[t] = powi(gamma * dots[t] + coef0, degree);
    }
  }

  @Override
  public KernelSpec spec() {
    return KernelSpec.poly(gamma, coef0, degree);
  }
}
