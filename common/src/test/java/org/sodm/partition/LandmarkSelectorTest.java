package org.sodm.partition;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

class LandmarkSelectorTest {

  /** Greedy choice by direct Gram-determinant maximisation, from the same first landmark. */
  private static int[] bruteForceGreedy(SparseVector[] x, KernelSpec spec, int first, int s) {
    int n = x.length;
    List<Integer> chosen = new ArrayList<>();
    chosen.add(first);
    while (chosen.size() < s) {
      int best = -1;
      double bd = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < n; j++) {
        if (chosen.contains(j)) continue;
        List<Integer> set = new ArrayList<>(chosen);
        set.add(j);
        double[][] g = new double[set.size()][set.size()];
        for (int a = 0; a < set.size(); a++) {
          for (int b = 0; b < set.size(); b++) g[a][b] = spec.evalReference(x[set.get(a)], x[set.get(b)]);
        }
        double d = TestData.det(g);
        if (d > bd) {
          bd = d;
          best = j;
        }
      }
      chosen.add(best);
    }
    return chosen.stream().mapToInt(Integer::intValue).toArray();
  }

  private static double gramDet(SparseVector[] x, KernelSpec spec, int[] idx, int upTo) {
    double[][] g = new double[upTo][upTo];
    for (int a = 0; a < upTo; a++) for (int b = 0; b < upTo; b++) g[a][b] = spec.evalReference(x[idx[a]], x[idx[b]]);
    return TestData.det(g);
  }

  @Test
  void matchesBruteForceDeterminantMaximisation() {
    KernelSpec[] specs = {KernelSpec.rbf(0.3), KernelSpec.poly(0.5, 1, 2), KernelSpec.rbf(2.0)};
    for (KernelSpec spec : specs) {
      for (long seed = 0; seed < 4; seed++) {
        SparseVector[] x = TestData.random(14, 4, 100 + seed);
        int s = 7;
        Landmarks lm = LandmarkSelector.select(x, spec.create(), s, seed);
        assertEquals(s, lm.size());
        // first pick: a maximiser of k(z,z) (the 1x1 determinant); any one for RBF
        double maxSelf = Arrays.stream(x).mapToDouble(v -> spec.evalReference(v, v)).max().getAsDouble();
        assertEquals(maxSelf, spec.evalReference(lm.points()[0], lm.points()[0]), 1e-12 * maxSelf);
        int[] expect = bruteForceGreedy(x, spec, lm.sourceIndex()[0], s);
        assertArrayEquals(expect, lm.sourceIndex(), "kernel " + spec + " seed " + seed);
        // residual t = det(G_{t+1}) / det(G_t) (Schur complement)
        double prev = 1;
        for (int t = 0; t < s; t++) {
          double d = gramDet(x, spec, lm.sourceIndex(), t + 1);
          assertEquals(d / prev, lm.residuals()[t], 1e-7 * Math.max(1, d / prev));
          prev = d;
          assertSame(x[lm.sourceIndex()[t]], lm.points()[t]);
        }
        assertEquals(Math.log(prev), lm.logDet(), 1e-6);
      }
    }
  }

  @Test
  void residualsNeverIncrease() {
    SparseVector[] x = TestData.random(400, 6, 7);
    for (Kernel k : new Kernel[] {KernelSpec.rbf(0.5).create(), KernelSpec.poly(0.2, 1, 3).create()}) {
      Landmarks lm = LandmarkSelector.select(x, k, 60, 3);
      double[] r = lm.residuals();
      for (int t = 1; t < r.length; t++) assertTrue(r[t] <= r[t - 1], "t=" + t + " " + r[t] + " > " + r[t - 1]);
      assertTrue(r[r.length - 1] > 0);
      assertEquals(lm.size(), Arrays.stream(lm.sourceIndex()).distinct().count());
    }
  }

  @Test
  void deterministicForSeedAndFirstPickFromSeed() {
    SparseVector[] x = TestData.random(200, 5, 11);
    Kernel k = KernelSpec.rbf(0.5).create();
    Landmarks a = LandmarkSelector.select(x, k, 20, 42);
    Landmarks b = LandmarkSelector.select(x, k, 20, 42);
    assertArrayEquals(a.sourceIndex(), b.sourceIndex());
    assertArrayEquals(a.residuals(), b.residuals());
    boolean differs = false;
    for (long seed = 43; seed < 48 && !differs; seed++) {
      differs = !Arrays.equals(a.sourceIndex(), LandmarkSelector.select(x, k, 20, seed).sourceIndex());
    }
    assertTrue(differs);
  }

  @Test
  void stopsWhenCandidatesAreSpanned() {
    // 5 distinct points, each three times: at most 5 landmarks, all distinct points
    SparseVector[] base = TestData.random(5, 3, 5);
    SparseVector[] x = new SparseVector[15];
    for (int i = 0; i < 15; i++) x[i] = base[i % 5];
    Landmarks lm = LandmarkSelector.select(x, KernelSpec.rbf(1).create(), 10, 1);
    assertEquals(5, lm.size());
    assertEquals(5, Arrays.stream(lm.points()).distinct().count());
    // linear kernel in 3 dimensions: rank 3
    Landmarks lin = LandmarkSelector.select(TestData.random(30, 3, 9), KernelSpec.linear().create(), 10, 1);
    assertEquals(3, lin.size());
    // more landmarks asked than candidates
    assertEquals(4, LandmarkSelector.select(TestData.random(4, 3, 2), KernelSpec.rbf(1).create(), 10, 0).size());
  }

  @Test
  void unionEqualsSelectionOnConcatenation() {
    SparseVector[] a = TestData.random(50, 4, 1);
    SparseVector[] b = TestData.random(30, 4, 2);
    SparseVector[] c = TestData.random(40, 4, 3);
    Kernel k = KernelSpec.rbf(0.4).create();
    // two-stage: per-split candidates, then the union
    List<SparseVector[]> stage1 = new ArrayList<>();
    for (SparseVector[] split : List.of(a, b, c)) stage1.add(LandmarkSelector.select(split, k, 10, 7).points());
    Landmarks u = LandmarkSelector.selectFromUnion(stage1, k, 12, 7);
    SparseVector[] all = new SparseVector[30];
    for (int i = 0; i < 3; i++) System.arraycopy(stage1.get(i), 0, all, 10 * i, 10);
    Landmarks direct = LandmarkSelector.select(all, k, 12, 7);
    assertArrayEquals(direct.sourceIndex(), u.sourceIndex());
    for (int t = 0; t < u.size(); t++) assertSame(all[u.sourceIndex()[t]], u.points()[t]);
  }
}
