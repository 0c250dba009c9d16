package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.OffsetSvcSolver;
import org.sodm.solver.SolverOptions;

/**
 * {@link CommonOffset} against the mean of y_i - f(x_i) summed term by term with the kernel, over every free support vector and
 * over the strided subset a small budget allows; and, for one block, against LIBSVM's own rule as {@link OffsetSvcSolver}
 * computes it from its gradient (b = -rho, rho the mean of y_i G_i over the free variables): the same quantity by a second
 * route.
 */
class CommonOffsetTest {
  private static final Kernel K = KernelSpec.rbf(0.7).create();

  private static SparseVector[] points(Random r, int n, double[] y) {
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      y[i] = r.nextDouble() < 0.45 ? 1 : -1;
      x[i] = SparseVector.ofDense(new double[] {r.nextGaussian() + 0.7 * y[i], r.nextGaussian(), r.nextGaussian() - 0.3 * y[i]});
    }
    return x;
  }

  /** Three blocks, each an {@link OffsetSvcSolver} solution of its own rows (C = 2), with their free masks. */
  private record Blocks(KernelModel model, boolean[][] free) {}

  private static Blocks blocks(int nb, int rows, long seed) {
    Random r = new Random(seed);
    KernelExpansion[] ex = new KernelExpansion[nb];
    boolean[][] free = new boolean[nb][];
    long[][] ids = new long[nb][];
    int[] blockIds = new int[nb];
    for (int b = 0; b < nb; b++) {
      double[] y = new double[rows];
      SparseVector[] x = points(r, rows, y);
      OffsetSvcSolver.Result res = new OffsetSvcSolver(K, SolverOptions.defaults().withEps(1e-6)).solve(x, y, 2, 2, null);
      int m = res.supportVectors();
      SparseVector[] sv = new SparseVector[m];
      double[] coef = new double[m];
      free[b] = new boolean[m];
      ids[b] = new long[m];
      for (int i = 0, t = 0; i < rows; i++) {
        double a = res.alpha()[i];
        if (a <= 0) continue;
        sv[t] = x[i];
        coef[t] = a * y[i];
        free[b][t] = a < 2;
        ids[b][t] = t++;
      }
      ex[b] = new KernelExpansion(K, sv, coef, res.bias());
      blockIds[b] = b;
    }
    KernelModel model = new KernelModel(KernelSpec.rbf(0.7), new org.sodm.solver.Loss.Hinge(2, false, org.sodm.solver.Loss.Weights.NONE),
        null, null, blockIds, ids, ex, null);
    return new Blocks(model, free);
  }

  /** The mean of sign(c_i) - (1/B) sum_b sum_j c_bj k(s_bj, s_i) over the free s_i, every {@code stride}-th of them. */
  private static double byHand(KernelModel m, boolean[][] free, int stride) {
    double sum = 0;
    int used = 0;
    int k = 0;
    for (int b = 0; b < m.blockCount(); b++) {
      for (int i = 0; i < m.block(b).size(); i++) {
        if (!free[b][i] || k++ % stride != 0) continue;
        SparseVector x = m.block(b).supportVector(i);
        double f = 0;
        for (int e = 0; e < m.blockCount(); e++) {
          for (int j = 0; j < m.block(e).size(); j++) f += m.block(e).coef(j) * K.eval(m.block(e).supportVector(j), x);
        }
        sum += Math.signum(m.block(b).coef(i)) - f / m.blockCount();
        used++;
      }
    }
    return sum / used;
  }

  @Test
  void meanOverTheFreeSupportVectorsOfTheAveragedFunction() {
    Blocks bl = blocks(3, 120, 1);
    CommonOffset.Result r = CommonOffset.of(bl.model(), bl.free(), CommonOffset.BUDGET);
    int free = 0;
    double mean = 0;
    for (int b = 0; b < 3; b++) {
      for (boolean f : bl.free()[b]) if (f) free++;
      mean += bl.model().block(b).bias() / 3;
    }
    assertTrue(free > 10, free + " free");
    assertEquals(free, r.free());
    assertEquals(free, r.used());
    assertEquals(mean, r.blockMean(), 1e-12);
    assertEquals(byHand(bl.model(), bl.free(), 1), r.offset(), 1e-9);
    assertNotEquals(r.blockMean(), r.offset(), 1e-3, "three blocks of their own: the averaged function's offset differs");
    // the model with it: every block's offset is the common one, the coefficients unchanged
    KernelModel w = bl.model().withBias(r.offset());
    for (int b = 0; b < 3; b++) {
      assertEquals(r.offset(), w.block(b).bias(), 0);
      assertArrayEquals(coefs(bl.model().block(b)), coefs(w.block(b)), 0);
    }
  }

  @Test
  void aSmallBudgetUsesEveryKthFreeSupportVector() {
    Blocks bl = blocks(3, 120, 2);
    long svs = bl.model().supportVectors();
    CommonOffset.Result all = CommonOffset.of(bl.model(), bl.free(), CommonOffset.BUDGET);
    long budget = all.free() * svs / 3; // stride ceil(free x svs / budget) = 3
    CommonOffset.Result r = CommonOffset.of(bl.model(), bl.free(), budget);
    assertEquals((all.free() + 2) / 3, r.used());
    assertEquals(byHand(bl.model(), bl.free(), 3), r.offset(), 1e-9);
  }

  @Test
  void oneBlockGivesTheSolversOwnOffset() {
    Blocks bl = blocks(1, 300, 3);
    CommonOffset.Result r = CommonOffset.of(bl.model(), bl.free(), CommonOffset.BUDGET);
    assertTrue(r.free() > 0);
    assertEquals(bl.model().block(0).bias(), r.offset(), 1e-7, "LIBSVM's -rho from the solver's gradient");
  }

  @Test
  void noFreeSupportVectorGivesNaN() {
    Blocks bl = blocks(2, 80, 4);
    boolean[][] none = new boolean[2][];
    for (int b = 0; b < 2; b++) none[b] = new boolean[bl.model().block(b).size()];
    CommonOffset.Result r = CommonOffset.of(bl.model(), none, CommonOffset.BUDGET);
    assertTrue(Double.isNaN(r.offset()));
    assertEquals(0, r.used());
    assertThrows(IllegalArgumentException.class, () -> CommonOffset.of(bl.model(), new boolean[1][], CommonOffset.BUDGET));
  }

  private static double[] coefs(KernelExpansion e) {
    double[] c = new double[e.size()];
    for (int i = 0; i < c.length; i++) c[i] = e.coef(i);
    return c;
  }
}
