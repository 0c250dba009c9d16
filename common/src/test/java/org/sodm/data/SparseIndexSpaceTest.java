package org.sodm.data;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.FeatureStats;

/**
 * Statistics and scalers over a sparse index space (indices up to 2^31 - 1): equal to a brute-force
 * computation with a sorted map, through merges and the Avro round trip, in both table modes of
 * {@link FeatureSlots}.
 */
class SparseIndexSpaceTest {
  /** Indices drawn from a small pool spread over [1, 2^31 - 1] (hash mode), or over [1, 300] (direct mode). */
  private static SparseVector row(Random r, int[] pool) {
    TreeMap<Integer, Double> m = new TreeMap<>();
    int n = r.nextInt(6);
    for (int k = 0; k < n; k++) m.put(pool[r.nextInt(pool.length)], r.nextInt(5) == 0 ? 0.0 : r.nextGaussian() * 3);
    int[] i = m.keySet().stream().mapToInt(Integer::intValue).toArray();
    double[] v = m.values().stream().mapToDouble(Double::doubleValue).toArray();
    return new SparseVector(i, v);
  }

  private static int[] pool(Random r, boolean huge) {
    int[] p = new int[40];
    for (int k = 0; k < p.length; k++) p[k] = huge ? 1 + r.nextInt(Integer.MAX_VALUE) : 1 + r.nextInt(300);
    if (huge) p[0] = Integer.MAX_VALUE;
    return p;
  }

  @Test
  void statsEqualABruteForceComputationWithHugeOrSmallIndices() throws java.io.IOException {
    for (boolean huge : new boolean[] {true, false}) {
      Random r = new Random(huge ? 11 : 12);
      int[] pool = pool(r, huge);
      List<SparseVector> rows = new ArrayList<>();
      for (int t = 0; t < 400; t++) rows.add(row(r, pool));
      // three accumulators merged (as ingest tasks), one through the tasks' encoding
      StatsAccumulator a = new StatsAccumulator();
      StatsAccumulator b = new StatsAccumulator();
      StatsAccumulator c = new StatsAccumulator();
      for (int t = 0; t < rows.size(); t++) (t % 3 == 0 ? a : t % 3 == 1 ? b : c).add(t % 2 == 0 ? "1" : "-1", rows.get(t), t, "f:" + t);
      a.merge(StatsAccumulator.fromBytes(b.toBytes()));
      a.merge(c);
      FeatureStats got = a.toAvro();

      TreeMap<Integer, double[]> want = new TreeMap<>(); // min, max, sum, nnz
      for (SparseVector x : rows) {
        for (int k = 0; k < x.nnz(); k++) {
          double v = x.value(k);
          double[] s = want.computeIfAbsent(x.index(k), i -> new double[] {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0, 0});
          s[0] = Math.min(s[0], v);
          s[1] = Math.max(s[1], v);
          s[2] += v;
          s[3]++;
        }
      }
      assertEquals(want.lastKey(), got.getDimension());
      assertEquals(want.size(), got.getFeatures().size());
      int k = 0;
      for (Map.Entry<Integer, double[]> e : want.entrySet()) {
        FeatureStat f = got.getFeatures().get(k++);
        double[] s = e.getValue();
        boolean implicitZero = s[3] < rows.size();
        assertEquals(e.getKey(), f.getIndex());
        assertEquals(implicitZero ? Math.min(s[0], 0) : s[0], f.getMin(), 0.0);
        assertEquals(implicitZero ? Math.max(s[1], 0) : s[1], f.getMax(), 0.0);
        assertEquals(s[2], f.getSum(), 1e-9);
        assertEquals((long) s[3], f.getNonZeros());
      }

      // the scaler: svm-scale's rule per kept feature, computed here by hand
      for (double[] range : new double[][] {{0, 1}, {-1, 1}}) {
        Scaler sc = Scaler.fromStats(got, range[0], range[1]);
        for (SparseVector x : rows.subList(0, 60)) {
          TreeMap<Integer, Double> expect = new TreeMap<>();
          for (FeatureStat f : got.getFeatures()) {
            if (!(f.getMax() > f.getMin())) continue;
            double raw = x.get(f.getIndex());
            double s = (range[1] - range[0]) / (f.getMax() - f.getMin());
            double v = (range[0] - s * f.getMin()) + s * raw;
            if (v != 0) expect.put(f.getIndex(), v);
          }
          SparseVector y = sc.apply(x);
          assertEquals(expect.size(), y.nnz(), "range " + range[0]);
          int q = 0;
          for (Map.Entry<Integer, Double> e : expect.entrySet()) {
            assertEquals(e.getKey(), y.index(q));
            assertEquals(e.getValue(), y.value(q++), 1e-12);
          }
        }
      }
    }
  }

  @Test
  void slotsKeepTheirNumbersWhenTheTableSwitchesToHashing() {
    FeatureSlots s = new FeatureSlots();
    assertEquals(0, s.slot(5));
    assertEquals(1, s.slot(3));
    assertEquals(2, s.slot(Integer.MAX_VALUE)); // beyond the direct table: hashed from here
    assertEquals(0, s.slot(5));
    assertEquals(1, s.get(3));
    assertEquals(-1, s.get(4));
    for (int i = 0; i < 1000; i++) assertEquals(3 + i, s.slot(2_000_000 + 7919 * i));
    assertEquals(2, s.get(Integer.MAX_VALUE));
    assertEquals(Integer.MAX_VALUE, s.maxIndex());
    int[][] sorted = s.sorted();
    assertEquals(1003, sorted[0].length);
    assertEquals(3, sorted[0][0]);
    assertEquals(1, sorted[1][0]);
    assertEquals(Integer.MAX_VALUE, sorted[0][1002]);
    assertThrows(IllegalArgumentException.class, () -> s.slot(0));
  }
}
