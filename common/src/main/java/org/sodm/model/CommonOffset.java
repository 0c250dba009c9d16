package org.sodm.model;

import java.util.Arrays;
import org.sodm.data.SparseVector;

/**
 * One offset for a model of averaged blocks: for the averaged function without its constant, f(x) = (1/B) sum_b sum_i c_bi
 * k(s_bi, x), the b that minimises the hinge loss of the primal, sum_i C_i max(0, 1 - y_i (f(x_i) + b)), over the blocks'
 * support vectors (y_i the sign of c_i, C_i the bound of its class). For one block this is LIBSVM's own offset (at the
 * optimum, the free support vectors sit on the margin, so b = -rho makes the subgradient sum_i alpha_i y_i = 0); for the
 * mean of blocks it is the primal's best offset for the averaged w on the rows that carry the dual solution, where the mean of
 * the blocks' own offsets fits none of them (ijcnn1, C = 32, g = 2, 7 blocks: -1.323 against the blocks' mean -1.495, test
 * accuracy 98.57% against 98.40%, LIBSVM's 98.70%). In training the fit also takes a scale of the averaged function
 * ({@link #scaledHinge}: b / a for the best a &gt; 0 and b), since the mean of blocks that disagree is smaller than each of
 * them and its unit margin is not theirs.
 *
 * <p>The minimiser of a sum of hinges is a breakpoint 1 - f_i (y_i = +1) or -1 - f_i (y_i = -1) where the slope, -sum C_i of
 * the positives whose breakpoint is above b plus sum C_i of the negatives whose breakpoint is below, changes sign (the middle
 * of the interval when it is 0 on one). Cost: one decision value of the averaged model per distinct support vector; when support
 * vectors squared exceeds {@code budget} kernel evaluations, every k-th support vector (block order, then support-vector
 * order) stands for the rest, never fewer than {@code minUsed} of them ({@link #MIN_USED} in training), each class weighted
 * to weigh what it weighs among all of them ({@link #classWeights}). Unweighted, the estimate was noisy at many blocks: on
 * 4,000,000 synthetic rows (163 blocks, 716,094 support vectors; the test set's best offset about -6.74, 97.78%) it was
 * -6.846 from the budget's 374 vectors and -6.636 from 2,052 (97.27% and 97.26%).
 */
public final class CommonOffset {
  /** The default budget of kernel evaluations (2^28: ijcnn1's 4,260 support vectors squared are 2^24). */
  public static final long BUDGET = 1L << 28;
  /**
   * The fewest support vectors that stand for the rest in training (all when there are fewer), whatever the budget: the
   * estimate's error shrinks as 1 / sqrt(used), so its cost grows with the model (2,048 decision values of the model: 12.8 s
   * of a 503 s run at 4,000,000 synthetic rows, where 2,052 of 716,094 vectors gave -6.715 and 97.74% test accuracy, the
   * budget's 374 -6.794 and 97.60%, both class-weighted).
   */
  public static final int MIN_USED = 2048;

  private static final int CHUNK = 256;

  private CommonOffset() {}

  /**
   * The offset and what it came from.
   *
   * @param offset the common offset, or NaN when the model has no support vector
   * @param blockMean the mean of the blocks' own offsets (the averaged model's offset before)
   * @param supportVectors the support vectors, and {@code used} of them in the sum
   * @param scored the distinct vectors among the used ones: each scored once
   * @param scale the fitted scale a of several blocks' averaged function ({@link #scaledHinge}), or 1 (one block, or unscaled)
   */
  public record Result(double offset, double blockMean, long supportVectors, int used, int scored, double scale) {}

  /**
   * @param cPositive, cNegative the weights C_i of the +1 and -1 support vectors (their blocks' bounds)
   * @param budget kernel evaluations allowed
   */
  public static Result of(KernelModel m, double cPositive, double cNegative, long budget) {
    return of(m, cPositive, cNegative, budget, 0);
  }

  /** As {@link #of(KernelModel, double, double, long)}, with at least {@code minUsed} support vectors (or all) whatever the budget. */
  public static Result of(KernelModel m, double cPositive, double cNegative, long budget, int minUsed) {
    return of(m, cPositive, cNegative, budget, minUsed, false);
  }

