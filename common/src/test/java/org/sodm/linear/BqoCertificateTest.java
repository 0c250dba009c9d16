package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.solver.LinearDualCd;
import org.sodm.solver.Loss;
import org.sodm.solver.SolverOptions;

/**
 * BQO's stop certifies its model (issue 14): when it reports convergence at eps, the pocket's primal
 * is within eps (relative) of the optimum computed independently by our single-node dual CD at
 * 1e-8, and the gap it reports is never below the true suboptimality. And the block subproblem's
 * shrinking leaves no coordinate wrongly behind: solved to convergence, every coordinate of d -
 * shrunk or not - meets the subproblem's KKT conditions.
 */
class BqoCertificateTest {
  @Test
  void convergedPocketIsWithinEpsOfTheOptimum() throws IOException {
    Object[] sp = LinearTestData.sparse(new Random(11), 3000, 400, 0.02);
    LibsvmReader.Data sparse = new LibsvmReader.Data((SparseVector[]) sp[0], null, null, (double[]) sp[1]);
    for (LibsvmReader.Data d : List.of(sparse, LinearTestData.svmguide1())) {
      for (Loss spec : List.of(Loss.hinge(1), Loss.squaredHinge(1), Loss.hinge(8).withWeights(1, 3))) {
        SvmLoss loss = spec.svmPrimal();
        LinearDualCd.Result ref = new LinearDualCd(SolverOptions.defaults().withEps(1e-8).withMaxEpochs(200000))
            .solve(d.x(), d.y(), spec, null);
        double pStar = BqoTest.primal(d.x(), d.y(), BqoTest.withBias(ref), loss);
        for (int[] shape : new int[][] {{1, 5}, {1, 1}, {4, 1}}) {
          int blocks = shape[0];
          double eps = 1e-3;
          Bqo.Result r = Bqo.train(d.x(), d.y(), LinearTestData.randomBlocks(d.size(), blocks, 4), blocks, loss,
              new BqoBlock.Options(shape[1], 1e-3, 1e-4), BqoState.Options.defaults().withEps(eps).withMaxIterations(20000), 2,
              null);
          var hist = r.state().history();
          double reported = hist.get(hist.size() - 1).relativeGap();
          double p = BqoTest.primal(d.x(), d.y(), r.pocket(), loss);
          double subopt = (p - pStar) / pStar;
          String what = String.format("%s, %d rows, %d block(s) x %d pass(es): %d its, reported gap %.3e, true %.3e", spec,
              d.size(), blocks, shape[1], hist.size(), reported, subopt);
          assertTrue(r.state().converged(), what);
          assertTrue(subopt <= eps, "the pocket is within eps of the optimum: " + what);
          assertTrue(reported >= subopt - 1e-9, "the reported gap bounds the true one: " + what);
          // a gap of (27) would have stopped earlier: the certificate is the stronger test
          assertTrue(reported >= 0, what);
        }
      }
    }
  }

  @Test
  void gapArithmetic() {
    // P = 110, F = -100: P* in [100, 110]; (P + F) / (-F) = 0.1
    assertTrue(Math.abs(BqoState.certifiedGap(110, -100, 1000) - 0.1) < 1e-15);
    assertTrue(BqoState.certifiedGap(110, 5, 1000) == Double.POSITIVE_INFINITY, "no positive lower bound yet");
    assertTrue(BqoState.certifiedGap(3, 5, 0) == 0, "no loss weight: w = 0 is optimal");
  }

  /**
   * The block subproblem (7) solved to its optimum with shrinking on: projected gradients of all n
   * coordinates (recomputed from scratch, not the solver's bookkeeping) are ~0, at a point where
   * several passes shrank coordinates (rows far outside the margin at alpha = 0).
   */
  @Test
  void shrunkCoordinatesStillMeetKkt() {
    Object[] sp = LinearTestData.sparse(new Random(3), 1500, 200, 0.03);
    SparseVector[] x = (SparseVector[]) sp[0];
    double[] y = (double[]) sp[1];
    int n = x.length;
    for (SvmLoss loss : List.of(new SvmLoss(false, 1, 1, false), new SvmLoss(true, 2, 1, true))) {
      // a start alpha^t with rows at both bounds and inside, and w^t = X'Y alpha^t
      Random r = new Random(9);
      double[] alpha = new double[n];
      for (int i = 0; i < n; i++) {
        double u = r.nextDouble();
        double up = loss.upper(y[i]);
        alpha[i] = u < 0.5 ? 0 : u < 0.7 && Double.isFinite(up) ? up : 0.3 * r.nextDouble();
      }
      double bf = loss.biasFeature();
      double[] w = new double[Vectors.dimension(x) + 1];
      for (int i = 0; i < n; i++) Vectors.axpy(y[i] * alpha[i], x[i], w, bf);
      double tau = 1e-3;
      BqoBlock.Result res = BqoBlock.solve(x, y, alpha, w, loss, new BqoBlock.Options(5000, tau, 1e-10), 5);
      double tauT = loss.squared() ? 0 : tau;
      double[] u = new double[w.length];
      for (int i = 0; i < n; i++) Vectors.axpy(y[i] * res.d()[i], x[i], u, bf);
      double worst = 0;
      for (int i = 0; i < n; i++) {
        double si = loss.s(y[i]);
        double g = y[i] * Vectors.dot(x[i], w, bf) + si * alpha[i] - 1 + y[i] * Vectors.dot(x[i], u, bf) + (si + tauT) * res.d()[i];
        double lo = -alpha[i];
        double hi = loss.upper(y[i]) - alpha[i];
        double di = res.d()[i];
        assertTrue(di >= lo - 1e-12 && di <= hi + 1e-12, "d in the box");
        double pg = di <= lo ? Math.min(g, 0) : di >= hi ? Math.max(g, 0) : g;
        worst = Math.max(worst, Math.abs(pg));
      }
      assertTrue(worst <= 1e-7, loss + ": largest projected gradient " + worst + " after " + res.passes() + " passes");
      assertTrue(res.passes() > 2, "shrinking had passes to act in");
    }
  }
}
