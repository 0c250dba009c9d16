package org.sodm.partition;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Exact stratified partitioning (SODM section 3.2): every stratum is dealt into K partitions
 * by sampling without replacement, for use where one place sees whole strata (a reducer keyed
 * by stratum, or in memory).
 *
 * <p>Procedure: the members of each stratum are put in canonical order (ascending id), shuffled
 * by a generator seeded from (seed, stratum), and dealt round-robin. The deal of stratum s
 * starts where the previous stratum (in ascending stratum value) stopped, and the partition
 * labels are a seeded random permutation of [0, K). Guarantees:
 * <ul>
 *   <li>within every stratum, partition counts differ by at most 1 (each partition holds
 *       floor(|C_s|/K) or ceil(|C_s|/K) of C_s, a uniformly random subset of that size);</li>
 *   <li>total partition sizes differ by at most 1;</li>
 *   <li>the result depends only on the (id, stratum) pairs, k and seed, not on input order.</li>
 * </ul>
 */
public final class StratifiedPartitioner {
  private StratifiedPartitioner() {}

  /**
   * @param strata stratum of each instance (any int values)
   * @param ids unique instance ids
   * @return partition in [0, k) of each instance
   * @throws IllegalArgumentException on duplicate ids or mismatched lengths
   */
  public static int[] assign(int[] strata, long[] ids, int k, long seed) {
    int n = strata.length;
    if (ids.length != n) throw new IllegalArgumentException("strata and ids differ in length");
    if (k < 1) throw new IllegalArgumentException("number of partitions must be >= 1, got " + k);
    checkUnique(ids);
    // canonical order: (stratum, id)
    Integer[] boxed = new Integer[n];
    for (int i = 0; i < n; i++) boxed[i] = i;
    Arrays.sort(boxed, (a, b) -> {
      int c = Integer.compare(strata[a], strata[b]);
      return c != 0 ? c : Long.compare(ids[a], ids[b]);
    });
    int[] label = new int[k];
    for (int p = 0; p < k; p++) label[p] = p;
    Mix.shuffle(label, new SplittableRandom(Mix.mix(seed, 0x5354524154L)));
    int[] out = new int[n];
    long dealt = 0;
    int start = 0;
    while (start < n) {
      int s = strata[boxed[start]];
      int end = start;
      while (end < n && strata[boxed[end]] == s) end++;
      int m = end - start;
      int[] order = new int[m];
      for (int r = 0; r < m; r++) order[r] = r;
      Mix.shuffle(order, new SplittableRandom(Mix.mix(seed, s)));
      for (int r = 0; r < m; r++) {
        out[boxed[start + order[r]]] = label[(int) ((dealt + r) % k)];
      }
      dealt += m;
      start = end;
    }
    return out;
  }

  private static void checkUnique(long[] ids) {
    long[] c = ids.clone();
    Arrays.sort(c);
    for (int i = 1; i < c.length; i++) {
      if (c[i] == c[i - 1]) throw new IllegalArgumentException("duplicate id " + c[i]);
    }
  }
}
