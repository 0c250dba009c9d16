package org.sodm.data;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.FeatureStats;

class ScalerAndStatsTest {

  /** Random sparse rows over {@code dim} features; also returns them dense. */
  private static double[][] randomDense(int n, int dim, long seed) {
    Random r = new Random(seed);
    double[][] d = new double[n][dim];
    for (double[] row : d) {
      for (int j = 0; j < dim; j++) {
        if (r.nextDouble() < 0.6) row[j] = Math.round((r.nextDouble() * 20 - 5) * 100) / 100.0;
      }
    }
    return d;
  }

  @Test
  void statsMatchDirectComputationAndMergeEqualsSinglePass() {
    double[][] d = randomDense(200, 7, 1);
    StatsAccumulator all = new StatsAccumulator();
    StatsAccumulator a = new StatsAccumulator();
    StatsAccumulator b = new StatsAccumulator();
    for (int i = 0; i < d.length; i++) {
      SparseVector x = SparseVector.ofDense(d[i]);
      String label = i % 3 == 0 ? "1" : "0";
      all.add(label, x, i + 1, "f:" + (i + 1));
      (i < 80 ? b : a).add(label, x, i + 1, "f:" + (i + 1));
    }
    a.merge(b);
    FeatureStats s = all.toAvro();
    FeatureStats merged = a.toAvro();
    assertEquals(s.getLabels(), merged.getLabels());
    assertSameFeatures(s, merged);
    assertEquals(200, s.getRows());
    for (FeatureStat f : s.getFeatures()) {
      int j = f.getIndex() - 1;
      double lo = Double.MAX_VALUE, hi = -Double.MAX_VALUE, sum = 0;
      long nz = 0;
      for (double[] row : d) {
        lo = Math.min(lo, row[j]);
        hi = Math.max(hi, row[j]);
        sum += row[j];
        if (row[j] != 0) nz++;
      }
      assertEquals(lo, f.getMin(), 0.0, "min includes implicit zeros");
      assertEquals(hi, f.getMax(), 0.0);
      assertEquals(sum, f.getSum(), 1e-9);
      assertEquals(nz, f.getNonZeros());
    }
    assertEquals("0", s.getLabels().get(0).getLabel());
    assertEquals(133, s.getLabels().get(0).getCount());
    assertEquals("f:2", s.getLabels().get(0).getFirstSeen());
    assertEquals("f:1", s.getLabels().get(1).getFirstSeen());
  }

  /** Merged statistics against a single pass's: the totals, and every feature's min and max exactly, its sum to rounding. */
  private static void assertSameFeatures(FeatureStats want, FeatureStats got) {
    assertEquals(want.getRows(), got.getRows());
    assertEquals(want.getNonZeros(), got.getNonZeros());
    assertEquals(want.getDimension(), got.getDimension());
    assertEquals(want.getFeatures().size(), got.getFeatures().size());
    for (int k = 0; k < want.getFeatures().size(); k++) {
      FeatureStat x = want.getFeatures().get(k);
      FeatureStat y = got.getFeatures().get(k);
      assertEquals(x.getIndex(), y.getIndex());
      assertEquals(x.getMin(), y.getMin(), 0.0, "min of feature " + x.getIndex());
      assertEquals(x.getMax(), y.getMax(), 0.0, "max of feature " + x.getIndex());
      assertEquals(x.getSum(), y.getSum(), 1e-9);
      assertEquals(x.getNonZeros(), y.getNonZeros());
    }
  }

