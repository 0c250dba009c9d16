package org.sodm.linear;

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
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.solver.Loss;

/**
 * The duality gap of the L1 methods ({@link DualityGap}): weak duality (the gap at any w is at least f(w) - min f, min f from
 * proximal gradient, written in the tests, run to 1e-13) and strong duality (the gap at the optimum is 0 to rounding), for the
 * logistic and the squared-hinge loss, L1 and the elastic net; the stop by gap on data where LIBLINEAR's rule stops far from the
 * optimum; every finished L1 run's certificate.
 */
class DualityGapTest {
  /** f(w) - D(theta(w)) on one block, by {@link DualityGap} from the block's sums (the objective of the penalty rho). */
  static double gapOnOneBlock(MarginBlock block, double[] w, double rho) throws Exception {
    double f = block.loss(w);
    for (double v : w) f += rho * Math.abs(v) + (1 - rho) / 2 * v * v;
    double[] g = new double[w.length];
    block.gradient(g, w.length);
    return DualityGap.gap(f, g, rho, 1 - rho, block::dual);
  }

  /** One loss's case: the rows, the objective, min f and its minimiser by proximal gradient. */
  record Case(String name, SparseVector[] x, double[] y, LinearPrimal loss, double rho, double[] star, double fStar) {
    double f(double[] w) {
      return loss instanceof LogisticPrimal p ? OwlqnTest.objective(x, y, w, p, rho) : SquaredHingeTest.objective(x, y, w, (SvmLoss) loss, rho, 1 - rho);
    }
  }

  static List<Case> cases() {
    Object[] data = LinearTestData.sparse(new Random(31), 400, 25, 0.3);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    int n = 26;
    List<Case> out = new ArrayList<>();
    for (double rho : new double[] {1, 0.4}) {
      LogisticPrimal lr = Loss.logistic(0.5).withBias(true).withWeights(1.5, 0.8).logisticPrimal();
      double[] s = OwlqnTest.proximal(x, y, n, lr, rho);
      out.add(new Case("logistic, rho " + rho, x, y, lr, rho, s, OwlqnTest.objective(x, y, s, lr, rho)));
      SvmLoss sh = new SvmLoss(true, 0.3, 0.6, true);
      double lip = 0;
      for (int i = 0; i < y.length; i++) lip += 2 * 0.6 * (x[i].squaredNorm() + 1);
      double[] h = OwlqnTest.proximal(n, lip, rho, v -> SquaredHingeTest.gradient(x, y, v, sh), v -> SquaredHingeTest.objective(x, y, v, sh, rho, 1 - rho));
      out.add(new Case("squared hinge, rho " + rho, x, y, sh, rho, h, SquaredHingeTest.objective(x, y, h, sh, rho, 1 - rho)));
    }
    return out;
  }

  /**
   * Weak duality: at 0, at random points, at points near the optimum, the gap is at least f(w) - min f (it bounds the distance
   * to the optimum) and the objective the block's sums give is the rows'; strong duality: at the optimum it is at most 1e-9 f
   * (a wrong conjugate, a wrong factor or sign, leaves a gap there or breaks the bound).
   */
  @Test
  void theGapBoundsTheDistanceToTheOptimumAndVanishesThere() throws Exception {
    for (Case c : cases()) {
      MarginBlock block = MarginBlock.of(c.loss(), Csr.of(c.x()), c.y(), 1);
      int n = c.star().length;
      Random r = new Random(3);
      List<double[]> points = new ArrayList<>();
      points.add(new double[n]);
      for (int k = 0; k < 4; k++) {
        double[] w = new double[n];
        for (int j = 0; j < n; j++) w[j] = r.nextGaussian() * (k + 1) * 0.5;
        points.add(w);
      }
      for (double eps : new double[] {1e-1, 1e-3}) {
        double[] w = c.star().clone();
        for (int j = 0; j < n; j++) w[j] += eps * r.nextGaussian();
        points.add(w);
      }
      for (double[] w : points) {
        double gap = gapOnOneBlock(block, w, c.rho());
        double above = c.f(w) - c.fStar();
        assertTrue(gap >= above - 1e-12 * c.fStar(), c.name() + ": gap " + gap + " below f - f* " + above);
      }
      double atStar = gapOnOneBlock(block, c.star(), c.rho());
      assertTrue(Math.abs(atStar) <= 1e-9 * c.fStar(), c.name() + ": gap at the optimum " + atStar + " of f* " + c.fStar());
      double[] near = c.star().clone();
      near[n - 1] += 0.05;
      assertTrue(gapOnOneBlock(block, near, c.rho()) > 1e-6 * c.fStar(), c.name() + ": off the optimum the gap is not 0");
    }
  }

