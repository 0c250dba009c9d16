package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.SparseVector;
import org.sodm.solver.Loss;

/**
 * L1-regularised logistic regression by newGLMNET over ranks ({@link TronRank} with {@link TronRank.Solver#GLMNET}): the dense
 * Hessian's pairs against the Hessian written from the rows; w against proximal gradient descent's optimum ({@link
 * OwlqnTest#proximal}, run to 1e-12) and the optimality conditions recomputed from the rows, over 1 and 3 ranks; the stop; a
 * resumed run bit for bit.
 */
class GlmNetTest {
  /** sum_i C_i s_i (1 - s_i) x_i x_i' (x_i with its bias feature) at w, from the rows. */
  static double[] hessianFromRows(SparseVector[] x, double[] y, double[] w, LogisticPrimal loss) {
    int n = w.length;
    double[] h = new double[n * n];
    for (int i = 0; i < y.length; i++) {
      double[] xi = new double[n];
      for (int k = 0; k < x[i].indices().length; k++) if (x[i].indices()[k] < n) xi[x[i].indices()[k] - 1] = x[i].values()[k];
      xi[n - 1] = loss.biasFeature();
      double s = 1 / (1 + Math.exp(-y[i] * Vectors.dot(x[i], w, loss.biasFeature())));
      double di = (y[i] > 0 ? loss.cPos() : loss.cNeg()) * s * (1 - s);
      for (int a = 0; a < n; a++) for (int b = 0; b < n; b++) h[a * n + b] += di * xi[a] * xi[b];
    }
    return h;
  }

