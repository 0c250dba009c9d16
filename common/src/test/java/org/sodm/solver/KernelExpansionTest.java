package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelExpansion;

class KernelExpansionTest {
  /** Batched and single decisions (dense and sparse paths) equal the direct sum. */
  @Test
  void decisionEqualsDirectSum() {
    Random r = new Random(2);
    for (int dim : new int[] {5, 3000}) {
      SparseVector[] sv = QpReference.randomData(r, 40, dim, dim > 100 ? 0.01 : 0.7);
      SparseVector[] xs = QpReference.randomData(r, 30, dim + 3, dim > 100 ? 0.01 : 0.7);
      double[] coef = new double[sv.length];
      for (int i = 0; i < coef.length; i++) coef[i] = r.nextGaussian();
      for (KernelSpec ks : new KernelSpec[] {KernelSpec.rbf(0.5), KernelSpec.linear(), KernelSpec.poly(0.3, 1, 3),
          KernelSpec.sigmoid(0.2, 0.1)}) {
        KernelExpansion f = new KernelExpansion(ks.create(), sv, coef, 0.7);
        double[] out = new double[xs.length];
        f.decision(xs, out);
        for (int t = 0; t < xs.length; t++) {
          double s = 0.7;
          for (int i = 0; i < sv.length; i++) s += coef[i] * ks.evalReference(sv[i], xs[t]);
          assertEquals(s, out[t], 1e-10 * (1 + Math.abs(s)), ks + " dim " + dim);
          assertEquals(s, f.decision(xs[t]), 1e-10 * (1 + Math.abs(s)));
        }
      }
    }
  }

  /**
   * Bias via the augmented kernel: the solver on k + 1 equals the exact optimum of the QP on
   * Q + y y' (QpReference with bias), and the model with b = sum coef reproduces
   * sum coef (k + 1) = y_i (Q gamma)_i on the training points.
   */
  @Test
  void biasViaAugmentedKernel() {
    Random r = new Random(6);
    int n = 7;
    SparseVector[] x = QpReference.randomData(r, n, 3, 0.9);
    double[] y = QpReference.randomLabels(r, n);
    KernelSpec ks = KernelSpec.rbf(1);
    Loss loss = Loss.hinge(2).withBias(true);
    SolveResult res = new KernelDualSolver(ks.create(), SolverOptions.defaults().withEps(1e-11)).solve(x, y, loss, null);
    QpReference ref = QpReference.of(ks, x, y, loss);
    double[] exact = ref.enumerate();
    // float columns: the solver optimises Q rounded to float (relative 6e-8)
    for (int i = 0; i < n; i++) assertEquals(exact[i], res.alpha()[i], 1e-6);
    KernelExpansion f = res.expansion(ks.create(), x, true);
    double b = 0;
    for (int i = 0; i < n; i++) b += y[i] * exact[i];
    assertEquals(b, f.bias(), 1e-6);
    double[][] q = QpReference.gram(ks, x, y, true);
    for (int i = 0; i < n; i++) {
      double yf = 0;
      for (int j = 0; j < n; j++) yf += q[i][j] * exact[j];
      assertEquals(yf, y[i] * f.decision(x[i]), 1e-6);
    }
    // without bias the expansion has b = 0 and keeps only the support vectors
    SolveResult nb = new KernelDualSolver(ks.create(), SolverOptions.defaults()).solve(x, y, Loss.hinge(2), null);
    KernelExpansion g = nb.expansion(ks.create(), x, false);
    assertEquals(0, g.bias(), 0);
    assertEquals(nb.report().supportVectors(), g.size());
  }
}
