package org.sodm.partition;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Exact stratified partitioning (SODM section 3.2): every stratum is dealt into K partitions
 * by sampling without replacement, for use where one place sees whole strata (in memory, or a
 * reducer keyed by stratum).
 *
 * <p>Deal of one stratum ({@link #dealStratum}): its members are put in canonical order
 * (ascending id), shuffled by a generator seeded from (seed, stratum), and dealt round-robin
 * starting at position {@code offset}; position q goes to partition {@code label[q mod K]},
 * where {@code label} is a seeded random permutation of [0, K). Within the stratum, partition
 * counts differ by at most 1 (each partition receives a uniformly random subset of size
 * floor(|C_s|/K) or ceil(|C_s|/K)), whatever the offset.
 *
 * <p>{@link #assign} deals all strata in ascending stratum value, each starting where the
 * previous one stopped (offset = number of rows in lower strata), so total partition sizes
 * differ by at most 1 as well. A reducer that sees one stratum at a time reproduces
 * {@link #assign} exactly by calling {@link #dealStratum} with the offsets from
 * {@link #cumulativeOffsets} of the stratum histogram (S longs, e.g. from job counters or a
 * side file). Without the histogram, any fixed offset (e.g. {@link #hashOffset}) keeps the
 * per-stratum guarantee; totals then differ by O(sqrt(S)) rather than 1.
 *
 * <p>Results depend only on the (id, stratum) pairs, K and the seed (and the offsets), not on
 * input order or on how strata are grouped into calls.
 */
public final class StratifiedPartitioner {
  private StratifiedPartitioner() {}

  /**
   * All strata at once.
   *
   * @param strata stratum of each instance (any int values)
   * @param ids unique instance ids
   * @return partition in [0, k) of each instance
   * @throws IllegalArgumentException on duplicate ids or mismatched lengths
   */
  public static int[] assign(int[] strata, long[] ids, int k, long seed) {
    int n = strata.length;
    if (ids.length != n) throw new IllegalArgumentException("strata and ids differ in length");
    checkK(k);
    checkUnique(ids);
    Integer[] boxed = new Integer[n];
    for (int i = 0; i < n; i++) boxed[i] = i;
    Arrays.sort(boxed, (a, b) -> Integer.compare(strata[a], strata[b]));
    int[] label = labels(k, seed);
    int[] out = new int[n];
    long dealt = 0;
    int start = 0;
    while (start < n) {
      int s = strata[boxed[start]];
      int end = start;
      while (end < n && strata[boxed[end]] == s) end++;
      long[] sid = new long[end - start];
      for (int r = 0; r < sid.length; r++) sid[r] = ids[boxed[start + r]];
      int[] p = deal(s, sid, k, seed, dealt, label);
      for (int r = 0; r < sid.length; r++) out[boxed[start + r]] = p[r];
      dealt += sid.length;
      start = end;
    }
    return out;
  }

  /**
   * Deals one stratum.
   *
   * @param ids unique ids of the stratum's members (any order)
   * @param offset deal position of the first member (see class comment)
   * @return partition of each member, aligned with {@code ids}
   */
  public static int[] dealStratum(int stratum, long[] ids, int k, long seed, long offset) {
    checkK(k);
    checkUnique(ids);
    return deal(stratum, ids, k, seed, offset, labels(k, seed));
  }

  /**
   * Offsets that make per-stratum {@link #dealStratum} calls equal {@link #assign}:
   * {@code offsets[s]} = number of rows in strata below s, for strata 0..S-1.
   */
  public static long[] cumulativeOffsets(long[] stratumCounts) {
    long[] off = new long[stratumCounts.length];
    long c = 0;
    for (int s = 0; s < stratumCounts.length; s++) {
      off[s] = c;
      c += stratumCounts[s];
    }
    return off;
  }

  /** A seeded offset in [0, k) for one stratum, when the stratum histogram is not known. */
  public static long hashOffset(int stratum, int k, long seed) {
    checkK(k);
    return Long.remainderUnsigned(Mix.mix(seed ^ 0x4f4646L, stratum), k);
  }

  private static int[] deal(int s, long[] ids, int k, long seed, long offset, int[] label) {
    int m = ids.length;
    Integer[] byId = new Integer[m];
    for (int r = 0; r < m; r++) byId[r] = r;
    Arrays.sort(byId, (a, b) -> Long.compare(ids[a], ids[b]));
    int[] order = new int[m];
    for (int r = 0; r < m; r++) order[r] = r;
    Mix.shuffle(order, new SplittableRandom(Mix.mix(seed, s)));
    int[] out = new int[m];
    long off = Math.floorMod(offset, (long) k);
    for (int r = 0; r < m; r++) {
      out[byId[order[r]]] = label[(int) ((off + r) % k)];
    }
    return out;
  }

  private static int[] labels(int k, long seed) {
    int[] label = new int[k];
    for (int p = 0; p < k; p++) label[p] = p;
    Mix.shuffle(label, new SplittableRandom(Mix.mix(seed, 0x5354524154L)));
    return label;
  }

  private static void checkK(int k) {
    if (k < 1) throw new IllegalArgumentException("number of partitions must be >= 1, got " + k);
  }

  private static void checkUnique(long[] ids) {
    long[] c = ids.clone();
    Arrays.sort(c);
    for (int i = 1; i < c.length; i++) {
      if (c[i] == c[i - 1]) throw new IllegalArgumentException("duplicate id " + c[i]);
    }
  }
}
