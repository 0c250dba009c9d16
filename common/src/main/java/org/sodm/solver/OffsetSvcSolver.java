package org.sodm.solver;

import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * The C-SVC dual with LIBSVM's unregularised offset ({@code svm-train -s 0}), any kernel:
 *
 * <pre>
 *   min 1/2 a'Qa - e'a   s.t.  0 &lt;= a_i &lt;= C_i,  sum_i y_i a_i = 0,   Q_ij = y_i y_j k(x_i, x_j)
 * </pre>
 *
 * with C_i = C+ or C- by the label, solved as LIBSVM's {@code Solver}: the working pair of Fan, Chen and Lin (2005) - i the
 * maximal violating index of I_up, j of I_low by the second-order gain - and the exact minimiser over the pair's segment,
 * which keeps the equality constraint. It stops when m(a) - M(a) &lt; eps (what {@code svm-train -e} bounds). The decision
 * function is f(x) = sum_i a_i y_i k(x_i, x) + b with b = -rho, rho the mean of y_i G_i over the free variables (the
 * midpoint of their bounds when none is free), as LIBSVM's {@code calculate_rho}.
 *
 * <p>A warm start (the merge tree's children) is made feasible first: clipped to the box, then the larger of the two
 * class sums sum_{y=+1} a_i and sum_{y=-1} a_i scaled down to the smaller, so that sum y_i a_i = 0. Columns come from the
 * byte-bounded {@link KernelCache}; no shrinking (an iteration costs O(n) besides its columns).
 */
public final class OffsetSvcSolver {
  private static final double TAU = 1e-12;

  private final Kernel kernel;
  private final SolverOptions opts;

  public OffsetSvcSolver(Kernel kernel, SolverOptions opts) {
    if (kernel == null) throw new IllegalArgumentException("kernel is required");
    if (opts == null) throw new IllegalArgumentException("solver options are required");
    this.kernel = kernel;
    this.opts = opts;
  }

  /**
   * A solve's outcome.
   *
   * @param alpha the dual variables a_i (0 &lt;= a_i &lt;= C_i; the coefficient of k(x_i, .) is a_i y_i)
   * @param bias b = -rho
   * @param objective 1/2 a'Qa - e'a, what {@code svm-train} prints as obj
   * @param initialViolation, maxViolation m(a) - M(a) at the (feasible) start and at the end
   */
  public record Result(double[] alpha, double bias, double objective, double initialViolation, double maxViolation, long iterations,
      int supportVectors, boolean converged, long kernelEvaluations, long cacheHits, long peakCacheBytes) {}

  /**
   * @param cPos, cNeg the upper bounds of the +1 and -1 rows
   * @param initial a start (length n; made feasible, see the class comment), or null for a = 0
   * @throws IllegalArgumentException for labels other than +-1 or non-positive bounds
   */
  public Result solve(SparseVector[] x, double[] y, double cPos, double cNeg, double[] initial) {
    int n = x.length;
    if (y.length != n) throw new IllegalArgumentException(n + " rows but " + y.length + " labels");
    if (!(cPos > 0) || !(cNeg > 0)) throw new IllegalArgumentException("the bounds must be positive: C+ " + cPos + ", C- " + cNeg);
    double[] c = new double[n];
    for (int i = 0; i < n; i++) {
      if (y[i] == 1) c[i] = cPos;
      else if (y[i] == -1) c[i] = cNeg;
      else throw new IllegalArgumentException("label y[" + i + "] = " + y[i] + " is not -1 or +1");
    }
    double[] alpha = feasibleStart(y, c, initial);
    double[] yy = y.clone();
    KernelCache cache = new KernelCache(n, opts.cacheBytes());
    QMatrix q = new QMatrix(kernel, x, yy, true, cache, new Trace(false));
    double[] qd = q.diagonal();
    double[] g = new double[n];
    java.util.Arrays.fill(g, -1);
    for (int i = 0; i < n; i++) {
      if (alpha[i] == 0) continue;
      float[] col = q.column(i, n);
      for (int j = 0; j < n; j++) g[j] += alpha[i] * col[j];
    }

    long maxIter = Math.max(10_000_000L, 100L * n);
    long iter = 0;
    double violation = 0;
    double initialViolation = Double.NaN;
    boolean converged = true;
    while (n > 0) {
      // select_working_set of LIBSVM's Solver (WSS 2)
      double gmax = Double.NEGATIVE_INFINITY;
      double gmax2 = Double.NEGATIVE_INFINITY;
      int gi = -1;
      for (int t = 0; t < n; t++) {
        if (yy[t] > 0) {
          if (alpha[t] < c[t] && -g[t] >= gmax) {
            gmax = -g[t];
            gi = t;
          }
        } else if (alpha[t] > 0 && g[t] >= gmax) {
          gmax = g[t];
          gi = t;
        }
      }
      float[] qi = gi >= 0 ? q.column(gi, n).clone() : null;
      int gj = -1;
      double objMin = Double.POSITIVE_INFINITY;
      for (int t = 0; t < n; t++) {
        if (yy[t] > 0) {
          if (alpha[t] > 0) {
            double diff = gmax + g[t];
            if (g[t] >= gmax2) gmax2 = g[t];
            if (diff > 0) {
              double quad = qd[gi] + qd[t] - 2.0 * yy[gi] * qi[t];
              double od = -(diff * diff) / (quad > 0 ? quad : TAU);
              if (od <= objMin) {
                gj = t;
                objMin = od;
              }
            }
          }
        } else if (alpha[t] < c[t]) {
          double diff = gmax - g[t];
          if (-g[t] >= gmax2) gmax2 = -g[t];
          if (diff > 0) {
            double quad = qd[gi] + qd[t] + 2.0 * yy[gi] * qi[t];
            double od = -(diff * diff) / (quad > 0 ? quad : TAU);
            if (od <= objMin) {
              gj = t;
              objMin = od;
            }
          }
        }
      }
      violation = gi < 0 ? 0 : gmax + gmax2;
      if (iter == 0) initialViolation = violation;
      if (gi < 0 || gj < 0 || violation < opts.eps()) break;
      if (iter >= maxIter) {
        converged = false;
        break;
      }
      iter++;
      step(gi, gj, qi, q.column(gj, n), qd, yy, c, alpha, g);
    }
    if (Double.isNaN(initialViolation)) initialViolation = 0;

    // calculate_rho
    double ub = Double.POSITIVE_INFINITY;
    double lb = Double.NEGATIVE_INFINITY;
    double sumFree = 0;
    int free = 0;
    double obj = 0;
    int sv = 0;
    for (int i = 0; i < n; i++) {
      double yg = yy[i] * g[i];
      if (alpha[i] >= c[i]) {
        if (yy[i] < 0) ub = Math.min(ub, yg);
        else lb = Math.max(lb, yg);
      } else if (alpha[i] <= 0) {
        if (yy[i] > 0) ub = Math.min(ub, yg);
        else lb = Math.max(lb, yg);
      } else {
        free++;
        sumFree += yg;
      }
      obj += alpha[i] * (g[i] - 1);
      if (alpha[i] > 0) sv++;
    }
    double rho = free > 0 ? sumFree / free : n == 0 ? 0 : (ub + lb) / 2;
    return new Result(alpha, -rho, obj / 2, initialViolation, violation, iter, sv, converged, q.kernelEvaluations(), cache.hits(),
        cache.peakBytes());
  }

  /** The exact minimiser over the pair (i, j) on the segment the equality constraint and the box allow (LIBSVM's update). */
  private static void step(int i, int j, float[] qi, float[] qj, double[] qd, double[] y, double[] c, double[] alpha, double[] g) {
    double ci = c[i];
    double cj = c[j];
    double oldI = alpha[i];
    double oldJ = alpha[j];
    if (y[i] != y[j]) {
      double quad = qd[i] + qd[j] + 2 * qi[j];
      if (quad <= 0) quad = TAU;
      double delta = (-g[i] - g[j]) / quad;
      double diff = alpha[i] - alpha[j];
      alpha[i] += delta;
      alpha[j] += delta;
      if (diff > 0) {
        if (alpha[j] < 0) {
          alpha[j] = 0;
          alpha[i] = diff;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = -diff;
      }
      if (diff > ci - cj) {
        if (alpha[i] > ci) {
          alpha[i] = ci;
          alpha[j] = ci - diff;
        }
      } else if (alpha[j] > cj) {
        alpha[j] = cj;
        alpha[i] = cj + diff;
      }
    } else {
      double quad = qd[i] + qd[j] - 2 * qi[j];
      if (quad <= 0) quad = TAU;
      double delta = (g[i] - g[j]) / quad;
      double sum = alpha[i] + alpha[j];
      alpha[i] -= delta;
      alpha[j] += delta;
      if (sum > ci) {
        if (alpha[i] > ci) {
          alpha[i] = ci;
          alpha[j] = sum - ci;
        }
      } else if (alpha[j] < 0) {
        alpha[j] = 0;
        alpha[i] = sum;
      }
      if (sum > cj) {
        if (alpha[j] > cj) {
          alpha[j] = cj;
          alpha[i] = sum - cj;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = sum;
      }
    }
    double di = alpha[i] - oldI;
    double dj = alpha[j] - oldJ;
    for (int k = 0; k < g.length; k++) g[k] += qi[k] * di + qj[k] * dj;
  }

  /** The start: a = 0, or {@code initial} clipped to the box with the larger class sum scaled down to the smaller. */
  static double[] feasibleStart(double[] y, double[] c, double[] initial) {
    int n = y.length;
    double[] a = new double[n];
    if (initial == null) return a;
    if (initial.length != n) throw new IllegalArgumentException("a start of " + initial.length + " values for " + n + " rows");
    double pos = 0;
    double neg = 0;
    for (int i = 0; i < n; i++) {
      double v = initial[i];
      if (!(v > 0)) continue; // also NaN
      a[i] = Math.min(v, c[i]);
      if (y[i] > 0) pos += a[i];
      else neg += a[i];
    }
    if (pos == neg) return a;
    boolean shrinkPos = pos > neg;
    double f = shrinkPos ? neg / pos : pos / neg;
    for (int i = 0; i < n; i++) if ((y[i] > 0) == shrinkPos) a[i] *= f;
    return a;
  }
}
