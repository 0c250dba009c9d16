package org.sodm.saddle;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.sodm.data.Seeds;

/**
 * The server side of Saddle-DSVC (seed 002, Algorithm 4): the seeded coordinate draw of round 1
 * and the reductions of the clients' O(1)-scalar messages, always in the order the clients are
 * listed, so a run is deterministic and its arithmetic does not depend on message timing.
 */
public final class SaddleServer {
  /** The salt of the coordinate stream: {@code Seeds.mix(seed, COORDINATE_SALT)}. */
  static final long COORDINATE_SALT = 0x5ADD1E0000000002L;

  private final SplittableRandom random;
  private final int dimension;

  public SaddleServer(int dimension, long seed) {
    this.dimension = dimension;
    this.random = new SplittableRandom(Seeds.mix(seed, COORDINATE_SALT));
  }

  /** Algorithm 4, line 3 (Algorithm 2, line 1): i* uniform in [d]. */
  public int nextCoordinate() {
    return random.nextInt(dimension);
  }

  /** Algorithm 4, line 10: S.delta+- = sum over clients. */
  public static SaddleClient.Deltas sumDeltas(List<SaddleClient.Deltas> messages) {
    double p = 0;
    double n = 0;
    for (SaddleClient.Deltas m : messages) {
      p += m.positive();
      n += m.negative();
    }
    return new SaddleClient.Deltas(p, n);
  }

  /** Algorithm 4, line 19: log S.Z+- from the clients' log-sum-exp pairs. */
  public static SaddleClient.Normalizers normalizers(List<SaddleClient.LogSums> messages) {
    double pm = Double.NEGATIVE_INFINITY;
    double nm = Double.NEGATIVE_INFINITY;
    for (SaddleClient.LogSums m : messages) {
      pm = Math.max(pm, m.positiveMax());
      nm = Math.max(nm, m.negativeMax());
    }
    double ps = 0;
    double ns = 0;
    for (SaddleClient.LogSums m : messages) {
      if (m.positiveSum() > 0) ps += m.positiveSum() * Math.exp(m.positiveMax() - pm);
      if (m.negativeSum() > 0) ns += m.negativeSum() * Math.exp(m.negativeMax() - nm);
    }
    return new SaddleClient.Normalizers(pm + Math.log(ps), nm + Math.log(ns));
  }

  /** Algorithm 4, line 31: the sums of (12) over clients. */
  public static SaddleClient.CapSums sumCaps(List<SaddleClient.CapSums> messages) {
    CappedSimplex.Sums p = CappedSimplex.Sums.ZERO;
    CappedSimplex.Sums n = CappedSimplex.Sums.ZERO;
    for (SaddleClient.CapSums m : messages) {
      p = p.plus(m.positive());
      n = n.plus(m.negative());
    }
    return new SaddleClient.CapSums(p, n);
  }

  /**
   * The bounds of a duality-gap check, in the transformed space.
   *
   * <p>Upper: any eta, xi in the feasible sets give OPT &lt;= |A eta - B xi|^2 / 2 (Lemmas 2 and 5:
   * OPT is half the squared distance between the (reduced) hulls), so {@code upper} = the smaller
   * of |A eta - B xi| at the current iterate and at the average of the iterates since the previous
   * check bounds that distance from above (with a small gamma the iterates of eta jump between
   * near-vertices of the capped simplex while their average settles). Lower: for w != 0, every point of one hull
   * projects onto w at least at S+ = min_{eta} eta^T A^T w and every point of the other at most at
   * S- = max_{xi} xi^T B^T w, so {@code lower} = (S+ - S-) / |w| bounds the distance from below;
   * max over the scale c of g(c w) in (3)/(7) is lower^2 / 2. In the units of the nu-SVM primal (5)
   * the two are its dual objective -upper^2/8 and its primal objective at the best scaling of w with
   * optimal (b, rho, delta), -lower^2/8.
   *
   * <p>The offset: for a fixed w, (5) is minimised by rho + b = the k-th smallest margin of P and
   * rho - b = minus the k-th largest margin of Q, k = {@link CappedSimplex#fillCount} (the smallest
   * minimiser where the k-th value is not unique), so b = (p+_(k) + p-_(k)) / 2 and the half gap
   * rho = (p+_(k) - p-_(k)) / 2. When k cap = 1 (nu-SVM with n nu / 2 an integer) every value in
   * [p+_(k), p+_(k+1)] minimises (5) and the midpoint is taken, as LIBSVM's Solver_NU does when
   * no support vector is free; k cap is compared with 1 to 1e-12, the rounding of cap = 2 / (n nu). For hard margin (k = 1) this is the midpoint between the closest
   * points' hyperplanes, equal at the optimum to footnote 2's b* = w^T (A eta* + B xi*) / 2, which
   * {@code hullMidpointOffset} reports; for nu-SVM footnote 2's value is the midpoint of the
   * reduced hulls' nearest points, not the minimiser of (5).
   */
  public record Bounds(double upper, double lower, double offset, double halfGap, double hullMidpointOffset,
      double wNorm) {
    /** upper^2 - max(lower, 0)^2: twice the gap between the bounds on OPT. */
    public double absoluteGap() {
      double l = Math.max(lower, 0);
      return upper * upper - l * l;
    }

    /** (upper^2 - max(lower, 0)^2) / upper^2: the gap between the bounds on OPT relative to the upper one. */
    public double relativeGap() {
      return absoluteGap() / (upper * upper);
    }
  }

