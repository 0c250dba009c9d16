package org.sodm.solver;

import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.model.KernelExpansion;

/**
 * The nu-SVC dual (Schoelkopf et al.; LIBSVM's {@code svm-train -s 1}) with any kernel:
 *
 * <pre>
 *   min 1/2 a'Qa   s.t.  0 &lt;= a_i &lt;= 1/n,  sum_i y_i a_i = 0,  sum_i a_i = nu,   Q_ij = y_i y_j k(x_i, x_j)
 * </pre>
 *
 * solved by the working-set method of LIBSVM's Solver_NU, which keeps both equality constraints:
 * every step changes two variables of the same class by opposite amounts (so both sums stay), the
 * pair chosen by the maximal violation within each class and the second-order gain (Fan, Chen and
 * Lin 2005); it stops when max(m_+ - M_+, m_- - M_-) &lt; eps, the violations of the KKT conditions
 * of each class. The box constraints are not separable per instance as {@link DualProblem}
 * assumes (the equality constraints tie them), hence a solver of its own.
 *
 * <p>It works, as LIBSVM, in the variables alpha = n a (0 &lt;= alpha_i &lt;= 1, sum alpha_i = n nu),
 * so eps means what {@code svm-train -e} means; its start is LIBSVM's (each class fills its n nu / 2
 * greedily in input order). Offset and scaling as LIBSVM's {@code solve_nu_svc}: with r1, r2 the
 * mean gradients (Q alpha)_i of the free variables of each class (the midpoint of their bounds when
 * none is free), r = (r1 + r2) / 2 and rho = (r1 - r2) / 2, the decision function is
 * f(x) = sum_i alpha_i y_i k(x_i, x) / r - rho / r (the margin hyperplanes at f = +-1).
 *
 * <p>Columns of Q come from the byte-bounded {@link KernelCache} ({@link SolverOptions#cacheBytes}).
 * No shrinking: an iteration costs O(n) besides the columns it fetches (the first of each pair copied, so that
 * fetching the second cannot recycle it).
 */
public final class NuSvcSolver {
  private static final double TAU = 1e-12;

  private final Kernel kernel;
  private final SolverOptions opts;

  public NuSvcSolver(Kernel kernel, SolverOptions opts) {
    if (kernel == null) throw new IllegalArgumentException("kernel is required");
    if (opts == null) throw new IllegalArgumentException("solver options are required");
    this.kernel = kernel;
    this.opts = opts;
  }

  /**
   * A solve's outcome.
   *
   * @param a the dual variables in the formulation of the class comment (0 &lt;= a_i &lt;= 1/n)
   * @param coef the coefficients of k(x_i, .) in f: alpha_i y_i / r
   * @param bias the constant of f: -rho / r
   * @param objective 1/2 a'Qa
   * @param libsvmObjective 1/2 alpha'Q alpha = n^2 objective, what {@code svm-train} prints as obj
   * @param rho, r LIBSVM's rho and r before the scaling (its model file has rho / r)
   * @param initialViolation, maxViolation max(m_+ - M_+, m_- - M_-) at the start and at the end (alpha scaling)
   * @param supportVectors instances with a_i &gt; 0
   */
  public record Result(double[] a, double[] coef, double bias, double objective, double libsvmObjective, double rho, double r,
      double initialViolation, double maxViolation, long iterations, int supportVectors, boolean converged, long kernelEvaluations,
      long cacheHits, long peakCacheBytes) {

    /** The decision function over the support vectors. */
    public KernelExpansion expansion(Kernel k, SparseVector[] x) {
      return KernelExpansion.nonZero(k, x, coef, bias);
    }
  }

