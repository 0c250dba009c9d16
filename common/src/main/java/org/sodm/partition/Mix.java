package org.sodm.partition;

/** Seed mixing shared by the partitioners: {@link org.sodm.data.Seeds}' rules, and a seeded shuffle. */
final class Mix {
  private Mix() {}

  static long mix64(long z) {
    return org.sodm.data.Seeds.mix64(z);
  }

  /** A well-mixed combination of two longs (order matters). */
  static long mix(long a, long b) {
    return org.sodm.data.Seeds.mix(a, b);
  }

  /** Fisher-Yates shuffle of a in place. */
  static void shuffle(int[] a, java.util.SplittableRandom rnd) {
    org.sodm.data.Seeds.shuffle(a, a.length, rnd);
  }
}
