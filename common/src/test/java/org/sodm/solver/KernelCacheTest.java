package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class KernelCacheTest {
  /** A reference "matrix" Q[a][b] = f(original ids), under the cache's position permutation. */
  private static final class Matrix implements KernelCache.Filler {
    final int[] id;
    long filled;

    Matrix(int n) {
      id = new int[n];
      for (int i = 0; i < n; i++) id[i] = i;
    }

    static double q(int a, int b) {
      return Math.sin(a * 0.37 + b * 1.13) + a * 0.001 + b * 0.002;
    }

    @Override
    public void fill(int pos, int from, int to, float[] out) {
      for (int j = from; j < to; j++) out[j] = (float) q(id[pos], id[j]);
      filled += to - from;
    }

    @Override
    public void fill(int pos, int from, int to, double[] out) {
      for (int j = from; j < to; j++) out[j] = q(id[pos], id[j]);
      filled += to - from;
    }

    void swap(int i, int j) {
      int t = id[i];
      id[i] = id[j];
      id[j] = t;
    }
  }

  /**
   * Random requests of random prefixes interleaved with swaps: every returned column equals the
   * reference, and the bytes held never exceed the budget (checked after every operation).
   */
  @Test
  void contentCorrectAndBudgetRespected() {
    for (boolean doubles : new boolean[] {false, true}) {
      for (long budget : new long[] {0, 3_000, 20_000, 200_000, 10_000_000}) {
        Random r = new Random(budget + (doubles ? 1 : 0));
        int n = 120;
        Matrix m = new Matrix(n);
        KernelCache c = new KernelCache(n, budget, doubles);
        for (int op = 0; op < 5000; op++) {
          if (r.nextInt(10) == 0) {
            int i = r.nextInt(n);
            int j = r.nextInt(n);
            c.swap(i, j);
            m.swap(i, j);
          } else {
            int p = r.nextInt(n);
            int need = 1 + r.nextInt(n);
            if (doubles) {
              double[] col = c.getDouble(p, need, m);
              for (int j = 0; j < need; j++) assertEquals(Matrix.q(m.id[p], m.id[j]), col[j], 0.0);
            } else {
              float[] col = c.get(p, need, m);
              for (int j = 0; j < need; j++) assertEquals((float) Matrix.q(m.id[p], m.id[j]), col[j], 0.0f);
            }
          }
          assertTrue(budget < KernelCache.PER_POSITION_BYTES * n || c.bytesUsed() <= budget,
              "used " + c.bytesUsed() + " > budget " + budget);
        }
        if (budget >= KernelCache.PER_POSITION_BYTES * n) assertTrue(c.peakBytes() <= budget);
        assertEquals(5000, c.hits() + c.misses() + countSwaps(budget, doubles));
        if (budget == 10_000_000) assertTrue(c.hits() > 1000, "hits " + c.hits());
        if (budget <= 3_000) assertEquals(0, c.cachedColumns());
      }
    }
  }

  private static long countSwaps(long budget, boolean doubles) {
    Random r = new Random(budget + (doubles ? 1 : 0));
    long s = 0;
    for (int op = 0; op < 5000; op++) {
      if (r.nextInt(10) == 0) {
        r.nextInt(120);
        r.nextInt(120);
        s++;
      } else {
        r.nextInt(120);
        r.nextInt(120);
      }
    }
    return s;
  }

  /** Least recently used columns go first; a hit refreshes a column. */
  @Test
  void evictsLeastRecentlyUsed() {
    int n = 10;
    Matrix m = new Matrix(n);
    long col = 16 + 4 * 10; // 56 bytes per full float column
    KernelCache c = new KernelCache(n, KernelCache.PER_POSITION_BYTES * n + 3 * col);
    c.get(0, n, m);
    c.get(1, n, m);
    c.get(2, n, m);
    c.get(0, n, m); // hit: 1 is now the oldest
    long before = m.filled;
    c.get(3, n, m); // evicts 1
    assertEquals(3, c.cachedColumns());
    c.get(0, n, m);
    c.get(2, n, m);
    assertEquals(before + n, m.filled);
    c.get(1, n, m);
    assertEquals(before + 2 * n, m.filled);
    assertEquals(3, c.hits());
    assertEquals(5, c.misses());
  }
}
