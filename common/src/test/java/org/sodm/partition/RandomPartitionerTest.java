package org.sodm.partition;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RandomPartitionerTest {

  @Test
  void statelessDeterministicAndRoughlyUniform() {
    int k = 10;
    int n = 20000;
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) ids[i] = i * 1000L; // structured ids
    int[] a = RandomPartitioner.assign(ids, k, 17);
    int[] cnt = new int[k];
    for (int i = 0; i < n; i++) {
      assertTrue(a[i] >= 0 && a[i] < k);
      assertEquals(a[i], RandomPartitioner.partitionOf(ids[i], k, 17));
      cnt[a[i]]++;
    }
    double chi2 = 0;
    for (int c : cnt) chi2 += (c - n / (double) k) * (c - n / (double) k) / (n / (double) k);
    assertTrue(chi2 < 40, "chi2 " + chi2 + " " + Arrays.toString(cnt)); // df 9: p ~ 5e-6
    assertArrayEquals(a, RandomPartitioner.assign(ids, k, 17));
    assertFalse(Arrays.equals(a, RandomPartitioner.assign(ids, k, 18)));
    assertEquals(0, RandomPartitioner.partitionOf(-5, 1, 3));
  }
}