  /**
   * A task's statistics written raw ({@code toBytes}) and read back by the driver merge to the single pass's: a feature
   * in every row of one part and none of the other (its implicit zeros come from the other part), one in every row
   * (no implicit zero), labels whose first occurrence is in the later part, rows without a label.
   */
  @Test
  void rawEncodedPartsMergeToTheSinglePass() throws java.io.IOException {
    double[][] d = randomDense(300, 9, 5);
    for (int i = 0; i < d.length; i++) {
      d[i][7] = i < 120 ? 0 : -1 - i; // feature 8: every row of the second part, negative
      d[i][8] = 2 + i; // feature 9: every row, positive
    }
    StatsAccumulator all = new StatsAccumulator();
    StatsAccumulator[] parts = {new StatsAccumulator(), new StatsAccumulator(), new StatsAccumulator()};
    for (int i = 0; i < d.length; i++) {
      SparseVector x = SparseVector.ofDense(d[i]);
      String label = i % 10 == 9 ? null : i < 200 ? (i % 3 == 0 ? "1" : "0") : "\u00e9t\u00e9 " + (i % 2);
      all.add(label, x, i + 1, "f:" + (i + 1));
      parts[i < 120 ? 0 : i < 200 ? 1 : 2].add(label, x, i + 1, "f:" + (i + 1));
    }
    StatsAccumulator merged = new StatsAccumulator();
    for (StatsAccumulator p : parts) {
      assertEquals(p.toAvro(), StatsAccumulator.fromBytes(p.toBytes()).toAvro(), "one part round trip");
      merged.mergeBytes(p.toBytes(), w -> w == null ? null : "file " + w); // as the driver: locations made absolute
    }
    FeatureStats want = all.toAvro();
    FeatureStats got = merged.toAvro();
    assertSameFeatures(want, got);
    assertEquals(-300, got.getFeatures().get(7).getMin(), 0.0);
    assertEquals(0, got.getFeatures().get(7).getMax(), 0.0, "the first part's implicit zeros");
    assertEquals(2, got.getFeatures().get(8).getMin(), 0.0, "no implicit zero: in every row");
    assertEquals(4, got.getLabels().size());
    for (int l = 0; l < 4; l++) {
      assertEquals(want.getLabels().get(l).getLabel(), got.getLabels().get(l).getLabel());
      assertEquals(want.getLabels().get(l).getCount(), got.getLabels().get(l).getCount());
      assertEquals("file " + want.getLabels().get(l).getFirstSeen(), got.getLabels().get(l).getFirstSeen());
    }
    java.io.IOException e = assertThrows(java.io.IOException.class, () -> StatsAccumulator.fromBytes(new byte[] {7}));
    assertTrue(e.getMessage().contains("encoding 7"), e.getMessage());
    byte[] whole = parts[2].toBytes();
    e = assertThrows(java.io.IOException.class, () -> StatsAccumulator.fromBytes(java.util.Arrays.copyOf(whole, whole.length - 3)));
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    e = assertThrows(java.io.IOException.class, () -> StatsAccumulator.fromBytes(java.util.Arrays.copyOf(whole, whole.length + 1)));
    assertTrue(e.getMessage().contains("1 bytes after the last feature"), e.getMessage());

    // merging straight from the bytes: the same accumulator, byte for byte, as decoding each part and merging it
    StatsAccumulator decoded = new StatsAccumulator();
    StatsAccumulator direct = new StatsAccumulator();
    for (StatsAccumulator p : parts) {
      decoded.merge(StatsAccumulator.fromBytes(p.toBytes()));
      direct.mergeBytes(p.toBytes(), w -> w);
    }
    assertArrayEquals(decoded.toBytes(), direct.toBytes());
    assertEquals(decoded.toAvro(), direct.toAvro());
    e = assertThrows(java.io.IOException.class, () -> new StatsAccumulator().mergeBytes(java.util.Arrays.copyOf(whole, whole.length - 3), w -> w));
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    e = assertThrows(java.io.IOException.class, () -> new StatsAccumulator().mergeBytes(new byte[] {7}, w -> w));
    assertTrue(e.getMessage().contains("encoding 7"), e.getMessage());
  }

  @Test
  void scalerMatchesSvmScaleFormula() {
    double[][] d = randomDense(50, 5, 2);
    d[0][4] = 3; // make feature 5 constant 3 in every row
    for (double[] row : d) row[4] = 3;
    StatsAccumulator acc = new StatsAccumulator();
    for (double[] row : d) acc.add("1", SparseVector.ofDense(row), 1, "x");
    for (double[] range : new double[][] {{0, 1}, {-1, 1}}) {
      Scaler s = Scaler.fromStats(acc.toAvro(), range[0], range[1]);
      Scaler back = Scaler.fromAvro(s.toAvro());
      for (double[] row : d) {
        double[] got = s.apply(SparseVector.ofDense(row)).toDense(5);
        double[] got2 = back.apply(SparseVector.ofDense(row)).toDense(5);
        for (int j = 0; j < 4; j++) {
          double lo = Double.MAX_VALUE, hi = -Double.MAX_VALUE;
          for (double[] r : d) {
            lo = Math.min(lo, r[j]);
            hi = Math.max(hi, r[j]);
          }
          double want = range[0] + (range[1] - range[0]) * (row[j] - lo) / (hi - lo);
          assertEquals(want, got[j], 1e-12);
          assertEquals(got[j], got2[j], 0.0);
          assertTrue(got[j] >= range[0] - 1e-12 && got[j] <= range[1] + 1e-12);
        }
        assertEquals(0.0, got[4], "constant feature dropped, as svm-scale does");
      }
    }
  }

  @Test
  void parseRange() {
    assertArrayEquals(new double[] {0, 1}, Scaler.parseRange("0,1"));
    assertArrayEquals(new double[] {-1, 1}, Scaler.parseRange("[-1, 1]"));
    assertNull(Scaler.parseRange("none"));
    assertThrows(IllegalArgumentException.class, () -> Scaler.parseRange("0,2"));
  }

  @Test
  void idsAreUniqueAcrossFiles() {
    assertNotEquals(Instances.id(0, 5), Instances.id(1, 5));
    assertEquals(5, Instances.id(0, 5));
    assertThrows(IllegalArgumentException.class, () -> Instances.id(0, 0));
  }
}
