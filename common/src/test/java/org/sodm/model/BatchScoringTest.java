package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.kernel.RbfSums;

/**
 * Batched scoring (rows x support vectors in blocks, cached norms, the Vector API's exp) against
 * the direct sum f(x) = sum_i c_i k(s_i, x) + b computed term by term with the kernel's own
 * {@code eval} (RBF: exp(-gamma |x - s|^2) from the element-wise squared distance) and summed
 * in extended precision, so the reference shares no code and no rounding with the batched path.
 */
class BatchScoringTest {

  /** |x - s|^2 element by element (not from the norms). */
  private static double distance2(SparseVector a, SparseVector b) {
    int dim = Math.max(a.maxIndex(), b.maxIndex());
    double[] da = a.toDense(dim);
    double[] db = b.toDense(dim);
    double s = 0;
    for (int i = 0; i < dim; i++) s += (da[i] - db[i]) * (da[i] - db[i]);
    return s;
  }

  /** The reference: the direct sum, each term from the definition, summed exactly (BigDecimal). Also returns sum |terms|. */
  private static double[] direct(KernelSpec spec, SparseVector[] sv, double[] coef, double bias, SparseVector x) {
    java.math.BigDecimal s = new java.math.BigDecimal(bias);
    double abs = Math.abs(bias);
    Kernel k = spec.create();
    for (int i = 0; i < sv.length; i++) {
      double kv = spec.type() == KernelSpec.Type.RBF ? Math.exp(-spec.gamma() * distance2(sv[i], x)) : k.eval(sv[i], x);
      double t = coef[i] * kv;
      s = s.add(new java.math.BigDecimal(t));
      abs += Math.abs(t);
    }
    return new double[] {s.doubleValue(), abs};
  }

  private static SparseVector randomRow(Random r, int dim, double density) {
    double[] d = new double[dim];
    for (int i = 0; i < dim; i++) if (r.nextDouble() < density) d[i] = r.nextDouble() * 2 - 1;
    return SparseVector.ofDense(d);
  }

  private static void check(KernelSpec spec, int dim, double density, int m, int n, boolean vector, long seed) {
    Random r = new Random(seed);
    SparseVector[] sv = new SparseVector[m];
    double[] coef = new double[m];
    for (int i = 0; i < m; i++) {
      sv[i] = randomRow(r, dim, density);
      coef[i] = (r.nextDouble() * 2 - 1) * 4;
    }
    double bias = 0.3;
    KernelExpansion e = new KernelExpansion(spec.create(), sv, coef, bias);
    SparseVector[] xs = new SparseVector[n];
    for (int t = 0; t < n; t++) xs[t] = t % 17 == 3 ? SparseVector.EMPTY : randomRow(r, dim + 3, density); // features beyond the SVs' too
    double[] out = new double[n];
    e.decisions(xs, n, out, vector);
    int sameSign = 0;
    for (int t = 0; t < n; t++) {
      double[] ref = direct(spec, sv, coef, bias, xs[t]);
      // relative to the sum of |terms| (the scale of the rounding of any order of summation); and to |f| itself
      // whenever f is not the small difference of large terms
      double err = Math.abs(out[t] - ref[0]);
      assertTrue(err <= 1e-12 * ref[1], spec + " row " + t + ": " + out[t] + " vs direct " + ref[0] + " (sum |terms| " + ref[1] + ")");
      if (Math.abs(ref[0]) >= 1e-3 * ref[1]) assertTrue(err <= 1e-12 * Math.abs(ref[0]), spec + " row " + t + ": relative " + err / Math.abs(ref[0]));
      assertEquals(e.decision(xs[t]) >= 0, out[t] >= 0, "row " + t);
      if ((out[t] >= 0) == (ref[0] >= 0)) sameSign++;
    }
    assertEquals(n, sameSign);
  }