  /**
   * As {@link #of(KernelModel, double, double, long, int)}; with {@code scaled} and several blocks the offset is the one the
   * best scaled hinge fit gives, {@link #scaledHinge}: b / a for the (a &gt; 0, b) minimising sum_i C_i max(0, 1 - y_i (a f(x_i)
   * + b)), the model's function otherwise unchanged; one block keeps LIBSVM's offset (a = 1).
   */
  public static Result of(KernelModel m, double cPositive, double cNegative, long budget, int minUsed, boolean scaled) {
    if (!(cPositive > 0) || !(cNegative > 0)) throw new IllegalArgumentException("bounds must be positive: " + cPositive + ", " + cNegative);
    int nb = m.blockCount();
    double blockMean = 0;
    long total = 0;
    for (int b = 0; b < nb; b++) {
      blockMean += m.block(b).bias();
      total += m.block(b).size();
    }
    blockMean /= nb;
    if (total == 0) return new Result(Double.NaN, blockMean, 0, 0, 0, 1);
    long stride = 1;
    while (stride < total && (total + stride - 1) / stride * total > budget) stride++; // one vector at least
    stride = Math.min(stride, Math.max(1, total / Math.max(1, minUsed)));
    int used = (int) ((total + stride - 1) / stride);
    SparseVector[] xs = new SparseVector[used];
    double[] y = new double[used];
    long k = 0;
    int u = 0;
    long positives = 0; // of all the support vectors
    int usedPositives = 0;
    for (int b = 0; b < nb; b++) {
      KernelExpansion e = m.block(b);
      for (int i = 0; i < e.size(); i++) {
        if (e.coef(i) > 0) positives++;
        if (k++ % stride != 0) continue;
        xs[u] = e.supportVector(i);
        y[u] = e.coef(i) > 0 ? 1 : -1;
        if (y[u++] > 0) usedPositives++;
      }
    }
    double[] f = new double[used];
    int scored = stride == 1 ? ownDecisions(m, xs, f) : -1;
    if (scored < 0) scored = distinctDecisions(m, xs, f);
    double[] cw = classWeights(cPositive, cNegative, positives, total - positives, usedPositives, used - usedPositives);
    double[] w = new double[used];
    for (int i = 0; i < used; i++) w[i] = y[i] > 0 ? cw[0] : cw[1];
    if (nb == 1 || !scaled) return new Result(hingeMinimiser(f, y, w), blockMean, total, used, scored, 1);
    double[] ab = scaledHinge(f, y, w);
    return new Result(ab[1] / ab[0], blockMean, total, used, scored, ab[0]);
  }

  /**
   * The weights of a used +1 and -1 support vector, {C+ P / p, C- N / q}: each class of the subset weighs what the class weighs
   * among all the support vectors (P, N of them; p, q used). Every vector used: C+ and C- exactly. The offset balances the two
   * classes' errors, so a subset's chance share of one class moves it: on the 4,000,000-row model, 374 of 716,094 vectors
   * drawn at random gave offsets with a spread (sd) of 0.095 unweighted and 0.038 weighted, 2,052 vectors 0.047 and 0.015.
   */
  static double[] classWeights(double cPositive, double cNegative, long positives, long negatives, int usedPositives, int usedNegatives) {
    return new double[] {
      usedPositives == 0 || usedPositives == positives ? cPositive : cPositive * positives / usedPositives,
      usedNegatives == 0 || usedNegatives == negatives ? cNegative : cNegative * negatives / usedNegatives
    };
  }

  /**
   * Every support vector used (stride 1): {@code f[i]} = the averaged function without its offset at {@code xs[i]} from the
   * merged expansion's {@link KernelExpansion#ownDecisions} (its support vectors are the distinct ones; each pair's kernel
   * once). Returns how many distinct vectors were scored, or -1 when the model has no merged expansion with a dense copy.
   */
  private static int ownDecisions(KernelModel m, SparseVector[] xs, double[] f) {
    KernelExpansion e = m.merged();
    double[] own = e == null ? null : e.ownDecisions();
    if (own == null) return -1;
    java.util.Map<SparseVector, Integer> at = new java.util.HashMap<>();
    for (int u = 0; u < e.size(); u++) at.put(e.supportVector(u), u);
    for (int i = 0; i < xs.length; i++) f[i] = own[at.get(xs[i])];
    return e.size();
  }

