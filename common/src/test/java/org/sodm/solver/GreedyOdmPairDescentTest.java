package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;

/** ODM's pair steps: the exact 2-D minimiser, and the order against single-variable steps. */
class GreedyOdmPairDescentTest {

  /** h(t) of the problem's piece for m c = mc. */
  private static double h(double t, double mc, double theta, double v) {
    return t >= 0 ? 0.5 * mc * v * t * t - (1 - theta) * t : 0.5 * mc * t * t - (1 + theta) * t;
  }

  private static double objective(double[] p, double qii, double qjj, double qij, double gi, double gj, double qgI,
      double qgJ, double mcI, double mcJ, double theta, double v, double ti, double tj) {
    double di = ti - gi;
    double dj = tj - gj;
    return 0.5 * (qii * di * di + 2 * qij * di * dj + qjj * dj * dj) + qgI * di + qgJ * dj + h(ti, mcI, theta, v)
        + h(tj, mcJ, theta, v);
  }

  /**
   * The nine-face minimiser against a nested search that knows nothing of faces: for each t_i the
   * best t_j by golden section, and the best t_i of that (convex) function by golden section.
   */
  @Test
  void pairMinimiserIsTheExactMinimiser() {
    Random r = new Random(17);
    for (int rep = 0; rep < 300; rep++) {
      double theta = rep % 5 == 0 ? 0 : 0.9 * r.nextDouble();
      double v = 0.1 + 0.9 * r.nextDouble();
      double[] y = {1, -1};
      OdmProblem odm = (OdmProblem) Loss.odm(0.05 + 3 * r.nextDouble(), theta, v).withWeights(1, 0.3 + r.nextDouble())
          .dual(y, 1 + r.nextInt(50));
      GreedyOdmPairDescent d = new GreedyOdmPairDescent(odm);
      double qii = 0.2 + r.nextDouble();
      double qjj = 0.2 + r.nextDouble();
      double qij = (2 * r.nextDouble() - 1) * Math.sqrt(qii * qjj) * (rep % 3 == 0 ? 0.999 : 1);
      double gi = rep % 4 == 0 ? 0 : 2 * r.nextGaussian();
      double gj = rep % 7 == 0 ? 0 : 2 * r.nextGaussian();
      double qgI = 2 * r.nextGaussian();
      double qgJ = 2 * r.nextGaussian();
      double mcI = odm.mc(0);
      double mcJ = odm.mc(1);
      double[] t = d.minimise(qii, qjj, qij, gi, gj, qgI, qgJ, mcI, mcJ);
      java.util.function.DoubleUnaryOperator bestOverJ = ti -> {
        double tj = golden(tt -> objective(null, qii, qjj, qij, gi, gj, qgI, qgJ, mcI, mcJ, theta, v, ti, tt), -1e3, 1e3);
        return objective(null, qii, qjj, qij, gi, gj, qgI, qgJ, mcI, mcJ, theta, v, ti, tj);
      };
      double ti = golden(bestOverJ, -1e3, 1e3);
      double tj = golden(tt -> objective(null, qii, qjj, qij, gi, gj, qgI, qgJ, mcI, mcJ, theta, v, ti, tt), -1e3, 1e3);
      double fRef = objective(null, qii, qjj, qij, gi, gj, qgI, qgJ, mcI, mcJ, theta, v, ti, tj);
      double f = objective(null, qii, qjj, qij, gi, gj, qgI, qgJ, mcI, mcJ, theta, v, t[0], t[1]);
      String what = "rep " + rep + " qij=" + qij + " gamma=(" + gi + ", " + gj + ")";
      assertTrue(f <= fRef + 1e-9 * (1 + Math.abs(fRef)), what + ": " + f + " above the search's " + fRef);
      if (Math.abs(qij) < 0.99 * Math.sqrt(qii * qjj)) { // well-conditioned: the point itself is pinned down
        assertArrayEquals(new double[] {ti, tj}, t, 1e-4, what);
      }
    }
  }

  private static double golden(java.util.function.DoubleUnaryOperator f, double a, double b) {
    double g = (Math.sqrt(5) - 1) / 2;
    double c = b - g * (b - a);
    double d = a + g * (b - a);
    double fc = f.applyAsDouble(c);
    double fd = f.applyAsDouble(d);
    for (int k = 0; k < 200 && b - a > 1e-12; k++) {
      if (fc < fd) {
        b = d;
        d = c;
        fd = fc;
        c = b - g * (b - a);
        fc = f.applyAsDouble(c);
      } else {
        a = c;
        c = d;
        fc = fd;
        d = a + g * (b - a);
        fd = f.applyAsDouble(d);
      }
    }
    return (a + b) / 2;
  }

  /**
   * On a correlated RBF problem the pair order reaches the single-variable order's optimum (same
   * objective, both within eps) in under a third of its steps; a warm start with both zeta and beta
   * positive (which the pair order rewrites as max(gamma, 0), max(-gamma, 0)) reaches it too.
   */
  @Test
  void pairsReachTheSingleStepOptimumInFewerSteps() {
    Random r = new Random(4);
    int n = 500;
    double[] y = new double[n];
    SparseVector[] x = KernelDualSolverTest.blobs(r, n, y);
    for (double lambda : new double[] {5000, 50000}) {
      Loss loss = Loss.odm(lambda, 0.3, 0.5);
      SolverOptions o = SolverOptions.defaults().withEps(1e-6).withMaxEpochs(100000);
      SolveResult single = new KernelDualSolver(KernelSpec.rbf(0.5).create(), o.withPairs(false)).solve(x, y, loss, null);
      SolveResult pairs = new KernelDualSolver(KernelSpec.rbf(0.5).create(), o).solve(x, y, loss, null);
      String what = "lambda " + lambda + ": single " + single.report() + " pairs " + pairs.report();
      assertTrue(single.report().converged() && pairs.report().converged(), what);
      double opt = single.report().dualObjective();
      assertEquals(opt, pairs.report().dualObjective(), 1e-8 * Math.abs(opt), what);
      assertTrue(3 * pairs.report().epochs() < single.report().epochs(), what); // measured: 15 against 89, 93 against 779
      double[] both = new double[2 * n];
      for (int i = 0; i < n; i++) {
        double gm = pairs.alpha()[2 * i] - pairs.alpha()[2 * i + 1];
        both[2 * i] = Math.max(gm, 0) + 0.3;
        both[2 * i + 1] = Math.max(-gm, 0) + 0.3;
        assertTrue(pairs.alpha()[2 * i] == 0 || pairs.alpha()[2 * i + 1] == 0, "one of zeta, beta is 0");
      }
      SolveResult warm = new KernelDualSolver(KernelSpec.rbf(0.5).create(), o).solve(x, y, loss, both);
      assertTrue(warm.report().converged(), what);
      assertEquals(opt, warm.report().dualObjective(), 1e-8 * Math.abs(opt), "warm start with both positive");
    }
  }
}
