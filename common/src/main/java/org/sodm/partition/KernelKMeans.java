package org.sodm.partition;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * Two-step kernel k-means of DC-SVM (seed 001, section 3): Lloyd iterations in the kernel's
 * feature space on a sample of m points, then every point goes to the nearest of the sample's
 * kernel-space centres mu_c = (1/|C_c|) sum_{j in C_c} phi(x_j):
 * <pre>
 *   ||phi(x) - mu_c||^2 = k(x,x) - (2/|C_c|) sum_{j in C_c} k(x,x_j) + (1/|C_c|^2) sum_{j,l in C_c} k(x_j,x_l)
 * </pre>
 * Works for any kernel. Initialisation is greedy k-means++ in feature space (D^2 sampling
 * with kernel distances), seeded. Each iteration records the objective sum_i ||phi(x_i) -
 * mu_{c(i)}||^2 of the current memberships and their means; the history is non-increasing
 * (reassignment to a nearest centre, then re-centring, each never increase it). A cluster that
 * empties is re-seeded with the sample point farthest from its centre (among clusters with at
 * least 2 members), which also never increases the objective. Stops when no membership changes
 * or after maxIter iterations.
 *
 * <p>Memory: the m x m sample Gram matrix (8 m^2 bytes: 32 MB for m = 2000; keep m below
 * ~10^4). Assignment costs m kernel
 * evaluations per point. The model is the sample and its memberships ({@link #samplePoints},
 * {@link #memberships}, optionally {@link #centreNorms}); {@link #fromState} rebuilds it in a
 * mapper. Adaptive clustering (DC-SVM section 4): {@link #fitOnSupportVectors} samples from the
 * current support vectors. {@link #assign} is thread-safe.
 */
public final class KernelKMeans {
  private final Kernel kernel;
  private final SparseVector[] sample;
  private final int[] member;
  private final int clusters;
  private final double[] inv; // 1/|C_c|, 0 for empty clusters
  private final double[] centreNorm; // ||mu_c||^2 = (1/|C_c|^2) sum_{j,l in C_c} k(x_j,x_l)
  private final double[] history;

  private KernelKMeans(Kernel kernel, SparseVector[] sample, int[] member, int clusters,
      double[] centreNorm, double[] history) {
    this.kernel = kernel;
    this.sample = sample;
    this.member = member;
    this.clusters = clusters;
    this.history = history;
    this.inv = new double[clusters];
    int[] size = sizes(member, clusters);
    for (int c = 0; c < clusters; c++) inv[c] = size[c] == 0 ? 0 : 1.0 / size[c];
    this.centreNorm = centreNorm != null ? centreNorm.clone() : centreNorms(kernel, sample, member, clusters);
  }

  /**
   * Clusters {@code sample} into {@code clusters} groups.
   *
   * @param maxIter maximal number of Lloyd iterations (>= 1)
   */
  public static KernelKMeans fit(SparseVector[] sample, Kernel k, int clusters, int maxIter,
      long seed) {
    int m = sample.length;
    if (clusters < 1) throw new IllegalArgumentException("clusters must be >= 1, got " + clusters);
    if (m == 0) throw new IllegalArgumentException("empty k-means sample");
    if (maxIter < 1) throw new IllegalArgumentException("maxIter must be >= 1, got " + maxIter);
    double[][] g = new double[m][m];
    for (int i = 0; i < m; i++) {
      k.column(sample[i], sample, g[i]);
    }
    double[] diag = new double[m];
    for (int i = 0; i < m; i++) diag[i] = g[i][i];
    int[] a = initPlusPlus(g, diag, clusters, new SplittableRandom(Mix.mix(seed, 0x4b4d45414eL)));
    return lloyd(sample, k, g, diag, a, clusters, maxIter);
  }

  /** Lloyd iterations from given initial memberships (package-private: for tests). */
  static KernelKMeans fitFrom(SparseVector[] sample, Kernel k, int clusters, int[] initial, int maxIter) {
    int m = sample.length;
    for (int c : initial) if (c < 0 || c >= clusters) throw new IllegalArgumentException("initial membership " + c);
    double[][] g = new double[m][m];
    for (int i = 0; i < m; i++) k.column(sample[i], sample, g[i]);
    double[] diag = new double[m];
    for (int i = 0; i < m; i++) diag[i] = g[i][i];
    return lloyd(sample, k, g, diag, initial.clone(), clusters, maxIter);
  }

  private static KernelKMeans lloyd(SparseVector[] sample, Kernel k, double[][] g, double[] diag,
      int[] a, int clusters, int maxIter) {
    int m = sample.length;
    double[] hist = new double[maxIter + 1];
    int h = 0;
    double[][] dist = new double[m][clusters];
    for (int it = 0; ; it++) {
      double obj = distances(g, diag, a, clusters, dist);
      hist[h++] = obj;
      if (it == maxIter) break;
      // reassignment; move only on a real improvement so that Lloyd cannot cycle on round-off
      boolean changed = false;
      double eps = 1e-12 * Math.max(1.0, maxAbs(diag));
      for (int i = 0; i < m; i++) {
        int best = a[i];
        double bv = dist[i][best];
        for (int c = 0; c < clusters; c++) {
          if (dist[i][c] < bv - eps) {
            bv = dist[i][c];
            best = c;
          }
        }
        if (best != a[i]) {
          a[i] = best;
          changed = true;
        }
      }
      changed |= fixEmpty(a, clusters, dist);
      if (!changed) break;
    }
    // centre norms of the final memberships from the Gram matrix (no new kernel evaluations)
    int[] size = sizes(a, clusters);
    double[] cc = new double[clusters];
    for (int i = 0; i < m; i++) {
      double[] row = g[i];
      double sum = 0;
      for (int j = 0; j < m; j++) if (a[j] == a[i]) sum += row[j];
      cc[a[i]] += sum;
    }
    for (int c = 0; c < clusters; c++) cc[c] = size[c] == 0 ? 0 : cc[c] / ((double) size[c] * size[c]);
    return new KernelKMeans(k, sample.clone(), a, clusters, cc, Arrays.copyOf(hist, h));
  }

  /** Same as {@link #fitOnSupportVectors} (the adaptive-clustering overload of fit). */
  public static KernelKMeans fit(SparseVector[] points, double[] coef, Kernel k, int clusters,
      int m, int maxIter, long seed) {
    return fitOnSupportVectors(points, coef, k, clusters, m, maxIter, seed);
  }

  /**
   * Adaptive clustering (DC-SVM section 4): fit on a uniform sample of at most {@code m} of the
   * current support vectors (points whose coefficient is non-zero). Falls back to all points
   * when there are fewer support vectors than clusters.
   */
  public static KernelKMeans fitOnSupportVectors(SparseVector[] points, double[] coef, Kernel k,
      int clusters, int m, int maxIter, long seed) {
    if (coef.length != points.length) throw new IllegalArgumentException("points and coef differ in length");
    int nsv = 0;
    for (double c : coef) if (c != 0) nsv++;
    SparseVector[] pool;
    if (nsv < clusters) {
      pool = points;
    } else {
      pool = new SparseVector[nsv];
      for (int i = 0, t = 0; i < points.length; i++) if (coef[i] != 0) pool[t++] = points[i];
    }
    return fit(uniformSample(pool, m, seed), k, clusters, maxIter, seed);
  }

  /** A uniform sample without replacement of min(m, n) points, in input order, seeded. */
  public static SparseVector[] uniformSample(SparseVector[] points, int m, long seed) {
    int[] idx = uniformSampleIndices(points.length, m, seed);
    SparseVector[] out = new SparseVector[idx.length];
    for (int t = 0; t < idx.length; t++) out[t] = points[idx[t]];
    return out;
  }

  /** The positions (increasing) of {@link #uniformSample}'s sample of min(m, n) of n points. */
  public static int[] uniformSampleIndices(int n, int m, long seed) {
    if (m >= n) {
      int[] all = new int[n];
      for (int i = 0; i < n; i++) all[i] = i;
      return all;
    }
    // selection sampling (Knuth algorithm S): keeps input order
    SplittableRandom rnd = new SplittableRandom(Mix.mix(seed, 0x53414d504c45L));
    int[] out = new int[m];
    int t = 0;
    for (int i = 0; i < n && t < m; i++) {
      if (rnd.nextInt(n - i) < m - t) out[t++] = i;
    }
    return out;
  }

  /**
   * Rebuilds a fitted model from its state (e.g. in a mapper). {@code centreNorms} may be null,
   * then it is recomputed from the sample (m^2 / 2 kernel evaluations at most).
   */
  public static KernelKMeans fromState(SparseVector[] sample, int[] memberships, int clusters,
      Kernel k, double[] centreNorms) {
    if (sample.length != memberships.length) throw new IllegalArgumentException("sample and memberships differ in length");
    for (int c : memberships) {
      if (c < 0 || c >= clusters) throw new IllegalArgumentException("membership " + c + " out of range");
    }
    if (centreNorms != null && centreNorms.length != clusters) throw new IllegalArgumentException("centreNorms length != clusters");
    return new KernelKMeans(k, sample.clone(), memberships.clone(), clusters, centreNorms, new double[0]);
  }

  /** Nearest centre of x (ties to the lowest cluster; empty clusters are never chosen). */
  public int assign(SparseVector x) {
    return assign(x, new double[sample.length], new double[clusters]);
  }

  /** As {@link #assign(SparseVector)} with caller-owned scratch arrays (length m and clusters). */
  public int assign(SparseVector x, double[] colScratch, double[] sumScratch) {
    kernel.column(x, sample, colScratch);
    Arrays.fill(sumScratch, 0, clusters, 0.0);
    for (int j = 0; j < sample.length; j++) sumScratch[member[j]] += colScratch[j];
    int best = -1;
    double bv = Double.POSITIVE_INFINITY;
    for (int c = 0; c < clusters; c++) {
      if (inv[c] == 0) continue;
      double v = centreNorm[c] - 2 * inv[c] * sumScratch[c];
      if (v < bv) {
        bv = v;
        best = c;
      }
    }
    return best;
  }

  /** Clusters of all rows. */
  public int[] assignAll(SparseVector[] xs) {
    int[] out = new int[xs.length];
    double[] col = new double[sample.length];
    double[] sum = new double[clusters];
    for (int i = 0; i < xs.length; i++) out[i] = assign(xs[i], col, sum);
    return out;
  }

  /** Objective after initialisation and after each iteration; non-increasing. Empty after fromState. */
  public double[] objectiveHistory() {
    return history.clone();
  }

  public SparseVector[] samplePoints() {
    return sample.clone();
  }

  public int[] memberships() {
    return member.clone();
  }

  public int clusters() {
    return clusters;
  }

  /** ||mu_c||^2 for each cluster (0 for empty ones). */
  public double[] centreNorms() {
    return centreNorm.clone();
  }

  public Kernel kernel() {
    return kernel;
  }

  // ---------------------------------------------------------------------------------------

  private static int[] sizes(int[] a, int clusters) {
    int[] size = new int[clusters];
    for (int c : a) size[c]++;
    return size;
  }

  private static double[] centreNorms(Kernel k, SparseVector[] sample, int[] a, int clusters) {
    int m = sample.length;
    int[] size = sizes(a, clusters);
    double[] cc = new double[clusters];
    double[] col = new double[m];
    int[] same = new int[m];
    for (int i = 0; i < m; i++) {
      int cnt = 0;
      for (int j = 0; j < i; j++) if (a[j] == a[i]) same[cnt++] = j;
      k.column(sample[i], sample, same, cnt, col);
      double s = k.self(sample[i]);
      for (int t = 0; t < cnt; t++) s += 2 * col[t];
      cc[a[i]] += s;
    }
    for (int c = 0; c < clusters; c++) cc[c] = size[c] == 0 ? 0 : cc[c] / ((double) size[c] * size[c]);
    return cc;
  }

  /** Fills dist[i][c] = ||phi(x_i) - mu_c||^2 (+inf for empty c); returns the objective. */
  private static double distances(double[][] g, double[] diag, int[] a, int clusters, double[][] dist) {
    int m = diag.length;
    int[] size = sizes(a, clusters);
    // s[i][c] = sum_{j in C_c} K_ij
    double[] cc = new double[clusters];
    for (int i = 0; i < m; i++) {
      double[] row = g[i];
      double[] di = dist[i];
      Arrays.fill(di, 0.0);
      for (int j = 0; j < m; j++) di[a[j]] += row[j];
      cc[a[i]] += di[a[i]];
    }
    double obj = 0;
    for (int c = 0; c < clusters; c++) cc[c] = size[c] == 0 ? 0 : cc[c] / ((double) size[c] * size[c]);
    for (int i = 0; i < m; i++) {
      double[] di = dist[i];
      for (int c = 0; c < clusters; c++) {
        if (size[c] == 0) {
          di[c] = Double.POSITIVE_INFINITY;
        } else {
          double v = diag[i] - 2 * di[c] / size[c] + cc[c];
          di[c] = v > 0 ? v : 0;
        }
      }
      obj += di[a[i]];
    }
    return obj;
  }

  /** Re-seeds empty clusters with the farthest point of a cluster with >= 2 members. */
  private static boolean fixEmpty(int[] a, int clusters, double[][] dist) {
    int[] size = sizes(a, clusters);
    boolean changed = false;
    boolean[] moved = new boolean[a.length];
    for (int c = 0; c < clusters; c++) {
      if (size[c] != 0) continue;
      int far = -1;
      double fv = 0;
      for (int i = 0; i < a.length; i++) {
        if (!moved[i] && size[a[i]] >= 2 && dist[i][a[i]] > fv) {
          fv = dist[i][a[i]];
          far = i;
        }
      }
      if (far < 0) break; // fewer distinct points than clusters
      size[a[far]]--;
      a[far] = c;
      size[c] = 1;
      moved[far] = true;
      changed = true;
    }
    return changed;
  }

  /**
   * Greedy k-means++ seeding in feature space (as scikit-learn: at each step 2 + ln(clusters)
   * D^2-sampled candidates, keep the one that lowers the potential most); returns memberships
   * to the nearest seed.
   */
  private static int[] initPlusPlus(double[][] g, double[] diag, int clusters, SplittableRandom rnd) {
    int m = diag.length;
    int trials = 2 + (int) Math.log(clusters);
    int[] a = new int[m];
    double[] d2 = new double[m];
    int first = rnd.nextInt(m);
    for (int i = 0; i < m; i++) d2[i] = Math.max(0, diag[i] + diag[first] - 2 * g[i][first]);
    d2[first] = 0;
    for (int made = 1; made < clusters; made++) {
      double sum = 0;
      for (double v : d2) sum += v;
      if (!(sum > 0)) break; // every point coincides with a seed
      int best = -1;
      double bestPot = Double.POSITIVE_INFINITY;
      for (int t = 0; t < trials; t++) {
        double r = rnd.nextDouble() * sum;
        int pick = -1;
        for (int i = 0; i < m; i++) {
          if (d2[i] <= 0) continue;
          pick = i;
          r -= d2[i];
          if (r < 0) break;
        }
        double pot = 0;
        for (int i = 0; i < m; i++) {
          pot += Math.min(d2[i], Math.max(0, diag[i] + diag[pick] - 2 * g[i][pick]));
        }
        if (pot < bestPot) {
          bestPot = pot;
          best = pick;
        }
      }
      for (int i = 0; i < m; i++) {
        double v = Math.max(0, diag[i] + diag[best] - 2 * g[i][best]);
        if (v < d2[i]) {
          d2[i] = v;
          a[i] = made;
        }
      }
      a[best] = made;
      d2[best] = 0;
    }
    return a;
  }

  private static double maxAbs(double[] v) {
    double m = 0;
    for (double x : v) m = Math.max(m, Math.abs(x));
    return m;
  }
}