  /**
   * {@code f[i]} = the averaged function without its offset at {@code xs[i]}, each distinct vector scored once (the blocks of
   * an averaged tree share many support vectors; a row's value does not depend on the rows scored beside it), in fixed
   * chunks of {@link #CHUNK} rows in parallel (the same values for any number of threads). Returns the distinct count.
   */
  private static int distinctDecisions(KernelModel m, SparseVector[] xs, double[] f) {
    java.util.Map<SparseVector, Integer> distinctAt = new java.util.HashMap<>();
    int[] rowOf = new int[xs.length];
    SparseVector[] distinct = new SparseVector[xs.length];
    int rows = 0;
    for (int i = 0; i < xs.length; i++) {
      Integer r = distinctAt.putIfAbsent(xs[i], rows);
      if (r == null) distinct[rows] = xs[i];
      rowOf[i] = r == null ? rows++ : r;
    }
    int count = rows;
    double[] scores = new double[count];
    KernelModel zero = m.withBias(0);
    java.util.stream.IntStream.range(0, (count + CHUNK - 1) / CHUNK).parallel().forEach(c -> {
      int from = c * CHUNK;
      int n = Math.min(count, from + CHUNK) - from;
      double[] out = new double[n];
      zero.decisionsPrepared(Arrays.copyOfRange(distinct, from, from + n), n, out);
      System.arraycopy(out, 0, scores, from, n);
    });
    for (int i = 0; i < xs.length; i++) f[i] = scores[rowOf[i]];
    return count;
  }

  /** The range of the scale a that {@link #scaledHinge} searches, [1 / SCALE_RANGE, SCALE_RANGE]. */
  static final double SCALE_RANGE = 1e4;

  /**
   * The offset of f that the best scaled hinge fit gives: b / a for (a, b) = argmin over a &gt; 0 and b of
   * sum_i w_i max(0, 1 - y_i (a f_i + b)) ({@link #scaledHinge}). Invariant to f's scale: offset(c f) = c offset(f), c &gt; 0.
   */
  static double scaledHingeOffset(double[] f, double[] y, double[] w) {
    double[] ab = scaledHinge(f, y, w);
    return ab[1] / ab[0];
  }

  /**
   * {a, b} = argmin over a in [1 / {@link #SCALE_RANGE}, SCALE_RANGE] and b of sum_i w_i max(0, 1 - y_i (a f_i + b)). The
   * inner minimum over b is {@link #hingeMinimiser}'s; the loss is jointly convex in (a, b), so its minimum over b is convex
   * in a, hence unimodal in log a, where a golden-section search of 64 steps finds it (the interval then 1e-13 of its
   * width). Why a scale: the mean of blocks that disagree is smaller than any of them, so its unit margin is not theirs and
   * the hinge at scale 1 puts more of the rows inside the margin, where the offset follows the classes' counts (text-like
   * data, 3 blocks: b = -0.093 at scale 1, test accuracy 73.65%, the test's best offset +0.068; fitted with a scale +0.121,
   * 75.60%; LIBSVM's whole solve 76.63%).
   */
  static double[] scaledHinge(double[] f, double[] y, double[] w) {
    double[] byClass = classConstant(y, w);
    double lo = -Math.log(SCALE_RANGE);
    double hi = Math.log(SCALE_RANGE);
    double g = (Math.sqrt(5) - 1) / 2;
    double t1 = hi - g * (hi - lo);
    double t2 = lo + g * (hi - lo);
    double l1 = scaledLoss(f, y, w, byClass, Math.exp(t1));
    double l2 = scaledLoss(f, y, w, byClass, Math.exp(t2));
    for (int k = 0; k < 64; k++) {
      if (l1 <= l2) {
        hi = t2;
        t2 = t1;
        l2 = l1;
        t1 = hi - g * (hi - lo);
        l1 = scaledLoss(f, y, w, byClass, Math.exp(t1));
      } else {
        lo = t1;
        t1 = t2;
        l1 = l2;
        t2 = lo + g * (hi - lo);
        l2 = scaledLoss(f, y, w, byClass, Math.exp(t2));
      }
    }
    double a = Math.exp(l1 <= l2 ? t1 : t2);
    return new double[] {a, minimiser(scaled(f, a), y, w, byClass)};
  }

  /** {wPos, wNeg} when every +1 term weighs wPos and every -1 term wNeg (as in {@link #of}), else null. */
  private static double[] classConstant(double[] y, double[] w) {
    double wPos = Double.NaN;
    double wNeg = Double.NaN;
    for (int i = 0; i < y.length; i++) {
      if (y[i] > 0) {
        if (Double.isNaN(wPos)) wPos = w[i];
        else if (w[i] != wPos) return null;
      } else {
        if (Double.isNaN(wNeg)) wNeg = w[i];
        else if (w[i] != wNeg) return null;
      }
    }
    return new double[] {wPos, wNeg};
  }

