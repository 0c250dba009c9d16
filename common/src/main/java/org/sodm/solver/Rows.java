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
      scatteredDots(buf, sx, from, to, out);
    } else {
      SparseVector a = sx[p];
      for (int j = from; j < to; j++) out[j] = a.dot(sx[j]);
    }
    kernel.fromDots(out, norms[p], norms, from, to);
  }

  /** Rows whose inner products {@link #scatteredDots} computes side by side. */
  static final int INTERLEAVE = 8;

  /**
   * out[j] = x_j'b for j in [from, to), x_p scattered into the dense b. Each row's sum runs over its own non-zeros in order, as
   * one loop per row gives it, bit for bit; {@link #INTERLEAVE} rows are summed side by side, so that the additions of one
   * row do not each wait for the last (one running sum is bound by the latency of an addition: a column of 10,000 MNIST rows
   * took 1.5x as long).
   */
  static void scatteredDots(double[] b, SparseVector[] sx, int from, int to, double[] out) {
    int j = from;
    for (; j + INTERLEAVE <= to; j += INTERLEAVE) {
      int[] i0 = sx[j].indices(), i1 = sx[j + 1].indices(), i2 = sx[j + 2].indices(), i3 = sx[j + 3].indices();
      int[] i4 = sx[j + 4].indices(), i5 = sx[j + 5].indices(), i6 = sx[j + 6].indices(), i7 = sx[j + 7].indices();
      double[] v0 = sx[j].values(), v1 = sx[j + 1].values(), v2 = sx[j + 2].values(), v3 = sx[j + 3].values();
      double[] v4 = sx[j + 4].values(), v5 = sx[j + 5].values(), v6 = sx[j + 6].values(), v7 = sx[j + 7].values();
      int m = Math.min(Math.min(Math.min(i0.length, i1.length), Math.min(i2.length, i3.length)),
          Math.min(Math.min(i4.length, i5.length), Math.min(i6.length, i7.length)));
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
      for (int k = 0; k < m; k++) {
        s0 += b[i0[k]] * v0[k];
        s1 += b[i1[k]] * v1[k];
        s2 += b[i2[k]] * v2[k];
        s3 += b[i3[k]] * v3[k];
        s4 += b[i4[k]] * v4[k];
        s5 += b[i5[k]] * v5[k];
        s6 += b[i6[k]] * v6[k];
        s7 += b[i7[k]] * v7[k];
      }
      out[j] = rest(b, i0, v0, m, s0);
      out[j + 1] = rest(b, i1, v1, m, s1);
      out[j + 2] = rest(b, i2, v2, m, s2);
      out[j + 3] = rest(b, i3, v3, m, s3);
      out[j + 4] = rest(b, i4, v4, m, s4);
      out[j + 5] = rest(b, i5, v5, m, s5);
      out[j + 6] = rest(b, i6, v6, m, s6);
      out[j + 7] = rest(b, i7, v7, m, s7);
    }
    for (; j < to; j++) out[j] = rest(b, sx[j].indices(), sx[j].values(), 0, 0);
  }

  /** s plus the products of b with the non-zeros from position k on. */
  private static double rest(double[] b, int[] ri, double[] rv, int k, double s) {
    for (; k < ri.length; k++) s += b[ri[k]] * rv[k];
    return s;
  }

  /** k(x_p, x_p). */
  double self(int p) {
    evaluations++;
    return dotBased ? kernel.fromDot(norms[p], norms[p], norms[p]) : kernel.self(sx[p]);
  }
}