  /** The multinomial L1 objective |W|_1 + sum_i C_i (log sum_k exp(z_ik) - z_{i,y_i}) on SoftmaxTest's rows, class-major W. */
  private static double softmaxL1(double[] wc, double[] cc, double[] g) {
    double f = SoftmaxTest.primal(wc, cc, 1, g, null) - 0.5 * Vectors.dot(wc, wc);
    if (g != null) for (int a = 0; a < wc.length; a++) g[a] -= wc[a];
    for (double v : wc) f += Math.abs(v);
    return f;
  }

  /**
   * Multinomial logistic regression with |W|_1 (SoftmaxTest's 3 classes of 4 features, a bias, class weights): weak duality at
   * random and near-optimal W against proximal gradient's optimum (the loss's gradient and f from the rows), the gap 0 to 1e-9
   * at it; the stop by gap (1e-5) on 2 ranks by OWL-QN and newGLMNET ends within 1e-5 f of the optimum.
   */
  @Test
  void theSoftmaxGapBoundsTheDistanceAndStops() throws Exception {
    double[] cc = {0.5, 1.0, 0.8};
    int n = 3 * 5;
    double lip = 0;
    for (int i = 0; i < SoftmaxTest.y.length; i++) lip += cc[SoftmaxTest.y[i]] * (SoftmaxTest.x[i].squaredNorm() + 1);
    double[] star = OwlqnTest.proximal(n, lip, 1, w -> {
      double[] g = new double[n];
      softmaxL1(w, cc, g);
      return g;
    }, w -> softmaxL1(w, cc, null));
    double fStar = softmaxL1(star, cc, null);
    int zeros = 0;
    for (double v : star) if (v == 0) zeros++;
    assertTrue(zeros >= 1 && zeros < n, "the optimum is sparse but not empty: " + zeros);
    SoftmaxBlock block = new SoftmaxBlock(Csr.of(SoftmaxTest.x), SoftmaxTest.y, cc, 4, true, 1);
    Random r = new Random(9);
    List<double[]> points = new ArrayList<>(List.of(new double[n], star.clone()));
    for (int k = 0; k < 4; k++) {
      double[] w = star.clone();
      for (int j = 0; j < n; j++) w[j] += (k < 2 ? 1 : 1e-3) * r.nextGaussian();
      points.add(w);
    }
    for (int p = 0; p < points.size(); p++) {
      double[] wc = points.get(p);
      double[] w = SoftmaxTest.featureMajor(wc);
      double f = block.loss(w);
      for (double v : w) f += Math.abs(v);
      assertEquals(softmaxL1(wc, cc, null), f, 1e-12 * f, "the block's f is the rows'");
      double[] g = new double[n];
      block.gradient(g, n);
      double gap = DualityGap.gap(f, g, 1, 0, block::dual);
      if (p == 1) {
        assertTrue(Math.abs(gap) <= 1e-9 * fStar, "gap at the optimum " + gap + " of f* " + fStar);
      } else {
        assertTrue(gap >= f - fStar - 1e-12 * fStar, "point " + p + ": gap " + gap + " below f - f* " + (f - fStar));
        if (p == 0 || p == 2) assertTrue(gap > 1e-3 * fStar, "point " + p + ": off the optimum the gap is not 0: " + gap);
      }
    }
    for (TronRank.Solver solver : new TronRank.Solver[] {TronRank.Solver.OWLQN, TronRank.Solver.GLMNET}) {
      int[] b = LinearTestData.randomBlocks(SoftmaxTest.y.length, 2, 3);
      TronRank.State st = InProcessAllReduce.run(2, ar -> {
        List<Integer> ys = new ArrayList<>();
        Csr xs = SoftmaxTest.rows(b, ar.rank(), ys);
        TronRank t = new TronRank(new SoftmaxBlock(xs, ys.stream().mapToInt(Integer::intValue).toArray(), cc, 4, true, 1), n, 0.01, 5000,
            null, null, solver).stopByGap(1e-5);
        ResidentLoop.run(t, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
        return TronRank.decodeState(t.globalState());
      }).get(0);
      assertEquals(Tron.Status.CONVERGED, st.point().status(), solver.toString());
      double f = st.last().f();
      assertTrue(f - fStar <= 1e-5 * f && st.last().gap() <= 1e-5 * f && st.last().gap() >= f - fStar - 1e-12 * fStar,
          solver + ": f " + f + " against " + fStar + ", gap " + st.last().gap());
    }
  }

  /** Every rank's run of {@code solver} to the end; the runs' states (they agree: checked). */
  static TronRank.State run(SparseVector[] x, double[] y, int k, LinearPrimal loss, TronRank.Penalty penalty, TronRank.Solver solver,
      double eps, double gapTolerance) throws Exception {
    return run(x, y, k, loss, penalty, solver, eps, gapTolerance, new MemoryCheckpoints(), ResidentLoop.Policy.none());
  }

  /** As above, checkpointing into {@code ckpt} (resuming from its last commit) under {@code policy}. */
  static TronRank.State run(SparseVector[] x, double[] y, int k, LinearPrimal loss, TronRank.Penalty penalty, TronRank.Solver solver,
      double eps, double gapTolerance, MemoryCheckpoints ckpt, ResidentLoop.Policy policy) throws Exception {
    int[] b = LinearTestData.randomBlocks(y.length, k, 11);
    int size = Vectors.dimension(x) + 1;
    List<TronRank.State> all = InProcessAllReduce.run(k, ar -> {
      List<Double> ys = new ArrayList<>();
      Csr xs = BqoPathTest.rows(x, y, b, ar.rank(), ys);
      int start = ckpt.committed() > 0 && !ckpt.done() ? ckpt.committed() : 0;
      TronRank r = new TronRank(MarginBlock.of(loss, xs, ys.stream().mapToDouble(Double::doubleValue).toArray(), 1), size, eps, 20_000,
          start > 0 ? ckpt.globalState() : null, null, solver, penalty);
      if (gapTolerance > 0) r.stopByGap(gapTolerance);
      ResidentLoop.run(r, start, ar, policy, ckpt, null);
      return TronRank.decodeState(r.globalState());
    });
    for (TronRank.State s : all) assertEquals(all.get(0).last(), s.last(), "every rank ends the same");
    return all.get(0);
  }

  /**
   * svmguide1 as it comes (features from 1e-1 to 1e2), L1 logistic regression at C = 1: OWL-QN's stop by LIBLINEAR's rule at eps
   * 0.01 holds far from the optimum (f more than 1e-3 above it, min f from newGLMNET at eps 1e-12, its own gap at most 1e-10 f);
   * by gap at 1e-6 (one and three ranks) OWL-QN converges with f within 1e-6 f of the optimum, every accepted step's gap in the
   * history, the last at most 1e-6 f; so does newGLMNET by gap, and the elastic net's by gap.
   */
  @Test
  void theStopByGapEndsWithinItsToleranceWhereTheRuleOnThePseudoGradientDoesNot() throws Exception {
    LibsvmReader.Data d = LibsvmReader.read(LinearTestData.sampleData("svmguide1"));
    LogisticPrimal loss = Loss.logistic(1).withBias(true).logisticPrimal();
    for (TronRank.Penalty penalty : new TronRank.Penalty[] {TronRank.Penalty.L1, TronRank.Penalty.elasticNet(0.5)}) {
      TronRank.State ref = run(d.x(), d.y(), 1, loss, penalty, TronRank.Solver.GLMNET, 1e-12, 0);
      double fStar = ref.last().f();
      assertTrue(ref.last().gap() <= 2e-6 * fStar, penalty + ": newGLMNET's optimum certified: gap " + ref.last().gap());
      if (penalty == TronRank.Penalty.L1) {
        TronRank.State loose = run(d.x(), d.y(), 1, loss, penalty, TronRank.Solver.OWLQN, 0.01, 0);
        assertEquals(Tron.Status.CONVERGED, loose.point().status());
        assertTrue(loose.last().f() - fStar > 1e-3 * fStar, "the rule on the pseudo-gradient stops " + (loose.last().f() / fStar - 1)
            + " above the optimum");
        assertTrue(loose.last().gap() >= loose.last().f() - fStar, "its certificate says so: " + loose.last().gap());
      }
      for (TronRank.Solver solver : new TronRank.Solver[] {TronRank.Solver.OWLQN, TronRank.Solver.GLMNET}) {
        for (int k : new int[] {1, 3}) {
          TronRank.State st = run(d.x(), d.y(), k, loss, penalty, solver, 0.01, 1e-4);
          String what = penalty + ", " + solver + ", " + k + " ranks";
          assertEquals(Tron.Status.CONVERGED, st.point().status(), what);
          double f = st.last().f();
          assertTrue(f - fStar <= 1e-4 * f, what + ": f " + f + " against " + fStar);
          assertTrue(st.last().gap() <= 1e-4 * f && st.last().gap() >= f - fStar - 1e-12 * fStar, what + ": gap " + st.last().gap());
          for (Tron.Trial t : st.history()) {
            if (t.accepted()) assertFalse(Double.isNaN(t.gap()), what + ": trial " + t.trial() + " has its gap");
          }
        }
      }
    }
  }

  /**
   * The warm-started C path (a grid's, {@link TronPath}) on svmguide1 as it comes, C = 1, 4, 16, OWL-QN: by LIBLINEAR's rule
   * (eps 0.01, relative to the pseudo-gradient at 0, which is large here) every C after the first takes 0 iterations, keeping
   * the first C's w; by gap (1e-4) each stage iterates and ends within 1e-4 f of its own C's optimum (newGLMNET stopped by a gap
   * of 1e-5 f), on 1 and 2 ranks.
   */
  @Test
  void aCPathByGapSolvesEveryStage() throws Exception {
    LibsvmReader.Data d = LibsvmReader.read(LinearTestData.sampleData("svmguide1"));
    LogisticPrimal base = Loss.logistic(1).withBias(true).logisticPrimal();
    double[] scales = {1, 4, 16};
    int dim = Vectors.dimension(d.x());
    for (double gap : new double[] {0, 1e-4}) {
      for (int k : gap == 0 ? new int[] {1} : new int[] {1, 2}) {
        int[] b = LinearTestData.randomBlocks(d.y().length, k, 5);
        List<List<BqoPath.Solved>> all = InProcessAllReduce.run(k, ar -> {
          List<Double> ys = new ArrayList<>();
          Csr xs = BqoPathTest.rows(d.x(), d.y(), b, ar.rank(), ys);
          TronPath p = new TronPath(xs, ys.stream().mapToDouble(Double::doubleValue).toArray(), dim, base, scales, 0.01, 5000, null,
              TronRank.Solver.OWLQN, TronRank.Penalty.L1);
          if (gap > 0) p.stopByGap(gap);
          ResidentLoop.run(p, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
          return p.solved();
        });
        List<BqoPath.Solved> stages = all.get(0);
        for (int st = 1; st < scales.length; st++) {
          String what = "gap " + gap + ", " + k + " ranks, C " + scales[st];
          if (gap == 0) {
            assertEquals(0, stages.get(st).iterations(), what + ": the rule holds at the previous C's w");
            continue;
          }
          assertTrue(stages.get(st).iterations() > 0, what);
          LinearPrimal at = TronPath.scaled(base, scales[st]);
          double fStar = run(d.x(), d.y(), 1, at, TronRank.Penalty.L1, TronRank.Solver.GLMNET, 1e-12, 1e-5).last().f();
          double f = stages.get(st).primal();
          assertTrue(f - fStar <= 1e-4 * f && fStar - f <= 1e-5 * fStar, what + ": f " + f + " against " + fStar);
        }
      }
    }
  }

  /**
   * A run stopped by gap (OWL-QN on svmguide1 as it comes, 3 ranks, 1e-4) whose rank fails at iteration 6 (checkpoints every 3)
   * resumes from the checkpoint to the same w and the same steps, gaps included, bit for bit.
   */
  @Test
  void aResumedRunByGapEndsIdentically() throws Exception {
    LibsvmReader.Data d = LibsvmReader.read(LinearTestData.sampleData("svmguide1"));
    LogisticPrimal loss = Loss.logistic(1).withBias(true).logisticPrimal();
    TronRank.State full = run(d.x(), d.y(), 3, loss, TronRank.Penalty.L1, TronRank.Solver.OWLQN, 0.01, 1e-4);
    assertTrue(full.history().size() > 8, "steps " + full.history().size());
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    assertThrows(ResidentLoop.PlantedFault.class, () -> run(d.x(), d.y(), 3, loss, TronRank.Penalty.L1, TronRank.Solver.OWLQN, 0.01,
        1e-4, ckpt, new ResidentLoop.Policy(3, 0, 2, 6)));
    assertEquals(6, ckpt.committed());
    TronRank.State resumed = run(d.x(), d.y(), 3, loss, TronRank.Penalty.L1, TronRank.Solver.OWLQN, 0.01, 1e-4, ckpt,
        ResidentLoop.Policy.none());
    org.junit.jupiter.api.Assertions.assertArrayEquals(full.point().w(), resumed.point().w());
    assertEquals(full.history(), resumed.history());
  }

  /**
   * Without the stop by gap a finished L1 run still reports its gap (last step only), at least its f's distance to the optimum;
   * TRON reports none, and asking it (or a tolerance of 1) for the stop by gap is refused.
   */
  @Test
  void everyFinishedL1RunCarriesItsCertificate() throws Exception {
    Case c = cases().get(1); // squared hinge, L1
    TronRank.State st = run(c.x(), c.y(), 2, c.loss(), TronRank.Penalty.L1, TronRank.Solver.OWLQN, 0.01, 0);
    Tron.Trial last = st.last();
    assertTrue(last.gap() >= last.f() - c.fStar() - 1e-12 * c.fStar() && last.gap() < 0.1 * last.f(), "gap " + last.gap());
    for (int t = 0; t < st.history().size() - 1; t++) assertTrue(Double.isNaN(st.history().get(t).gap()), "step " + t);
    TronRank.State tron = run(c.x(), c.y(), 2, c.loss(), TronRank.Penalty.L1, TronRank.Solver.TRON, 0.01, 0);
    assertTrue(Double.isNaN(tron.last().gap()), "TRON: no gap");
    MarginBlock block = MarginBlock.of(c.loss(), Csr.of(c.x()), c.y(), 1);
    assertThrows(IllegalArgumentException.class, () -> new TronRank(block, 26, 0.01, 10, null).stopByGap(1e-6));
    assertThrows(IllegalArgumentException.class,
        () -> new TronRank(block, 26, 0.01, 10, null, null, TronRank.Solver.OWLQN).stopByGap(1));
  }
}
