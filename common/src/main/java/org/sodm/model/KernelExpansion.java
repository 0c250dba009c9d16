package org.sodm.model;

import org.sodm.data.FeatureIndex;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * f(x) = sum_i coef_i k(sv_i, x) + b. With the bias option of the solvers (kernel k + 1) the
 * model is f(x) = sum_i coef_i (k(sv_i, x) + 1), i.e. b = sum_i coef_i over the base kernel
 * ({@link org.sodm.solver.SolveResult#expansion}). Batched evaluation uses a dense feature-major copy of the support vectors when
 * they are low-dimensional and the kernel is dot-based, and their {@link FeatureIndex} when they are not low-dimensional. Immutable, thread-safe.
 */
public final class KernelExpansion {
  private final Kernel kernel;
  private final SparseVector[] sv;
  private final double[] coef;
  private final double bias;
  private final double[] svNorms;
  private final int dim;
  /** Whether batched evaluation uses a feature-major dense copy ({@link Columns#denseFits}). */
  private final boolean denseWanted;
  /**
   * The feature-major dense copy (dim x nsv), made on first use ({@link #dense()}): a multi-class model's tasks are scored
   * through its own table of distinct vectors and never use theirs (letter: 18 MB of copies, and their making on every
   * load), nor do the models of sodm grid's C values.
   */
  private volatile double[] dense;
  /**
   * The support vectors by feature ({@link FeatureIndex}) for a dot-based kernel without the dense copy (high-dimensional
   * data), made on first use: a row's inner products with all of them in O(m + matches) instead of m sparse dot products.
   */
  private volatile FeatureIndex index;

  public KernelExpansion(Kernel k, SparseVector[] sv, double[] coef, double bias) {
    if (k == null || sv == null || coef == null) throw new IllegalArgumentException("kernel, sv and coef are required");
    if (sv.length != coef.length) {
      throw new IllegalArgumentException("sv and coef differ in length: " + sv.length + " vs " + coef.length);
    }
    this.kernel = k;
    this.sv = sv.clone();
    this.coef = coef.clone();
    this.bias = bias;
    Columns c = Columns.of(k, this.sv, false);
    this.svNorms = c.norms();
    this.dim = c.dim();
    this.denseWanted = Columns.denseFits(k, dim, this.sv.length);
  }

  /** The dense copy when batched evaluation uses one (made once; a race makes the same array twice), else null. */
  private double[] dense() {
    double[] d = dense;
    if (d == null && denseWanted) dense = d = SparseVector.featureMajor(sv, dim);
    return d;
  }

  /** The feature index when scoring uses one (a dot-based kernel without the dense copy), else null; made once. */
  private FeatureIndex index() {
    FeatureIndex x = index;
    if (x == null && !denseWanted && kernel.dotBased()) index = x = FeatureIndex.of(sv);
    return x;
  }

  /**
   * What batched evaluation reads of support vectors: their squared norms, their largest feature index, and their
   * feature-major dense copy ({@link SparseVector#featureMajor}) or, for a dot-based kernel where that copy does not fit,
   * their {@link FeatureIndex} (either may be null): the dense copy only for a dot-based kernel, at most 1,024 features and
   * 2^25 doubles (256 MB). Shared with {@link MulticlassModel}'s distinct support vectors.
   */
  record Columns(double[] norms, int dim, double[] dense, FeatureIndex index) {
    static Columns of(Kernel k, SparseVector[] sv) {
      return of(k, sv, true);
    }

    /** @param withAids whether to make the dense copy (when it {@link #denseFits}) or else the feature index, or neither */
    static Columns of(Kernel k, SparseVector[] sv, boolean withAids) {
      double[] norms = new double[sv.length];
      int d = 0;
      for (int i = 0; i < sv.length; i++) {
        norms[i] = sv[i].squaredNorm();
        d = Math.max(d, sv[i].maxIndex());
      }
      boolean fits = denseFits(k, d, sv.length);
      return new Columns(norms, d, withAids && fits ? SparseVector.featureMajor(sv, d) : null,
          withAids && !fits && k.dotBased() ? FeatureIndex.of(sv) : null);
    }

    /** A dense copy for a dot-based kernel, at most 1,024 features and 2^25 doubles (256 MB). */
    static boolean denseFits(Kernel k, int dim, int n) {
      return k.dotBased() && (long) dim * n <= (1L << 25) && dim <= 1024;
    }

    /**
     * {@code k(x, v)} for each of the vectors {@code sv} these columns describe, from the dense copy or the feature index
     * when there is one (their inner products with all vectors at once), else pair by pair; the same values either way.
     */
    double[] column(Kernel kernel, SparseVector[] sv, SparseVector x) {
      double[] kx = new double[sv.length];
      kernelColumn(kernel, sv, norms, dim, dense, index, x, kx);
      return kx;
    }

    /** {@code out[i] = k(x, sv[i])} from {@code dense} (feature-major, {@code dim} features), else {@code index}, else pair by pair. */
    static void kernelColumn(Kernel kernel, SparseVector[] sv, double[] norms, int dim, double[] dense, FeatureIndex index,
        SparseVector x, double[] out) {
      int m = sv.length;
      if (dense != null) {
        x.dotColumns(dense, m, dim, out, 0, m);
        kernel.fromDots(out, x.squaredNorm(), norms, 0, m);
      } else if (index != null) {
        index.dots(x, out);
        kernel.fromDots(out, x.squaredNorm(), norms, 0, m);
      } else {
        kernel.column(x, sv, out);
      }
    }
  }

  /** The expansion over the x_i with coef_i != 0 (the support vectors of a dual solution). */
  public static KernelExpansion nonZero(Kernel k, SparseVector[] x, double[] coef, double bias) {
    int m = 0;
    for (double v : coef) if (v != 0) m++;
    SparseVector[] s = new SparseVector[m];
    double[] c = new double[m];
    for (int i = 0, t = 0; i < coef.length; i++) {
      if (coef[i] != 0) {
        s[t] = x[i];
        c[t++] = coef[i];
      }
    }
    return new KernelExpansion(k, s, c, bias);
  }

  public int size() {
    return sv.length;
  }

  public double bias() {
    return bias;
  }

  public SparseVector supportVector(int i) {
    return sv[i];
  }

  public double coef(int i) {
    return coef[i];
  }

  public Kernel kernel() {
    return kernel;
  }

  public double decision(SparseVector x) {
    double[] buf = new double[sv.length];
    return decision(x, buf);
  }

  private double decision(SparseVector x, double[] buf) {
    int m = sv.length;
    double[] dense = dense();
    Columns.kernelColumn(kernel, sv, svNorms, dim, dense, dense == null ? index() : null, x, buf);
    double s = bias;
    for (int i = 0; i < m; i++) s += coef[i] * buf[i];
    return s;
  }

  /** out[t] = f(xs[t]). */
  public void decision(SparseVector[] xs, double[] out) {
    double[] buf = new double[sv.length];
    for (int t = 0; t < xs.length; t++) out[t] = decision(xs[t], buf);
  }

  /** Rows scored together against one cached chunk of support vectors ({@link #decisions}). */
  static final int ROW_BLOCK = 32;
  /** Doubles of the dense support vectors per chunk (256 KB: the chunk stays in the L2 cache while a row block passes). */
  private static final int CHUNK_DOUBLES = Integer.getInteger("sodm.chunk.doubles", 1 << 12);

  /**
   * Batched scoring: {@code out[t] = f(xs[t])} for {@code t < count}, rows against support vectors in
   * blocks. With a dense copy (dot-based kernel, low dimension) a block of {@link #ROW_BLOCK} rows
   * passes over one chunk of support vectors while it is in cache, the inner products are sparse
   * row times dense feature-major chunk, and the kernel comes from them with the cached norms
   * (RBF: |x|^2 + |s|^2 - 2 x's, fused with the coefficient sum, {@link RbfSums}). Otherwise (high
   * dimension) a row's inner products with all support vectors come from their {@link FeatureIndex}, in O(m + the row's
   * matches), bit for bit the sparse dot products.
   * Equals {@link #decision(SparseVector)} up to rounding (the order of the additions, exp within
   * an ulp on the Vector API path). Thread-safe (work arrays are per call).
   */
  public void decisions(SparseVector[] xs, int count, double[] out) {
    decisions(xs, count, out, org.sodm.kernel.RbfSums.vectorized());
  }

  /** {@link #decisions(SparseVector[], int, double[])} on the Vector API path ({@code vector}) or the scalar one. */
  void decisions(SparseVector[] xs, int count, double[] out, boolean vector) {
    double[] dense = dense();
    int m = sv.length;
    if (m == 0) {
      java.util.Arrays.fill(out, 0, count, bias);
      return;
    }
    double[] buf = new double[m];
    double gamma = kernel instanceof org.sodm.kernel.RbfKernel rbf ? rbf.gamma() : 0;
    if (dense == null) {
      FeatureIndex ix = index();
      if (ix == null) {
        for (int t = 0; t < count; t++) out[t] = decision(xs[t], buf);
        return;
      }
      for (int t = 0; t < count; t++) {
        SparseVector x = xs[t];
        ix.dots(x, buf);
        out[t] = bias + chunkSum(buf, x.squaredNorm(), 0, m, gamma, vector);
      }
      return;
    }
    int chunk = Math.min(m, Math.max(64, CHUNK_DOUBLES / Math.max(1, dim)) / 32 * 32);
    double[] acc = new double[ROW_BLOCK];
    if (gamma > 0 && vector) {
      int[][] bi = new int[ROW_BLOCK][];
      double[][] bv = new double[ROW_BLOCK][];
      double[] xn = new double[ROW_BLOCK];
      for (int r0 = 0; r0 < count; r0 += ROW_BLOCK) {
        int rows = Math.min(count, r0 + ROW_BLOCK) - r0;
        for (int r = 0; r < rows; r++) {
          bi[r] = xs[r0 + r].indices();
          bv[r] = xs[r0 + r].values();
          xn[r] = xs[r0 + r].squaredNorm();
        }
        java.util.Arrays.fill(acc, 0.0);
        for (int c0 = 0; c0 < m; c0 += chunk) {
          org.sodm.kernel.RbfSums.denseChunk(dense, m, dim, bi, bv, rows, xn, svNorms, coef, c0, Math.min(m, c0 + chunk), gamma, acc);
        }
        for (int r = 0; r < rows; r++) out[r0 + r] = bias + acc[r];
      }
      return;
    }
    for (int r0 = 0; r0 < count; r0 += ROW_BLOCK) {
      int r1 = Math.min(count, r0 + ROW_BLOCK);
      java.util.Arrays.fill(acc, 0.0);
      for (int c0 = 0; c0 < m; c0 += chunk) {
        int c1 = Math.min(m, c0 + chunk);
        for (int r = r0; r < r1; r++) {
          SparseVector x = xs[r];
          x.dotColumns(dense, m, dim, buf, c0, c1);
          acc[r - r0] += chunkSum(buf, x.squaredNorm(), c0, c1, gamma, vector);
        }
      }
      for (int r = r0; r < r1; r++) out[r] = bias + acc[r - r0];
    }
  }

  /** Rows per tile of {@link #ownDecisions}: each tile keeps the column sums of the support vectors after it. */
  static final int OWN_TILE = 128;
  /** Support vectors per chunk of {@link #ownDecisions} (a chunk of the dense copy stays in cache while a tile passes). */
  private static final int OWN_CHUNK = 64;

  /**
   * f(s_u) - b = sum_v coef_v k(s_u, s_v) at each of the expansion's own support vectors, each pair's kernel evaluated once
   * (k is symmetric; the scoring of the support vectors by {@link #decisions} evaluates every pair twice). The rows go in
   * tiles of {@link #OWN_TILE}: a tile's rows take the columns from the tile's start on (the row sums), and for a column
   * past the tile, coef_u k(s_u, s_v) goes into the tile's column sums; f(s_v) is its row sum plus the column sums of the
   * tiles before its own, in tile order. The same values for any number of threads; they differ from {@link #decisions}'
   * by the order of the additions. Null without a dense copy (see the constructor: a dot-based kernel, low dimension).
   */
  public double[] ownDecisions() {
    double[] dense = dense();
    if (dense == null) return null;
    int m = sv.length;
    int tiles = (m + OWN_TILE - 1) / OWN_TILE;
    double[] rowSum = new double[m];
    double[][] colSum = new double[tiles][];
    double gamma = kernel instanceof org.sodm.kernel.RbfKernel rbf ? rbf.gamma() : 0;
    java.util.stream.IntStream.range(0, tiles).parallel().forEach(t -> {
      int r0 = t * OWN_TILE;
      int r1 = Math.min(m, r0 + OWN_TILE);
      double[] col = new double[m - r1];
      double[] buf = new double[m];
      for (int c0 = r0; c0 < m; c0 += OWN_CHUNK) {
        int c1 = Math.min(m, c0 + OWN_CHUNK);
        for (int u = r0; u < r1; u++) {
          sv[u].dotColumns(dense, m, dim, buf, c0, c1);
          double nu = svNorms[u];
          if (gamma > 0) { // RbfSums.scalar's terms
            double g = -gamma;
            for (int v = c0; v < c1; v++) {
              double d2 = nu + svNorms[v] - 2 * buf[v];
              buf[v] = Math.exp(g * (d2 > 0 ? d2 : 0));
            }
          } else {
            kernel.fromDots(buf, nu, svNorms, c0, c1);
          }
          double s = 0;
          for (int v = c0; v < c1; v++) s += coef[v] * buf[v];
          rowSum[u] += s;
          double cu = coef[u];
          for (int v = Math.max(c0, r1); v < c1; v++) col[v - r1] += cu * buf[v];
        }
      }
      colSum[t] = col;
    });
    for (int t = 0; t < tiles; t++) {
      int r1 = Math.min(m, (t + 1) * OWN_TILE);
      double[] col = colSum[t];
      for (int v = r1; v < m; v++) rowSum[v] += col[v - r1];
    }
    return rowSum;
  }

  /** sum_{j in [from, to)} coef_j k_j from the inner products in {@code dots} (overwritten for non-RBF kernels). */
  private double chunkSum(double[] dots, double xn, int from, int to, double gamma, boolean vector) {
    if (gamma > 0) {
      return vector ? org.sodm.kernel.RbfSums.vector(dots, xn, svNorms, coef, from, to, gamma)
          : org.sodm.kernel.RbfSums.scalar(dots, xn, svNorms, coef, from, to, gamma);
    }
    kernel.fromDots(dots, xn, svNorms, from, to);
    double s = 0;
    for (int j = from; j < to; j++) s += coef[j] * dots[j];
    return s;
  }

  /** The expansion times s (coefficients and bias). */
  public KernelExpansion scaled(double s) {
    double[] c = coef.clone();
    for (int i = 0; i < c.length; i++) c[i] *= s;
    return new KernelExpansion(kernel, sv, c, bias * s);
  }

  /** The same expansion with another constant term. */
  public KernelExpansion withBias(double b) {
    return new KernelExpansion(kernel, sv, coef, b);
  }
}
