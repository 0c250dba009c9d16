package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.LinearDualCd;
import org.sodm.solver.Loss;
import org.sodm.solver.SolveResult;
import org.sodm.solver.SolverOptions;

class DsvrgTest {
  static double objective(OdmPrimal odm, SparseVector[] x, double[] y, double[] w) {
    double s = 0;
    for (int i = 0; i < x.length; i++) s += odm.loss(y[i], y[i] * Vectors.dot(x[i], w, odm.biasFeature()));
    return OdmPrimal.objective(Vectors.squaredNorm(w), s, x.length);
  }

  /** The gradient of p is (1/M) sum grad p_i: checked against central differences. */
  @Test
  void gradientMatchesFiniteDifferences() {
    Random r = new Random(3);
    Object[] xy = LinearTestData.sparse(r, 50, 8, 0.5);
    SparseVector[] x = (SparseVector[]) xy[0];
    double[] y = (double[]) xy[1];
    OdmPrimal odm = new OdmPrimal(3, 5, 0.3, 0.6, true);
    double[] w = new double[9];
    for (int k = 0; k < w.length; k++) w[k] = r.nextGaussian();
    double[] g = w.clone();
    for (int i = 0; i < x.length; i++) {
      double m = y[i] * Vectors.dot(x[i], w, 1);
      Vectors.axpy(odm.coef(y[i], m) * y[i] / x.length, x[i], g, 1);
    }
    for (int k = 0; k < w.length; k++) {
      double h = 1e-6;
      double[] a = w.clone();
      double[] b = w.clone();
      a[k] += h;
      b[k] -= h;
      assertEquals((objective(odm, x, y, a) - objective(odm, x, y, b)) / (2 * h), g[k], 1e-5);
    }
  }

  /**
   * DSVRG decreases the ODM primal (every epoch on this data, from p(0)) to the optimum of the
   * same problem solved by the kernel ODM dual solver with the linear kernel and by the linear
   * dual CD: within 1e-6 relative, and the same predictions.
   */
  @Test
  void decreasesAndAgreesWithDualSolvers() throws Exception {
    LibsvmReader.Data svm = LinearTestData.svmguide1();
    int n = 600; // a prefix keeps the kernel solver quick
    SparseVector[] x = java.util.Arrays.copyOf(svm.x(), n);
    double[] y = java.util.Arrays.copyOf(svm.y(), n);
    Object[] sp = LinearTestData.sparse(new Random(8), 800, 300, 0.03);
    for (Object[] data : List.of(new Object[] {x, y}, sp)) {
      SparseVector[] xs = (SparseVector[]) data[0];
      double[] ys = (double[]) data[1];
      for (Loss spec : List.of(Loss.odm(8, 0.3, 0.5), Loss.odm(50, 0.1, 1).withWeights(1, 2))) {
        OdmPrimal odm = spec.odmPrimal();
        SolverOptions so = SolverOptions.defaults().withEps(1e-8).withMaxEpochs(200000);
        SolveResult ker = new KernelDualSolver(KernelSpec.linear().create(), so).solve(xs, ys, spec, null);
        double[] wk = new double[Vectors.dimension(xs) + 1];
        for (int i = 0; i < xs.length; i++) Vectors.axpy(ker.coef()[i], xs[i], wk, 0);
        double pk = objective(odm, xs, ys, wk);
        assertEquals(ker.report().primalObjective(), pk, 1e-9 * pk, "OdmPrimal is the primal of OdmProblem's dual");
        LinearDualCd.Result lin = new LinearDualCd(so).solve(xs, ys, spec, null);
        assertEquals(pk, lin.report().primalObjective(), 1e-7 * pk);

        Dsvrg.Result r = Dsvrg.train(xs, ys, LinearTestData.randomBlocks(xs.length, 4, 2), 4, odm, 0, 60, 9, null);
        List<Dsvrg.Epoch> ep = r.epochs();
        for (int l = 1; l < ep.size(); l++) {
          assertTrue(ep.get(l).objective() <= ep.get(l - 1).objective() * (1 + 1e-12),
              spec + " epoch " + l + ": " + ep.get(l - 1).objective() + " -> " + ep.get(l).objective());
        }
        assertEquals(pk, r.finalObjective(), 1e-6 * pk, spec + ": DSVRG " + r.finalObjective() + " vs kernel ODM " + pk);
        int agree = 0;
        for (int i = 0; i < xs.length; i++) {
          if (Math.signum(Vectors.dot(xs[i], r.w(), 0)) == Math.signum(Vectors.dot(xs[i], wk, 0))) agree++;
        }
        assertTrue(agree >= xs.length - 2, agree + " of " + xs.length + " predictions agree");
      }
    }
  }

  /** The lazy scaled representation equals the plain dense update. */
  @Test
  void lazyInnerEqualsDenseUpdate() {
    Random r = new Random(6);
    Object[] xy = LinearTestData.sparse(r, 30, 12, 0.4);
    SparseVector[] x = (SparseVector[]) xy[0];
    double[] y = (double[]) xy[1];
    OdmPrimal odm = new OdmPrimal(2, 2, 0.2, 0.7, true);
    double[] w0 = new double[13];
    double[] gbar = new double[13];
    for (int k = 0; k < 13; k++) {
      w0[k] = r.nextGaussian();
      gbar[k] = r.nextGaussian();
    }
    double eta = 0.05;
    SvrgInner lazy = new SvrgInner(odm, eta, w0, gbar);
    double[] w = w0.clone();
    for (int t = 0; t < 200; t++) {
      int i = r.nextInt(x.length);
      double snap = y[i] * Vectors.dot(x[i], w0, 1);
      double m = y[i] * Vectors.dot(x[i], w, 1);
      double delta = odm.coef(y[i], m) - odm.coef(y[i], snap);
      for (int k = 0; k < 13; k++) w[k] = w[k] - eta * (w[k] + gbar[k]);
      Vectors.axpy(-eta * delta * y[i], x[i], w, 1);
      lazy.step(x[i], y[i], snap);
    }
    double[] lw = lazy.w();
    for (int k = 0; k < 13; k++) assertEquals(w[k], lw[k], 1e-9);
  }
}
