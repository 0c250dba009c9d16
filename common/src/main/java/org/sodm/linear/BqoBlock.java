package org.sodm.linear;

import java.util.SplittableRandom;
import org.sodm.data.SparseVector;

/**
 * One block's part of a BQO iteration (seed 003 Algorithm 1, steps 2.1-2.3) given the broadcast
 * w^t = X'Y alpha^t: the block subproblem (7)
 *
 * <pre>
 *   min_d  grad f(alpha^t)_J' d + 1/2 d' (Q_JJ + (S_J + tau~ I)) d,   -alpha_i &lt;= d_i &lt;= U_i - alpha_i
 * </pre>
 *
 * (tau~ = tau for L1, 0 for L2, eq. 6), solved by LIBLINEAR-style dual coordinate descent that
 * keeps u = X_J' Y_J d explicitly (one O(nnz(x_i)) dot and axpy per coordinate), a fixed number
 * of passes in a seeded random order (the paper's hybrid rule: the same number of inner passes
 * on every block, so blocks finish together) or fewer when the subproblem's projected gradient
 * falls below {@code innerEps}. From the second pass on it shrinks as LIBLINEAR does: a coordinate
 * at a bound whose gradient points out of the box by more than the largest projected gradient of
 * the previous pass leaves the later passes of this subproblem (on sparse data with many rows at
 * alpha = 0 most of the rows after the first pass); every row is back in the next iteration's
 * subproblem, whose sums and violation are taken over all rows. It returns d, Delta w_J = u and the block's partial sums of the
 * scalars of (13)-(19) and (21), plus the primal loss and dual terms at (alpha^t, w^t) for the
 * pocket model and the duality gap (27).
 */
public final class BqoBlock {
  private BqoBlock() {}

  /** Doubles of per-row state in {@link #solve}'s packed array: one cache line. */
  private static final int ROW = 8;
  /** How many coordinates ahead {@link #solve} touches a row's data. */
  private static final int AHEAD = 2;
  /** Where the look-ahead's sum goes (never read), so that the JIT keeps its loads. */
  @SuppressWarnings("unused")
  private static double lookAhead;

  /**
   * Inner solver settings: at most {@code passes} passes, stopping early once the largest projected gradient of a pass (and
   * of the unshrunk check after it) is at most the iteration's tolerance: {@code innerEps} at iteration 0, multiplied by
   * {@code tightening} (in (0, 1]) at each later iteration ({@link #at}). A tolerance that tightens lets one block be solved
   * to a loose tolerance first (LIBLINEAR's eps 0.1) and further only when the certified gap asks for another iteration: an
   * iteration that began where the last one stopped is not then stopped by its first pass.
   */
  public record Options(int passes, double tau, double innerEps, double tightening) {
    public Options {
      if (passes < 1) throw new IllegalArgumentException("inner passes must be >= 1, got " + passes);
      if (!(tau > 0)) throw new IllegalArgumentException("tau must be > 0, got " + tau);
      if (!(innerEps >= 0)) throw new IllegalArgumentException("inner eps must be >= 0, got " + innerEps);
      if (!(tightening > 0 && tightening <= 1)) throw new IllegalArgumentException("inner eps tightening must be in (0, 1], got " + tightening);
    }

    /** A fixed tolerance at every iteration. */
    public Options(int passes, double tau, double innerEps) {
      this(passes, tau, innerEps, 1);
    }

    public static Options defaults() {
      return new Options(1, 1e-3, 1e-4);
    }

    /** The settings of iteration t: the tolerance innerEps * tightening^t. */
    public Options at(int t) {
      if (t < 0) throw new IllegalArgumentException("iteration " + t);
      return tightening == 1 || t == 0 ? this : new Options(passes, tau, innerEps * Math.pow(tightening, t), tightening);
    }
  }

  /** d (per instance of the block), Delta w_J (length d + 1) and the partial sums. */
  public record Result(double[] d, double[] dw, BqoSums sums, int passes) {}

