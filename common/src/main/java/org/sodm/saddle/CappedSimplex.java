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
 * Both keep a log-weight array in step with the weights (the exponent of (11) needs log eta[t],
 * and a weight may underflow to 0 while its logarithm stays finite): a capped entry gets log(cap),
 * a scaled one log eta + log1p(varsigma / Omega). Entries are compared with the cap by their
 * weights, and capped entries hold the cap exactly, so the rules see a consistent state.
 */
public final class CappedSimplex {
  private CappedSimplex() {}

  /** varsigma (the excess above the cap) and Omega (the mass below it) of (12). */
  public record Sums(double excess, double mass) {
    public Sums plus(Sums o) {
      return new Sums(excess + o.excess, mass + o.mass);
    }
  }

  /** The sums of (12) over weights[0..size). */
  public static Sums sums(double[] weights, int size, double cap) {
    double excess = 0;
    double mass = 0;
    for (int i = 0; i < size; i++) {
      double v = weights[i];
      if (v > cap) excess += v - cap;
      else if (v < cap) mass += v;
    }
    return new Sums(excess, mass);
  }

  /**
   * One pass of (12) over weights[0..size) with the global sums: entries above the cap are capped,
   * entries below it scaled by 1 + excess / mass.
   *
   * @throws ArithmeticException if there is excess but no mass to scale (every uncapped weight
   *     underflowed to 0)
   */
  public static void apply(double[] weights, double[] logs, int size, double cap, Sums total) {
    if (total.excess() == 0) return;
    if (!(total.mass() > 0)) {
      throw new ArithmeticException("capped-simplex projection: excess " + total.excess()
          + " above the cap but no weight below it to scale (every uncapped weight underflowed)");
    }
    double ratio = total.excess() / total.mass();
    double factor = 1 + ratio;
    double logFactor = Math.log1p(ratio);
    double logCap = Math.log(cap);
    for (int i = 0; i < size; i++) {
      double v = weights[i];
      if (v > cap) {
        weights[i] = cap;
        logs[i] = logCap;
      } else if (v < cap) {
        weights[i] = v * factor;
        logs[i] += logFactor;
      }
    }
  }

  /** The iterative rule (12) on one array: passes of {@link #sums} and {@link #apply}; returns the number of passes that changed it. */
  public static int projectIterative(double[] weights, double[] logs, double cap) {
    int passes = 0;
    for (Sums s = sums(weights, weights.length, cap); s.excess() != 0; s = sums(weights, weights.length, cap)) {
      apply(weights, logs, weights.length, cap, s);
      passes++;
    }
    return passes;
  }

  /** The sorting rule (Rule 2 of Lemma 11) on one array, O(n log n). */
  public static void projectBySorting(double[] weights, double[] logs, double cap) {
    int n = weights.length;
    Integer[] boxed = new Integer[n];
    for (int i = 0; i < n; i++) boxed[i] = i;
    Arrays.sort(boxed, (a, b) -> Double.compare(weights[a], weights[b]));
    double[] sorted = new double[n];
    for (int i = 0; i < n; i++) sorted[i] = weights[boxed[i]];
    // prefix[i] = Omega of 0-based position i (sum of sorted[0..i)); suffix[i] = varsigma (sum over [i, n) of eta - cap)
    double[] prefix = new double[n + 1];
    for (int i = 0; i < n; i++) prefix[i + 1] = prefix[i] + sorted[i];
    double[] suffix = new double[n + 1];
    for (int i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + (sorted[i] - cap);
    int star = 0;
    for (int i = n; i >= 1; i--) {
      if (suffix[i] >= 0 && sorted[i - 1] * (1 + suffix[i] / prefix[i]) < cap) {
        star = i;
        break;
      }
    }
    if (star == n) return; // nothing above the cap: already in D
    double logCap = Math.log(cap);
    if (star == 0) { // every entry capped: n * cap = 1
      Arrays.fill(weights, cap);
      Arrays.fill(logs, logCap);
      return;
    }
    double ratio = suffix[star] / prefix[star];
    double factor = 1 + ratio;
    double logFactor = Math.log1p(ratio);
    for (int k = 0; k < n; k++) {
      int i = boxed[k];
      if (k < star) {
        weights[i] *= factor;
        logs[i] += logFactor;
      } else {
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
