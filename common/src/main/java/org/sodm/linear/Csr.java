package org.sodm.linear;

import org.sodm.data.SparseVector;

/**
 * Rows of a block in compressed sparse row form: the indices (0-based: feature f at f - 1) and values of row i are at
 * positions {@code from[i]} to {@code to[i]} of two flat arrays, with each row's squared norm. A {@link #subset} is a view
 * sharing those arrays (the sub-problems of one block - class pairs, cross-validation folds - hold the rows once). The coordinate-descent
 * passes stream these arrays in row order instead of chasing one object and two arrays per row; the arithmetic (and so
 * every result) is the same as over the {@link SparseVector}s, term by term.
 */
public final class Csr {
  final int[] from;
  final int[] to;
  final int[] index;
  final double[] value;
  final double[] squaredNorm;
  private Csc columns; // built on first use ({@link #columns})

  private Csr(int[] from, int[] to, int[] index, double[] value, double[] squaredNorm) {
    this.from = from;
    this.to = to;
    this.index = index;
    this.value = value;
    this.squaredNorm = squaredNorm;
  }

  public static Csr of(SparseVector[] x) {
    long nnz = 0;
    for (SparseVector v : x) nnz += v.indices().length;
    Builder b = new Builder(x.length, nnz);
    for (SparseVector v : x) b.add(v);
    return b.build();
  }

  /**
   * Rows appended one at a time into the flat arrays ({@link #of}'s layout and values), for a reader that must not keep a
   * {@link SparseVector} per row: a million rows held as objects until the block is complete cost a resident task more in
   * garbage collection and in {@link #of}'s copy than reading them.
   */
  public static final class Builder {
    private int[] start;
    private int[] index;
    private double[] value;
    private double[] squaredNorm;
    private int rows;

    /** For rows whose number and stored values are not known ahead: the arrays grow as they come. */
    public Builder() {
      this(1024, 1 << 14);
    }

    /** Sized for {@code rows} rows of {@code nonZeros} stored values in all (it still grows past them). */
    public Builder(int rows, long nonZeros) {
      if (nonZeros > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("a block holds more than 2^31 stored values; use more blocks");
      start = new int[Math.max(rows, 1) + 1];
      index = new int[(int) nonZeros];
      value = new double[(int) nonZeros];
      squaredNorm = new double[Math.max(rows, 1)];
    }

    /** Appends row {@code x} (copied). */
    public void add(SparseVector x) {
      int[] idx = x.indices();
      double[] val = x.values();
      int s = reserve(idx.length);
      long end = (long) s + idx.length;
      for (int k = 0; k < idx.length; k++) index[s + k] = idx[k] - 1;
      System.arraycopy(val, 0, value, s, val.length);
      squaredNorm[rows] = x.squaredNorm();
      start[++rows] = (int) end;
    }

    /**
     * Appends the row of the first {@code n} of {@code idx} (1-based) and {@code val} (copied), checked as
     * {@link SparseVector}'s constructor checks a row (the same messages) and with its squared norm summed in the same order.
     *
     * @throws IllegalArgumentException if an index is not positive or does not ascend, or a value is not finite
     */
    public void add(int[] idx, double[] val, int n) {
      int s = reserve(n);
      long end = (long) s + n;
      int[] ix = index;
      double[] vx = value;
      double sq = 0;
      int prev = 0;
      for (int k = 0; k < n; k++) {
        int f = idx[k];
        double v = val[k];
        if (f <= prev || !Double.isFinite(v)) {
          new SparseVector(java.util.Arrays.copyOf(idx, n), java.util.Arrays.copyOf(val, n)); // throws its message
          throw new IllegalStateException("row check disagrees with SparseVector's at feature " + f);
        }
        prev = f;
        ix[s + k] = f - 1;
        vx[s + k] = v;
        sq += v * v;
      }
      squaredNorm[rows] = sq;
      start[++rows] = (int) end;
    }

    /** Room for a row of {@code n} values after the rows so far: where it starts. */
    private int reserve(int n) {
      int s = start[rows];
      long end = (long) s + n;
      if (end > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("a block holds more than 2^31 stored values; use more blocks");
      if (end > index.length) {
        int cap = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(end, index.length + (index.length >> 1) + 16));
        index = java.util.Arrays.copyOf(index, cap);
        value = java.util.Arrays.copyOf(value, cap);
      }
      if (rows == squaredNorm.length) {
        squaredNorm = java.util.Arrays.copyOf(squaredNorm, 2 * squaredNorm.length);
        start = java.util.Arrays.copyOf(start, squaredNorm.length + 1);
      }
      return s;
    }

    public int rows() {
      return rows;
    }

    /**
     * The rows added, in order; the builder is not to be used after. The stored arrays are not trimmed (rows are read by their
     * start and end, as a {@link #subset} does), so no second copy of the block exists at any time.
     */
    public Csr build() {
      return new Csr(java.util.Arrays.copyOf(start, rows), java.util.Arrays.copyOfRange(start, 1, rows + 1), index, value,
          java.util.Arrays.copyOf(squaredNorm, rows));
    }
  }

  /** The rows {@code rows[0]}, {@code rows[1]}, ... of this block, in that order, as a view sharing its stored values. */
  public Csr subset(int[] rows) {
    int m = rows.length;
    int[] f = new int[m];
    int[] t = new int[m];
    double[] sq = new double[m];
    for (int j = 0; j < m; j++) {
      int i = rows[j];
      f[j] = from[i];
      t[j] = to[i];
      sq[j] = squaredNorm[i];
    }
    return new Csr(f, t, index, value, sq);
  }

  public int rows() {
    return squaredNorm.length;
  }

  /**
   * These rows' features 0 .. dim - 1 by column ({@link Csc}), built on the first call and kept for the next ones of the same
   * dim (the stages of a C path share a block's rows): a second copy of the stored values.
   */
  public synchronized Csc columns(int dim) {
    if (columns == null || columns.columns() != dim) columns = Csc.of(this, dim);
    return columns;
  }

  /** As {@link Vectors#dot(SparseVector, double[], double)} of row i. */
  public double dot(int i, double[] w, double bf) {
    int d = w.length - 1;
    double s = 0;
    for (int k = from[i], e = to[i]; k < e; k++) {
      int f = index[k];
      if (f < d) s += value[k] * w[f];
    }
    return s + bf * w[d];
  }

  /** As {@link Vectors#axpy(double, SparseVector, double[], double)} of row i. */
  void axpy(double a, int i, double[] w, double bf) {
    int d = w.length - 1;
    for (int k = from[i], e = to[i]; k < e; k++) {
      int f = index[k];
      if (f >= d) throw new IllegalArgumentException("feature " + (f + 1) + " is beyond the dimension " + d);
      w[f] += a * value[k];
    }
    w[d] += a * bf;
  }
}