  /**
   * Solves the block subproblem at (alpha, w). {@code w} has length dim + 1 (bias last) and is
   * not modified; {@code seed} seeds the pass order (pass the iteration and block in it).
   */
  public static Result solve(SparseVector[] x, double[] y, double[] alpha, double[] w, SvmLoss loss, Options opts,
      long seed) {
    return solve(Csr.of(x), y, alpha, w, loss, opts, seed);
  }

  /** {@link #solve(SparseVector[], double[], double[], double[], SvmLoss, Options, long)} over rows held as {@link Csr}. */
  public static Result solve(Csr x, double[] y, double[] alpha, double[] w, SvmLoss loss, Options opts, long seed) {
    return solve(start(x, y, alpha, w, loss, opts), x, y, alpha, loss, opts, seed);
  }

  /**
   * The pass at (alpha, w) that begins a block solve: each row's dual gradient and diagonal, w's length, and the block's sums at that
   * point (the primal loss, the dual terms, the violation) with a zero direction, as an iteration that stops before its
   * solve reports them.
   */
  public record Start(double[] g0, double[] qd, int width, BqoSums atPoint) {}

  /** The first pass of {@link #solve}: see {@link Start}. */
  public static Start start(Csr x, double[] y, double[] alpha, double[] w, SvmLoss loss, Options opts) {
    int n = x.rows();
    double bf = loss.biasFeature();
    double tauT = loss.squared() ? 0 : opts.tau();
    double alphaSum = 0;
    double sAlphaSq = 0;
    double lossSum = 0;
    double cSum = 0;
    double violation = 0;
    double[] g0 = new double[n];
    double[] qd = new double[n];
    for (int i = 0; i < n; i++) {
      double yi = y[i];
      double si = loss.s(yi);
      double m = yi * x.dot(i, w, bf);
      double g = m + si * alpha[i] - 1;
      g0[i] = g;
      qd[i] = x.squaredNorm[i] + bf * bf + si + tauT;
      alphaSum += alpha[i];
      sAlphaSq += si * alpha[i] * alpha[i];
      lossSum += loss.loss(yi, m);
      cSum += loss.c(yi);
      double pg = g;
      if (alpha[i] <= 0) pg = Math.min(g, 0);
      else if (alpha[i] >= loss.upper(yi)) pg = Math.max(g, 0);
      violation = Math.max(violation, Math.abs(pg));
    }
    return new Start(g0, qd, w.length, new BqoSums(alphaSum, sAlphaSq, lossSum, 0, 0, 0, 0, 0, Double.POSITIVE_INFINITY, n, violation, cSum));
  }

