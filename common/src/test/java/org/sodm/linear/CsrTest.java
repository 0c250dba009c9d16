package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;

/** CSR rows give exactly what the per-row {@link Vectors} operations give, including features beyond w's dimension. */
class CsrTest {
  @Test
  void dotAxpyAndNormsEqualThePerRowOperations() {
    Random r = new Random(5);
    int n = 300;
    int dim = 40;
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      double[] dense = new double[dim + 5]; // some rows reach beyond dim: dot ignores them
      for (int f = 0; f < dense.length; f++) if (r.nextDouble() < 0.2) dense[f] = r.nextGaussian();
      if (i % 7 != 0) for (int f = dim; f < dense.length; f++) dense[f] = 0;
      x[i] = SparseVector.ofDense(dense);
    }
    Csr c = Csr.of(x);
    assertEquals(n, c.rows());
    double[] w = new double[dim + 1];
    for (int f = 0; f <= dim; f++) w[f] = r.nextGaussian();
    for (double bf : new double[] {0, 1}) {
      for (int i = 0; i < n; i++) {
        assertEquals(Vectors.dot(x[i], w, bf), c.dot(i, w, bf), 0.0, "row " + i);
        assertEquals(x[i].squaredNorm(), c.squaredNorm[i], 0.0);
        if (x[i].maxIndex() <= dim) {
          double[] a = w.clone();
          double[] b = w.clone();
          Vectors.axpy(0.37, x[i], a, bf);
          c.axpy(0.37, i, b, bf);
          assertArrayEquals(a, b, 0.0);
        } else {
          int row = i;
          assertThrows(IllegalArgumentException.class, () -> c.axpy(1, row, w.clone(), 1));
        }
      }
    }
  }

  /**
   * Rows appended one at a time (past the builder's first capacities of 1,024 rows and 16,384 values, and with empty rows)
   * give the CSR of {@link Csr#of} and the per-row {@link Vectors} operations: the same dot, axpy and norms for every row,
   * and the same subsets.
   */
  @Test
  void aBuiltCsrIsTheCsrOfItsRows() {
    Object[] sp = LinearTestData.sparse(new Random(12), 3000, 200, 0.05);
    SparseVector[] x = (SparseVector[]) sp[0];
    x[17] = new SparseVector(new int[0], new double[0]);
    x[2999] = new SparseVector(new int[0], new double[0]);
    Csr.Builder b = new Csr.Builder();
    for (SparseVector v : x) b.add(v);
    assertEquals(x.length, b.rows());
    Csr built = b.build();
    Csr of = Csr.of(x);
    assertEquals(of.rows(), built.rows());
    int dim = Vectors.dimension(x);
    Random r = new Random(3);
    double[] w = new double[dim + 1];
    for (int f = 0; f <= dim; f++) w[f] = r.nextGaussian();
    for (int i = 0; i < x.length; i++) {
      assertEquals(of.dot(i, w, 1), built.dot(i, w, 1), 0.0, "row " + i);
      assertEquals(Vectors.dot(x[i], w, 0), built.dot(i, w, 0), 0.0, "row " + i);
      assertEquals(x[i].squaredNorm(), built.squaredNorm[i], 0.0);
      double[] a = w.clone();
      double[] c = w.clone();
      Vectors.axpy(-0.61, x[i], a, 1);
      built.axpy(-0.61, i, c, 1);
      assertArrayEquals(a, c, 0.0, "row " + i);
    }
    int[] pick = {2999, 5, 17, 1024, 1025, 0};
    Csr s1 = of.subset(pick);
    Csr s2 = built.subset(pick);
    for (int j = 0; j < pick.length; j++) assertEquals(s1.dot(j, w, 1), s2.dot(j, w, 1), 0.0);
  }

  /** A subset view is the CSR of the chosen rows (in the chosen order), and a BQO block solve on it equals one on those rows. */
  @Test
  void subsetEqualsTheCsrOfItsRows() {
    Object[] sp = LinearTestData.sparse(new Random(8), 400, 60, 0.1);
    SparseVector[] x = (SparseVector[]) sp[0];
    double[] y = (double[]) sp[1];
    Csr all = Csr.of(x);
    int[] pick = java.util.stream.IntStream.range(0, x.length).filter(i -> i % 3 != 1).map(i -> x.length - 1 - i).toArray();
    SparseVector[] xs = new SparseVector[pick.length];
    double[] ys = new double[pick.length];
    for (int j = 0; j < pick.length; j++) {
      xs[j] = x[pick[j]];
      ys[j] = y[pick[j]];
    }
    Csr view = all.subset(pick);
    Csr own = Csr.of(xs);
    assertEquals(pick.length, view.rows());
    double[] w = new double[Vectors.dimension(x) + 1];
    for (int f = 0; f < w.length; f++) w[f] = Math.sin(f);
    for (int j = 0; j < pick.length; j++) {
      assertEquals(own.dot(j, w, 1), view.dot(j, w, 1), 0.0);
      assertEquals(own.squaredNorm[j], view.squaredNorm[j], 0.0);
    }
    SvmLoss loss = new SvmLoss(false, 1, 1, false);
    double[] alpha = new double[pick.length];
    double[] w0 = new double[w.length];
    BqoBlock.Result a = BqoBlock.solve(view, ys, alpha, w0, loss, new BqoBlock.Options(3, 1e-3, 1e-4), 4);
    BqoBlock.Result b = BqoBlock.solve(own, ys, alpha, w0, loss, new BqoBlock.Options(3, 1e-3, 1e-4), 4);
    assertArrayEquals(b.d(), a.d(), 0.0);
    assertArrayEquals(b.dw(), a.dw(), 0.0);
  }

  /**
   * Rows appended from reused arrays ({@link Csr.Builder#add(int[], double[], int)}: only the first n of each array, the
   * arrays changed after each call) give the CSR of the same rows appended as vectors, bit for bit; a row that is not a
   * valid vector is refused with {@link SparseVector}'s message and leaves the rows before it as they were.
   */
  @Test
  void rowsFromReusedArraysEqualRowsFromVectors() {
    Object[] sp = LinearTestData.sparse(new Random(21), 2500, 300, 0.04);
    SparseVector[] x = (SparseVector[]) sp[0];
    x[3] = new SparseVector(new int[0], new double[0]);
    Csr.Builder vectors = new Csr.Builder();
    Csr.Builder raw = new Csr.Builder(10, 10); // grows past both
    int[] idx = new int[1];
    double[] val = new double[1];
    for (SparseVector v : x) {
      vectors.add(v);
      int n = v.nnz();
      if (idx.length < n + 3) {
        idx = new int[n + 3];
        val = new double[n + 3];
      }
      java.util.Arrays.fill(idx, 999_999); // what lies past n must not be read
      java.util.Arrays.fill(val, Double.NaN);
      System.arraycopy(v.indices(), 0, idx, 0, n);
      System.arraycopy(v.values(), 0, val, 0, n);
      raw.add(idx, val, n);
    }
    Csr a = vectors.build();
    Csr b = raw.build();
    assertEquals(a.rows(), b.rows());
    for (int i = 0; i < x.length; i++) {
      assertEquals(a.to[i] - a.from[i], b.to[i] - b.from[i], "row " + i);
      for (int k = 0; k < a.to[i] - a.from[i]; k++) {
        assertEquals(a.index[a.from[i] + k], b.index[b.from[i] + k]);
        assertEquals(Double.doubleToRawLongBits(a.value[a.from[i] + k]), Double.doubleToRawLongBits(b.value[b.from[i] + k]));
      }
      assertEquals(Double.doubleToRawLongBits(a.squaredNorm[i]), Double.doubleToRawLongBits(b.squaredNorm[i]), "row " + i);
    }
    Csr.Builder bad = new Csr.Builder();
    bad.add(new int[] {2, 5}, new double[] {1, 2}, 2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bad.add(new int[] {3, 3}, new double[] {1, 1}, 2));
    assertEquals("feature index 3 does not ascend (after 3)", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> bad.add(new int[] {0}, new double[] {1}, 1));
    assertEquals("feature index 0 is not positive", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> bad.add(new int[] {4, 6}, new double[] {1, Double.NaN}, 2));
    assertEquals("feature 6 has non-finite value NaN", e.getMessage());
    bad.add(new int[] {7}, new double[] {3}, 1);
    Csr c = bad.build();
    assertEquals(2, c.rows());
    assertEquals(5.0, c.squaredNorm[0], 0.0);
    assertEquals(9.0, c.squaredNorm[1], 0.0);
    assertEquals(6, c.index[c.from[1]]);
  }
}
