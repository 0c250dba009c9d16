package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelExpansion;

class LinearDualCdTest {
  /** Tiny problems: equals the exact optimum (enumeration) of the linear-kernel QP, with and without bias. */
  @Test
  void tinyProblemsMatchEnumeration() {
    Random r = new Random(21);
    SolverOptions o = SolverOptions.defaults().withEps(1e-11).withMaxEpochs(1_000_000);
    for (int rep = 0; rep < 8; rep++) {
      for (Loss base : new Loss[] {Loss.hinge(1 + 3 * r.nextDouble()), Loss.squaredHinge(0.5 + r.nextDouble()),
          Loss.odm(1 + r.nextDouble(), 0.2, 0.5), Loss.hinge(1).withWeights(3, 0.5)}) {
        for (boolean bias : new boolean[] {false, true}) {
          Loss loss = base.withBias(bias);
          int n = 1 + r.nextInt(loss instanceof Loss.Odm ? 5 : 8);
          SparseVector[] x = QpReference.randomData(r, n, 4, 0.7);
          double[] y = QpReference.randomLabels(r, n);
          QpReference ref = QpReference.of(KernelSpec.linear(), x, y, loss);
          double[] exact = ref.enumerate();
          LinearDualCd.Result res = new LinearDualCd(o).solve(x, y, loss, null);
          String what = loss + " n=" + n;
          assertTrue(res.report().converged(), what);
          assertArrayEquals(exact, res.alpha(), 1e-7, what);
          assertEquals(ref.objective(exact), res.report().dualObjective(), 1e-9 * (1 + Math.abs(ref.objective(exact))), what);
          // w = sum y_i gamma_i x_i, b = sum y_i gamma_i (bias feature 1)
          double[] w = new double[res.w().length];
          double b = 0;
          for (int i = 0; i < n; i++) {
            double gm = loss instanceof Loss.Odm ? exact[2 * i] - exact[2 * i + 1] : exact[i];
            for (int k = 0; k < x[i].nnz(); k++) w[x[i].index(k) - 1] += y[i] * gm * x[i].value(k);
            b += y[i] * gm;
          }
          assertArrayEquals(w, res.w(), 1e-7, what);
          assertEquals(bias ? b : 0, res.bias(), 1e-7, what);
        }
      }
    }
  }

  /** Sparse high-dimensional data: same objective and decisions as the kernel solver with the linear kernel. */
  @Test
  void agreesWithKernelSolverOnLinearKernel() {
    Random r = new Random(4);
    int n = 300;
    SparseVector[] x = QpReference.randomData(r, n, 2000, 0.005);
    double[] y = new double[n];
    for (int i = 0; i < n; i++) y[i] = x[i].dot(SparseVector.ofDense(ramp(2000))) + 0.3 * r.nextGaussian() > 0 ? 1 : -1;
    for (Loss loss : new Loss[] {Loss.hinge(1), Loss.squaredHinge(1).withBias(true), Loss.odm(4, 0.1, 0.5)}) {
      SolverOptions o = SolverOptions.defaults().withEps(1e-8).withMaxEpochs(100000);
      LinearDualCd.Result lin = new LinearDualCd(o).solve(x, y, loss, null);
      SolveResult ker = new KernelDualSolver(KernelSpec.linear().create(), o).solve(x, y, loss, null);
      assertTrue(lin.report().converged() && ker.report().converged());
      assertEquals(ker.report().dualObjective(), lin.report().dualObjective(), 1e-8 * Math.abs(ker.report().dualObjective()), loss.toString());
      KernelExpansion f = ker.expansion(KernelSpec.linear().create(), x, loss.bias());
      for (int i = 0; i < n; i += 7) assertEquals(f.decision(x[i]), lin.decision(x[i]), 1e-5);
      // deterministic, and a warm start at the optimum does no epoch
      assertArrayEquals(lin.alpha(), new LinearDualCd(o).solve(x, y, loss, null).alpha(), 0.0);
      assertEquals(0, new LinearDualCd(o).solve(x, y, loss, lin.alpha()).report().epochs());
    }
  }

  private static double[] ramp(int d) {
    double[] w = new double[d];
    for (int k = 0; k < d; k++) w[k] = Math.sin(k);
    return w;
  }
}