  /** Whether the k-th extreme margin is not unique: k cap = 1 for nu-SVM ({@link Bounds}). */
  static boolean tie(double cap) {
    return cap < 1 && Math.abs(CappedSimplex.fillCount(cap) * cap - 1) <= 1e-12;
  }

  /** How many extreme margins per class the clients report: {@link CappedSimplex#fillCount}, one more in a {@link #tie}. */
  public static int marginCount(double cap) {
    return CappedSimplex.fillCount(cap) + (tie(cap) ? 1 : 0);
  }

  /** The bounds from the clients' check reports with the capped simplex of {@code cap} (1: the simplex). */
  public static Bounds bounds(List<SaddleClient.CheckReport> reports, double cap) {
    int k = CappedSimplex.fillCount(cap);
    boolean tie = tie(cap);
    double[] z = null;
    double[] za = null;
    double pw = 0;
    double nw = 0;
    int pc = 0;
    int nc = 0;
    for (SaddleClient.CheckReport r : reports) {
      if (z == null) {
        z = new double[r.combination().length];
        za = new double[z.length];
      }
      for (int i = 0; i < z.length; i++) {
        z[i] += r.combination()[i];
        za[i] += r.averageCombination()[i];
      }
      pw += r.positiveWeightedMargin();
      nw += r.negativeWeightedMargin();
      pc += r.smallestPositiveMargins().length;
      nc += r.largestNegativeMargins().length;
    }
    double[] pos = new double[pc];
    double[] neg = new double[nc];
    int pi = 0;
    int ni = 0;
    for (SaddleClient.CheckReport r : reports) {
      for (double v : r.smallestPositiveMargins()) pos[pi++] = v;
      for (double v : r.largestNegativeMargins()) neg[ni++] = -v;
    }
    Arrays.sort(pos);
    Arrays.sort(neg);
    for (int i = 0; i < neg.length; i++) neg[i] = -neg[i];
    double zz = 0;
    double zza = 0;
    for (int i = 0; i < z.length; i++) {
      zz += z[i] * z[i];
      zza += za[i] * za[i];
    }
    double wNorm = Math.sqrt(reports.get(0).wSquaredNorm());
    double sPlus = CappedSimplex.extremeLinear(pos, cap);
    double sMinus = CappedSimplex.extremeLinear(neg, cap);
    double lower = wNorm > 0 ? (sPlus - sMinus) / wNorm : 0;
    double rp = tie && pos.length > k ? (pos[k - 1] + pos[k]) / 2 : pos[k - 1];
    double rn = tie && neg.length > k ? (neg[k - 1] + neg[k]) / 2 : neg[k - 1];
    double offset = (rp + rn) / 2;
    double halfGap = (rp - rn) / 2;
    return new Bounds(Math.sqrt(Math.min(zz, zza)), lower, offset, halfGap, (pw + nw) / 2, wNorm);
  }
}
