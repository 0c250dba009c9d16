package org.sodm.data;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ReservoirTest {
  private static List<Integer> sample(int capacity, int n, long seed) {
    Reservoir<Integer> r = new Reservoir<>(capacity, seed, UnaryOperator.identity());
    for (int i = 0; i < n; i++) r.offer(i);
    assertEquals(n, r.seen());
    return new ArrayList<>(r.items());
  }

  @Test
  void keepsEverythingUpToCapacityAndNothingAtZero() {
    assertEquals(List.of(0, 1, 2, 3), sample(10, 4, 1));
    assertEquals(List.of(), sample(0, 4, 1));
    assertThrows(IllegalArgumentException.class, () -> new Reservoir<Integer>(-1, 1, UnaryOperator.identity()));
  }

  @Test
  void sameSeedSameSampleAndDistinctItems() {
    assertEquals(sample(5, 100, 7), sample(5, 100, 7));
    assertNotEquals(sample(5, 100, 7), sample(5, 100, 8));
    List<Integer> s = sample(5, 100, 7);
    assertEquals(5, s.stream().distinct().count());
  }

  /** Each of n items is kept with probability k/n: counts over many seeds within 5 standard deviations. */
  @Test
  void everyItemEquallyLikely() {
    int n = 10;
    int k = 3;
    int trials = 20000;
    int[] count = new int[n];
    for (long seed = 0; seed < trials; seed++) {
      for (int i : sample(k, n, seed)) count[i]++;
    }
    double p = (double) k / n;
    double mean = trials * p;
    double sd = Math.sqrt(trials * p * (1 - p));
    for (int i = 0; i < n; i++) assertEquals(mean, count[i], 5 * sd, "item " + i);
  }

  @Test
  void copiesOnlyTheItemsItKeeps() {
    int[] copies = new int[1];
    Reservoir<int[]> r = new Reservoir<>(2, 3, a -> {
      copies[0]++;
      return a.clone();
    });
    int[] reused = new int[1];
    for (int i = 0; i < 1000; i++) {
      reused[0] = i;
      r.offer(reused);
    }
    assertTrue(copies[0] < 40, "copies " + copies[0]); // about k (1 + ln(n/k)) = 2 (1 + 6.2)
    assertEquals(2, r.items().stream().mapToInt(a -> a[0]).distinct().count(), "kept items are copies, not the reused object");
  }
}
