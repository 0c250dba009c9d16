package org.sodm.saddle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.SparseVector;

/**
 * Saddle-DSVC over an AllReduce ({@link SaddleRank}, k ranks as threads) against single-node
 * Saddle-SVC ({@link SaddleSvc#train}, one client) with the same seed, and its checkpoints.
 */
class SaddleRankTest {
  /** Rank r's rows: every k-th row from r (an interleaving unlike SaddleSvc's contiguous ranges). */
  private static SaddleTestData.Set part(SaddleTestData.Set s, int k, int r) {
    int n = (s.x().length - r + k - 1) / k;
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = s.x()[r + i * k];
      y[i] = s.y()[r + i * k];
    }
    return new SaddleTestData.Set(x, y);
  }

  private static SaddleRank.State run(SaddleTestData.Set s, int k, SaddleOptions o, MemoryCheckpoints ckpt, ResidentLoop.Policy policy,
      int start) throws Exception {
    InProcessAllReduce.run(k, ar -> {
      SaddleTestData.Set p = part(s, k, ar.rank());
      byte[] rs = start > 0 ? ckpt.rankState(ar.rank()) : null;
      byte[] gs = start > 0 ? ckpt.globalState() : null;
      SaddleRank rank = new SaddleRank(p.x(), p.y(), o, rs, gs);
      return ResidentLoop.run(rank, start, ar, policy, ckpt, null);
    });
    assertTrue(ckpt.done());
    return SaddleRank.decode(ckpt.globalState(), o);
  }

  private static double maxAbs(double[] v) {
    return Arrays.stream(v).map(Math::abs).max().orElse(0);
  }

  private static void assertModel(SaddleResult ref, SaddleResult got, double rel, String what) {
    double scale = maxAbs(ref.weights());
    for (int j = 0; j < ref.weights().length; j++) assertEquals(ref.weights()[j], got.weights()[j], rel * scale, what + ": w" + j);
    assertEquals(ref.bias(), got.bias(), rel * scale, what + ": bias");
  }

  @Test
  void hardMarginRanksGiveSaddleSvcsIterates() throws Exception {
    SaddleTestData.Set s = SaddleTestData.separable(new Random(3), 400, 6, 0.1);
    SaddleOptions o = SaddleOptions.hardMargin().withEps(1e-4).withSeed(5);
    SaddleResult ref = SaddleSvc.train(s.x(), s.y(), o);
    assertTrue(ref.best().converged());
    for (int k : new int[] {1, 2, 4}) {
      SaddleResult got = run(s, k, o, new MemoryCheckpoints(), ResidentLoop.Policy.none(), 0).result(5);
      String what = k + " ranks";
      assertEquals(ref.trials().size(), got.trials().size(), what);
      for (int t = 0; t < ref.trials().size(); t++) {
        assertEquals(ref.trials().get(t).beta(), got.trials().get(t).beta(), what);
        assertEquals(ref.trials().get(t).iterations(), got.trials().get(t).iterations(), what + ": the same check stops");
      }
      assertModel(ref, got, 1e-12, what);
      // Theorem 13: 3 rounds of 2 scalars per rank per iteration, k O(1) scalars in all
      SaddleResult.Communication c = got.best().communication();
      assertEquals(k, c.clients());
      assertEquals(3 * got.best().iterations(), c.iterationRounds(), what);
      assertEquals(6L * k * got.best().iterations(), c.iterationScalars(), what);
      assertTrue(c.checkRounds() > 0, what);
    }
  }

  @Test
  void nuSvmRanksGiveSaddleSvcsModel() throws Exception {
    SaddleTestData.Set s = SaddleTestData.overlapping(new Random(3), 400, 6, 1);
    SaddleOptions o = SaddleOptions.nuSvm().withEps(1e-4);
    SaddleResult ref = SaddleSvc.train(s.x(), s.y(), o);
    assertTrue(ref.best().converged());
    for (int k : new int[] {1, 2, 4}) {
      SaddleResult got = run(s, k, o, new MemoryCheckpoints(), ResidentLoop.Policy.none(), 0).result(1);
      String what = k + " ranks";
      assertTrue(got.best().converged(), what);
      assertEquals(ref.nu(), got.nu(), 0, what);
      // as SaddleDistributedTest: nu-SVM's iterates agree to rounding for thousands of iterations, then to the run's accuracy
      assertTrue(ref.best().hullDistanceLower() <= got.best().hullDistanceUpper()
          && got.best().hullDistanceLower() <= ref.best().hullDistanceUpper(), ref.best() + " vs " + got.best());
      assertModel(ref, got, 1e-3, what);
      SaddleResult.Communication c = got.best().communication();
      assertTrue(c.iterationRounds() > 3 * got.best().iterations(), "the projection takes rounds: " + c);
      assertEquals(0, (c.iterationRounds() - 3 * got.best().iterations()) % 2, "2 rounds per projection pass");
    }
    // the first 2000 iterations agree to rounding whatever k
    SaddleOptions shortRun = o.withMaxIterations(2000).withCheckInterval(2000).withBetas(0.1);
    SaddleResult one = SaddleSvc.train(s.x(), s.y(), shortRun);
    SaddleResult four = run(s, 4, shortRun, new MemoryCheckpoints(), ResidentLoop.Policy.none(), 0).result(1);
    assertModel(one, four, 1e-10, "2000 iterations, 4 ranks");
  }

  @Test
  void resumesFromACheckpointIdentically() throws Exception {
    SaddleTestData.Set s = SaddleTestData.overlapping(new Random(4), 300, 5, 1);
    SaddleOptions o = SaddleOptions.nuSvm().withEps(1e-4).withCheckInterval(200);
    SaddleResult full = run(s, 3, o, new MemoryCheckpoints(), ResidentLoop.Policy.none(), 0).result(1);
    assertTrue(full.best().iterations() > 1200, "enough checks to fail in the middle: " + full.best());
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    assertThrows(ResidentLoop.PlantedFault.class, () -> run(s, 3, o, ckpt, new ResidentLoop.Policy(2, 0, 1, 5), 0));
    assertEquals(4, ckpt.committed());
    SaddleResult resumed = run(s, 3, o, ckpt, ResidentLoop.Policy.none(), ckpt.committed()).result(1);
    assertArrayEquals(full.weights(), resumed.weights());
    assertEquals(full.bias(), resumed.bias());
    assertEquals(full.best().iterations(), resumed.best().iterations());
    assertEquals(full.best().communication(), resumed.best().communication());
  }

  @Test
  void notSeparableEndsTheLoopWithTheHullDistance() throws Exception {
    SaddleTestData.Set s = SaddleTestData.overlapping(new Random(5), 200, 3, 0.2);
    SaddleOptions o = SaddleOptions.hardMargin();
    NotSeparableException ref = assertThrows(NotSeparableException.class, () -> SaddleSvc.train(s.x(), s.y(), o));
    SaddleRank.State st = run(s, 2, o, new MemoryCheckpoints(), ResidentLoop.Policy.none(), 0);
    NotSeparableException e = assertThrows(NotSeparableException.class, () -> st.result(1));
    assertTrue(e.getMessage().contains("not linearly separable"), e.getMessage());
    assertTrue(e.certain());
    assertEquals(ref.hullDistance(), e.hullDistance(), 1e-9);
  }

  @Test
  void theSortingRuleNeedsOneRank() {
    SaddleTestData.Set s = SaddleTestData.overlapping(new Random(6), 50, 3, 1);
    SaddleOptions o = SaddleOptions.nuSvm().withProjection(SaddleOptions.ProjectionRule.SORTING);
    Exception e = assertThrows(Exception.class, () -> run(s, 2, o, new MemoryCheckpoints(), ResidentLoop.Policy.none(), 0));
    assertTrue(e.getMessage().contains("sorting projection rule needs every point on one client"), e.getMessage());
  }
}
