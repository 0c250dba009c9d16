package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

/**
 * {@link OffsetSvcSolver} against the KKT conditions of the C-SVC dual with an offset (an optimality certificate independent of
 * the solver: the problem is convex, so a feasible point meeting them is the optimum), with unequal class bounds; its warm
 * start; and its feasibility repair.
 */
class OffsetSvcSolverTest {
  private static SparseVector[] points(Random r, int n, int d, double[] y) {
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      y[i] = r.nextDouble() < 0.4 ? 1 : -1;
      double[] v = new double[d];
      for (int k = 0; k < d; k++) v[k] = r.nextGaussian() + (k == 0 ? 0.8 * y[i] : 0);
      x[i] = SparseVector.ofDense(v);
    }
    return x;
  }

  /** The largest KKT violation of (alpha, b): y_i f(x_i) >= 1 at 0, <= 1 at C, = 1 between. */
  private static double kkt(Kernel k, SparseVector[] x, double[] y, double[] c, OffsetSvcSolver.Result r) {
    double worst = 0;
    for (int i = 0; i < x.length; i++) {
      double f = r.bias();
      for (int j = 0; j < x.length; j++) if (r.alpha()[j] != 0) f += r.alpha()[j] * y[j] * k.eval(x[j], x[i]);
      double m = y[i] * f;
      double a = r.alpha()[i];
      double v = a <= 0 ? Math.max(0, 1 - m) : a >= c[i] ? Math.max(0, m - 1) : Math.abs(m - 1);
      worst = Math.max(worst, v);
    }
    return worst;
  }

  @Test
  void meetsTheKktConditionsWithUnequalBounds() {
    Random rnd = new Random(7);
    Kernel k = KernelSpec.rbf(0.5).create();
    for (int trial = 0; trial < 4; trial++) {
      int n = 80 + 20 * trial;
      double[] y = new double[n];
      SparseVector[] x = points(rnd, n, 3, y);
      double cPos = trial % 2 == 0 ? 1 : 4;
      double cNeg = 2;
      OffsetSvcSolver.Result r = new OffsetSvcSolver(k, SolverOptions.defaults().withEps(1e-8)).solve(x, y, cPos, cNeg, null);
      assertTrue(r.converged());
      double[] c = new double[n];
      double sum = 0;
      int free = 0;
      for (int i = 0; i < n; i++) {
        c[i] = y[i] > 0 ? cPos : cNeg;
        assertTrue(r.alpha()[i] >= 0 && r.alpha()[i] <= c[i], "box");
        sum += y[i] * r.alpha()[i];
        if (r.alpha()[i] > 0 && r.alpha()[i] < c[i]) free++;
      }
      assertEquals(0, sum, 1e-9, "sum y alpha");
      assertTrue(free > 0, "a problem with free variables (the offset from them)");
      assertTrue(kkt(k, x, y, c, r) < 1e-6, "trial " + trial + ": KKT violation " + kkt(k, x, y, c, r));
      assertNotEquals(0, r.bias(), "an offset");
      // the objective from alpha alone equals the one the solver reports (its G is from Q stored as float, as LIBSVM's)
      double obj = 0;
      for (int i = 0; i < n; i++) {
        obj -= r.alpha()[i];
        for (int j = 0; j < n; j++) obj += 0.5 * r.alpha()[i] * r.alpha()[j] * y[i] * y[j] * k.eval(x[i], x[j]);
      }
      assertEquals(obj, r.objective(), 1e-6 * Math.abs(obj));
    }
  }

  /** From a warm start (even an infeasible one) the same optimum: objective within 1e-9, in fewer iterations than from 0. */
  @Test
  void warmStartReachesTheSameOptimum() {
    Random rnd = new Random(11);
    Kernel k = KernelSpec.rbf(1).create();
    int n = 150;
    double[] y = new double[n];
    SparseVector[] x = points(rnd, n, 2, y);
    OffsetSvcSolver s = new OffsetSvcSolver(k, SolverOptions.defaults().withEps(1e-8));
    OffsetSvcSolver.Result cold = s.solve(x, y, 3, 3, null);
    double[] start = cold.alpha().clone();
    for (int i = 0; i < n; i++) start[i] = Math.min(3.5, start[i] * (1 + 0.3 * rnd.nextGaussian())); // perturbed, off the box
    OffsetSvcSolver.Result warm = s.solve(x, y, 3, 3, start);
    assertEquals(cold.objective(), warm.objective(), 1e-9 * Math.abs(cold.objective()));
    assertEquals(cold.bias(), warm.bias(), 1e-5);
    assertTrue(warm.iterations() < cold.iterations(), warm.iterations() + " vs " + cold.iterations());
  }

  /**
   * The end state's gradient and G_bar are Q a - e and sum_{a_i = C_i} C_i Q_i of its alpha (brute force, double kernel); a
   * start from it at 4x the bounds (unequal ones, shrinking on) begins where a start from the scaled alpha alone, which
   * computes G from the columns, begins (the same initial violation, 1e-6), reaches the KKT point of the new bounds and
   * evaluates fewer kernel entries than that start; bounds out of the state's ratio are refused.
   */
  @Test
  void scaledStartCarriesTheGradient() {
    Random rnd = new Random(13);
    Kernel k = KernelSpec.rbf(0.7).create();
    int n = 160;
    double[] y = new double[n];
    SparseVector[] x = points(rnd, n, 3, y);
    OffsetSvcSolver s = new OffsetSvcSolver(k, SolverOptions.defaults());
    OffsetSvcSolver.Result first = s.solve(x, y, 0.5, 1, null);
    OffsetSvcSolver.State st = first.state();
    assertSame(first.alpha(), st.alpha());
    int upper = 0;
    for (int i = 0; i < n; i++) {
      double qa = 0;
      double bar = 0;
      for (int j = 0; j < n; j++) {
        double qij = y[i] * y[j] * k.eval(x[i], x[j]);
        qa += qij * st.alpha()[j];
        if (st.alpha()[j] >= (y[j] > 0 ? 0.5 : 1)) bar += qij * (y[j] > 0 ? 0.5 : 1);
      }
      assertEquals(qa - 1, st.gradient()[i], 1e-5, "G_" + i);
      assertEquals(bar, st.gBar()[i], 1e-5, "G_bar_" + i);
      if (st.alpha()[i] >= (y[i] > 0 ? 0.5 : 1)) upper++;
    }
    assertTrue(upper > 5, "variables at the upper bound: " + upper);
    double[] start = new double[n];
    for (int i = 0; i < n; i++) start[i] = 4 * st.alpha()[i];
    OffsetSvcSolver.Result byColumns = s.solve(x, y, 2, 4, start);
    OffsetSvcSolver.Result carried = s.solveScaled(x, y, 2, 4, st);
    assertEquals(byColumns.initialViolation(), carried.initialViolation(), 1e-6 * byColumns.initialViolation());
    assertTrue(carried.initialViolation() > 1e-3, "the scaled start is not the new optimum");
    double[] c = new double[n];
    for (int i = 0; i < n; i++) c[i] = y[i] > 0 ? 2 : 4;
    assertTrue(kkt(k, x, y, c, carried) < 2e-3, "KKT violation " + kkt(k, x, y, c, carried));
    assertEquals(byColumns.objective(), carried.objective(), 1e-3 * n * 4);
    assertTrue(carried.kernelEvaluations() < byColumns.kernelEvaluations(),
        carried.kernelEvaluations() + " vs " + byColumns.kernelEvaluations());
    assertThrows(IllegalArgumentException.class, () -> s.solveScaled(x, y, 2, 3, st));
    assertThrows(IllegalArgumentException.class, () -> s.solveScaled(java.util.Arrays.copyOf(x, n - 1), y, 2, 4, st));
  }

  @Test
  void feasibleStartBalancesTheClassSums() {
    double[] y = {1, 1, -1, -1, -1};
    double[] c = {1, 1, 2, 2, 2};
    double[] a = OffsetSvcSolver.feasibleStart(y, c, new double[] {0.5, 3, 0.25, -1, 0.25});
    assertArrayEquals(new double[] {0.5 * 1.0 / 3 , 1.0 / 3, 0.25, 0, 0.25}, a, 1e-15); // 1.5 of +1 scaled to the 0.5 of -1
    double[] b = OffsetSvcSolver.feasibleStart(y, c, new double[] {0.2, 0.2, 0.5, 0.5, 0});
    assertArrayEquals(new double[] {0.2, 0.2, 0.2, 0.2, 0}, b, 1e-15);
  }

  /**
   * Rows of one class (a block or fold without the other): Sum y a = 0 leaves a = 0, and every b with y b &gt;= 1 has zero
   * hinge loss; the solve gives the finite end b = y (LIBSVM's midpoint would be infinite), so f = y on every row.
   */
  @Test
  void oneClassGivesTheFiniteOffsetY() {
    Random rnd = new Random(17);
    for (double label : new double[] {1, -1}) {
      double[] y = new double[40];
      SparseVector[] x = points(rnd, y.length, 3, y);
      java.util.Arrays.fill(y, label);
      OffsetSvcSolver.Result r = new OffsetSvcSolver(KernelSpec.rbf(0.5).create(), SolverOptions.defaults()).solve(x, y, 2, 3, null);
      assertEquals(label, r.bias(), 0.0, "b = y");
      for (double a : r.alpha()) assertEquals(0.0, a, 0.0);
      assertEquals(0.0, r.objective(), 0.0);
      assertEquals(0, r.supportVectors());
      assertTrue(r.converged());
    }
  }

  /** LIBSVM's shrinking changes the path, not the optimum: the same objective and offset on and off, alpha in input order. */
  @Test
  void shrinkingReachesTheSameOptimum() {
    Random rnd = new Random(3);
    Kernel k = KernelSpec.rbf(2).create();
    int n = 1500;
    double[] y = new double[n];
    SparseVector[] x = points(rnd, n, 4, y);
    SolverOptions base = SolverOptions.defaults().withEps(1e-6);
    OffsetSvcSolver.Result on = new OffsetSvcSolver(k, base.withShrinking(true)).solve(x, y, 10, 10, null);
    OffsetSvcSolver.Result off = new OffsetSvcSolver(k, base.withShrinking(false)).solve(x, y, 10, 10, null);
    assertTrue(on.converged() && off.converged());
    // with every column cached, shrinking shows as partial columns extended later and gradient rebuilds: other counts
    assertNotEquals(off.kernelEvaluations(), on.kernelEvaluations(), "the shrinking path ran");
    assertEquals(off.objective(), on.objective(), 1e-7 * Math.abs(off.objective()));
    assertEquals(off.bias(), on.bias(), 1e-4);
    double diff = 0;
    for (int i = 0; i < n; i++) diff = Math.max(diff, Math.abs(on.alpha()[i] - off.alpha()[i]));
    assertTrue(diff < 1e-3 * 10, "alpha by input position: max difference " + diff);
    double[] c = new double[n];
    java.util.Arrays.fill(c, 10);
    assertTrue(kkt(k, x, y, c, on) < 1e-4, "KKT of the shrunk run " + kkt(k, x, y, c, on));
  }

  /**
   * A cache that holds one column (the pair's second fetch recycles the first one's array) or none (both come through the one
   * working buffer) gives the same iterates as a cache of every column: the same iterations and alpha, bit for bit.
   */
  @Test
  void tinyCachesGiveTheSameIterates() {
    Random rnd = new Random(5);
    Kernel k = KernelSpec.rbf(1).create();
    int n = 300;
    double[] y = new double[n];
    SparseVector[] x = points(rnd, n, 3, y);
    SolverOptions base = SolverOptions.defaults().withEps(1e-5);
    OffsetSvcSolver.Result full = new OffsetSvcSolver(k, base).solve(x, y, 5, 5, null);
    long oneColumn = KernelCache.PER_POSITION_BYTES * n + 16 + 4L * n + 8; // the bookkeeping and one column of n floats
    for (long bytes : new long[] {oneColumn, 0}) {
      OffsetSvcSolver.Result tiny = new OffsetSvcSolver(k, base.withCacheBytes(bytes)).solve(x, y, 5, 5, null);
      assertTrue(tiny.peakCacheBytes() <= Math.max(bytes, KernelCache.PER_POSITION_BYTES * n), "peak " + tiny.peakCacheBytes());
      assertEquals(full.iterations(), tiny.iterations(), "cache of " + bytes + " bytes");
      assertArrayEquals(full.alpha(), tiny.alpha(), 0, "cache of " + bytes + " bytes");
      assertEquals(full.bias(), tiny.bias(), 0);
    }
    double[] c = new double[n];
    java.util.Arrays.fill(c, 5);
    assertTrue(kkt(k, x, y, c, full) < 1e-4, "KKT " + kkt(k, x, y, c, full));
  }

  /**
   * The second index of the working pair is LIBSVM's (select_working_set's loop over j, copied below branch for branch,
   * a division per candidate): the same index and the same max y_t G_t, bit for bit, on random positions with many exact
   * and near ties (gains equal, or one ulp apart) - what a shortcut that skipped a candidate too eagerly would get wrong.
   */
  @Test
  void secondIndexIsLibsvmsSelection() {
    Random rnd = new Random(11);
    for (int trial = 0; trial < 2000; trial++) {
      int n = 1 + rnd.nextInt(trial < 1000 ? 40 : 600);
      double[] y = new double[n];
      boolean[] lower = new boolean[n];
      boolean[] upper = new boolean[n];
      boolean[] inLow = new boolean[n];
      double[] g = new double[n];
      double[] qd = new double[n];
      float[] qi = new float[n];
      int distinct = 1 + rnd.nextInt(4); // few distinct (g, qd, Q_it) triples: exact ties
      double[][] pool = new double[distinct][];
      for (int k = 0; k < distinct; k++) pool[k] = new double[] {rnd.nextGaussian(), 0.5 + rnd.nextDouble(), rnd.nextFloat() * 2 - 1};
      for (int t = 0; t < n; t++) {
        y[t] = rnd.nextBoolean() ? 1 : -1;
        int st = rnd.nextInt(3);
        lower[t] = st == 0;
        upper[t] = st == 2;
        inLow[t] = y[t] > 0 ? !lower[t] : !upper[t];
        double[] p = pool[rnd.nextInt(distinct)];
        g[t] = rnd.nextInt(3) == 0 ? Math.nextUp(p[0]) : p[0]; // and ties one ulp apart
        qd[t] = rnd.nextInt(5) == 0 ? 0 : p[1]; // quad <= 0 now and then (TAU)
        qi[t] = (float) p[2];
      }
      int i = rnd.nextInt(n);
      double gmax = Math.abs(rnd.nextGaussian());
      double[] got2 = {Double.NEGATIVE_INFINITY};
      int got = OffsetSvcSolver.secondIndex(n, inLow, y, g, qd, qi, gmax, qd[i], 2.0 * y[i], got2);
      // LIBSVM 3.x Solver::select_working_set, the loop over j
      double gmax2 = Double.NEGATIVE_INFINITY;
      int gminIdx = -1;
      double objDiffMin = Double.POSITIVE_INFINITY;
      for (int j = 0; j < n; j++) {
        if (y[j] == +1) {
          if (!lower[j]) {
            double gradDiff = gmax + g[j];
            if (g[j] >= gmax2) gmax2 = g[j];
            if (gradDiff > 0) {
              double quad = qd[i] + qd[j] - 2.0 * y[i] * qi[j];
              double objDiff = quad > 0 ? -(gradDiff * gradDiff) / quad : -(gradDiff * gradDiff) / 1e-12;
              if (objDiff <= objDiffMin) {
                gminIdx = j;
                objDiffMin = objDiff;
              }
            }
          }
        } else {
          if (!upper[j]) {
            double gradDiff = gmax - g[j];
            if (-g[j] >= gmax2) gmax2 = -g[j];
            if (gradDiff > 0) {
              double quad = qd[i] + qd[j] + 2.0 * y[i] * qi[j];
              double objDiff = quad > 0 ? -(gradDiff * gradDiff) / quad : -(gradDiff * gradDiff) / 1e-12;
              if (objDiff <= objDiffMin) {
                gminIdx = j;
                objDiffMin = objDiff;
              }
            }
          }
        }
      }
      assertEquals(gminIdx, got, "trial " + trial);
      assertEquals(Double.doubleToLongBits(gmax2), Double.doubleToLongBits(got2[0]), "trial " + trial);
    }
  }
}
