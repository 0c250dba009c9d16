package org.sodm.partition;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.sodm.data.Seeds;
import org.sodm.data.SparseVector;

class AdaptiveSampleTest {
  private static SparseVector v(double a) {
    return new SparseVector(new int[] {1}, new double[] {a + 1});
  }

  @Test
  void keepsTheSupportVectorsOfSmallestRankWhateverTheOrder() {
    int n = 2000;
    boolean[] sv = new boolean[n];
    SplittableRandom r = new SplittableRandom(3);
    List<Long> svIds = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sv[i] = r.nextDouble() < 0.3;
      if (sv[i]) svIds.add((long) i);
    }
    svIds.sort((a, b) -> Long.compare(Seeds.levelSampleRank(9, 2, a), Seeds.levelSampleRank(9, 2, b)));
    List<Long> expected = new ArrayList<>(svIds.subList(0, 100));
    Collections.sort(expected);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < n; i++) order.add(i);
    for (int pass = 0; pass < 2; pass++) {
      AdaptiveSample s = new AdaptiveSample(100);
      for (int i : order) s.offer(i, Seeds.levelSampleRank(9, 2, i), v(i), sv[i]);
      assertTrue(s.fromSupportVectors(8));
      long[] ids = s.ids(8);
      List<Long> got = new ArrayList<>();
      for (long id : ids) got.add(id);
      assertEquals(expected, got);
      SparseVector[] p = s.points(8);
      for (int t = 0; t < ids.length; t++) {
        assertTrue(sv[(int) ids[t]], "only support vectors");
        assertEquals(ids[t] + 1, (long) p[t].values()[0]);
      }
      Collections.shuffle(order, new java.util.Random(4)); // another reading order: the same sample
    }
  }

  @Test
  void fewerSupportVectorsThanClustersFallsBackToAllRows() {
    AdaptiveSample s = new AdaptiveSample(50);
    for (int i = 0; i < 500; i++) s.offer(i, Seeds.levelSampleRank(1, 1, i), v(i), i < 3);
    assertEquals(3, s.supportVectors());
    assertFalse(s.fromSupportVectors(4));
    assertEquals(50, s.ids(4).length);
    assertTrue(s.fromSupportVectors(3));
    assertArrayEquals(new long[] {0, 1, 2}, s.ids(3));
  }
}
