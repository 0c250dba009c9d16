package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.linear.LinearPrimal;
import org.sodm.linear.OdmPrimal;
import org.sodm.linear.Vectors;

class LossTest {

  /**
   * A loss's dual and its linear primal describe one problem: on a linear kernel the dual optimum
   * gives w = sum_i coef_i x_i (bias: the augmented feature), and the primal of {@link Loss#primal()}
   * at w equals minus the dual optimum (duality gap 0).
   */
  @Test
  void dualAndPrimalAgreeAtTheOptimum() {
    Random r = new Random(21);
    Loss[] losses = {Loss.hinge(2), Loss.squaredHinge(0.7).withWeights(2, 0.5), Loss.odm(1.5, 0.2, 0.6),
        Loss.odm(0.8, 0.1, 0.9).withWeights(0.5, 3).withBias(true), Loss.hinge(1.3).withBias(true)};
    for (Loss loss : losses) {
      int n = 12;
      SparseVector[] x = QpReference.randomData(r, n, 3, 0.9);
      double[] y = QpReference.randomLabels(r, n);
      SolveResult res = new KernelDualSolver(KernelSpec.linear().create(), SolverOptions.defaults().withEps(1e-10))
          .solve(x, y, loss, null);
      LinearPrimal primal = loss.primal();
      double bf = primal.biasFeature();
      double[] w = new double[Vectors.dimension(x) + 1];
      for (int i = 0; i < n; i++) Vectors.axpy(res.coef()[i], x[i], w, bf);
      double lossSum = 0;
      for (int i = 0; i < n; i++) lossSum += primal.loss(y[i], y[i] * Vectors.dot(x[i], w, bf));
      double ww = Vectors.squaredNorm(w);
      // SvmLoss sums the losses; ODM's primal averages them (its dual's m = n)
      double p = primal instanceof OdmPrimal ? OdmPrimal.objective(ww, lossSum, n) : 0.5 * ww + lossSum;
      double d = res.report().dualObjective();
      assertEquals(0, p + d, 1e-6 * (1 + Math.abs(d)), loss + ": primal " + p + " dual " + d);
      assertEquals(p, res.report().primalObjective(), 1e-6 * (1 + Math.abs(p)), loss.toString());
    }
  }

  /** The order is chosen by the problem's capabilities: pairs for the hinge losses and ODM, only when asked. */
  @Test
  void descentFollowsTheProblemsCapabilities() {
    double[] y = {1, -1};
    SolverOptions o = SolverOptions.defaults();
    for (Loss l : new Loss[] {Loss.hinge(1), Loss.squaredHinge(1)}) {
      DualProblem p = l.dual(y, 2);
      assertInstanceOf(GreedyPairDescent.class, Descent.of(KernelDualSolver.Selection.GREEDY, p, o));
      assertEquals(GreedyDescent.class, Descent.of(KernelDualSolver.Selection.GREEDY, p, o.withPairs(false)).getClass());
      assertInstanceOf(RandomPermutationDescent.class, Descent.of(KernelDualSolver.Selection.RANDOM_PERMUTATION, p, o));
    }
    DualProblem odm = Loss.odm(1, 0, 1).dual(y, 2);
    assertTrue(odm.pairs().isEmpty()); // not a PairDual: its own pair steps
    assertInstanceOf(GreedyOdmPairDescent.class, Descent.of(KernelDualSolver.Selection.GREEDY, odm, o));
    assertEquals(GreedyDescent.class, Descent.of(KernelDualSolver.Selection.GREEDY, odm, o.withPairs(false)).getClass());
    assertInstanceOf(RandomPermutationDescent.class, Descent.of(KernelDualSolver.Selection.RANDOM_PERMUTATION, odm, o));
  }