  private static double minimiser(double[] f, double[] y, double[] w, double[] byClass) {
    return byClass == null ? hingeMinimiser(f, y, w) : hingeMinimiserByClass(f, y, byClass[0], byClass[1]);
  }

  /**
   * {@link #hingeMinimiser} where every +1 term weighs {@code wPos} and every -1 term {@code wNeg}: each class's breakpoints
   * sorted as primitives and merged, the same walk of the slope (about ten times faster than sorting boxed indices, once per
   * step of {@link #scaledHinge}). Equal breakpoints may be walked in another order: the result is the same breakpoint, or
   * the same midpoint, unless the slope's rounding differs at one (weights that are not sums of exact binary fractions).
   */
  static double hingeMinimiserByClass(double[] f, double[] y, double wPos, double wNeg) {
    int n = f.length;
    if (n == 0) throw new IllegalArgumentException("no terms");
    int np = 0;
    for (double v : y) if (v > 0) np++;
    double[] p = new double[np];
    double[] q = new double[n - np];
    double slope = 0; // below every breakpoint: -wPos per positive term
    for (int i = 0, ip = 0, iq = 0; i < n; i++) {
      if (y[i] > 0) {
        p[ip++] = 1 - f[i];
        slope -= wPos;
      } else {
        q[iq++] = -1 - f[i];
      }
    }
    Arrays.sort(p);
    Arrays.sort(q);
    if (np == 0) return q[0];
    if (np == n) return p[np - 1];
    int i = 0;
    int j = 0;
    double bp = 0;
    while (i < p.length || j < q.length) {
      boolean fromP = j >= q.length || (i < p.length && p[i] <= q[j]);
      bp = fromP ? p[i++] : q[j++];
      slope += fromP ? wPos : wNeg;
      if (slope > 0) return bp;
      if (slope == 0) {
        if (i >= p.length && j >= q.length) return bp;
        double next = j >= q.length || (i < p.length && p[i] <= q[j]) ? p[i] : q[j];
        return (bp + next) / 2;
      }
    }
    return bp;
  }

  private static double[] scaled(double[] f, double a) {
    double[] af = new double[f.length];
    for (int i = 0; i < f.length; i++) af[i] = a * f[i];
    return af;
  }

  /** min over b of sum_i w_i max(0, 1 - y_i (a f_i + b)). */
  private static double scaledLoss(double[] f, double[] y, double[] w, double[] byClass, double a) {
    double[] af = scaled(f, a);
    double b = minimiser(af, y, w, byClass);
    double sum = 0;
    for (int i = 0; i < af.length; i++) sum += w[i] * Math.max(0, 1 - y[i] * (af[i] + b));
    return sum;
  }

  /** argmin_b sum_i w_i max(0, 1 - y_i (f_i + b)), w_i &gt; 0 (the middle of the interval where the slope is 0, if any). */
  static double hingeMinimiser(double[] f, double[] y, double[] w) {
    int n = f.length;
    if (n == 0) throw new IllegalArgumentException("no terms");
    double[] bp = new double[n];
    Integer[] order = new Integer[n];
    double slope = 0; // for b below every breakpoint: each positive term has slope -w_i, each negative 0
    boolean pos = false;
    boolean neg = false;
    for (int i = 0; i < n; i++) {
      bp[i] = y[i] > 0 ? 1 - f[i] : -1 - f[i];
      order[i] = i;
      if (y[i] > 0) {
        slope -= w[i];
        pos = true;
      } else {
        neg = true;
      }
    }
    Arrays.sort(order, (a, b) -> Double.compare(bp[a], bp[b]));
    if (!pos) return bp[order[0]]; // only negatives: any b at most the lowest breakpoint is optimal (loss 0)
    if (!neg) return bp[order[n - 1]]; // only positives: any b at least the highest
    for (int t = 0; t < n; t++) {
      slope += w[order[t]]; // past a breakpoint, a positive term flattens (+w) and a negative one rises (+w)
      if (slope > 0) return bp[order[t]];
      if (slope == 0) return t + 1 < n ? (bp[order[t]] + bp[order[t + 1]]) / 2 : bp[order[t]];
    }
    return bp[order[n - 1]];
  }
}
