package org.sodm.partition;

/**
 * Random partitioning: a stateless hash of (id, seed), so a re-executed task reproduces it and
 * no coordination between mappers is needed. Partition sizes are multinomial (spread
 * O(sqrt(n/K))), unlike the stratified partitioners.
 */
public final class RandomPartitioner {
  private RandomPartitioner() {}

  public static int partitionOf(long id, int k, long seed) {
    if (k < 1) throw new IllegalArgumentException("number of partitions must be >= 1, got " + k);
    long h = Mix.mix(seed ^ 0x52414e44L, id);
    return (int) Long.remainderUnsigned(h, k);
  }

  public static int[] assign(long[] ids, int k, long seed) {
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) out[i] = partitionOf(ids[i], k, seed);
    return out;
  }
}
