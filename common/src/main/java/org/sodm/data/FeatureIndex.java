package org.sodm.data;

import java.util.Arrays;

/**
 * A set of sparse vectors by feature (their compressed sparse columns: for each feature, the vectors that have it and
 * their values), for the inner products of one vector x with all of them in O(n + matches), where matches = sum over x's
 * features f of the number of vectors having f, instead of the O(sum of the vectors' non-zeros) of one sparse dot product
 * per vector. On sparse high-dimensional data (text: tens of thousands of features, tens per row) that is one to two orders
 * of magnitude fewer operations.
 *
 * <p>Each inner product is bit for bit {@link SparseVector#dot(SparseVector)}: the products of the common features are
 * added in ascending feature order in both (x's features are visited in order, and a column lists its vectors once). The
 * vectors are not copied beyond their values by feature; the index is immutable and thread-safe.
 */
public final class FeatureIndex {
  private final int n;
  private final int dim;
  /** Column f (feature f + 1) holds entries [start[f], start[f + 1]). */
  private final int[] start;
  private final int[] vector;
  private final double[] value;

  private FeatureIndex(int n, int dim, int[] start, int[] vector, double[] value) {
    this.n = n;
    this.dim = dim;
    this.start = start;
    this.vector = vector;
    this.value = value;
  }

  /** The index of {@code rows}: vector i of the products is {@code rows[i]}. */
  public static FeatureIndex of(SparseVector[] rows) {
    int dim = 0;
    long nnz = 0;
    for (SparseVector r : rows) {
      dim = Math.max(dim, r.maxIndex());
      nnz += r.nnz();
    }
    if (nnz > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("too many non-zeros for one feature index: " + nnz + " in " + rows.length + " vectors");
    }
    int[] start = new int[dim + 1];
    for (SparseVector r : rows) {
      for (int f : r.indices()) start[f]++; // counts at f (feature f is column f - 1, its end at start[f])
    }
    for (int f = 1; f <= dim; f++) start[f] += start[f - 1];
    int[] vector = new int[(int) nnz];
    double[] value = new double[(int) nnz];
    int[] next = Arrays.copyOf(start, dim); // column f - 1 fills from start[f - 1]
    for (int i = 0; i < rows.length; i++) {
      int[] idx = rows[i].indices();
      double[] val = rows[i].values();
      for (int k = 0; k < idx.length; k++) {
        int p = next[idx[k] - 1]++;
        vector[p] = i;
        value[p] = val[k];
      }
    }
    return new FeatureIndex(rows.length, dim, start, vector, value);
  }

  /** The number of vectors. */
  public int size() {
    return n;
  }

  /** The number of non-zeros held (entries of the index). */
  public int entries() {
    return vector.length;
  }

  /** Bytes of the index's arrays (an int and a double per non-zero, an int per feature). */
  public long bytes() {
    return 12L * vector.length + 4L * start.length;
  }

  /** The entries {@link #dots} visits for {@code x}: the number of vectors having each of x's features, summed. */
  public long matches(SparseVector x) {
    long s = 0;
    for (int f : x.indices()) {
      if (f > dim) break;
      s += start[f] - start[f - 1];
    }
    return s;
  }

  /** {@code out[i] = x'rows[i]} for every vector i (out's first {@link #size()} entries are overwritten). */
  public void dots(SparseVector x, double[] out) {
    dots(x, out, 0, n);
  }

  /**
   * {@code out[i] = x'rows[i]} for the vectors i in [from, to) (only those entries of out are written): each bit for bit as
   * {@link #dots(SparseVector, double[])} gives it, so disjoint ranges can be filled by different threads.
   */
  public void dots(SparseVector x, double[] out, int from, int to) {
    Arrays.fill(out, from, to, 0.0);
    int[] xi = x.indices();
    double[] xv = x.values();
    int[] vec = vector;
    double[] val = value;
    for (int k = 0; k < xi.length; k++) {
      int f = xi[k];
      if (f > dim) break;
      double a = xv[k];
      int end = start[f];
      // a column lists its vectors in ascending order: start at the first one >= from
      int p = from == 0 ? start[f - 1] : firstAtLeast(vec, start[f - 1], end, from);
      if (to == n) {
        for (; p < end; p++) out[vec[p]] += a * val[p];
      } else {
        for (; p < end; p++) {
          int v = vec[p];
          if (v >= to) break;
          out[v] += a * val[p];
        }
      }
    }
  }

  /** The first position in [lo, hi) of the ascending {@code a} whose value is >= {@code key} (hi if none). */
  private static int firstAtLeast(int[] a, int lo, int hi, int key) {
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
