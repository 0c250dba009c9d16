package org.sodm.data;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;

class FeatureIndexTest {
  /** A sparse vector over features 1..d, each present with probability p, values of both signs (some repeated). */
  static SparseVector random(Random r, int d, double p) {
    double[] v = new double[d];
    for (int f = 0; f < d; f++) if (r.nextDouble() < p) v[f] = r.nextInt(4) == 0 ? 0.25 : r.nextGaussian() * 3;
    return SparseVector.ofDense(v);
  }

  @Test
  void aHandBuiltIndexGivesTheInnerProducts() {
    SparseVector[] rows = {
      new SparseVector(new int[] {1, 4}, new double[] {2, -1}),
      SparseVector.EMPTY,
      new SparseVector(new int[] {2, 4, 7}, new double[] {3, 5, 0.5}),
    };
    FeatureIndex ix = FeatureIndex.of(rows);
    assertEquals(3, ix.size());
    assertEquals(5, ix.entries());
    double[] out = {9, 9, 9, 9}; // overwritten up to size(), the rest left alone
    SparseVector x = new SparseVector(new int[] {1, 2, 4, 9}, new double[] {1, 10, 2, 100}); // feature 9: no row has it
    ix.dots(x, out);
    assertArrayEquals(new double[] {2 * 1 - 1 * 2, 0, 3 * 10 + 5 * 2, 9}, out);
    assertEquals(1 + 1 + 2, ix.matches(x)); // features 1 (row 0), 2 (row 2), 4 (rows 0 and 2)
    ix.dots(SparseVector.EMPTY, out);
    assertArrayEquals(new double[] {0, 0, 0, 9}, out);
  }

  /**
   * Bit for bit the merge of SparseVector#dot (the same products in the same order), on rows of different densities, x
   * with features beyond every row's and the empty vector; and the matches are the common (row, feature) pairs counted.
   */
  @Test
  void theInnerProductsAreTheSparseDotProductsBitForBit() {
    Random r = new Random(5);
    for (double p : new double[] {0.002, 0.05, 0.5}) {
      int d = 2000;
      SparseVector[] rows = new SparseVector[300];
      for (int i = 0; i < rows.length; i++) rows[i] = i % 50 == 7 ? SparseVector.EMPTY : random(r, d, p);
      FeatureIndex ix = FeatureIndex.of(rows);
      double[] out = new double[rows.length];
      for (int q = 0; q < 40; q++) {
        SparseVector x = q == 0 ? SparseVector.EMPTY : random(r, q % 2 == 0 ? d : d + 50, Math.max(p, 0.01));
        ix.dots(x, out);
        long common = 0;
        for (int i = 0; i < rows.length; i++) {
          assertEquals(Double.doubleToLongBits(x.dot(rows[i])), Double.doubleToLongBits(out[i]), "p " + p + " x " + q + " row " + i);
          for (int f : x.indices()) if (rows[i].get(f) != 0) common++;
        }
        assertEquals(common, ix.matches(x));
      }
    }
  }

  @Test
  void noVectorsMakeAnEmptyIndex() {
    FeatureIndex ix = FeatureIndex.of(new SparseVector[0]);
    assertEquals(0, ix.size());
    ix.dots(new SparseVector(new int[] {3}, new double[] {1}), new double[0]);
    assertEquals(0, ix.matches(new SparseVector(new int[] {3}, new double[] {1})));
  }
}
