package org.sodm.partition;

import java.util.Locale;
import java.util.SplittableRandom;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * Quality of a partition into K blocks.
 * <ul>
 *   <li><b>D(pi)</b> (DC-SVM Theorem 1): off-block kernel mass, the sum over ordered pairs
 *       i != j in different partitions of |K_ij|, estimated from {@code samplePairs} uniform
 *       random ordered pairs: D ~ n(n-1) mean(|K_ij| [pi_i != pi_j]), with its standard error.
 *       Also reported as a fraction of the total off-diagonal mass sum_{i != j} |K_ij|
 *       (ratio estimate on the same pairs): about 1 - 1/K for a random partition, smaller when
 *       the partition follows the kernel's cluster structure.</li>
 *   <li>Class balance: fraction of positives (y &gt; 0) per partition; spread = max - min.</li>
 *   <li>Stratum proportions (if strata are given): per partition the total-variation distance
 *       0.5 sum_s |p_k(s) - p(s)| to the global proportions.</li>
 *   <li>Feature means: per partition max_f |mean_k(f) - mean(f)| / sd(f) (standardised mean
 *       difference; features with sd 0 skipped).</li>
 * </ul>
 * Per-partition maxima are over non-empty partitions.
 */
public final class PartitionQuality {
  private final int n;
  private final int k;
  private final long[] sizes;
  private final long pairs;
  private final double dEstimate;
  private final double dStdErr;
  private final double offBlockFraction;
  private final double[] positiveFraction;
  private final double globalPositiveFraction;
  private final double[] stratumTv; // null without strata
  private final double[] featureSmd;

  private PartitionQuality(int n, int k, long[] sizes, long pairs, double dEstimate, double dStdErr,
      double offBlockFraction, double[] positiveFraction, double globalPositiveFraction,
      double[] stratumTv, double[] featureSmd) {
    this.n = n;
    this.k = k;
    this.sizes = sizes;
    this.pairs = pairs;
    this.dEstimate = dEstimate;
    this.dStdErr = dStdErr;
    this.offBlockFraction = offBlockFraction;
    this.positiveFraction = positiveFraction;
    this.globalPositiveFraction = globalPositiveFraction;
    this.stratumTv = stratumTv;
    this.featureSmd = featureSmd;
  }

  /**
   * @param y labels (sign used), may be null to skip class balance
   * @param partition partition in [0, k) of each row
   * @param strata stratum of each row, or null
   * @param samplePairs number of random ordered pairs for D(pi) (0 skips it)
   */
  public static PartitionQuality measure(SparseVector[] x, double[] y, int[] partition, int k,
      int[] strata, Kernel kernel, int samplePairs, long seed) {
    int n = x.length;
    if (partition.length != n) throw new IllegalArgumentException("partition length != rows");
    if (y != null && y.length != n) throw new IllegalArgumentException("labels length != rows");
    if (strata != null && strata.length != n) throw new IllegalArgumentException("strata length != rows");
    long[] sizes = new long[k];
    for (int p : partition) {
      if (p < 0 || p >= k) throw new IllegalArgumentException("partition " + p + " out of [0," + k + ")");
      sizes[p]++;
    }
    // D(pi)
    double dEst = Double.NaN;
    double dSe = Double.NaN;
    double frac = Double.NaN;
    if (samplePairs > 0 && n >= 2) {
      SplittableRandom rnd = new SplittableRandom(Mix.mix(seed, 0x445049L));
      double sumOff = 0;
      double sumOff2 = 0;
      double sumAll = 0;
      for (int t = 0; t < samplePairs; t++) {
        int i = rnd.nextInt(n);
        int j = rnd.nextInt(n - 1);
        if (j >= i) j++;
        double v = Math.abs(kernel.eval(x[i], x[j]));
        sumAll += v;
        if (partition[i] != partition[j]) {
          sumOff += v;
          sumOff2 += v * v;
        }
      }
      double scale = (double) n * (n - 1);
      double mean = sumOff / samplePairs;
      double var = Math.max(0, sumOff2 / samplePairs - mean * mean);
      dEst = scale * mean;
      dSe = scale * Math.sqrt(var / samplePairs);
      frac = sumAll > 0 ? sumOff / sumAll : 0;
    }
    // class balance
    double[] pos = null;
    double gpos = Double.NaN;
    if (y != null) {
      long[] cnt = new long[k];
      long all = 0;
      for (int i = 0; i < n; i++) {
        if (y[i] > 0) {
          cnt[partition[i]]++;
          all++;
        }
      }
      pos = new double[k];
      for (int p = 0; p < k; p++) pos[p] = sizes[p] == 0 ? Double.NaN : (double) cnt[p] / sizes[p];
      gpos = n == 0 ? Double.NaN : (double) all / n;
    }
    // strata
    double[] tv = null;
    if (strata != null) {
      int maxS = -1;
      for (int s : strata) {
        if (s < 0) throw new IllegalArgumentException("negative stratum " + s);
        maxS = Math.max(maxS, s);
      }
      long[][] c = new long[k][maxS + 1];
      long[] g = new long[maxS + 1];
      for (int i = 0; i < n; i++) {
        c[partition[i]][strata[i]]++;
        g[strata[i]]++;
      }
      tv = new double[k];
      for (int p = 0; p < k; p++) {
        if (sizes[p] == 0) {
          tv[p] = Double.NaN;
          continue;
        }
        double s = 0;
        for (int st = 0; st <= maxS; st++) s += Math.abs((double) c[p][st] / sizes[p] - (double) g[st] / n);
        tv[p] = 0.5 * s;
      }
    }
    // feature means
    int dim = 0;
    for (SparseVector v : x) dim = Math.max(dim, v.maxIndex());
    double[][] sum = new double[k][dim];
    double[] gs = new double[dim];
    double[] gs2 = new double[dim];
    for (int i = 0; i < n; i++) {
      SparseVector v = x[i];
      double[] sp = sum[partition[i]];
      for (int t = 0; t < v.nnz(); t++) {
        int f = v.index(t) - 1;
        double val = v.value(t);
        sp[f] += val;
        gs[f] += val;
        gs2[f] += val * val;
      }
    }
    double[] smd = new double[k];
    for (int p = 0; p < k; p++) {
      if (sizes[p] == 0) {
        smd[p] = Double.NaN;
        continue;
      }
      double worst = 0;
      for (int f = 0; f < dim; f++) {
        double mean = gs[f] / n;
        double sd = Math.sqrt(Math.max(0, gs2[f] / n - mean * mean));
        if (!(sd > 1e-12 * Math.max(1, Math.abs(mean)))) continue;
        worst = Math.max(worst, Math.abs(sum[p][f] / sizes[p] - mean) / sd);
      }
      smd[p] = worst;
    }
    return new PartitionQuality(n, k, sizes, samplePairs, dEst, dSe, frac, pos, gpos, tv, smd);
  }