  /**
   * Solves on rows x with labels y (+-1).
   *
   * @throws IllegalArgumentException for bad labels, nu outside (0, 1] or infeasible for the class
   *     sizes (nu &gt; 2 min(n1, n2) / n), one class only
   */
  public Result solve(SparseVector[] x, double[] y, double nu) {
    int n = x.length;
    if (y.length != n) throw new IllegalArgumentException(n + " rows but " + y.length + " labels");
    if (!(nu > 0 && nu <= 1)) throw new IllegalArgumentException("nu must be in (0, 1], got " + nu);
    int n1 = 0;
    int n2 = 0;
    for (int i = 0; i < n; i++) {
      if (y[i] == 1) n1++;
      else if (y[i] == -1) n2++;
      else throw new IllegalArgumentException("label y[" + i + "] = " + y[i] + " is not -1 or +1");
    }
    if (n1 == 0 || n2 == 0) throw new IllegalArgumentException("nu-SVC needs both classes; all " + n + " rows have label " + (n1 == 0 ? "-1" : "+1"));
    if (nu * n / 2 > Math.min(n1, n2)) {
      throw new IllegalArgumentException("nu = " + nu + " is infeasible for the class sizes: nu-SVC needs nu <= 2 min(n1, n2) / n = "
          + 2.0 * Math.min(n1, n2) / n + " (n1 = " + n1 + " labelled +1, n2 = " + n2 + " labelled -1)");
    }
    double[] yy = y.clone();
    KernelCache cache = new KernelCache(n, opts.cacheBytes());
    QMatrix q = new QMatrix(kernel, x, yy, true, cache, new Trace(false), opts.threads());
    double[] qd = q.diagonal();

    double[] alpha = new double[n];
    double sumPos = nu * n / 2;
    double sumNeg = nu * n / 2;
    for (int i = 0; i < n; i++) {
      if (yy[i] > 0) {
        alpha[i] = Math.min(1.0, sumPos);
        sumPos -= alpha[i];
      } else {
        alpha[i] = Math.min(1.0, sumNeg);
        sumNeg -= alpha[i];
      }
    }
    double[] g = new double[n];
    for (int i = 0; i < n; i++) {
      if (alpha[i] == 0) continue;
      float[] col = q.column(i, n);
      for (int j = 0; j < n; j++) g[j] += alpha[i] * col[j];
    }

    long maxIter = Math.max(10_000_000L, n > Long.MAX_VALUE / 100 ? Long.MAX_VALUE : 100L * n);
    long iter = 0;
    double violation;
    double initialViolation = Double.NaN;
    boolean converged;
    while (true) {
      // working-set selection of Solver_NU::select_working_set
      double gmaxp = Double.NEGATIVE_INFINITY;
      double gmaxp2 = Double.NEGATIVE_INFINITY;
      int ip = -1;
      double gmaxn = Double.NEGATIVE_INFINITY;
      double gmaxn2 = Double.NEGATIVE_INFINITY;
      int in = -1;
      for (int t = 0; t < n; t++) {
        if (yy[t] > 0) {
          if (alpha[t] < 1 && -g[t] >= gmaxp) {
            gmaxp = -g[t];
            ip = t;
          }
        } else if (alpha[t] > 0 && g[t] >= gmaxn) {
          gmaxn = g[t];
          in = t;
        }
      }
      float[] qip = ip >= 0 ? q.column(ip, n).clone() : null;
      float[] qin = in >= 0 ? q.column(in, n) : null;
      int jmin = -1;
      double objMin = Double.POSITIVE_INFINITY;
      for (int j = 0; j < n; j++) {
        if (yy[j] > 0) {
          if (alpha[j] > 0) {
            double diff = gmaxp + g[j];
            if (g[j] >= gmaxp2) gmaxp2 = g[j];
            if (diff > 0) {
              double quad = qd[ip] + qd[j] - 2 * qip[j];
              double od = -(diff * diff) / (quad > 0 ? quad : TAU);
              if (od <= objMin) {
                jmin = j;
                objMin = od;
              }
            }
          }
        } else if (alpha[j] < 1) {
          double diff = gmaxn - g[j];
          if (-g[j] >= gmaxn2) gmaxn2 = -g[j];
          if (diff > 0) {
            double quad = qd[in] + qd[j] - 2 * qin[j];
            double od = -(diff * diff) / (quad > 0 ? quad : TAU);
            if (od <= objMin) {
              jmin = j;
              objMin = od;
            }
          }
        }
      }
      violation = Math.max(gmaxp + gmaxp2, gmaxn + gmaxn2);
      if (iter == 0) initialViolation = violation;
      if (violation < opts.eps() || jmin == -1) {
        converged = true;
        break;
      }
      if (iter >= maxIter) {
        converged = false;
        break;
      }
      iter++;
      int i = yy[jmin] > 0 ? ip : in;
      int j = jmin;
      // the update of Solver::Solve for y_i = y_j (C_i = C_j = 1)
      float[] qi = q.column(i, n).clone();
      float[] qj = q.column(j, n);
      double oldI = alpha[i];
      double oldJ = alpha[j];
      double quad = qd[i] + qd[j] - 2 * qi[j];
      if (quad <= 0) quad = TAU;
      double delta = (g[i] - g[j]) / quad;
      double sum = alpha[i] + alpha[j];
      alpha[i] -= delta;
      alpha[j] += delta;
      if (sum > 1) {
        if (alpha[i] > 1) {
          alpha[i] = 1;
          alpha[j] = sum - 1;
        }
      } else if (alpha[j] < 0) {
        alpha[j] = 0;
        alpha[i] = sum;
      }
      if (sum > 1) {
        if (alpha[j] > 1) {
          alpha[j] = 1;
          alpha[i] = sum - 1;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = sum;
      }
      double di = alpha[i] - oldI;
      double dj = alpha[j] - oldJ;
      for (int k = 0; k < n; k++) g[k] += qi[k] * di + qj[k] * dj;
    }

    // Solver_NU::calculate_rho
    int free1 = 0;
    int free2 = 0;
    double ub1 = Double.POSITIVE_INFINITY;
    double ub2 = Double.POSITIVE_INFINITY;
    double lb1 = Double.NEGATIVE_INFINITY;
    double lb2 = Double.NEGATIVE_INFINITY;
    double sf1 = 0;
    double sf2 = 0;
    for (int i = 0; i < n; i++) {
      boolean upper = alpha[i] >= 1;
      boolean lower = alpha[i] <= 0;
      if (yy[i] > 0) {
        if (upper) lb1 = Math.max(lb1, g[i]);
        else if (lower) ub1 = Math.min(ub1, g[i]);
        else {
          free1++;
          sf1 += g[i];
        }
      } else {
        if (upper) lb2 = Math.max(lb2, g[i]);
        else if (lower) ub2 = Math.min(ub2, g[i]);
        else {
          free2++;
          sf2 += g[i];
        }
      }
    }
    double r1 = free1 > 0 ? sf1 / free1 : (ub1 + lb1) / 2;
    double r2 = free2 > 0 ? sf2 / free2 : (ub2 + lb2) / 2;
    double r = (r1 + r2) / 2;
    double rho = (r1 - r2) / 2;
    double obj = 0;
    for (int i = 0; i < n; i++) obj += alpha[i] * g[i];
    obj /= 2;
    double[] a = new double[n];
    double[] coef = new double[n];
    int sv = 0;
    for (int i = 0; i < n; i++) {
      a[i] = alpha[i] / n;
      coef[i] = alpha[i] * yy[i] / r;
      if (alpha[i] > 0) sv++;
    }
    return new Result(a, coef, -rho / r, obj / ((double) n * n), obj, rho, r, initialViolation, violation, iter, sv, converged,
        q.kernelEvaluations(), cache.hits(), cache.peakBytes());
  }
}
