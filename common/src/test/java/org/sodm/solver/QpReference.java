package org.sodm.solver;

import java.util.Random;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.linear.OdmPrimal;
import org.sodm.linear.SvmLoss;

/**
 * Independent reference for the tests: builds the dual QP min 1/2 a'Ha + b'a, 0 <= a <= u
 * explicitly from the formulas of DESIGN.md section 3 (kernel values from
 * {@link KernelSpec#evalReference}, no solver code), and solves it by enumerating active sets
 * (exact) or by projected gradient.
 */
final class QpReference {
  final double[][] h;
  final double[] b;
  final double[] u;
  /** gamma = T a (rows = instances). */
  final int vpi;

  QpReference(double[][] h, double[] b, double[] u, int vpi) {
    this.h = h;
    this.b = b;
    this.u = u;
    this.vpi = vpi;
  }

  static double[][] gram(KernelSpec k, SparseVector[] x, double[] y, boolean bias) {
    int n = x.length;
    double[][] q = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        q[i][j] = y[i] * y[j] * (k.evalReference(x[i], x[j]) + (bias ? 1 : 0));
      }
    }
    return q;
  }

  /** Builds the QP of the loss (class weights and bias included) on (x, y). */
  static QpReference of(KernelSpec k, SparseVector[] x, double[] y, Loss loss) {
    int n = x.length;
    double[][] q = gram(k, x, y, loss.bias());
    if (loss instanceof Loss.Odm) {
      OdmPrimal odm = loss.odmPrimal();
      double theta = odm.theta();
      double mu = odm.v();
      double[][] h = new double[2 * n][2 * n];
      double[] b = new double[2 * n];
      double[] u = new double[2 * n];
      for (int i = 0; i < n; i++) {
        double lam = odm.lambda(y[i]);
        double c = (1 - theta) * (1 - theta) / (lam * mu);
        for (int j = 0; j < n; j++) {
          h[2 * i][2 * j] = q[i][j];
          h[2 * i][2 * j + 1] = -q[i][j];
          h[2 * i + 1][2 * j] = -q[i][j];
          h[2 * i + 1][2 * j + 1] = q[i][j];
        }
        h[2 * i][2 * i] += n * c * mu;
        h[2 * i + 1][2 * i + 1] += n * c;
        b[2 * i] = theta - 1;
        b[2 * i + 1] = theta + 1;
        u[2 * i] = Double.POSITIVE_INFINITY;
        u[2 * i + 1] = Double.POSITIVE_INFINITY;
      }
      return new QpReference(h, b, u, 2);
    }
    double[] b = new double[n];
    double[] u = new double[n];
    SvmLoss svm = loss.svmPrimal();
    for (int i = 0; i < n; i++) {
      double ci = svm.c(y[i]);
      b[i] = -1;
      if (!svm.squared()) {
        u[i] = ci;
      } else {
        u[i] = Double.POSITIVE_INFINITY;
        q[i][i] += 1 / (2 * ci);
      }
    }
    return new QpReference(q, b, u, 1);
  }

  double objective(double[] a) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      double r = 0;
      for (int j = 0; j < a.length; j++) r += h[i][j] * a[j];
      s += 0.5 * a[i] * r + b[i] * a[i];
    }
    return s;
  }

  double[] gradient(double[] a) {
    double[] g = b.clone();
    for (int i = 0; i < a.length; i++) {
      for (int j = 0; j < a.length; j++) g[i] += h[i][j] * a[j];
    }
    return g;
  }

  /** max |projected gradient| (the KKT residual). */
  double kktViolation(double[] a) {
    double[] g = gradient(a);
    double v = 0;
    for (int i = 0; i < a.length; i++) {
      double pg = g[i];
      if (a[i] <= 0) pg = Math.min(pg, 0);
      else if (a[i] >= u[i]) pg = Math.max(pg, 0);
      v = Math.max(v, Math.abs(pg));
    }
    return v;
  }

  /** Exact optimum by enumeration of states (lower / upper / free) of every variable. */
  double[] enumerate() {
    int m = b.length;
    int[] state = new int[m];
    double[] best = null;
    double bestObj = Double.POSITIVE_INFINITY;
    while (true) {
      double[] a = solveState(state);
      if (a != null && kktViolation(a) < 1e-9) {
        double o = objective(a);
        if (o < bestObj) {
          bestObj = o;
          best = a;
        }
      }
      int k = 0;
      while (k < m) {
        state[k]++;
        int max = Double.isInfinite(u[k]) ? 2 : 3;
        if (state[k] < max) break;
        state[k] = 0;
        k++;
      }
      if (k == m) break;
    }
    if (best == null) throw new AssertionError("no KKT point found");
    return best;
  }

  /** state: 0 = at 0, 1 = free, 2 = at upper. Null if infeasible/singular. */
  private double[] solveState(int[] state) {
    int m = b.length;
    double[] a = new double[m];
    int nf = 0;
    for (int i = 0; i < m; i++) {
      if (state[i] == 2) a[i] = u[i];
      if (state[i] == 1) nf++;
    }
    int[] f = new int[nf];
    for (int i = 0, t = 0; i < m; i++) if (state[i] == 1) f[t++] = i;
    double[][] mat = new double[nf][nf + 1];
    for (int r = 0; r < nf; r++) {
      double rhs = -b[f[r]];
      for (int j = 0; j < m; j++) if (state[j] == 2) rhs -= h[f[r]][j] * a[j];
      for (int c = 0; c < nf; c++) mat[r][c] = h[f[r]][f[c]];
      mat[r][nf] = rhs;
    }
    double[] sol = gauss(mat, nf);
    if (sol == null) return null;
    for (int t = 0; t < nf; t++) {
      if (sol[t] < -1e-12 || sol[t] > u[f[t]] + 1e-12) return null;
      a[f[t]] = Math.min(Math.max(sol[t], 0), u[f[t]]);
    }
    return a;
  }

  private static double[] gauss(double[][] a, int n) {
    for (int c = 0; c < n; c++) {
      int piv = c;
      for (int r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[piv][c])) piv = r;
      if (Math.abs(a[piv][c]) < 1e-13) return null;
      double[] t = a[c];
      a[c] = a[piv];
      a[piv] = t;
      for (int r = 0; r < n; r++) {
        if (r == c) continue;
        double f = a[r][c] / a[c][c];
        if (f == 0) continue;
        for (int k = c; k <= n; k++) a[r][k] -= f * a[c][k];
      }
    }
    double[] x = new double[n];
    for (int i = 0; i < n; i++) x[i] = a[i][n] / a[i][i];
    return x;
  }

  /** Projected gradient with step 1/L (L = max Gershgorin row sum) until the KKT residual <= tol. */
  double[] projectedGradient(double tol, int maxIter) {
    int m = b.length;
    double lip = 0;
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int j = 0; j < m; j++) s += Math.abs(h[i][j]);
      lip = Math.max(lip, s);
    }
    double[] a = new double[m];
    for (int it = 0; it < maxIter; it++) {
      double[] g = gradient(a);
      for (int i = 0; i < m; i++) a[i] = Math.min(Math.max(a[i] - g[i] / lip, 0), u[i]);
      if (it % 100 == 0 && kktViolation(a) <= tol) return a;
    }
    throw new AssertionError("projected gradient did not reach " + tol + ": " + kktViolation(a));
  }

  /** Random sparse vectors with indices in [1, dim], values in [-1, 1]. */
  static SparseVector[] randomData(Random r, int n, int dim, double density) {
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      double[] d = new double[dim];
      for (int k = 0; k < dim; k++) if (r.nextDouble() < density) d[k] = 2 * r.nextDouble() - 1;
      x[i] = SparseVector.ofDense(d);
    }
    return x;
  }

  static double[] randomLabels(Random r, int n) {
    double[] y = new double[n];
    for (int i = 0; i < n; i++) y[i] = r.nextBoolean() ? 1 : -1;
    if (n >= 2) {
      y[0] = 1;
      y[1] = -1;
    }
    return y;
  }
}
