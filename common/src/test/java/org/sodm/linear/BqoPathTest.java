package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.solver.Loss;

/** BQO along a warm-started C path ({@link BqoPath}): every stage at its own optimum, fewer iterations than cold starts, resumable. */
class BqoPathTest {
  static final int K = 3;
  static final double[] CS = {0.0625, 0.25, 1};
  static final double EPS = 1e-3;

  /** The primal 1/2 |w|^2 + sum_i C_i loss_i of w, recomputed from the rows. */
  static double primal(LibsvmReader.Data d, double[] w, SvmLoss loss) {
    double p = 0.5 * Vectors.squaredNorm(w);
    for (int i = 0; i < d.y().length; i++) p += loss.loss(d.y()[i], d.y()[i] * Vectors.dot(d.x()[i], w, loss.biasFeature()));
    return p;
  }

  static Csr rows(LibsvmReader.Data d, int[] b, int k, List<Double> ys) {
    return rows(d.x(), d.y(), b, k, ys);
  }

  /** Block k's rows of (x, y) under the assignment b, its labels appended to {@code ys}. */
  static Csr rows(SparseVector[] x, double[] y, int[] b, int k, List<Double> ys) {
    List<SparseVector> xs = new ArrayList<>();
    for (int i = 0; i < b.length; i++) {
      if (b[i] != k) continue;
      xs.add(x[i]);
      ys.add(y[i]);
    }
    return Csr.of(xs.toArray(new SparseVector[0]));
  }

  static List<BqoPath.Solved> runPath(LibsvmReader.Data d, int[] b, int dim, SvmLoss base, MemoryCheckpoints ckpt,
      ResidentLoop.Policy policy) throws Exception {
    double[] scales = new double[CS.length];
    for (int k = 0; k < CS.length; k++) scales[k] = CS[k] / CS[0];
    List<List<BqoPath.Solved>> all = InProcessAllReduce.run(K, ar -> {
      List<Double> ys = new ArrayList<>();
      Csr x = rows(d, b, ar.rank(), ys);
      int start = ckpt.committed() > 0 && !ckpt.done() ? ckpt.committed() : 0;
      BqoPath p = new BqoPath(x, ys.stream().mapToDouble(Double::doubleValue).toArray(), ar.rank(), dim, base, scales,
          BqoBlock.Options.defaults(), BqoState.Options.defaults().withEps(EPS), 7, start > 0 ? ckpt.rankState(ar.rank()) : null,
          start > 0 ? ckpt.globalState() : null);
      ResidentLoop.run(p, start, ar, policy, ckpt, null);
      return p.solved();
    });
    for (List<BqoPath.Solved> s : all) {
      assertEquals(CS.length, s.size());
      for (int k = 0; k < CS.length; k++) assertArrayEquals(all.get(0).get(k).w(), s.get(k).w());
    }
    return all.get(0);
  }

  /**
   * Hinge and squared hinge with a bias, C from 0.25 to 16 on svmguide1 over 3 ranks: each stage's model is within the
   * certified gap of that C's optimum (a cold run to a 1e-6 gap), its recorded primal is the primal of its w recomputed from the
   * rows, and the path takes fewer iterations in all than cold starts at the same gap.
   */
  @Test
  void everyStageReachesItsOwnOptimumInFewerIterationsThanColdStarts() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    int[] b = LinearTestData.randomBlocks(d.x().length, K, 3);
    for (Loss loss : new Loss[] {Loss.hinge(CS[0]).withBias(true), Loss.squaredHinge(CS[0]).withBias(true)}) {
      SvmLoss base = loss.svmPrimal();
      List<BqoPath.Solved> path = runPath(d, b, dim, base, new MemoryCheckpoints(), ResidentLoop.Policy.none());
      int cold = 0;
      int warm = 0;
      for (int k = 0; k < CS.length; k++) {
        SvmLoss at = new SvmLoss(base.squared(), CS[k], CS[k], true);
        Bqo.Result opt = Bqo.train(d.x(), d.y(), new int[b.length], 1, at, BqoBlock.Options.defaults(), BqoState.Options.defaults().withEps(1e-6)
            .withMaxIterations(100_000), 7, null);
        assertTrue(opt.state().converged(), "the reference at C " + CS[k]);
        Bqo.Result coldRun = Bqo.train(d.x(), d.y(), b, K, at, BqoBlock.Options.defaults(), BqoState.Options.defaults().withEps(EPS), 7, null);
        BqoPath.Solved s = path.get(k);
        assertTrue(s.converged(), loss.id() + " C " + CS[k]);
        double star = opt.state().pocketPrimal();
        assertEquals(primal(d, s.w(), at), s.primal(), 1e-9 * star, "the recorded primal is w's");
        assertTrue(s.primal() >= star * (1 - 1e-6) && (s.primal() - star) / star <= EPS,
            loss.id() + " C " + CS[k] + ": primal " + s.primal() + " optimum " + star);
        cold += coldRun.state().history().size();
        warm += s.iterations();
      }
      assertTrue(warm < cold, loss.id() + ": the path took " + warm + " iterations, cold starts " + cold);
    }
  }

  /** A fault in the third stage (checkpoints every 3 iterations): the resumed path ends with every stage identical. */
  @Test
  void aResumedPathEndsIdentically() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    int[] b = LinearTestData.randomBlocks(d.x().length, K, 3);
    SvmLoss base = Loss.hinge(CS[0]).svmPrimal();
    List<BqoPath.Solved> full = runPath(d, b, dim, base, new MemoryCheckpoints(), ResidentLoop.Policy.none());
    int failAt = full.get(0).iterations() + full.get(1).iterations() + 2;
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    assertThrows(ResidentLoop.PlantedFault.class, () -> runPath(d, b, dim, base, ckpt, new ResidentLoop.Policy(3, 0, 1, failAt)));
    assertTrue(ckpt.committed() > full.get(0).iterations(), "checkpoint " + ckpt.committed() + " is past the first stage");
    List<BqoPath.Solved> resumed = runPath(d, b, dim, base, ckpt, ResidentLoop.Policy.none());
    for (int k = 0; k < CS.length; k++) {
      assertArrayEquals(full.get(k).w(), resumed.get(k).w());
      assertEquals(full.get(k).iterations(), resumed.get(k).iterations());
      assertEquals(full.get(k).primal(), resumed.get(k).primal());
    }
  }

  @Test
  void theCValuesMustIncrease() {
    Csr x = Csr.of(new SparseVector[] {SparseVector.ofDense(new double[] {1})});
    SvmLoss base = Loss.hinge(1).svmPrimal();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BqoPath(x, new double[] {1}, 0, 1, base,
        new double[] {1, 4, 2}, BqoBlock.Options.defaults(), BqoState.Options.defaults(), 1, null, null));
    assertTrue(e.getMessage().contains("increasing"), e.getMessage());
  }
}
