package org.sodm.model;

import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * f(x) = sum_i coef_i k(sv_i, x) + b. With the bias option of the solvers (kernel k + 1) the
 * model is f(x) = sum_i coef_i (k(sv_i, x) + 1), i.e. b = sum_i coef_i over the base kernel
 * ({@link org.sodm.solver.SolveResult#expansion}). Batched evaluation uses a dense feature-major copy of the support vectors when
 * they are low-dimensional and the kernel is dot-based. Immutable, thread-safe.
 */
public final class KernelExpansion {
  private final Kernel kernel;
  private final SparseVector[] sv;
  private final double[] coef;
  private final double bias;
  private final double[] svNorms;
  private final int dim;
  /** feature-major dense copy (dim x nsv) or null. */
  private final double[] dense;

  public KernelExpansion(Kernel k, SparseVector[] sv, double[] coef, double bias) {
    if (k == null || sv == null || coef == null) throw new IllegalArgumentException("kernel, sv and coef are required");
    if (sv.length != coef.length) {
      throw new IllegalArgumentException("sv and coef differ in length: " + sv.length + " vs " + coef.length);
    }
    this.kernel = k;
    this.sv = sv.clone();
    this.coef = coef.clone();
    this.bias = bias;
    int m = sv.length;
    this.svNorms = new double[m];
    int d = 0;
    for (int i = 0; i < m; i++) {
      svNorms[i] = sv[i].squaredNorm();
      d = Math.max(d, sv[i].maxIndex());
    }
    this.dim = d;
    if (k.dotBased() && (long) d * m <= (1L << 25) && d <= 1024) {
      dense = new double[d * m];
      for (int i = 0; i < m; i++) {
        int[] idx = sv[i].indices();
        double[] val = sv[i].values();
        for (int t = 0; t < idx.length; t++) dense[(idx[t] - 1) * m + i] = val[t];
      }
    } else {
      dense = null;
    }
  }

  /** The expansion over the x_i with coef_i != 0 (the support vectors of a dual solution). */
  public static KernelExpansion nonZero(Kernel k, SparseVector[] x, double[] coef, double bias) {
    int m = 0;
    for (double v : coef) if (v != 0) m++;
    SparseVector[] s = new SparseVector[m];
    double[] c = new double[m];
    for (int i = 0, t = 0; i < coef.length; i++) {
      if (coef[i] != 0) {
        s[t] = x[i];
        c[t++] = coef[i];
      }
    }
    return new KernelExpansion(k, s, c, bias);
  }

  public int size() {
    return sv.length;
  }

  public double bias() {
    return bias;
  }

  public SparseVector supportVector(int i) {
    return sv[i];
  }

  public double coef(int i) {
    return coef[i];
  }

  public Kernel kernel() {
    return kernel;
  }

  public double decision(SparseVector x) {
    double[] buf = new double[sv.length];
    return decision(x, buf);
  }

  private double decision(SparseVector x, double[] buf) {
    int m = sv.length;
    if (dense != null) {
      java.util.Arrays.fill(buf, 0.0);
      int[] idx = x.indices();
      double[] val = x.values();
      for (int t = 0; t < idx.length && idx[t] <= dim; t++) {
        double a = val[t];
        int base = (idx[t] - 1) * m;
        for (int i = 0; i < m; i++) buf[i] += a * dense[base + i];
      }
      kernel.fromDots(buf, x.squaredNorm(), svNorms, 0, m);
    } else {
      kernel.column(x, sv, buf);
    }
    double s = bias;
    for (int i = 0; i < m; i++) s += coef[i] * buf[i];
    return s;
  }

  /** out[t] = f(xs[t]). */
  public void decision(SparseVector[] xs, double[] out) {
    double[] buf = new double[sv.length];
    for (int t = 0; t < xs.length; t++) out[t] = decision(xs[t], buf);
  }

  /** The expansion times s (coefficients and bias). */
  public KernelExpansion scaled(double s) {
    double[] c = coef.clone();
    for (int i = 0; i < c.length; i++) c[i] *= s;
    return new KernelExpansion(kernel, sv, c, bias * s);
  }
}
