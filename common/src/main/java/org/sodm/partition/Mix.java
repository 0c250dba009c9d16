package org.sodm.partition;

/** Seed mixing shared by the partitioners (SplitMix64 finaliser). */
final class Mix {
  private Mix() {}

  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** A well-mixed combination of two longs (order matters). */
  static long mix(long a, long b) {
    return mix64(mix64(a + 0x9e3779b97f4a7c15L) ^ (b * 0xc2b2ae3d27d4eb4fL + 0x165667b19e3779f9L));
  }

  /** Fisher-Yates shuffle of a in place. */
  static void shuffle(int[] a, java.util.SplittableRandom rnd) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}
