package org.sodm.allreduce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AllReduceInProcessTest {
  static double[][] randomVectors(long seed, int k, int m) {
    Random r = new Random(seed);
    double[][] v = new double[k][m];
    for (double[] a : v) for (int i = 0; i < m; i++) a[i] = r.nextGaussian() * Math.pow(10, r.nextInt(17) - 8);
    return v;
  }

  @Test
  void treeShapeAndOrder() {
    assertArrayEquals(new int[] {1, 2}, ReduceTree.children(0, 5));
    assertArrayEquals(new int[] {3, 4}, ReduceTree.children(1, 5));
    assertArrayEquals(new int[] {}, ReduceTree.children(2, 5));
    assertArrayEquals(new int[] {5}, ReduceTree.children(2, 6));
    assertEquals(1, ReduceTree.parent(4));
    // the order is (v0 + (v1 + v3 + v4)) + v2 for K = 5: not the sequential sum, on these values
    double[][] v = {{1e16}, {1}, {-1e16}, {1}, {1}};
    assertEquals(1e16 + 3 - 1e16, ReduceTree.reduce(ReduceTree.Op.SUM, v)[0]);
    assertEquals(((1e16 + ((1 + 1.0) + 1)) + -1e16), ReduceTree.reduce(ReduceTree.Op.SUM, v)[0]);
    assertTrue(((((1e16 + 1) + -1e16) + 1) + 1) != ReduceTree.reduce(ReduceTree.Op.SUM, v)[0]);
  }

  @Test
  void everyRankGetsTheTreeResultBitForBit() throws Exception {
    for (int k = 1; k <= 5; k++) {
      double[][] v = randomVectors(k, k, 37);
      double[][] u = randomVectors(100 + k, k, 5);
      double[] sum = ReduceTree.reduce(ReduceTree.Op.SUM, v);
      double[] max = ReduceTree.reduce(ReduceTree.Op.MAX, u);
      List<double[][]> got = InProcessAllReduce.run(k, ar -> new double[][] {ar.sum(v[ar.rank()]), ar.max(u[ar.rank()]),
          ar.broadcast(ar.rank() == 0 ? u[0] : null), {ar.sum(ar.rank() + 1.0)}});
      for (double[][] g : got) {
        assertArrayEquals(sum, g[0]);
        assertArrayEquals(max, g[1]);
        assertArrayEquals(u[0], g[2]);
        assertEquals(k * (k + 1) / 2.0, g[3][0]);
      }
    }
  }

  @Test
  void aFailingRankBreaksTheGroupAndIsReported() {
    Exception e = assertThrows(IllegalStateException.class, () -> InProcessAllReduce.run(3, ar -> {
      if (ar.rank() == 2) throw new IllegalStateException("rank 2 broke");
      ar.barrier();
      return null;
    }));
    assertEquals("rank 2 broke", e.getMessage());
    Exception m = assertThrows(IllegalArgumentException.class, () -> InProcessAllReduce.run(2, ar -> ar.sum(new double[ar.rank() + 1])));
    assertTrue(m.getMessage().contains("different lengths"), m.getMessage());
  }

  /**
   * Waiting ranks spin, then block on the monitor: rounds where one rank arrives late (the others past their spins, blocked)
   * and rounds where all arrive at once (spinning) both give every rank its own round's result, for more ranks than cores too.
   */
  @Test
  void roundsOfLateAndPromptRanksEachGetTheirOwnResult() throws Exception {
    for (int k : new int[] {2, 5}) {
      int rounds = 3000;
      List<long[]> got = InProcessAllReduce.run(k, ar -> {
        long[] bad = new long[1];
        for (int t = 0; t < rounds; t++) {
          if (t % 500 == ar.rank()) Thread.sleep(20); // later than any spin
          double[] s = ar.sum(new double[] {t, ar.rank()});
          if (s[0] != (double) t * k || s[1] != k * (k - 1) / 2.0) bad[0]++;
        }
        return bad;
      });
      for (long[] b : got) assertEquals(0, b[0], k + " ranks: rounds with another round's result");
    }
  }

  /** A rank that fails while the others are blocked (past their spins) wakes them with the break, at once. */
  @Test
  void aRankFailingWhileTheOthersAreBlockedWakesThem() {
    long t0 = System.nanoTime();
    Exception e = assertThrows(IllegalStateException.class, () -> InProcessAllReduce.run(3, ar -> {
      if (ar.rank() == 1) {
        Thread.sleep(200);
        throw new IllegalStateException("rank 1 broke late");
      }
      ar.barrier();
      return null;
    }));
    assertEquals("rank 1 broke late", e.getMessage());
    assertTrue((System.nanoTime() - t0) / 1e9 < 5, "the blocked ranks woke at the break");
  }
}
