package org.sodm.linear;

/**
 * Columns of a block's rows in compressed sparse column form ({@link Csr#columns}): the rows (ascending) and values of feature
 * j's stored values are at {@code start[j]} to {@code start[j + 1]} of two flat arrays. What coordinate descent over the
 * features needs (LIBLINEAR transposes its data for {@code -s 5} and {@code -s 6} the same way): a feature's column without a
 * pass over every row. It costs a second copy of the stored values (12 bytes each).
 */
public final class Csc {
  final int[] start;
  final int[] row;
  final double[] value;

  private Csc(int[] start, int[] row, double[] value) {
    this.start = start;
    this.row = row;
    this.value = value;
  }

  /** The columns 0 .. dim - 1 of {@code x}'s rows (stored values of features beyond dim are left out). */
  static Csc of(Csr x, int dim) {
    int rows = x.rows();
    int[] start = new int[dim + 1];
    for (int i = 0; i < rows; i++) {
      for (int k = x.from[i], e = x.to[i]; k < e; k++) {
        int f = x.index[k];
        if (f < dim) start[f + 1]++;
      }
    }
    for (int j = 0; j < dim; j++) start[j + 1] += start[j];
    int[] next = java.util.Arrays.copyOf(start, dim);
    int[] row = new int[start[dim]];
    double[] value = new double[start[dim]];
    for (int i = 0; i < rows; i++) {
      for (int k = x.from[i], e = x.to[i]; k < e; k++) {
        int f = x.index[k];
        if (f >= dim) continue;
        int p = next[f]++;
        row[p] = i;
        value[p] = x.value[k];
      }
    }
    return new Csc(start, row, value);
  }

  /** The features (columns). */
  public int columns() {
    return start.length - 1;
  }

  /** Stored values of column j. */
  public int size(int j) {
    return start[j + 1] - start[j];
  }

  /** sum_i d_i x_ij q_i over column j's rows, in their order. */
  public double weightedDot(int j, double[] d, double[] q) {
    double s = 0;
    for (int p = start[j], e = start[j + 1]; p < e; p++) {
      int i = row[p];
      s += d[i] * value[p] * q[i];
    }
    return s;
  }

  /** q_i += z x_ij over column j's rows. */
  public void axpy(int j, double z, double[] q) {
    for (int p = start[j], e = start[j + 1]; p < e; p++) q[row[p]] += z * value[p];
  }
}