  /** The rest of {@link #solve} after its {@link #start}: the coordinate-descent passes and the direction's sums. */
  public static Result solve(Start start, Csr x, double[] y, double[] alpha, SvmLoss loss, Options opts, long seed) {
    int n = x.rows();
    double bf = loss.biasFeature();
    double tauT = loss.squared() ? 0 : opts.tau();
    double[] g0 = start.g0();
    double[] qd = start.qd();
    double[] u = new double[start.width()];
    // Each row's scalars in one 64-byte line (g0, qd, y, s + tau~, lo, hi, d): the pass visits rows in a random order, and
    // seven arrays read at row i were seven cache misses per coordinate on a large block (the 1M-row set: 12% of the solve).
    double[] st = new double[ROW * n];
    for (int i = 0; i < n; i++) {
      int b = ROW * i;
      st[b] = g0[i];
      st[b + 1] = qd[i];
      st[b + 2] = y[i];
      st[b + 3] = loss.s(y[i]) + tauT;
      st[b + 4] = -alpha[i];
      st[b + 5] = loss.upper(y[i]) - alpha[i];
    }
    int[] from = x.from;
    int[] to = x.to;
    int[] index = x.index;
    double[] value = x.value;
    int dim = u.length - 1;
    int[] order = new int[n];
    for (int i = 0; i < n; i++) order[i] = i;
    SplittableRandom rng = new SplittableRandom(seed);
    int pass = 0;
    int active = n;
    double shrinkAbove = Double.POSITIVE_INFINITY;
    double shrinkBelow = Double.NEGATIVE_INFINITY;
    double touched = 0;
    while (pass < opts.passes()) {
      org.sodm.data.Seeds.shuffle(order, active, rng);
      double maxPg = 0;
      double pgMax = Double.NEGATIVE_INFINITY;
      double pgMin = Double.POSITIVE_INFINITY;
      for (int t = 0; t < active; t++) {
        int i = order[t];
        if (t + AHEAD < active) { // start the loads of a row a few coordinates ahead: their misses overlap this row's work
          int j = order[t + AHEAD];
          int fj = from[j];
          touched += st[ROW * j] + (fj < value.length ? value[fj] + index[fj] : 0);
        }
        int b = ROW * i;
        double yi = st[b + 2];
        double di = st[b + 6];
        double m = 0; // x.dot(i, u, bf), inlined
        for (int k = from[i], e = to[i]; k < e; k++) {
          int f = index[k];
          if (f < dim) m += value[k] * u[f];
        }
        m += bf * u[dim];
        double g = st[b] + yi * m + st[b + 3] * di;
        double lo = st[b + 4];
        double hi = st[b + 5];
        double pg = g;
        if (di <= lo) {
          if (g > shrinkAbove) { // at its lower bound and pushed further out: out of the later passes
            order[t--] = order[--active];
            order[active] = i;
            continue;
          }
          pg = Math.min(g, 0);
        } else if (di >= hi) {
          if (g < shrinkBelow) {
            order[t--] = order[--active];
            order[active] = i;
            continue;
          }
          pg = Math.max(g, 0);
        }
        maxPg = Math.max(maxPg, Math.abs(pg));
        pgMax = Math.max(pgMax, pg);
        pgMin = Math.min(pgMin, pg);
        if (pg != 0) {
          double nd = Math.min(Math.max(di - g / st[b + 1], lo), hi);
          double delta = nd - di;
          if (delta != 0) {
            st[b + 6] = nd;
            x.axpy(delta * yi, i, u, bf);
          }
        }
      }
      pass++;
      if (maxPg <= opts.innerEps()) {
        if (active == n) break;
        active = n; // converged on the active rows: check every row again before stopping (LIBLINEAR's unshrink)
        shrinkAbove = Double.POSITIVE_INFINITY;
        shrinkBelow = Double.NEGATIVE_INFINITY;
        continue;
      }
      // LIBLINEAR's shrinking thresholds: the extreme projected gradients of this pass
      shrinkAbove = pgMax > 0 ? pgMax : Double.POSITIVE_INFINITY;
      shrinkBelow = pgMin < 0 ? pgMin : Double.NEGATIVE_INFINITY;
    }
    lookAhead = touched; // a store the JIT cannot drop: it keeps the look-ahead loads
    double[] d = new double[n];
    for (int i = 0; i < n; i++) d[i] = st[ROW * i + 6];
    double eD = 0;
    double sAlphaD = 0;
    double sDSq = 0;
    double dSq = 0;
    double minLambda = Double.POSITIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      double di = d[i];
      if (di == 0) continue;
      double si = loss.s(y[i]);
      eD += di;
      sAlphaD += si * alpha[i] * di;
      sDSq += si * di * di;
      dSq += di * di;
      double lambda = di < 0 ? -alpha[i] / di : (loss.upper(y[i]) - alpha[i]) / di;
      minLambda = Math.min(minLambda, lambda);
    }
    BqoSums p = start.atPoint();
    BqoSums sums = new BqoSums(p.alphaSum(), p.sAlphaSq(), p.loss(), eD, sAlphaD, sDSq, dSq, Vectors.squaredNorm(u), minLambda,
        n, p.violation(), p.cSum());
    return new Result(d, u, sums, pass);
  }

  /** alpha_i + eta d_i, clipped into the box (guards the rounding at eta = min lambda). */
  public static double apply(double alpha, double d, double eta, double upper) {
    double a = alpha + eta * d;
    return Math.min(Math.max(a, 0), upper);
  }
}
