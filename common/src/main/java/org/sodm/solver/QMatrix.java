package org.sodm.solver;

import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * Q[p][j] = y_p y_j k(x_p, x_j) over positions of a permutable order (as LIBSVM's SVC_Q): the
 * instances ({@link Rows}), the labels, the diagonal Q_pp and the LRU {@link KernelCache} of
 * columns it fills. The label array is shared with the caller (the dual problem is built on it
 * and follows the same permutation).
 */
final class QMatrix implements KernelCache.Filler {
  private final Rows rows;
  private final double[] y;
  private final double[] qd;
  private final KernelCache cache;
  private final double[] buf;
  private final Trace trace;
  private float[] kept;

  QMatrix(Kernel kernel, SparseVector[] x, double[] y, boolean allowDense, KernelCache cache, Trace trace) {
    this(kernel, x, y, allowDense, cache, trace, 1);
  }

  /** {@code threads}: the threads that compute a column ({@link Rows#kernelRow}). */
  QMatrix(Kernel kernel, SparseVector[] x, double[] y, boolean allowDense, KernelCache cache, Trace trace, int threads) {
    int n = x.length;
    this.rows = new Rows(kernel, x, allowDense, threads);
    this.y = y;
    this.cache = cache;
    this.trace = trace;
    this.buf = new double[n];
    this.qd = new double[n];
    for (int p = 0; p < n; p++) qd[p] = rows.self(p);
  }

  /** Q_pp. */
  double diag(int p) {
    return qd[p];
  }

  /** The labels by position (the caller's array, permuted by {@link #swapRows}: read only). */
  double[] labels() {
    return y;
  }

  /** Q_pp by position (the solver's array: read only). */
  double[] diagonal() {
    return qd;
  }

  /** Q[p][0..len) as float (see {@link KernelCache#get}: possibly the shared working buffer). */
  float[] column(int p, int len) {
    return cache.get(p, len, this);
  }

  /** Q[p][0..len) from a cache built with double storage. */
  double[] doubleColumn(int p, int len) {
    return cache.getDouble(p, len, this);
  }

  /**
   * Q[p][0..len) for use beside a second column: the cached array, or a copy in this matrix's own
   * buffer when it is the cache's working buffer (which the next column would overwrite).
   */
  float[] columnToKeep(int p, int len) {
    float[] col = cache.get(p, len, this);
    if (!cache.isScratch(col)) return col;
    if (kept == null) kept = new float[qd.length];
    System.arraycopy(col, 0, kept, 0, len);
    return kept;
  }

  /** k(x_p, x_j) for j in [from, to), uncached, into a buffer valid until the next call. */
  double[] kernelRow(int p, int from, int to) {
    rows.kernelRow(p, from, to, buf);
    return buf;
  }

  @Override
  public void fill(int p, int from, int to, float[] out) {
    long t = trace.now();
    rows.kernelRow(p, from, to, buf);
    double y0 = y[p];
    for (int j = from; j < to; j++) out[j] = (float) (y0 * y[j] * buf[j]);
    trace.fill += trace.since(t);
  }

  @Override
  public void fill(int p, int from, int to, double[] out) {
    rows.kernelRow(p, from, to, buf);
    double y0 = y[p];
    for (int j = from; j < to; j++) out[j] = y0 * y[j] * buf[j];
  }

  /** Swaps positions i and j everywhere but in the cache. */
  void swapRows(int i, int j) {
    double t = y[i];
    y[i] = y[j];
    y[j] = t;
    t = qd[i];
    qd[i] = qd[j];
    qd[j] = t;
    rows.swap(i, j);
  }

  /** The cache's side of {@link #swapRows}. */
  void swapCached(int i, int j) {
    cache.swap(i, j);
  }

  /** The cache's side of {@link #swapRows} for the swaps (pi[t], pj[t]), t &lt; count. */
  void swapCached(int[] pi, int[] pj, int count) {
    cache.swapAll(pi, pj, count);
  }

  long kernelEvaluations() {
    return rows.evaluations;
  }

  KernelCache cache() {
    return cache;
  }
}
