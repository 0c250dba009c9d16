package org.sodm.partition;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

class PartitionQualityTest {

  @Test
  void offBlockMassEstimateMatchesExactSum() {
    SparseVector[] x = TestData.random(80, 3, 1);
    KernelSpec spec = KernelSpec.poly(0.5, -0.5, 3); // has negative values: |K| matters
    Kernel k = spec.create();
    Random r = new Random(2);
    int[] part = new int[x.length];
    for (int i = 0; i < x.length; i++) part[i] = r.nextInt(4);
    double exact = 0;
    double all = 0;
    for (int i = 0; i < x.length; i++) {
      for (int j = 0; j < x.length; j++) {
        if (i == j) continue;
        double v = Math.abs(spec.evalReference(x[i], x[j]));
        all += v;
        if (part[i] != part[j]) exact += v;
      }
    }
    PartitionQuality q = PartitionQuality.measure(x, null, part, 4, null, k, 200_000, 3);
    assertEquals(exact, q.offBlockMass(), 5 * q.offBlockMassStdErr());
    assertTrue(q.offBlockMassStdErr() < 0.02 * exact);
    assertEquals(exact / all, q.offBlockFraction(), 0.01);
    // one partition: no off-block mass
    PartitionQuality one = PartitionQuality.measure(x, null, new int[x.length], 1, null, k, 1000, 3);
    assertEquals(0, one.offBlockMass());
    assertEquals(0, one.offBlockFraction());
  }

  @Test
  void classStratumAndFeatureBalance() {
    // 8 rows, 2 partitions; partition 0 = rows 0..3
    SparseVector[] x = new SparseVector[8];
    double[] y = {1, 1, -1, -1, 1, -1, -1, -1};
    int[] part = {0, 0, 0, 0, 1, 1, 1, 1};
    int[] strata = {0, 1, 0, 1, 0, 1, 0, 1};
    for (int i = 0; i < 8; i++) x[i] = SparseVector.ofDense(i < 4 ? 1 : 3, 5);
    PartitionQuality q = PartitionQuality.measure(x, y, part, 2, strata, KernelSpec.rbf(1).create(), 100, 1);
    assertArrayEquals(new double[] {0.5, 0.25}, q.positiveFraction(), 1e-15);
    assertEquals(3.0 / 8, q.globalPositiveFraction(), 1e-15);
    assertEquals(0.25, q.classBalanceSpread(), 1e-15);
    assertArrayEquals(new double[] {0, 0}, q.stratumDeviation(), 1e-15); // proportions preserved
    // feature 1: global mean 2, sd 1; partitions at 1 and 3 -> SMD 1; feature 2 constant: skipped
    assertArrayEquals(new double[] {1, 1}, q.featureMeanDeviation(), 1e-12);
    assertArrayEquals(new long[] {4, 4}, q.sizes());
    // stratum skew: partition 0 only stratum 0
    int[] skew = {0, 0, 0, 0, 1, 1, 1, 1};
    PartitionQuality s = PartitionQuality.measure(x, y, part, 2, skew, KernelSpec.rbf(1).create(), 0, 1);
    assertEquals(0.5, s.maxStratumDeviation(), 1e-15);
    assertTrue(Double.isNaN(s.offBlockMass()));
    assertTrue(q.table().contains("classSpread=0.2500"), q.table());
  }

  @Test
  void kernelKMeansHasLessOffBlockMassThanRandomAndStratified() {
    int n = 600;
    double[] y = new double[n];
    SparseVector[] x = TestData.blobs(n, 8, 4, 1.0, 4, y, null);
    Kernel k = KernelSpec.rbf(0.05).create();
    int kParts = 4;
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) ids[i] = i;
    int[] rnd = RandomPartitioner.assign(ids, kParts, 1);
    KernelKMeans km = KernelKMeans.fit(KernelKMeans.uniformSample(x, 200, 1), k, kParts, 30, 1);
    int[] kmp = km.assignAll(x);
    Landmarks lm = LandmarkSelector.select(x, k, 16, 1);
    int[] strata = new StratumAssigner(k, lm.points()).assignAll(x);
    int[] strat = StratifiedPartitioner.assign(strata, ids, kParts, 1);
    PartitionQuality qr = PartitionQuality.measure(x, y, rnd, kParts, strata, k, 20_000, 2);
    PartitionQuality qk = PartitionQuality.measure(x, y, kmp, kParts, strata, k, 20_000, 2);
    PartitionQuality qs = PartitionQuality.measure(x, y, strat, kParts, strata, k, 20_000, 2);
    assertTrue(qk.offBlockFraction() < 0.5 * qr.offBlockFraction(), qk.table() + qr.table());
    assertEquals(1 - 1.0 / kParts, qr.offBlockFraction(), 0.1);
    // stratified preserves stratum proportions best
    assertTrue(qs.maxStratumDeviation() < qr.maxStratumDeviation());
    assertTrue(qs.maxStratumDeviation() < qk.maxStratumDeviation());
  }
}
