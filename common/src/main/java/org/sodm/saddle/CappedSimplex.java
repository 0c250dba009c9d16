package org.sodm.saddle;

import java.util.Arrays;

/**
 * The capped simplex D = {eta : sum eta = 1, 0 &lt;= eta_i &lt;= cap} of the RC-Hull problem (6)
 * and the projection of Algorithm 2, lines 5-6 onto it (seed 002, Appendix A, Lemma 11). After the
 * multiplicative-weights step (10)-(11) the minimiser of line 5 over D is the Bregman (KL)
 * projection of the normalised weights onto D, eta'_i = min(cap, lambda eta_i) with the one
 * lambda &gt;= 1 that makes the sum 1. Two rules compute it:
 *
 * <ul>
 *   <li>the iterative rule (12) / Rule 3: while varsigma = sum_{eta_i &gt; cap} (eta_i - cap) != 0,
 *       cap the entries above the cap and scale the entries below it by 1 + varsigma / Omega,
 *       Omega = sum_{eta_i &lt; cap} eta_i. Every pass caps at least one more entry, so there are at
 *       most 1/cap passes; each pass needs only the two sums, which is what Saddle-DSVC's fourth
 *       round sends ({@link #sums} per client, {@link #apply} with the global sums);</li>
 *   <li>the sorting rule, Rule 2, O(n log n): sort ascending, varsigma_i = sum_{j &gt;= i}(eta_j -
 *       cap), Omega_i = sum_{j &lt; i} eta_j, take the largest i* with varsigma_i* &gt;= 0 and
 *       eta_{i*-1} (1 + varsigma_i* / Omega_i*) &lt; cap, scale the entries before i* by
 *       1 + varsigma_i* / Omega_i* and set the others to the cap.</li>
 * </ul>
 *
 * Both keep a log-weight array in step with the weights (the exponent of (11) needs log eta[t])
 * and work with it where a weight can underflow: after the multiplicative step a weight may be 0
 * in double while its logarithm is finite, and when the capped entries hold nearly all the mass
 * the scale factor 1 + varsigma / Omega is then astronomically large but finite. So Omega is
 * summed as a log-sum-exp pair, the factor applied to the logarithms, and a scaled weight
 * recomputed as exp(log). A capped entry gets exactly the cap and log(cap). Entries are compared
 * with the cap by their weights, the capped ones holding the cap exactly, so the rules see a
 * consistent state.
 */
public final class CappedSimplex {
  private CappedSimplex() {}

  /**
   * varsigma (the excess above the cap) and Omega (the mass below it) of (12), Omega as
   * massScaled * exp(massMax) (massMax the largest log-weight below the cap, -infinity when none).
   */
  public record Sums(double excess, double massMax, double massScaled) {
    public static final Sums ZERO = new Sums(0, Double.NEGATIVE_INFINITY, 0);

    public Sums plus(Sums o) {
      double m = Math.max(massMax, o.massMax);
      double a = massScaled == 0 ? 0 : massScaled * Math.exp(massMax - m);
      double b = o.massScaled == 0 ? 0 : o.massScaled * Math.exp(o.massMax - m);
      return new Sums(excess + o.excess, m, a + b);
    }

    /** log Omega (-infinity when no weight is below the cap). */
    public double logMass() {
      return massScaled == 0 ? Double.NEGATIVE_INFINITY : massMax + Math.log(massScaled);
    }
  }