  @Test
  void idsParametersAndTypedPrimals() {
    assertEquals("hinge", Loss.hinge(1).id());
    assertEquals("squared-hinge", Loss.squaredHinge(1).id());
    assertEquals("odm", Loss.odm(1, 0, 1).id());
    assertEquals(0.5 * 2, Loss.hinge(2).withWeights(3, 0.5).svmPrimal().cNeg());
    assertEquals(4 * 3, Loss.odm(4, 0.1, 0.5).withWeights(3, 1).odmPrimal().lambdaPos());
    assertTrue(Loss.odm(1, 0, 1).sizeDependent() && !Loss.hinge(1).sizeDependent());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Loss.odm(1, 0, 1).svmPrimal()).getMessage()
        .contains("BQO"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Loss.squaredHinge(1).odmPrimal()).getMessage()
        .contains("DSVRG"));
    for (Loss l : new Loss[] {Loss.hinge(2).withBias(true), Loss.squaredHinge(3).withWeights(2, 1),
        Loss.odm(2, 0.3, 0.4).withBias(true).withWeights(1, 5)}) {
      Loss.Weights w = l.weights();
      double c = l instanceof Loss.Hinge h ? h.c() : (l instanceof Loss.SquaredHinge s ? s.c() : 1);
      double[] odm = l instanceof Loss.Odm o ? new double[] {o.lambda(), o.theta(), o.mu()} : new double[] {1, 0, 1};
      assertEquals(l, Loss.of(l.id(), c, odm[0], odm[1], odm[2], l.bias(), w.positive(), w.negative()));
    }
  }

  @Test
  void nuAndHardMarginIdsAndTheirRefusals() {
    assertEquals("nu", Loss.canonicalId("nu-SVC"));
    assertEquals("hard-margin", Loss.canonicalId("HARD_MARGIN"));
    assertEquals(Loss.nu(0.3), Loss.of("nu", 1, 1, 0, 1, 0.3, false, 1, 1));
    assertTrue(((Loss.Nu) Loss.of("nu", 1, 1, 0, 1, false, 1, 1)).isDefault());
    assertEquals(Loss.hardMargin(), Loss.of("hard-margin", 1, 1, 0, 1, false, 1, 1));
    // the default nu of seed 002: 2 * 0.85 * min(n1, n2) / n
    assertEquals(2 * 0.85 * 30 / 100.0, Loss.nu(Double.NaN).resolve(70, 30), 1e-15);
    assertEquals(0.2, Loss.nu(0.2).resolve(70, 30));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Loss.nu(1.5)).getMessage().contains("nu must be in (0, 1], got 1.5"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Loss.nu(0)).getMessage().contains("nu must be in (0, 1], got 0.0"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Loss.of("nu", 1, 1, 0, 1, 0.5, true, 1, 1)).getMessage()
        .contains("bias option does not apply"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Loss.of("hard-margin", 1, 1, 0, 1, false, 2, 1)).getMessage()
        .contains("takes no class weights"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Loss.hardMargin().primal()).getMessage().contains("Saddle-SVC"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Loss.nu(0.5).dual(new double[] {1, -1}, 2)).getMessage()
        .contains("two equality constraints"));
  }

  /** The bound of each row is C times its class's weight; only alpha at that bound (relative 1e-9) counts. */
  @Test
  void hingeCountsTheSupportVectorsAtTheirBound() {
    Loss.Hinge h = new Loss.Hinge(2, false, new Loss.Weights(3, 0.5)); // bounds: +1 -> 6, -1 -> 1
    double[] y = {1, 1, 1, -1, -1, -1, 1};
    double[] alpha = {6, 6 * (1 - 1e-10), 1, 1, 1 - 1e-6, 0, 0};
    assertEquals(3, h.atUpperBound(alpha, y), "6, 6 (1 - 1e-10) and the negative's 1; not a positive at 1, 1 - 1e-6 or 0");
    assertEquals(0, h.atUpperBound(new double[] {0, 0}, new double[] {1, -1}));
    assertThrows(IllegalArgumentException.class, () -> h.atUpperBound(new double[1], new double[2]));
  }
}