  public int rows() { return n; }
  public int partitions() { return k; }
  public long[] sizes() { return sizes.clone(); }
  /** Estimated D(pi), sum over ordered off-block pairs of |K_ij|; NaN when not sampled. */
  public double offBlockMass() { return dEstimate; }
  public double offBlockMassStdErr() { return dStdErr; }
  /** Estimated D(pi) / sum_{i != j} |K_ij|. */
  public double offBlockFraction() { return offBlockFraction; }
  /** Fraction of y &gt; 0 per partition (NaN for empty ones); null without labels. */
  public double[] positiveFraction() { return positiveFraction == null ? null : positiveFraction.clone(); }
  public double globalPositiveFraction() { return globalPositiveFraction; }
  /** max - min of the per-partition positive fraction. */
  public double classBalanceSpread() { return spread(positiveFraction); }
  /** Total-variation distance of each partition's stratum proportions to the global ones; null without strata. */
  public double[] stratumDeviation() { return stratumTv == null ? null : stratumTv.clone(); }
  public double maxStratumDeviation() { return max(stratumTv); }
  /** max_f |mean_k(f) - mean(f)| / sd(f) per partition. */
  public double[] featureMeanDeviation() { return featureSmd.clone(); }
  public double maxFeatureMeanDeviation() { return max(featureSmd); }

  public long minSize() {
    long m = Long.MAX_VALUE;
    for (long s : sizes) m = Math.min(m, s);
    return m;
  }

  public long maxSize() {
    long m = 0;
    for (long s : sizes) m = Math.max(m, s);
    return m;
  }

  private static double spread(double[] v) {
    if (v == null) return Double.NaN;
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (double x : v) {
      if (Double.isNaN(x)) continue;
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
    return hi >= lo ? hi - lo : Double.NaN;
  }

  private static double max(double[] v) {
    if (v == null) return Double.NaN;
    double hi = Double.NaN;
    for (double x : v) if (!Double.isNaN(x) && !(x <= hi)) hi = x;
    return hi;
  }

  /** Readable summary: one line of totals, then one line per partition. */
  public String table() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT,
        "n=%d K=%d sizes=[%d..%d] D(pi)=%.4g (+-%.2g, %d pairs) offBlockFraction=%.4f"
            + " pos=%.4f classSpread=%.4f maxStratumTV=%s maxFeatureSMD=%.4f%n",
        n, k, minSize(), maxSize(), dEstimate, dStdErr, pairs, offBlockFraction,
        globalPositiveFraction, classBalanceSpread(),
        stratumTv == null ? "-" : String.format(Locale.ROOT, "%.4f", maxStratumDeviation()),
        maxFeatureMeanDeviation()));
    sb.append(String.format(Locale.ROOT, "%5s %9s %8s %9s %9s%n", "part", "size", "pos", "stratumTV", "featSMD"));
    for (int p = 0; p < k; p++) {
      sb.append(String.format(Locale.ROOT, "%5d %9d %8.4f %9s %9.4f%n", p, sizes[p],
          positiveFraction == null ? Double.NaN : positiveFraction[p],
          stratumTv == null ? "-" : String.format(Locale.ROOT, "%.4f", stratumTv[p]),
          featureSmd[p]));
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return table();
  }
}