  @Test
  void rbfDenseLowDimensionBothPaths() {
    // 700 SVs: several chunks (160 per chunk at 22 features), lane tails, and row blocks (32) with a tail
    check(KernelSpec.rbf(0.7), 22, 0.6, 700, 101, false, 1);
    assertTrue(RbfSums.available(), "the common tests run with --add-modules jdk.incubator.vector (common/pom.xml)");
    check(KernelSpec.rbf(0.7), 22, 0.6, 700, 101, true, 1);
    check(KernelSpec.rbf(2), 5, 1.0, 37, 40, true, 2);
  }

  @Test
  void rbfHighDimensionSparseGatherPath() {
    // 2000 features x 600 SVs: no dense copy (d * m too large for d > 1024), the support vectors' feature index
    check(KernelSpec.rbf(0.05), 2000, 0.01, 600, 50, true, 3);
    check(KernelSpec.rbf(0.05), 2000, 0.01, 600, 50, false, 3);
  }

  @Test
  void otherKernels() {
    check(KernelSpec.linear(), 30, 0.5, 300, 45, true, 4);
    check(KernelSpec.poly(0.2, 1, 3), 30, 0.5, 300, 45, true, 5);
    check(KernelSpec.sigmoid(0.05, -0.5), 30, 0.5, 300, 45, true, 6);
    // and through the feature index (high dimension)
    check(KernelSpec.linear(), 3000, 0.005, 200, 45, true, 7);
    check(KernelSpec.poly(0.2, 1, 3), 3000, 0.005, 200, 45, true, 8);
    check(KernelSpec.sigmoid(0.05, -0.5), 3000, 0.005, 200, 45, true, 9);
  }

  /**
   * {@link KernelExpansion#ownDecisions}: at each support vector, the direct sum without the bias (each pair's kernel once,
   * tiles of 128 rows: sizes below, at and past a tile, with a tail), for every dot-based kernel; the same values on one
   * thread and on three; null without a dense copy.
   */
  @Test
  void ownDecisionsAreTheDirectSumsAtTheSupportVectors() throws Exception {
    Object[][] cases = {{KernelSpec.rbf(0.7), 1}, {KernelSpec.rbf(0.7), 100}, {KernelSpec.rbf(0.7), KernelExpansion.OWN_TILE},
        {KernelSpec.rbf(0.3), 3 * KernelExpansion.OWN_TILE + 5}, {KernelSpec.linear(), 200}, {KernelSpec.poly(0.2, 1, 3), 260},
        {KernelSpec.sigmoid(0.05, -0.5), 150}};
    for (Object[] c : cases) {
      KernelSpec spec = (KernelSpec) c[0];
      int m = (Integer) c[1];
      Random r = new Random(m);
      SparseVector[] sv = new SparseVector[m];
      double[] coef = new double[m];
      for (int i = 0; i < m; i++) {
        sv[i] = randomRow(r, 22, 0.6);
        coef[i] = (r.nextDouble() * 2 - 1) * 4;
      }
      KernelExpansion e = new KernelExpansion(spec.create(), sv, coef, 0.3);
      double[] own = e.ownDecisions();
      assertEquals(m, own.length);
      for (int u = 0; u < m; u++) {
        double[] ref = direct(spec, sv, coef, 0, sv[u]);
        assertTrue(Math.abs(own[u] - ref[0]) <= 1e-12 * ref[1], spec + " m " + m + " sv " + u + ": " + own[u] + " vs direct " + ref[0]);
      }
      java.util.concurrent.ForkJoinPool one = new java.util.concurrent.ForkJoinPool(1);
      java.util.concurrent.ForkJoinPool three = new java.util.concurrent.ForkJoinPool(3);
      try {
        assertArrayEquals(one.submit(e::ownDecisions).get(), three.submit(e::ownDecisions).get(), 0.0, spec + " m " + m);
      } finally {
        one.shutdown();
        three.shutdown();
      }
    }
    Random r = new Random(3);
    SparseVector[] wide = new SparseVector[20];
    for (int i = 0; i < wide.length; i++) wide[i] = randomRow(r, 2000, 0.01);
    assertNull(new KernelExpansion(KernelSpec.rbf(1).create(), wide, new double[20], 0).ownDecisions(), "no dense copy above 1,024 features");
  }

