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
 * midpoint of their bounds when none is free), as LIBSVM's {@code calculate_rho}; rows of one class only give a = 0 and b = y
 * (the finite end of the optimal b's, where the midpoint would be infinite).
 *
 * <p>A warm start (the merge tree's children) is made feasible first: clipped to the box, then the larger of the two
 * class sums sum_{y=+1} a_i and sum_{y=-1} a_i scaled down to the smaller, so that sum y_i a_i = 0. Columns come from the
 * byte-bounded {@link KernelCache}. Shrinking ({@link SolverOptions#shrinking}) as LIBSVM's: every min(n, 1000) iterations
 * the variables at a bound whose gradient points out of the box beyond the extreme violations leave the active set; G of
 * the shrunk ones is rebuilt from G_bar (the upper-bound variables' columns) and the free variables when the active set is
 * optimal, or once the gap falls below 10 eps, and the whole problem is checked before it stops.
 */
public final class OffsetSvcSolver {
  private static final double TAU = 1e-12;
  private static final byte LOWER = 0;
  private static final byte FREE = 1;
  private static final byte UPPER = 2;

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
      int supportVectors, boolean converged, long kernelEvaluations, long cacheHits, long peakCacheBytes, State state) {}

  /**
   * A solve's end state in row order: a, the gradient G = Qa - e, G_bar (the sum over the variables at their upper bound of
   * C_i Q_i, LIBSVM's) and the bounds it was solved with; {@link #solveScaled} starts from it at other bounds.
   */
  public record State(double[] alpha, double[] gradient, double[] gBar, double cPos, double cNeg) {}

  /**
   * @param cPos, cNeg the upper bounds of the +1 and -1 rows
   * @param initial a start (length n; made feasible, see the class comment), or null for a = 0
   * @throws IllegalArgumentException for labels other than +-1 or non-positive bounds
   */
  public Result solve(SparseVector[] x, double[] y, double cPos, double cNeg, double[] initial) {
    double[] c = bounds(x.length, y, cPos, cNeg);
    double[] alpha = feasibleStart(y, c, initial);
    Run run = new Run(matrix(x, y), alpha, c, null, null, cPos, cNeg);
    return run.solve(opts.eps(), opts.shrinking());
  }

  /**
   * Solves the rows of {@code from}'s solve again at the bounds cPos, cNeg, in the same ratio as its own (grid.py's path
   * along C), starting from its solution scaled by f = cPos / from.cPos: a_i = f a_i' (a variable at its old upper bound at
   * the new one exactly, and one that would pass it by rounding just below it), so G = f (G' + e) - e and G_bar = f G_bar'
   * come without a kernel column. A start from a alone ({@link #solve}) computes one column per non-zero a_i: on letter's
   * one-vs-one pairs, where most rows are support vectors, more kernel evaluations than the whole cold solve.
   *
   * @throws IllegalArgumentException when the state is not of n rows or the bounds are not in its ratio (1e-12 relative)
   */
  public Result solveScaled(SparseVector[] x, double[] y, double cPos, double cNeg, State from) {
    int n = x.length;
    if (from.alpha().length != n || from.gradient().length != n || from.gBar().length != n) {
      throw new IllegalArgumentException("a state of " + from.alpha().length + " rows for " + n + " rows");
    }
    double f = cPos / from.cPos();
    if (!(Math.abs(cNeg - f * from.cNeg()) <= 1e-12 * cNeg)) {
      throw new IllegalArgumentException("the bounds C+ " + cPos + ", C- " + cNeg + " are not in the ratio of the state's C+ "
          + from.cPos() + ", C- " + from.cNeg());
    }
    double[] c = bounds(n, y, cPos, cNeg);
    double[] alpha = new double[n];
    double[] g = new double[n];
    double[] gBar = new double[n];
    for (int i = 0; i < n; i++) {
      double a = from.alpha()[i];
      if (a >= (y[i] == 1 ? from.cPos() : from.cNeg())) alpha[i] = c[i];
      else if (a > 0) alpha[i] = Math.min(f * a, Math.nextDown(c[i]));
      g[i] = f * (from.gradient()[i] + 1) - 1;
      gBar[i] = f * from.gBar()[i];
    }
    Run run = new Run(matrix(x, y), alpha, c, g, gBar, cPos, cNeg);
    return run.solve(opts.eps(), opts.shrinking());
  }

  /** Q of the rows, its columns from a kernel cache of the options' size. */
  private QMatrix matrix(SparseVector[] x, double[] y) {
    return new QMatrix(kernel, x, y.clone(), true, new KernelCache(x.length, opts.cacheBytes()), new Trace(false),
        opts.threads());
  }

  /**
   * Each row's upper bound, C+ or C- by its label.
   *
   * @throws IllegalArgumentException for labels other than +-1, a label count other than n, or non-positive bounds
   */
  private static double[] bounds(int n, double[] y, double cPos, double cNeg) {
    if (y.length != n) throw new IllegalArgumentException(n + " rows but " + y.length + " labels");
    if (!(cPos > 0) || !(cNeg > 0)) throw new IllegalArgumentException("the bounds must be positive: C+ " + cPos + ", C- " + cNeg);
    double[] c = new double[n];
    for (int i = 0; i < n; i++) {
      if (y[i] == 1) c[i] = cPos;
      else if (y[i] == -1) c[i] = cNeg;
      else throw new IllegalArgumentException("label y[" + i + "] = " + y[i] + " is not -1 or +1");
    }
    return c;
  }

  /** One solve's state, by position (positions are permuted by shrinking; {@code orig} maps them back). */
  private static final class Run {
    private final QMatrix q;
    private final int n;
    private final double[] yy;
    private final double[] qd;
    private final double[] alpha;
    private final double[] c;
    private final double[] g;
    /** G_bar: sum over the variables at their upper bound of C_j Q_ij (LIBSVM's, to rebuild G of shrunk variables). */
    private final double[] gBar;
    /** Each position's place in its box, as LIBSVM's alpha_status: {@link #LOWER}, {@link #FREE} or {@link #UPPER}. */
    private final byte[] status;
    /** Whether each position is in I_up (y = +1 below C, y = -1 above 0) and in I_low, kept with {@link #status}. */
    private final boolean[] inUp;
    private final boolean[] inLow;
    /** {@link #secondIndex}'s max y_t G_t over I_low. */
    private final double[] lowMax = new double[1];
    private final int[] orig;
    /** The swaps of one shrink (each position is the lower index of at most one swap, so n of them suffice). */
    private final int[] swapI;
    private final int[] swapJ;
    private int active;
    private final double cPos;
    private final double cNeg;

    /** @param g, gBar G and G_bar of {@code alpha} (taken as they are), or null to compute them from its columns */
    Run(QMatrix q, double[] alpha, double[] c, double[] g, double[] gBar, double cPos, double cNeg) {
      this.q = q;
      this.n = alpha.length;
      this.yy = q.labels();
      this.qd = q.diagonal();
      this.alpha = alpha;
      this.c = c;
      this.cPos = cPos;
      this.cNeg = cNeg;
      this.g = g != null ? g : new double[n];
      this.gBar = gBar != null ? gBar : new double[n];
      this.orig = new int[n];
      this.swapI = new int[n];
      this.swapJ = new int[n];
      this.status = new byte[n];
      this.inUp = new boolean[n];
      this.inLow = new boolean[n];
      for (int i = 0; i < n; i++) {
        orig[i] = i;
        updateStatus(i);
      }
      active = n;
      if (g != null) return;
      java.util.Arrays.fill(this.g, -1);
      for (int i = 0; i < n; i++) {
        if (alpha[i] <= 0) continue;
        float[] col = q.column(i, n);
        for (int j = 0; j < n; j++) this.g[j] += alpha[i] * col[j];
        if (alpha[i] >= c[i]) for (int j = 0; j < n; j++) this.gBar[j] += c[i] * col[j];
      }
    }

    private boolean upper(int i) {
      return status[i] == UPPER;
    }

    private boolean lower(int i) {
      return status[i] == LOWER;
    }

    private void updateStatus(int i) {
      byte s = alpha[i] >= c[i] ? UPPER : alpha[i] <= 0 ? LOWER : FREE;
      status[i] = s;
      inUp[i] = yy[i] > 0 ? s != UPPER : s != LOWER;
      inLow[i] = yy[i] > 0 ? s != LOWER : s != UPPER;
    }

    Result solve(double eps, boolean shrinking) {
      long maxIter = Math.max(10_000_000L, 100L * n);
      long iter = 0;
      double violation = 0;
      double initialViolation = Double.NaN;
      boolean converged = true;
      boolean[] unshrink = {false};
      int counter = Math.min(n, 1000) + 1;
      int[] pair = new int[2];
      while (n > 0) {
        if (--counter == 0) {
          counter = Math.min(n, 1000);
          if (shrinking) shrink(eps, unshrink);
        }
        violation = select(pair);
        if (iter == 0) initialViolation = violation;
        if (pair[1] < 0 || violation < eps) {
          if (active == n) break;
          reconstructGradient(); // optimal on the active set: check the whole problem (LIBSVM's "*")
          active = n;
          violation = select(pair);
          if (pair[1] < 0 || violation < eps) break;
          counter = 1;
        }
        if (iter >= maxIter) {
          converged = false;
          break;
        }
        iter++;
        update(pair[0], pair[1]);
      }
      if (Double.isNaN(initialViolation)) initialViolation = 0;
      if (active < n) { // stopped at the iteration cap with variables shrunk: G of every variable for rho and the objective
        reconstructGradient();
        active = n;
      }

      // calculate_rho
      double ub = Double.POSITIVE_INFINITY;
      double lb = Double.NEGATIVE_INFINITY;
      double sumFree = 0;
      int free = 0;
      double obj = 0;
      int sv = 0;
      double[] out = new double[n];
      double[] gOut = new double[n];
      double[] gBarOut = new double[n];
      for (int i = 0; i < n; i++) {
        gOut[orig[i]] = g[i];
        gBarOut[orig[i]] = gBar[i];
        double yg = yy[i] * g[i];
        if (upper(i)) {
          if (yy[i] < 0) ub = Math.min(ub, yg);
          else lb = Math.max(lb, yg);
        } else if (lower(i)) {
          if (yy[i] > 0) ub = Math.min(ub, yg);
          else lb = Math.max(lb, yg);
        } else {
          free++;
          sumFree += yg;
        }
        obj += alpha[i] * (g[i] - 1);
        if (alpha[i] > 0) sv++;
        out[orig[i]] = alpha[i];
      }
      // one class only (a fold or block without the other): every b with y b >= 1 is optimal and the interval of rho is
      // unbounded on one side, where LIBSVM's midpoint would be infinite; its finite end, f = y for every x (LIBSVM's
      // decision for such a fold in svm_binary_svc_probability), keeps averaged blocks and exported models finite
      double rho = free > 0 ? sumFree / free : n == 0 ? 0 : lb == Double.NEGATIVE_INFINITY ? ub
          : ub == Double.POSITIVE_INFINITY ? lb : (ub + lb) / 2;
      return new Result(out, -rho, obj / 2, initialViolation, violation, iter, sv, converged, q.kernelEvaluations(), q.cache().hits(),
          q.cache().peakBytes(), new State(out, gOut, gBarOut, cPos, cNeg));
    }

    /** LIBSVM's select_working_set (WSS 2) on the active positions: {i, j} into {@code pair} (j = -1: none), m - M returned. */
    private double select(int[] pair) {
      double gmax = Double.NEGATIVE_INFINITY;
      int gi = -1;
      // -y_t G_t over I_up, with y_t = +-1 folded in (the products by +-1 are exact: the same values as LIBSVM's branches)
      for (int t = 0; t < active; t++) {
        if (!inUp[t]) continue;
        double v = -yy[t] * g[t];
        if (v >= gmax) {
          gmax = v;
          gi = t;
        }
      }
      pair[0] = gi;
      pair[1] = -1;
      if (gi < 0) return 0;
      float[] qi = q.column(gi, active);
      lowMax[0] = Double.NEGATIVE_INFINITY;
      pair[1] = secondIndex(active, inLow, yy, g, qd, qi, gmax, qd[gi], 2.0 * yy[gi], lowMax);
      return gmax + lowMax[0];
    }

    /** The pair's step, G on the active positions, and G_bar where a variable reached or left its upper bound. */
    private void update(int i, int j) {
      float[] qi = q.column(i, active);
      float[] qj = q.column(j, active);
      if (qj == qi) { // both in the working buffer (no room in the cache), or j's column recycled i's array: both again, apart
        qj = qj.clone();
        qi = q.column(i, active).clone();
      }
      boolean ui = upper(i);
      boolean uj = upper(j);
      step(i, j, qi, qj, qd, yy, c, alpha, g, active);
      updateStatus(i);
      updateStatus(j);
      if (ui != upper(i)) {
        float[] col = q.column(i, n);
        double f = ui ? -c[i] : c[i];
        for (int k = 0; k < n; k++) gBar[k] += f * col[k];
      }
      if (uj != upper(j)) {
        float[] col = q.column(j, n);
        double f = uj ? -c[j] : c[j];
        for (int k = 0; k < n; k++) gBar[k] += f * col[k];
      }
    }

    /** LIBSVM's do_shrinking. */
    private void shrink(double eps, boolean[] unshrink) {
      double gmax1 = Double.NEGATIVE_INFINITY; // max -y_i G_i over I_up
      double gmax2 = Double.NEGATIVE_INFINITY; // max y_i G_i over I_low
      for (int i = 0; i < active; i++) {
        if (yy[i] > 0) {
          if (!upper(i) && -g[i] >= gmax1) gmax1 = -g[i];
          if (!lower(i) && g[i] >= gmax2) gmax2 = g[i];
        } else {
          if (!upper(i) && -g[i] >= gmax2) gmax2 = -g[i];
          if (!lower(i) && g[i] >= gmax1) gmax1 = g[i];
        }
      }
      if (!unshrink[0] && gmax1 + gmax2 <= eps * 10) {
        unshrink[0] = true;
        reconstructGradient();
        active = n;
      }
      // the cache's side of the swaps is applied once for all of them: every cached column visited once per shrink, not
      // once per swap (per-swap visits were 40% of a9a's block solves)
      int count = 0;
      for (int i = 0; i < active; i++) {
        if (!shrinkable(i, gmax1, gmax2)) continue;
        active--;
        while (active > i) {
          if (!shrinkable(active, gmax1, gmax2)) {
            swapState(i, active);
            swapI[count] = i;
            swapJ[count++] = active;
            break;
          }
          active--;
        }
      }
      if (count > 0) q.swapCached(swapI, swapJ, count);
    }

    private boolean shrinkable(int i, double gmax1, double gmax2) {
      if (upper(i)) return yy[i] > 0 ? -g[i] > gmax1 : -g[i] > gmax2;
      if (lower(i)) return yy[i] > 0 ? g[i] > gmax2 : g[i] > gmax1;
      return false;
    }

    /** G of the shrunk positions from G_bar and the free variables (LIBSVM's reconstruct_gradient). */
    private void reconstructGradient() {
      if (active == n) return;
      for (int j = active; j < n; j++) g[j] = gBar[j] - 1;
      int free = 0;
      for (int j = 0; j < active; j++) if (!upper(j) && !lower(j)) free++;
      if ((long) free * n > 2L * active * (n - active)) {
        for (int i = active; i < n; i++) {
          float[] col = q.column(i, active);
          for (int j = 0; j < active; j++) if (!upper(j) && !lower(j)) g[i] += alpha[j] * col[j];
        }
      } else {
        for (int i = 0; i < active; i++) {
          if (upper(i) || lower(i)) continue;
          float[] col = q.column(i, n);
          for (int j = active; j < n; j++) g[j] += alpha[i] * col[j];
        }
      }
    }

    /** Swaps positions i and j everywhere but in the kernel cache (the caller swaps the cached columns, see shrink). */
    private void swapState(int i, int j) {
      q.swapRows(i, j); // y and Q's diagonal too: yy and qd are Q's arrays
      swap(alpha, i, j);
      swap(c, i, j);
      swap(g, i, j);
      swap(gBar, i, j);
      byte s = status[i];
      status[i] = status[j];
      status[j] = s;
      swap(inUp, i, j);
      swap(inLow, i, j);
      int t = orig[i];
      orig[i] = orig[j];
      orig[j] = t;
    }

    private static void swap(boolean[] a, int i, int j) {
      boolean t = a[i];
      a[i] = a[j];
      a[j] = t;
    }

    private static void swap(double[] a, int i, int j) {
      double t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  /**
   * LIBSVM's second index of WSS 2: over the positions t &lt; active in I_low ({@code inLow}) with gmax + y_t G_t &gt; 0, the
   * one of least -(gmax + y_t G_t)^2 / quad_t (quad_t = qdi + qd_t - 2 y_i y_t Q_it, TAU where not positive; the last of
   * equal ones), or -1; {@code gmax2[0]} becomes max(gmax2[0], max over I_low of y_t G_t). {@code twoYi} = 2 y_i.
   */
  static int secondIndex(int active, boolean[] inLow, double[] yy, double[] g, double[] qd, float[] qi, double gmax, double qdi,
      double twoYi, double[] gmax2) {
    double objMin = Double.POSITIVE_INFINITY;
    double m2 = gmax2[0];
    int best = -1;
    // a candidate whose gain diff^2 / quad is below (1 - 1e-9) times the best one's cannot win: skipped without the
    // division (the margin is far above the rounding of the product, so the choice is the division's, bit for bit)
    double bound = Double.NEGATIVE_INFINITY;
    for (int t = 0; t < active; t++) {
      if (!inLow[t]) continue;
      double yt = yy[t];
      double gt = yt * g[t];
      if (gt >= m2) m2 = gt;
      double diff = gmax + gt;
      if (diff <= 0) continue;
      // y_t = -1: qdi + qd_t - (-(2 y_i) Q_it) is exactly LIBSVM's qdi + qd_t + 2 y_i Q_it
      double quad = qdi + qd[t] - twoYi * yt * qi[t];
      double q2 = quad > 0 ? quad : TAU;
      double d2 = diff * diff;
      if (d2 < bound * q2) continue;
      double od = -d2 / q2;
      if (od <= objMin) {
        best = t;
        objMin = od;
        bound = -od * (1 - 1e-9);
      }
    }
    gmax2[0] = m2;
    return best;
  }

  /** The exact minimiser over the pair (i, j) on the segment the equality constraint and the box allow (LIBSVM's update). */
  private static void step(int i, int j, float[] qi, float[] qj, double[] qd, double[] y, double[] c, double[] alpha, double[] g,
      int active) {
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
    for (int k = 0; k < active; k++) g[k] += qi[k] * di + qj[k] * dj;
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
    // sums equal but for rounding (a solution's, scaled): kept as they are, as SMO's own iterates are; scaling by 1 - 1e-16
    // would move every variable at its bound C off it, into the free set and the working-set selection
    if (Math.abs(pos - neg) <= 1e-12 * Math.max(pos, neg)) return a;
    boolean shrinkPos = pos > neg;
    double f = shrinkPos ? neg / pos : pos / neg;
    for (int i = 0; i < n; i++) if ((y[i] > 0) == shrinkPos) a[i] *= f;
    return a;
  }
}
