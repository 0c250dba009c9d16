package org.sodm.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;

class KernelScaleTest {
  /** The lower median of the pairwise squared distances, from dense copies, element by element. */
  private static double bruteForce(double[][] dense) {
    List<Double> d = new ArrayList<>();
    for (int i = 0; i < dense.length; i++) {
      for (int j = i + 1; j < dense.length; j++) {
        double s = 0;
        for (int f = 0; f < dense[i].length; f++) s += (dense[i][f] - dense[j][f]) * (dense[i][f] - dense[j][f]);
        d.add(s);
      }
    }
    Collections.sort(d);
    return d.get((d.size() - 1) / 2);
  }

  @Test
  void theMedianSquaredDistanceIsTheBruteForceOne() {
    Random r = new Random(11);
    for (int n : new int[] {2, 3, 4, 7, 40}) {
      int dim = 1 + r.nextInt(9);
      double[][] dense = new double[n][dim];
      SparseVector[] rows = new SparseVector[n];
      for (int i = 0; i < n; i++) {
        for (int f = 0; f < dim; f++) dense[i][f] = r.nextInt(3) == 0 ? 0 : r.nextGaussian() * 100;
        rows[i] = SparseVector.ofDense(dense[i]);
      }
      double want = bruteForce(dense);
      assertEquals(want, KernelScale.medianSquaredDistance(rows), 1e-9 * want, n + " rows");
      assertEquals(0.5 * want, KernelScale.typicalExponent(0.5, rows), 1e-9 * want);
    }
    assertEquals(0, KernelScale.medianSquaredDistance(new SparseVector[] {SparseVector.ofDense(1, 2)}));
    // 4 rows on a line at 0, 1, 3, 7: squared distances 1, 4, 9, 16, 36, 49: the lower median is 9
    SparseVector[] line = {SparseVector.ofDense(0), SparseVector.ofDense(1), SparseVector.ofDense(3), SparseVector.ofDense(7)};
    assertEquals(9, KernelScale.medianSquaredDistance(line));
  }

  @Test
  void degenerateAboveAHundred() {
    assertFalse(KernelScale.degenerate(8));
    assertFalse(KernelScale.degenerate(100));
    assertTrue(KernelScale.degenerate(100.5));
    assertTrue(KernelScale.degenerate(3016));
  }
}