  /** The pairs of two blocks, summed and folded, are the Hessian from the rows (with and without the bias feature). */
  @Test
  void densePairsAreTheHessian() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(9), 300, 12, 0.4);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    for (boolean bias : new boolean[] {true, false}) {
      LogisticPrimal loss = Loss.logistic(0.7).withBias(bias).withWeights(1.3, 0.6).logisticPrimal();
      int n = 13;
      double[] w = new double[n];
      Random r = new Random(2);
      for (int j = 0; j < n; j++) w[j] = r.nextGaussian() * 0.3;
      double[] sum = new double[n * n];
      for (int part = 0; part < 2; part++) {
        SparseVector[] xs = java.util.Arrays.copyOfRange(x, part * 150, part * 150 + 150);
        double[] ys = java.util.Arrays.copyOfRange(y, part * 150, part * 150 + 150);
        LogisticBlock block = new LogisticBlock(Csr.of(xs), ys, loss);
        assertTrue(block.densePairs());
        block.loss(w);
        block.gradient(new double[n], n);
        double[] out = new double[3 + n * n];
        block.hessianPairs(out, 3, n);
        assertEquals(0.0, out[0] + out[1] + out[2], "nothing before the offset");
        for (int k = 0; k < n * n; k++) sum[k] += out[3 + k];
      }
      GlmNet.symmetrize(sum, n);
      double[] want = hessianFromRows(x, y, w, loss);
      for (int k = 0; k < n * n; k++) assertEquals(want[k], sum[k], 1e-12 * Math.max(1, Math.abs(want[k])), "bias " + bias + ", entry " + k);
    }
  }

  /**
   * {@link OwlqnTest}'s problem by newGLMNET (sparse random data, 30 features, a bias and class weights, C = 0.3): over 1 and 3
   * ranks at eps 1e-7, f within 1e-12 (relative) of proximal gradient's optimum, the pseudo-gradient from the rows below 1e-6
   * of its value at 0, w within 1e-4 of proximal gradient's and exactly 0 where the optimality condition is strict, in far
   * fewer iterations than OWL-QN takes on the same problem. At eps 0.01 the stop holds, recomputed.
   */
  @Test
  void reachesTheL1OptimumOnOneAndThreeRanks() throws Exception {
    int[][] iterations = OwlqnTest.reachesTheL1Optimum(TronRank.Solver.GLMNET);
    Object[] data = LinearTestData.sparse(new Random(4), 600, 30, 0.3); // OwlqnTest's problem, by OWL-QN
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    LogisticPrimal loss = Loss.logistic(0.3).withBias(true).withWeights(1.5, 0.8).logisticPrimal();
    int[] ks = {1, 3};
    for (int r = 0; r < 2; r++) {
      int[] b = LinearTestData.randomBlocks(y.length, ks[r], 7);
      TronRank.State owlqn = OwlqnTest.run(x, y, b, ks[r], 30, loss, 1e-7, new MemoryCheckpoints(), ResidentLoop.Policy.none());
      assertTrue(2 * iterations[0][r] < owlqn.point().iterations(),
          "newGLMNET " + iterations[0][r] + " iterations, OWL-QN " + owlqn.point().iterations());
    }
  }

  /** Without a bias the bias weight stays exactly 0, and the optimum is still proximal gradient's. */
  @Test
  void withoutBiasTheBiasWeightStaysZero() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(11), 400, 15, 0.5);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    LogisticPrimal loss = Loss.logistic(2).logisticPrimal();
    double[] star = OwlqnTest.proximal(x, y, 16, loss);
    TronRank.State st = OwlqnTest.run(x, y, LinearTestData.randomBlocks(y.length, 2, 3), 2, 15, loss, 1e-8, new MemoryCheckpoints(),
        ResidentLoop.Policy.none(), TronRank.Solver.GLMNET);
    assertEquals(0.0, st.point().w()[15]);
    double f = OwlqnTest.objective(x, y, st.point().w(), loss);
    double fStar = OwlqnTest.objective(x, y, star, loss);
    assertTrue(f - fStar <= 1e-11 * fStar, "f " + f + " against " + fStar);
  }

  /** A rank failing at iteration 2 (checkpoints every 1): the resumed run ends with the same w and history, bit for bit. */
  @Test
  void aResumedRunEndsIdentically() throws Exception {
    resumesIdentically(3, TronRank.Solver.GLMNET);
  }

  /** The test above on {@code k} ranks by {@code solver}. */
  static void resumesIdentically(int k, TronRank.Solver solver) throws Exception {
    Object[] data = LinearTestData.sparse(new Random(5), 400, 20, 0.4);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    LogisticPrimal loss = Loss.logistic(1).withBias(true).logisticPrimal();
    int[] b = LinearTestData.randomBlocks(y.length, k, 5);
    TronRank.State full = OwlqnTest.run(x, y, b, k, 20, loss, 1e-10, new MemoryCheckpoints(), ResidentLoop.Policy.none(), solver);
    assertTrue(full.history().size() > 3, "steps " + full.history().size());
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    assertThrows(ResidentLoop.PlantedFault.class, () -> OwlqnTest.run(x, y, b, k, 20, loss, 1e-10, ckpt,
        new ResidentLoop.Policy(1, 0, k - 1, 2), solver));
    assertEquals(2, ckpt.committed());
    TronRank.State resumed = OwlqnTest.run(x, y, b, k, 20, loss, 1e-10, ckpt, ResidentLoop.Policy.none(), solver);
    assertArrayEquals(full.point().w(), resumed.point().w());
    assertEquals(full.history(), resumed.history());
  }

  /**
   * The warm-started C path by newGLMNET (C = 0.1, 0.4, 1.6 with a bias, 3 ranks, eps 1e-7): every stage within 1e-11 (relative)
   * of a cold newGLMNET run's f at its C and of proximal gradient's optimum there, in fewer iterations in all than the cold runs.
   */
  @Test
  void aCPathReachesEachStagesOptimumWarm() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(13), 500, 25, 0.3);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    int[] b = LinearTestData.randomBlocks(y.length, 3, 2);
    LogisticPrimal base = Loss.logistic(0.1).withBias(true).logisticPrimal();
    double[] scales = {1, 4, 16};
    List<List<BqoPath.Solved>> all = InProcessAllReduce.run(3, ar -> {
      List<Double> ys = new ArrayList<>();
      Csr xs = BqoPathTest.rows(x, y, b, ar.rank(), ys);
      TronPath p = new TronPath(xs, ys.stream().mapToDouble(Double::doubleValue).toArray(), 25, base,
          scales, 1e-7, 1000, null, TronRank.Solver.GLMNET, TronRank.Penalty.L1);
      ResidentLoop.run(p, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
      return BqoPath.solvedOf(p.globalState());
    });
    int warm = 0;
    int cold = 0;
    for (int k = 0; k < 3; k++) {
      LogisticPrimal at = new LogisticPrimal(0.1 * scales[k], 0.1 * scales[k], true);
      BqoPath.Solved s = all.get(0).get(k);
      for (List<BqoPath.Solved> r : all) assertArrayEquals(s.w(), r.get(k).w(), "every rank, stage " + k);
      TronRank.State c = OwlqnTest.run(x, y, b, 3, 25, at, 1e-7, new MemoryCheckpoints(), ResidentLoop.Policy.none(), TronRank.Solver.GLMNET);
      double f = OwlqnTest.objective(x, y, s.w(), at);
      double fCold = OwlqnTest.objective(x, y, c.point().w(), at);
      double fStar = OwlqnTest.objective(x, y, OwlqnTest.proximal(x, y, 26, at), at);
      assertTrue(s.converged(), "stage " + k);
      assertEquals(fCold, f, 1e-11 * fCold, "stage " + k + " against the cold run");
      assertTrue(f - fStar <= 1e-11 * fStar, "stage " + k + ": f " + f + " against " + fStar);
      assertEquals(f, s.primal(), 1e-12 * f, "the recorded f is w's at that C");
      warm += s.iterations();
      cold += c.point().iterations() - 1;
    }
    assertTrue(warm < cold, "the path took " + warm + " iterations, cold starts " + cold);
  }

  /**
   * From warm starts far from the optimum (every weight non-zero, up to 6 times the scale of the optimum's): the run converges at
   * eps 1e-7, every strict zero of the optimum exactly 0, f within 1e-12 of proximal gradient's optimum. Here the coordinate
   * descent moves weights away from 0 and back within one model: were a weight's return computed as w_j + (d_j - (w_j + d_j)),
   * rounding would leave it at 1e-17, whose pseudo-gradient |grad_j L| + 1 no step lowers (start 3 then stops "no progress").
   */
  @Test
  void convergesFromFarWarmStarts() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(17), 500, 30, 0.3);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    LogisticPrimal loss = Loss.logistic(0.2).withBias(true).logisticPrimal();
    Csr csr = Csr.of(x);
    double[] star = OwlqnTest.proximal(x, y, 31, loss);
    double[] gStar = OwlqnTest.lossGradient(x, y, star, loss);
    double fStar = OwlqnTest.objective(x, y, star, loss);
    for (int seed = 0; seed < 6; seed++) {
      Random r = new Random(seed);
      double[] start = new double[31];
      for (int j = 0; j < 31; j++) start[j] = r.nextGaussian() * (1 + seed);
      TronRank.State st = org.sodm.allreduce.InProcessAllReduce.run(1, ar -> {
        TronRank rank = new TronRank(new LogisticBlock(csr, y, loss), 31, 1e-7, 500, null, start, TronRank.Solver.GLMNET);
        ResidentLoop.run(rank, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
        return TronRank.decodeState(rank.globalState());
      }).get(0);
      assertEquals(Tron.Status.CONVERGED, st.point().status(), "start " + seed + ": " + st.last());
      double[] w = st.point().w();
      for (int j = 0; j < 31; j++) {
        if (star[j] == 0 && Math.abs(gStar[j]) < 0.999) assertEquals(0.0, w[j], "start " + seed + ": weight " + j);
      }
      double f = OwlqnTest.objective(x, y, w, loss);
      assertTrue(f - fStar <= 1e-12 * fStar, "start " + seed + ": f " + f + " against " + fStar);
    }
  }

  /**
   * The elastic net rho |w|_1 + (1 - rho) / 2 |w|^2 + sum_i C_i loss_i (rho = 0.3, C = 0.1, a bias, eps 1e-8) by both L1
   * methods on 3 ranks and by newGLMNET's column form on one: f within 1e-11 (relative) of proximal gradient's optimum with the elastic net's proximal step, the optimality
   * conditions from the rows (grad_j L + (1 - rho) w_j + rho sign(w_j) = 0 off zero, |grad_j L| &lt;= rho at zero) to 1e-6 of
   * the gradient at 0, exact zeros where the optimum's are strict; the L1 optimum (rho = 1) differs.
   */
  @Test
  void theElasticNetByBothMethods() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(23), 500, 30, 0.3);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    LogisticPrimal loss = Loss.logistic(0.1).withBias(true).logisticPrimal();
    double rho = 0.3;
    double[] star = OwlqnTest.proximal(x, y, 31, loss, rho);
    double fStar = OwlqnTest.objective(x, y, star, loss, rho);
    double[] gStar = OwlqnTest.lossGradient(x, y, star, loss);
    int strict = 0;
    for (int j = 0; j < 31; j++) if (star[j] == 0 && Math.abs(gStar[j]) < 0.999 * rho) strict++;
    assertTrue(strict >= 2, "the elastic net's optimum has zeros: " + strict);
    double g0 = OwlqnTest.norm(OwlqnTest.lossGradient(x, y, new double[31], loss));
    for (TronRank.Solver solver : new TronRank.Solver[] {TronRank.Solver.GLMNET, TronRank.Solver.OWLQN, TronRank.Solver.GLMNET_COLUMNS}) {
      int k = solver == TronRank.Solver.GLMNET_COLUMNS ? 1 : 3; // the column form: one block
      int[] b = LinearTestData.randomBlocks(y.length, k, 4);
      TronRank.State st = InProcessAllReduce.run(k, ar -> {
        List<Double> ys = new ArrayList<>();
        Csr xs = BqoPathTest.rows(x, y, b, ar.rank(), ys);
        TronRank r = new TronRank(new LogisticBlock(xs, ys.stream().mapToDouble(Double::doubleValue).toArray(),
            loss), 31, 1e-8, 5000, null, null, solver, TronRank.Penalty.elasticNet(rho));
        ResidentLoop.run(r, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
        return TronRank.decodeState(r.globalState());
      }).get(0);
      double[] w = st.point().w();
      double f = OwlqnTest.objective(x, y, w, loss, rho);
      assertTrue(f >= fStar * (1 - 1e-14) && f - fStar <= 1e-11 * fStar, solver + ": f " + f + " against " + fStar);
      assertEquals(f, st.last().f(), 1e-12 * f, solver + ": the recorded f is the elastic net's");
      double[] g = OwlqnTest.lossGradient(x, y, w, loss);
      for (int j = 0; j < 31; j++) {
        if (w[j] != 0) {
          assertEquals(0, g[j] + (1 - rho) * w[j] + rho * Math.signum(w[j]), 1e-6 * g0, solver + ", weight " + j);
        } else {
          assertTrue(Math.abs(g[j]) <= rho + 1e-6 * g0, solver + ", weight " + j + " at 0 with |grad| " + g[j]);
        }
        if (star[j] == 0 && Math.abs(gStar[j]) < 0.999 * rho) assertEquals(0.0, w[j], solver + ": weight " + j);
      }
    }
    double[] l1 = OwlqnTest.proximal(x, y, 31, loss, 1);
    double diff = 0;
    for (int j = 0; j < 31; j++) diff = Math.max(diff, Math.abs(l1[j] - star[j]));
    assertTrue(diff > 1e-2, "the elastic net's optimum is not the L1 one: " + diff);
  }

  /** A block with the loss's sums alone (as {@link SoftmaxBlock} by column): neither the dense Hessian nor its columns. */
  static final TronBlock BARE = new TronBlock() {
    public double[] classCounts() {
      return new double[] {1, 1};
    }

    public double loss(double[] w) {
      return 0;
    }

    public void gradient(double[] out, int n) {}

    public void hessian(double[] v, double[] out) {}
  };

  /** The auto rule and the limits. */
  @Test
  void ruleAndLimits() {
    assertTrue(GlmNet.prefer(124, 14.9));
    assertFalse(GlmNet.prefer(2000, 14.9));
    assertTrue(GlmNet.prefer(785, 401));
    assertFalse(GlmNet.prefer(785, 512.5));
    assertThrows(IllegalArgumentException.class, () -> new GlmNet(null, new double[GlmNet.MAX_WEIGHTS + 1], 0.1, 10, null));
    LogisticPrimal loss = Loss.logistic(1).logisticPrimal();
    assertThrows(IllegalArgumentException.class, () -> new TronRank(BARE, 3, 0.01, 10, null, null, TronRank.Solver.GLMNET));
    assertTrue(new LogisticBlock(Csr.of(new SparseVector[0]), new double[0], loss).densePairs());
  }
}
