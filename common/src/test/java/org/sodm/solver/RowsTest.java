package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

class RowsTest {
  static SparseVector random(Random r, int d, double p) {
    double[] v = new double[d];
    for (int f = 0; f < d; f++) if (r.nextDouble() < p) v[f] = r.nextGaussian();
    return SparseVector.ofDense(v);
  }

  /**
   * Sparse high-dimensional rows (5,000 features, ~15 a row): a column over the whole range comes from the rows' feature
   * index, a column over a few positions from the scattered row; either way every entry is bit for bit the kernel of the
   * two vectors' merged dot product, also after the positions were permuted (as shrinking swaps them).
   */
  @Test
  void kernelRowsThroughTheFeatureIndexAreTheKernelOfTheSparseDotProducts() {
    Random r = new Random(11);
    int n = 400;
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) x[i] = random(r, 5000, 0.003);
    for (KernelSpec ks : new KernelSpec[] {KernelSpec.rbf(0.3), KernelSpec.poly(0.5, 1, 3), KernelSpec.linear()}) {
      Kernel k = ks.create();
      Rows rows = new Rows(k, x, true);
      assertFalse(rows.dense);
      double[] out = new double[n];
      for (int round = 0; round < 4; round++) {
        for (int t = 0; t < 30; t++) rows.swap(r.nextInt(n), r.nextInt(n));
        for (int p = 0; p < n; p += 37) {
          long before = rows.indexedColumns;
          rows.kernelRow(p, 0, n, out);
          assertEquals(before + 1, rows.indexedColumns, "the whole range through the index");
          rows.kernelRow(p, 100, 110, out); // 10 positions: fewer non-zeros than the index's n + matches
          assertEquals(before + 1, rows.indexedColumns, "a short range by the scattered row");
          for (int j = 0; j < n; j++) {
            SparseVector a = rows.vector(p);
            SparseVector b = rows.vector(j);
            double want = k.fromDot(a.dot(b), a.squaredNorm(), b.squaredNorm());
            if (j >= 100 && j < 110) assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(out[j]), ks + " short " + p + "," + j);
          }
          rows.kernelRow(p, 0, n, out);
          for (int j = 0; j < n; j++) {
            SparseVector a = rows.vector(p);
            SparseVector b = rows.vector(j);
            double want = k.fromDot(a.dot(b), a.squaredNorm(), b.squaredNorm());
            assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(out[j]), ks + " round " + round + " " + p + "," + j);
          }
        }
      }
    }
  }

  /** Low-dimensional rows take the dense copy and never the index. */
  @Test
  void lowDimensionalRowsUseTheDenseCopy() {
    Random r = new Random(3);
    SparseVector[] x = new SparseVector[200];
    for (int i = 0; i < x.length; i++) x[i] = random(r, 20, 0.5);
    Rows rows = new Rows(KernelSpec.rbf(1).create(), x, true);
    assertTrue(rows.dense);
    rows.kernelRow(0, 0, x.length, new double[x.length]);
    assertEquals(0, rows.indexedColumns);
  }
}
