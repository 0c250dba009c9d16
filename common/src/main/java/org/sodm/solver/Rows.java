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
  long evaluations;
  /** Columns computed through the feature index. */
  long indexedColumns;

  Rows(Kernel kernel, SparseVector[] x, boolean allowDense) {
    this.kernel = kernel;
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
      meanNnz = (double) nnz / n;
    } else {
      index = null;
      idAt = null;
      byId = null;
      meanNnz = 0;
    }
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

  /** out[j] = k(x_p, x_j) for j in [from, to). */
  void kernelRow(int p, int from, int to, double[] out) {
    evaluations += to - from;
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
    } else if (index != null && index.matches(sx[p]) + n < (to - from) * meanNnz) {
      // the inner products with all rows from the index (O(n + matches)), then the range's in position order
      indexedColumns++;
      index.dots(sx[p], byId);
      for (int j = from; j < to; j++) out[j] = byId[idAt[j]];
    } else if (buf != null) {
      SparseVector a = sx[p];
      int[] ai = a.indices();
      double[] av = a.values();
      for (int k = 0; k < ai.length; k++) buf[ai[k]] = av[k];
      for (int j = from; j < to; j++) {
        SparseVector r = sx[j];
        int[] ri = r.indices();
        double[] rv = r.values();
        double s = 0;
        for (int k = 0; k < ri.length; k++) s += buf[ri[k]] * rv[k];
        out[j] = s;
      }
      for (int k = 0; k < ai.length; k++) buf[ai[k]] = 0;
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
