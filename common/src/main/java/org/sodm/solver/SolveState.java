package org.sodm.solver;

import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * The state of one kernel solve, shared by the {@link Descent} strategies: alpha, gamma and
 * G = Q gamma by position (the instances are permuted by shrinking), the active set, and the
 * gradient upkeep (incremental updates from cached columns, rebuilds after unshrinking).
 */
final class SolveState {
  private static final int REBUILD_BLOCK = 2048;

  final int n;
  final int vpi;
  final DualProblem prob; // built on y, so it follows the permutation
  final QMatrix q;
  final double[] y; // labels at positions
  final double[] alpha; // position order
  final int[] orig;
  final double[] g; // (Q gamma) at positions
  final double[] gam; // gamma at positions
  final double[] gSync; // G at the last point where it was valid everywhere
  final double[] gamSync; // gamma at that point
  final double[] info = new double[2];
  final double[] best = new double[1];
  /** Scratch position lists (shrinking's swaps, the changed instances of a rebuild). */
  final int[] listI;
  final int[] listJ;
  final double eps;
  final SolverOptions opts;
  final Trace trace;
  int active;
  long steps;

  SolveState(Kernel k, SparseVector[] x, double[] y, DualProblem prob, double[] alpha, SolverOptions opts,
      boolean allowDense) {
    this.n = x.length;
    this.vpi = prob.variablesPerInstance();
    this.prob = prob;
    this.y = y;
    this.alpha = alpha;
    this.opts = opts;
    this.eps = opts.eps();
    this.trace = new Trace(opts.trace());
    this.q = new QMatrix(k, x, y, allowDense, new KernelCache(n, opts.cacheBytes()), trace, opts.threads());
    this.orig = new int[n];
    this.g = new double[n];
    this.gam = new double[n];
    this.gSync = new double[n];
    this.gamSync = new double[n];
    this.listI = new int[n];
    this.listJ = new int[n];
    for (int p = 0; p < n; p++) {
      orig[p] = p;
      gam[p] = prob.gamma(alpha, p);
    }
  }

  /** G from the non-zero entries of the starting gamma; the whole problem active and in sync. */
  void initGradient() {
    for (int p = 0; p < n; p++) {
      double d = gam[p];
      if (d == 0) continue;
      float[] col = q.column(p, n);
      for (int j = 0; j < n; j++) g[j] += d * col[j];
    }
    active = n;
    System.arraycopy(g, 0, gSync, 0, n);
    System.arraycopy(gam, 0, gamSync, 0, n);
  }

  /** Swaps positions i and j, the cached columns included. */
  void swap(int i, int j) {
    if (i == j) return;
    swapState(i, j);
    q.swapCached(i, j);
  }

  /** Swaps everything but the cache. */
  private void swapState(int i, int j) {
    if (i == j) return;
    int to = orig[i];
    orig[i] = orig[j];
    orig[j] = to;
    swap(g, i, j);
    swap(gam, i, j);
    swap(gSync, i, j);
    swap(gamSync, i, j);
    for (int k = 0; k < vpi; k++) swap(alpha, i * vpi + k, j * vpi + k);
    q.swapRows(i, j);
  }

  private static void swap(double[] a, int i, int j) {
    double t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  /**
   * G[from..n) from the last synchronisation point (when G was valid everywhere):
   * G_j = gSync_j + sum over s whose gamma changed since of (gamma_s - gammaSync_s) Q[s][j],
   * computed directly in blocks of positions (kept in L2 while every changed s passes over
   * them). Afterwards G is valid everywhere and becomes the new synchronisation point.
   */
  private void rebuildGradient(int from) {
    long t = trace.now();
    if (from < n) {
      System.arraycopy(gSync, from, g, from, n - from);
      int m = 0;
      int[] sv = listI;
      for (int s = 0; s < n; s++) if (gam[s] != gamSync[s]) sv[m++] = s;
      for (int b0 = from; b0 < n; b0 += REBUILD_BLOCK) {
        int b1 = Math.min(n, b0 + REBUILD_BLOCK);
        for (int r = 0; r < m; r++) {
          int s = sv[r];
          double[] row = q.kernelRow(s, b0, b1);
          double f = (gam[s] - gamSync[s]) * y[s];
          for (int j = b0; j < b1; j++) g[j] += f * y[j] * row[j];
        }
      }
    }
    System.arraycopy(g, 0, gSync, 0, n);
    System.arraycopy(gam, 0, gamSync, 0, n);
    trace.rebuild += trace.since(t);
  }

  double fullViolation() {
    double v = 0;
    for (int p = 0; p < n; p++) v = Math.max(v, prob.violation(alpha, p, g[p]));
    return v;
  }

  /** Moves shrinkable active instances (threshold thr) behind the active set. */
  void shrink(double thr) {
    long t = trace.now();
    int count = 0;
    for (int p = active - 1; p >= 0; p--) {
      if (prob.shrinkable(alpha, p, g[p], thr)) {
        int last = active - 1;
        swapState(p, last);
        if (p != last) {
          listI[count] = p;
          listJ[count++] = last;
        }
        active--;
      }
    }
    if (count > 0) q.swapCached(listI, listJ, count);
    trace.shrink += trace.since(t);
  }

  /** Applies gamma_p += delta to G over the active set. */
  void apply(int p, double delta) {
    gam[p] += delta;
    int a = active;
    double[] gg = g;
    float[] col = q.column(p, a);
    for (int j = 0; j < a; j++) gg[j] += delta * col[j];
  }

  /** The instance with the largest violation over the active set (into {@link #best}), or -1. */
  int argmax() {
    return prob.argmaxViolation(alpha, g, active, best);
  }

  /** Unshrinks if needed; returns the exact maximal violation of the whole problem. */
  double unshrunkCheck() {
    if (active < n) {
      rebuildGradient(active);
      active = n;
    }
    return fullViolation();
  }

  /** Epochs of a greedy run: ceil(steps / n). */
  int stepEpochs() {
    return (int) Math.min(Integer.MAX_VALUE, (steps + n - 1) / n);
  }

  /** Ends a greedy run that cannot progress: converged only if the unshrunk problem is within eps. */
  Descent.Outcome stalled() {
    double v = unshrunkCheck();
    if (v > eps) {
      KernelDualSolver.LOG.warn("kernel dual solver stalled (no representable progress) at max violation {} > eps {}",
          v, eps);
    }
    return new Descent.Outcome(v, v <= eps, stepEpochs());
  }
}
