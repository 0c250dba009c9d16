package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;

class UnseenFeaturesTest {
  /** drop() equals filtering the index list by hand, and counts rows, values and the smallest dropped index. */
  @Test
  void dropKeepsExactlyTheSeenFeaturesAndCounts() {
    Random r = new Random(3);
    UnseenFeatures c = new UnseenFeatures();
    long rows = 0;
    long values = 0;
    int smallest = Integer.MAX_VALUE;
    for (int t = 0; t < 500; t++) {
      int dim = 1 + r.nextInt(30);
      List<Integer> idx = new ArrayList<>();
      for (int j = 1; j <= 40; j++) if (r.nextInt(4) == 0) idx.add(j);
      int[] ii = idx.stream().mapToInt(Integer::intValue).toArray();
      double[] vv = new double[ii.length];
      for (int k = 0; k < vv.length; k++) vv[k] = r.nextGaussian();
      SparseVector x = new SparseVector(ii, vv);
      SparseVector y = UnseenFeatures.drop(x, dim, c);
      int kept = 0;
      int firstDropped = -1;
      for (int k = 0; k < ii.length; k++) {
        if (ii[k] <= dim) {
          assertEquals(ii[k], y.index(kept));
          assertEquals(vv[k], y.value(kept), 0.0);
          kept++;
        } else if (firstDropped < 0) {
          firstDropped = ii[k];
        }
      }
      assertEquals(kept, y.nnz());
      if (firstDropped > 0) {
        rows++;
        values += ii.length - kept;
        smallest = Math.min(smallest, firstDropped);
      } else {
        assertSame(x, y, "nothing unseen: the same vector");
      }
    }
    assertEquals(rows, c.rows());
    assertEquals(values, c.values());
    assertEquals(smallest, c.smallestIndex());
    assertTrue(c.warning(7).contains("smallest: " + smallest), c.warning(7));
  }

  @Test
  void unknownDimensionDropsNothing() {
    SparseVector x = new SparseVector(new int[] {1, 100000}, new double[] {1, 2});
    UnseenFeatures c = new UnseenFeatures();
    assertSame(x, UnseenFeatures.drop(x, 0, c));
    assertEquals(0, c.rows());
    assertNull(c.warning(0));
  }
}