  @Test
  void emptyExpansionIsTheBias() {
    KernelExpansion e = new KernelExpansion(KernelSpec.rbf(1).create(), new SparseVector[0], new double[0], -0.25);
    double[] out = new double[2];
    e.decisions(new SparseVector[] {SparseVector.ofDense(1, 2), SparseVector.EMPTY}, 2, out);
    assertArrayEquals(new double[] {-0.25, -0.25}, out, 0.0);
  }

  /**
   * An averaged model's blocks share support vectors: the merged expansion has each distinct one
   * once with its coefficients summed (over B), and scores as the mean of the blocks.
   */
  @Test
  void mergedExpansionEqualsTheMeanOfTheBlocks() {
    Random r = new Random(7);
    KernelSpec spec = KernelSpec.rbf(0.5);
    Kernel k = spec.create();
    List<SparseVector> pool = new ArrayList<>();
    for (int i = 0; i < 60; i++) pool.add(randomRow(r, 8, 0.7));
    int blocks = 4;
    KernelExpansion[] ex = new KernelExpansion[blocks];
    long[][] ids = new long[blocks][];
    int total = 0;
    java.util.Set<SparseVector> distinct = new java.util.HashSet<>();
    for (int b = 0; b < blocks; b++) {
      int m = 30;
      SparseVector[] sv = new SparseVector[m];
      double[] c = new double[m];
      ids[b] = new long[m];
      for (int i = 0; i < m; i++) {
        int p = (b * 13 + i * 2) % pool.size(); // overlapping windows of the pool: many duplicates
        // a copy with equal arrays: merged by content, not by object identity
        sv[i] = new SparseVector(pool.get(p).indices().clone(), pool.get(p).values().clone());
        c[i] = r.nextGaussian();
        ids[b][i] = p;
        distinct.add(sv[i]);
      }
      total += m;
      ex[b] = new KernelExpansion(k, sv, c, 0.1 * b);
    }
    KernelModel model = new KernelModel(spec, org.sodm.solver.Loss.hinge(1), new org.sodm.data.LabelMap("-1", "1"), null, new int[] {0, 1, 2, 3},
        ids, ex, null);
    KernelExpansion merged = model.merged();
    assertEquals(distinct.size(), merged.size());
    assertTrue(merged.size() < total, merged.size() + " distinct of " + total);
    int n = 64;
    SparseVector[] xs = new SparseVector[n];
    for (int t = 0; t < n; t++) xs[t] = randomRow(r, 8, 0.8);
    double[] out = new double[n];
    model.decisionsPrepared(xs, n, out);
    for (int t = 0; t < n; t++) {
      // the unmerged reference: the mean over the blocks of each block's direct sum
      java.math.BigDecimal s = java.math.BigDecimal.ZERO;
      double abs = 0;
      for (KernelExpansion e : ex) {
        SparseVector[] sv = new SparseVector[e.size()];
        double[] c = new double[e.size()];
        for (int i = 0; i < sv.length; i++) {
          sv[i] = e.supportVector(i);
          c[i] = e.coef(i);
        }
        double[] d = direct(spec, sv, c, e.bias(), xs[t]);
        s = s.add(new java.math.BigDecimal(d[0]));
        abs += d[1];
      }
      double ref = s.doubleValue() / blocks;
      assertEquals(ref, out[t], 1e-12 * abs / blocks, "row " + t);
      assertEquals(model.decisionPrepared(xs[t]), out[t], 1e-12 * abs / blocks, "row " + t);
      assertEquals(model.decisionPrepared(xs[t]) >= 0, out[t] >= 0);
    }
    // a single block is its own merged expansion
    KernelModel one = new KernelModel(spec, org.sodm.solver.Loss.hinge(1), new org.sodm.data.LabelMap("-1", "1"), null, new int[] {0},
        new long[][] {ids[0]}, new KernelExpansion[] {ex[0]}, null);
    assertSame(ex[0], one.merged());
  }
}
