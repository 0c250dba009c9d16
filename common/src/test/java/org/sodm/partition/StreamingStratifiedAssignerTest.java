package org.sodm.partition;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StreamingStratifiedAssignerTest {

  /** Bound stated in the class: per stream, per stratum, counts differ by <= 1 at every prefix. */
  @Test
  void perStreamBalanceAtEveryPrefix() {
    int n = 5000;
    int strata = 30;
    for (int k : new int[] {1, 3, 16}) {
      int[] st = StratifiedPartitionerTest.randomStrata(n, strata, k);
      StreamingStratifiedAssigner a = new StreamingStratifiedAssigner(k, 7, 123);
      int[][] c = new int[strata][k];
      int[] seen = new int[strata];
      long[] total = new long[k];
      for (int i = 0; i < n; i++) {
        int s = st[i];
        int p = a.next(s);
        assertTrue(p >= 0 && p < k);
        c[s][p]++;
        seen[s]++;
        total[p]++;
        int lo = seen[s] / k;
        int hi = (seen[s] + k - 1) / k;
        for (int q = 0; q < k; q++) assertTrue(c[s][q] == lo || c[s][q] == hi, Arrays.toString(c[s]));
        if (i % 97 == 0 || i == n - 1) {
          // totals: spread <= number of strata with an unfinished round
          int partial = 0;
          for (int t = 0; t < strata; t++) if (seen[t] % k != 0) partial++;
          long spread = Arrays.stream(total).max().getAsLong() - Arrays.stream(total).min().getAsLong();
          assertTrue(spread <= Math.max(partial, 0), "spread " + spread + " partial " + partial);
        }
      }
      assertArrayEquals(total, a.totals());
    }
  }

  /** Over M mappers, per-stratum counts differ by <= M. */
  @Test
  void mergedStreamsWithinM() {
    int k = 16;
    int m = 8;
    int strata = 20;
    int[][] c = new int[strata][k];
    for (int split = 0; split < m; split++) {
      int[] st = StratifiedPartitionerTest.randomStrata(1000 + 37 * split, strata, split);
      StreamingStratifiedAssigner a = new StreamingStratifiedAssigner(k, 5, split);
      for (int s : st) c[s][a.next(s)]++;
    }
    for (int[] row : c) {
      int spread = Arrays.stream(row).max().getAsInt() - Arrays.stream(row).min().getAsInt();
      assertTrue(spread <= m, Arrays.toString(row));
    }
  }

  @Test
  void deterministicForSeedAndStreamKey() {
    int[] st = StratifiedPartitionerTest.randomStrata(500, 7, 1);
    int[] a = run(st, 9, 1, 2);
    assertArrayEquals(a, run(st, 9, 1, 2));
    assertFalse(Arrays.equals(a, run(st, 9, 1, 3)));
    assertFalse(Arrays.equals(a, run(st, 9, 2, 2)));
  }

  private static int[] run(int[] st, int k, long seed, long key) {
    StreamingStratifiedAssigner a = new StreamingStratifiedAssigner(k, seed, key);
    int[] out = new int[st.length];
    for (int i = 0; i < st.length; i++) out[i] = a.next(st[i]);
    return out;
  }
}
