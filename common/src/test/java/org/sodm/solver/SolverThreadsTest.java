package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

/**
 * The kernel solvers with their columns computed by several threads ({@link SolverOptions#threads}) give bit for bit the
 * one-thread solution (the one-thread solvers are checked against independent optima in their own tests). 2,000 rows of 100
 * features: a column is ~230,000 operations, above {@link Rows#PARALLEL_WORK}, so the columns are computed in parts.
 */
class SolverThreadsTest {
  private static final int N = 2_000;

  private static SparseVector[] rows(Random r, double[] y) {
    SparseVector[] x = new SparseVector[N];
    double[] w = new double[100];
    for (int f = 0; f < w.length; f++) w[f] = r.nextGaussian();
    for (int i = 0; i < N; i++) {
      double[] v = new double[100];
      double s = 0;
      for (int f = 0; f < v.length; f++) {
        v[f] = r.nextDouble() < 0.7 ? r.nextGaussian() : 0;
        s += w[f] * v[f];
      }
      y[i] = (s + 3 * r.nextGaussian() > 0) ? 1 : -1; // noisy: bounded and free support vectors
      x[i] = SparseVector.ofDense(v);
    }
    return x;
  }

  private static SolverOptions options(int threads) {
    return SolverOptions.defaults().withThreads(threads);
  }

  @Test
  void threadsGiveTheOneThreadSolution() {
    Random r = new Random(21);
    double[] y = new double[N];
    SparseVector[] x = rows(r, y);
    Kernel k = KernelSpec.rbf(0.01).create();
    assertTrue(N * (100 + 16) >= Rows.PARALLEL_WORK, "columns in parts");

    OffsetSvcSolver.Result o1 = new OffsetSvcSolver(k, options(1)).solve(x, y, 2, 2, null);
    OffsetSvcSolver.Result o3 = new OffsetSvcSolver(k, options(3)).solve(x, y, 2, 2, null);
    assertArrayEquals(o1.alpha(), o3.alpha(), 0.0, "LIBSVM's C-SVC with its offset");
    assertEquals(Double.doubleToLongBits(o1.bias()), Double.doubleToLongBits(o3.bias()));
    assertEquals(o1.iterations(), o3.iterations());

    for (Loss loss : new Loss[] {Loss.hinge(2), Loss.odm(1, 0.2, 0.6)}) {
      SolveResult s1 = new KernelDualSolver(k, options(1)).solve(x, y, loss, null);
      SolveResult s2 = new KernelDualSolver(k, options(2)).solve(x, y, loss, null);
      assertArrayEquals(s1.alpha(), s2.alpha(), 0.0, loss.toString());
      assertTrue(java.util.Arrays.stream(s1.alpha()).filter(a -> a != 0).count() > 100, "a solve with many support vectors");
    }

    NuSvcSolver.Result n1 = new NuSvcSolver(k, options(1)).solve(x, y, 0.3);
    NuSvcSolver.Result n2 = new NuSvcSolver(k, options(2)).solve(x, y, 0.3);
    assertArrayEquals(n1.a(), n2.a(), 0.0, "nu-SVC");
  }
}