  /** The sums of (12) over the first {@code size} entries. */
  public static Sums sums(double[] weights, double[] logs, int size, double cap) {
    double excess = 0;
    double max = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < size; i++) {
      double v = weights[i];
      if (v > cap) excess += v - cap;
      else if (v < cap && logs[i] > max) max = logs[i];
    }
    double scaled = 0;
    for (int i = 0; i < size; i++) {
      if (weights[i] < cap) scaled += Math.exp(logs[i] - max);
    }
    return new Sums(excess, max, scaled);
  }

  /** log(1 + exp(x)) without overflow. */
  private static double softplus(double x) {
    return x > 30 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
  }

  /**
   * One pass of (12) over the first {@code size} entries with the global sums: entries above the
   * cap are capped, entries below it scaled by 1 + excess / mass.
   *
   * @throws ArithmeticException if there is excess but no entry below the cap
   */
  public static void apply(double[] weights, double[] logs, int size, double cap, Sums total) {
    if (total.excess() == 0) return;
    double logMass = total.logMass();
    if (logMass == Double.NEGATIVE_INFINITY) {
      throw new ArithmeticException("capped-simplex projection: excess " + total.excess()
          + " above the cap but no weight below it (the capped simplex is empty)");
    }
    double logFactor = softplus(Math.log(total.excess()) - logMass);
    double logCap = Math.log(cap);
    for (int i = 0; i < size; i++) {
      double v = weights[i];
      if (v > cap) {
        weights[i] = cap;
        logs[i] = logCap;
      } else if (v < cap) {
        logs[i] += logFactor;
        weights[i] = Math.exp(logs[i]);
      }
    }
  }

  /** The iterative rule (12) on one array: passes of {@link #sums} and {@link #apply}; returns the number of passes that changed it. */
  public static int projectIterative(double[] weights, double[] logs, double cap) {
    int n = weights.length;
    int passes = 0;
    for (Sums s = sums(weights, logs, n, cap); s.excess() != 0; s = sums(weights, logs, n, cap)) {
      apply(weights, logs, n, cap, s);
      passes++;
    }
    return passes;
  }

  /** The sorting rule (Rule 2 of Lemma 11) on one array, O(n log n); sorts by log-weight. */
  public static void projectBySorting(double[] weights, double[] logs, double cap) {
    int n = weights.length;
    Integer[] boxed = new Integer[n];
    for (int i = 0; i < n; i++) boxed[i] = i;
    Arrays.sort(boxed, (a, b) -> Double.compare(logs[a], logs[b]));
    // at 0-based position i: suffix[i] = varsigma = sum over [i, n) of (eta - cap);
    // logPrefix[i] = log Omega = log of the sum over [0, i)
    double[] suffix = new double[n + 1];
    for (int i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + (weights[boxed[i]] - cap);
    double[] logPrefix = new double[n + 1];
    logPrefix[0] = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      double a = logPrefix[i];
      double b = logs[boxed[i]];
      double m = Math.max(a, b);
      logPrefix[i + 1] = m + Math.log(Math.exp(a - m) + Math.exp(b - m));
    }
    double logCap = Math.log(cap);
    int star = 0;
    double logFactor = 0;
    for (int i = n; i >= 1; i--) {
      if (suffix[i] < 0) continue;
      double f = suffix[i] == 0 ? 0 : softplus(Math.log(suffix[i]) - logPrefix[i]);
      if (logs[boxed[i - 1]] + f < logCap) {
        star = i;
        logFactor = f;
        break;
      }
    }
    if (star == n) return; // nothing above the cap: already in D
    for (int k = 0; k < n; k++) {
      int i = boxed[k];
      if (k < star) {
        logs[i] += logFactor;
        weights[i] = Math.exp(logs[i]);
      } else { // star == 0: every entry capped (n cap = 1)
        weights[i] = cap;
        logs[i] = logCap;
      }
    }
  }

  /**
   * How many of the smallest values min_{eta in D} eta^T p touches: the smallest k with k cap &gt;= 1
   * (k - 1 values get the cap, the k-th the rest 1 - (k - 1) cap). For cap &gt;= 1 (the plain
   * simplex) it is 1.
   */
  public static int fillCount(double cap) {
    if (!(cap > 0)) throw new IllegalArgumentException("cap must be positive, got " + cap);
    if (cap >= 1) return 1;
    long k = (long) Math.ceil(1 / cap);
    while (k > 1 && (k - 1) * cap >= 1) k--;
    while (k * cap < 1) k++;
    if (k > Integer.MAX_VALUE) throw new IllegalArgumentException("cap " + cap + " is too small");
    return (int) k;
  }

  /**
   * min_{eta in D} eta^T p given the {@link #fillCount} smallest values of p in ascending order (or
   * max_{eta in D} eta^T p given the largest in descending order): the greedy fill, cap on each of
   * the first k - 1 and the rest on the k-th.
   *
   * @throws IllegalArgumentException if fewer than fillCount values are given (D is empty)
   */
  public static double extremeLinear(double[] ordered, double cap) {
    int k = fillCount(cap);
    if (ordered.length < k) {
      throw new IllegalArgumentException("the capped simplex with cap " + cap + " needs at least " + k + " points, got " + ordered.length);
    }
    if (k == 1) return ordered[0];
    double s = 0;
    for (int i = 0; i < k - 1; i++) s += cap * ordered[i];
    return s + (1 - (k - 1) * cap) * ordered[k - 1];
  }
}
