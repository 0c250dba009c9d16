package org.sodm.solver;

import org.sodm.data.FeatureIndex;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * The instances in a permutable order, with the batched kernel evaluation of the solvers:
 * a dense row-major copy when the data is low-dimensional or dense (inner products are then
 * contiguous loops), else the sparse vectors: a column's inner products from the rows' {@link FeatureIndex} where the
 * fixed row's matches are fewer than the range's non-zeros (sparse high-dimensional data), else with a scattered dense
 * buffer for the fixed row (the same values bit for bit).
 * Kernels that are functions of inner products and norms ({@link Kernel#dotBased()}) are
 * evaluated from the inner products in one batched call per column; others pair by pair.
 */
final class Rows {
  /** Dense copy when dim &lt;= this, or when the dense copy is at most 3x the sparse size. */
  static final int DENSE_DIM = 128;
  static final long DENSE_MAX_ELEMENTS = 1L << 25;
  static final int SCATTER_MAX_DIM = 1 << 22;
  static final int BLOCK = 1024;

  final int n;
  final int dim;
  final boolean dense;
  final boolean dotBased;
  private final Kernel kernel;
  private final SparseVector[] sx;
  private final double[] dx;
  final double[] norms;
  private final double[] buf;
  /**
   * Sparse high-dimensional data: the rows by feature ({@link FeatureIndex}, positions at construction as the vectors' ids),
   * the id at each position now, the index's output by id, and the rows' mean number of non-zeros; null / 0 otherwise.
   */
  private final FeatureIndex index;
  private final int[] idAt;
  private final double[] byId;
  private final double meanNnz;
  /** Threads a column is computed by (at most; see {@link #kernelRow}). */
  private final int threads;
  long evaluations;
  /** Columns computed through the feature index. */
  long indexedColumns;
  /** Columns computed by more than one thread. */
  long parallelColumns;

  Rows(Kernel kernel, SparseVector[] x, boolean allowDense) {
    this(kernel, x, allowDense, 1);
  }

  Rows(Kernel kernel, SparseVector[] x, boolean allowDense, int threads) {
    this.kernel = kernel;
    this.threads = threads;
    this.n = x.length;
    this.dotBased = kernel.dotBased();
    int d = 0;
    long nnz = 0;
    for (SparseVector v : x) {
      d = Math.max(d, v.maxIndex());
      nnz += v.nnz();
    }
    this.dim = d;
    this.sx = x.clone();
    this.norms = new double[n];
    for (int i = 0; i < n; i++) norms[i] = x[i].squaredNorm();
    long cells = (long) n * d;
    this.dense = allowDense && dotBased && cells <= DENSE_MAX_ELEMENTS
        && (d <= DENSE_DIM || cells <= 3 * nnz);
    if (dense) {
      // feature-major: dx[f * n + i] = x_i[f+1], so a column is a few vectorisable axpys
      dx = new double[(int) cells];
      for (int i = 0; i < n; i++) {
        SparseVector v = x[i];
        int[] idx = v.indices();
        double[] val = v.values();
        for (int k = 0; k < idx.length; k++) dx[(idx[k] - 1) * n + i] = val[k];
      }
      buf = null;
    } else {
      dx = null;
      buf = dotBased && d <= SCATTER_MAX_DIM ? new double[d + 1] : null;
    }
    if (!dense && dotBased && n > 0) {
      index = FeatureIndex.of(x);
      idAt = new int[n];
      for (int i = 0; i < n; i++) idAt[i] = i;
      byId = new double[n];
    } else {
      index = null;
      idAt = null;
      byId = null;
    }
    meanNnz = n == 0 ? 0 : (double) nnz / n;
  }

  SparseVector vector(int p) {
    return sx[p];
  }

  void swap(int i, int j) {
    SparseVector t = sx[i];
    sx[i] = sx[j];
    sx[j] = t;
    double tn = norms[i];
    norms[i] = norms[j];
    norms[j] = tn;
    if (idAt != null) {
      int ti = idAt[i];
      idAt[i] = idAt[j];
      idAt[j] = ti;
    }
    if (dense) {
      for (int f = 0, a = i, b = j; f < dim; f++, a += n, b += n) {
        double tv = dx[a];
        dx[a] = dx[b];
        dx[b] = tv;
      }
    }
  }

  /**
   * out[j] = k(x_p, x_j) for j in [from, to). With more than one thread and a column of at least {@link #PARALLEL_WORK}
   * operations, the threads compute parts of it ({@link Parts}): parts of the positions, and on the feature index's path
   * first parts of the vectors' inner products; every entry is computed as on one thread, so the column is bit for bit the
   * same.
   */
  void kernelRow(int p, int from, int to, double[] out) {
    evaluations += to - from;
    int len = to - from;
    if (dotBased && !dense && index != null) {
      long matches = index.matches(sx[p]);
      if (matches + n < len * meanNnz) {
        // the inner products with all rows from the index (O(n + matches)), then the range's in position order
        indexedColumns++;
        SparseVector a = sx[p];
        int k = parts(matches + n + EXP_WORK * len, len);
        if (k == 1) {
          index.dots(a, byId);
          byPosition(p, from, to, out);
        } else {
          int ids = chunks(k, n);
          int positions = chunks(k, len);
          // the inner products by id, then (every id done) the range by position
          Parts.run(k, new int[] {ids, positions}, (phase, c) -> {
            if (phase == 0) index.dots(a, byId, split(0, n, ids, c), split(0, n, ids, c + 1));
            else byPosition(p, split(from, to, positions, c), split(from, to, positions, c + 1), out);
          });
        }
        return;
      }
    }
    boolean scatter = dotBased && !dense && buf != null;
    SparseVector a = sx[p];
    if (scatter) {
      int[] ai = a.indices();
      double[] av = a.values();
      for (int k = 0; k < ai.length; k++) buf[ai[k]] = av[k];
    }
    int k = parts((long) Math.ceil(len * (dense ? dim + EXP_WORK : dotBased ? meanNnz + EXP_WORK : 2 * meanNnz + EXP_WORK)), len);
    if (k == 1) {
      range(p, from, to, out, scatter);
    } else {
      int positions = chunks(k, len);
      Parts.run(k, new int[] {positions}, (phase, c) -> range(p, split(from, to, positions, c), split(from, to, positions, c + 1), out,
          scatter));
    }
    if (scatter) {
      int[] ai = a.indices();
      for (int j = 0; j < ai.length; j++) buf[ai[j]] = 0;
    }
  }

  /** Operations below which a column is computed by one thread: a part's hand-off to another costs microseconds. */
  static final long PARALLEL_WORK = 1 << 17;
  /** One exp of the kernel counted as this many multiply-adds in a column's work. */
  private static final int EXP_WORK = 16;
  /** Parts start at multiples of this many positions from the range's start (whole cache lines of out). */
  private static final int ALIGN = 64;

  /** How many parts a column of {@code len} positions and {@code work} operations is computed in. */
  private int parts(long work, int len) {
    if (threads <= 1 || work < PARALLEL_WORK) return 1;
    int k = Math.max(1, Math.min(threads, len / ALIGN));
    if (k > 1) parallelColumns++;
    return k;
  }

  /** Chunks of a range of {@code len} positions for {@code k} threads: {@link #CHUNKS_PER_THREAD} each, of at least ALIGN. */
  private static int chunks(int k, int len) {
    return Math.max(1, Math.min(k * CHUNKS_PER_THREAD, len / ALIGN));
  }

  /** Chunks per thread: the threads share them as they come, so that one that starts late leaves its chunks to the others. */
  private static final int CHUNKS_PER_THREAD = 4;

  /** The start of part i of k of [from, to) (i = k: to). */
  private static int split(int from, int to, int k, int i) {
    if (i >= k) return to;
    long offset = (long) (to - from) * i / k;
    return from + (int) (offset - offset % ALIGN);
  }

  /** The feature index's inner products (by id) into out by position for [from, to), then the kernel. */
  private void byPosition(int p, int from, int to, double[] out) {
    for (int j = from; j < to; j++) out[j] = byId[idAt[j]];
    kernel.fromDots(out, norms[p], norms, from, to);
  }

  /** out[j] = k(x_p, x_j) for j in [from, to) without the feature index ({@code scattered}: x_p is in buf). */
  private void range(int p, int from, int to, double[] out, boolean scattered) {
    if (!dotBased) {
      SparseVector a = sx[p];
      for (int j = from; j < to; j++) out[j] = kernel.eval(a, sx[j]);
      return;
    }
    if (dense) {
      double[] m = dx;
      java.util.Arrays.fill(out, from, to, 0.0);
      // blocks of positions so that out[] stays in L1 across the features
      for (int b0 = from; b0 < to; b0 += BLOCK) {
        int b1 = Math.min(to, b0 + BLOCK);
        for (int f = 0, base = 0; f < dim; f++, base += n) {
          double a = m[base + p];
          if (a == 0) continue;
          for (int j = b0; j < b1; j++) out[j] += a * m[base + j];
        }
      }
    } else if (scattered) {
      double[] b = buf;
      for (int j = from; j < to; j++) {
        SparseVector r = sx[j];
        int[] ri = r.indices();
        double[] rv = r.values();
        double s = 0;
        for (int k = 0; k < ri.length; k++) s += b[ri[k]] * rv[k];
        out[j] = s;
      }
    } else {
      SparseVector a = sx[p];
      for (int j = from; j < to; j++) out[j] = a.dot(sx[j]);
    }
    kernel.fromDots(out, norms[p], norms, from, to);
  }

  /** k(x_p, x_p). */
  double self(int p) {
    evaluations++;
    return dotBased ? kernel.fromDot(norms[p], norms[p], norms[p]) : kernel.self(sx[p]);
  }
}
