package org.sodm.partition;

import java.util.List;
import java.util.SplittableRandom;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * Greedy landmark selection of SODM (seed 000, eq. 8): each next landmark is the candidate with
 * the largest Schur-complement residual {@code k(z,z) - K_{s,z}^T K_{s,s}^{-1} K_{s,z}}, i.e.
 * the one that maximises the determinant of the landmarks' Gram matrix. Computed as an
 * incremental pivoted Cholesky factorisation: no matrix inverse, one kernel column per pick,
 * O(n S (d + S)) time and O(n S) memory for n candidates, S landmarks and d non-zeros per row.
 *
 * <p>The first landmark is drawn by the seed, uniformly among the candidates with the largest
 * k(z,z): for a shift-invariant kernel (RBF) that is every candidate, as in the paper (eq. 8
 * leaves z_1 free); for other kernels it is the greedy determinant maximiser from the empty set,
 * which keeps the residuals non-increasing. Later picks are deterministic: ties in the residual
 * go to the lowest candidate index.
 * Selection stops early when every remaining residual is &lt;= {@link #TOLERANCE} times the
 * largest diagonal entry (the candidates span fewer than S directions, e.g. duplicates): the
 * Gram matrix of the landmarks then stays positive definite. Residuals of the picks are
 * non-increasing even in floating point (each residual only ever decreases and the maximum is
 * taken).
 */
public final class LandmarkSelector {
  /** Relative residual below which a candidate counts as spanned by the landmarks. */
  public static final double TOLERANCE = 1e-10;

  private LandmarkSelector() {}

  /** Selects up to {@code s} landmarks from {@code candidates}. */
  public static Landmarks select(SparseVector[] candidates, Kernel k, int s, long seed) {
    if (s < 1) throw new IllegalArgumentException("number of landmarks must be >= 1, got " + s);
    int n = candidates.length;
    if (n == 0) throw new IllegalArgumentException("no landmark candidates");
    int target = Math.min(s, n);
    double[] d = new double[n];
    double maxDiag = 0;
    for (int j = 0; j < n; j++) {
      d[j] = k.self(candidates[j]);
      maxDiag = Math.max(maxDiag, d[j]);
    }
    if (!(maxDiag > 0)) {
      throw new IllegalArgumentException("kernel has no positive k(z,z) on the candidates (max " + maxDiag + ")");
    }
    double tol = TOLERANCE * maxDiag;
    boolean[] picked = new boolean[n];
    double[][] l = new double[target][]; // l[t][j] = L_{j,t}: column t of the Cholesky factor
    int[] source = new int[target];
    double[] residual = new double[target];
    double[] col = new double[n];
    // first pick: uniform by the seed among the candidates of largest k(z,z) (all of them for a
    // shift-invariant kernel such as RBF, as in the paper); this is also the greedy determinant
    // maximiser from the empty set and keeps the residual sequence non-increasing
    int ties = 0;
    for (int j = 0; j < n; j++) if (d[j] == maxDiag) ties++;
    int r0 = new SplittableRandom(Mix.mix(seed, 0x4c414e44L)).nextInt(ties);
    int p = -1;
    for (int j = 0; j < n; j++) {
      if (d[j] == maxDiag && r0-- == 0) {
        p = j;
        break;
      }
    }
    int count = 0;
    while (count < target) {
      double r = d[p];
      if (!(r > tol)) break;
      picked[p] = true;
      source[count] = p;
      residual[count] = r;
      double sr = Math.sqrt(r);
      k.column(candidates[p], candidates, col);
      double[] lt = new double[n];
      for (int u = 0; u < count; u++) {
        double[] lu = l[u];
        double lup = lu[p];
        if (lup == 0) continue;
        for (int j = 0; j < n; j++) col[j] -= lup * lu[j];
      }
      for (int j = 0; j < n; j++) {
        double v = col[j] / sr;
        lt[j] = v;
        double nd = d[j] - v * v;
        d[j] = nd > 0 ? nd : 0; // only ever decreases
      }
      d[p] = 0;
      l[count] = lt;
      count++;
      if (count < target) p = argmax(d, picked);
    }
    SparseVector[] pts = new SparseVector[count];
    for (int t = 0; t < count; t++) pts[t] = candidates[source[t]];
    return new Landmarks(pts, java.util.Arrays.copyOf(source, count),
        java.util.Arrays.copyOf(residual, count));
  }

  /**
   * Second stage of the two-stage MapReduce selection: every split proposes candidates (e.g.
   * its own {@link #select} result), one reducer selects the final {@code s} from their union.
   * Candidates are concatenated in list order; {@link Landmarks#sourceIndex()} refers to that
   * concatenation. Callers must pass the sets in a canonical order (e.g. by split id) for the
   * result to be reproducible.
   */
  public static Landmarks selectFromUnion(List<SparseVector[]> candidateSets, Kernel k, int s,
      long seed) {
    int total = 0;
    for (SparseVector[] c : candidateSets) total += c.length;
    SparseVector[] all = new SparseVector[total];
    int at = 0;
    for (SparseVector[] c : candidateSets) {
      System.arraycopy(c, 0, all, at, c.length);
      at += c.length;
    }
    return select(all, k, s, seed);
  }

  private static int argmax(double[] d, boolean[] picked) {
    int best = -1;
    double bv = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < d.length; j++) {
      if (!picked[j] && d[j] > bv) {
        bv = d[j];
        best = j;
      }
    }
    return best < 0 ? 0 : best;
  }
}
