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
 * {@link CommonOffset}: its minimiser against brute force (the objective at every breakpoint, the minimum of a convex piecewise
 * linear function is at one); the model's offset against the hinge objective summed term by term with the kernel; the strided
 * subset of a small budget; and, for one block, LIBSVM's own offset as {@link OffsetSvcSolver} computes it from its gradient
 * (b = -rho over the free variables): the same quantity by a second route.
 */
class CommonOffsetTest {
  private static final Kernel K = KernelSpec.rbf(0.7).create();

  private static double objective(double[] f, double[] y, double[] w, double b) {
    double s = 0;
    for (int i = 0; i < f.length; i++) s += w[i] * Math.max(0, 1 - y[i] * (f[i] + b));
    return s;
  }

  @Test
  void minimiserIsTheBestBreakpoint() {
    Random r = new Random(9);
    for (int trial = 0; trial < 200; trial++) {
      int n = 1 + r.nextInt(40);
      double[] f = new double[n];
      double[] y = new double[n];
      double[] w = new double[n];
      for (int i = 0; i < n; i++) {
        y[i] = r.nextBoolean() ? 1 : -1;
        f[i] = trial % 3 == 0 ? r.nextInt(5) - 2 : 3 * r.nextGaussian(); // integers: ties and flat stretches
        w[i] = trial % 2 == 0 ? 1 : 0.5 + r.nextDouble();
      }
      double best = Double.POSITIVE_INFINITY;
      for (int i = 0; i < n; i++) best = Math.min(best, objective(f, y, w, y[i] > 0 ? 1 - f[i] : -1 - f[i]));
      double b = CommonOffset.hingeMinimiser(f, y, w);
      assertEquals(best, objective(f, y, w, b), 1e-9 * Math.max(1, best), "trial " + trial);
    }
  }

  /**
   * The scaled fit against brute force: sum_i w_i max(0, 1 - y_i (a f_i + b)) is convex and piecewise linear in (a, b), so its
   * minimum over a in [1/R, R] is at a vertex, where two kinks y_i (a f_i + b) = 1 meet, or on a = 1/R or a = R at a kink; every
   * one is evaluated. And the offset b / a follows f's scale: offset(c f) = c offset(f).
   */
  @Test
  void theScaledFitIsTheBestScaleAndOffset() {
    Random r = new Random(21);
    double range = CommonOffset.SCALE_RANGE;
    int inside = 0;
    for (int trial = 0; trial < 150; trial++) {
      int n = 2 + r.nextInt(30);
      double[] f = new double[n];
      double[] y = new double[n];
      double[] w = new double[n];
      double shrink = trial % 2 == 0 ? 0.2 : 1; // an averaged function smaller than its blocks
      for (int i = 0; i < n; i++) {
        y[i] = r.nextDouble() < 0.4 ? 1 : -1;
        f[i] = shrink * (0.8 * y[i] + r.nextGaussian());
        w[i] = y[i] > 0 ? 1.5 : 1;
      }
      double best = Double.POSITIVE_INFINITY;
      for (int i = 0; i < n; i++) {
        for (double a : new double[] {1 / range, range}) best = Math.min(best, objective(scale(f, a), y, w, y[i] - a * f[i]));
        for (int j = 0; j < n; j++) {
          if (f[i] == f[j]) continue;
          double a = (y[i] - y[j]) / (f[i] - f[j]);
          if (a >= 1 / range && a <= range) best = Math.min(best, objective(scale(f, a), y, w, y[i] - a * f[i]));
        }
      }
      double[] ab = CommonOffset.scaledHinge(f, y, w);
      assertTrue(ab[0] >= 1 / range && ab[0] <= range, "a " + ab[0]);
      assertEquals(best, objective(scale(f, ab[0]), y, w, ab[1]), 1e-7 * Math.max(1, best), "trial " + trial);
      double o = CommonOffset.scaledHingeOffset(f, y, w);
      assertEquals(ab[1] / ab[0], o, 0);
      // 3 f: the same minimum (at a third of the scale), whatever the minimiser where it is not unique; unless the minimum
      // is at an end of the range, which is not the same for 3 f
      if (ab[0] > 10 / range && ab[0] < range / 10) {
        double[] ab3 = CommonOffset.scaledHinge(scale(f, 3), y, w);
        assertEquals(best, objective(scale(f, 3 * ab3[0]), y, w, ab3[1]), 1e-7 * Math.max(1, best), "trial " + trial + " at 3 f");
        inside++;
      }
    }
    assertTrue(inside > 100, "most minima inside the range: " + inside);
  }

  /** On data where the unit scale is wrong (f a fifth of the labels' scale, more negatives), the fit moves the offset. */
  @Test
  void aShrunkFunctionGetsTheOffsetOfItsScale() {
    Random r = new Random(4);
    int n = 400;
    double[] f = new double[n];
    double[] y = new double[n];
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      y[i] = i % 3 == 0 ? 1 : -1;
      f[i] = 0.2 * (y[i] + 0.6 * r.nextGaussian()); // sign(f) is right for most rows, |f| well inside the unit margin
      w[i] = 1;
    }
    double unit = CommonOffset.hingeMinimiser(f, y, w);
    double fitted = CommonOffset.scaledHingeOffset(f, y, w);
    assertEquals(5 * CommonOffset.scaledHingeOffset(f, y, w), CommonOffset.scaledHingeOffset(scale(f, 5), y, w), 1e-9);
    int errUnit = 0;
    int errFitted = 0;
    for (int i = 0; i < n; i++) {
      if (y[i] * (f[i] + unit) <= 0) errUnit++;
      if (y[i] * (f[i] + fitted) <= 0) errFitted++;
    }
    assertTrue(errFitted < errUnit, "the fitted offset " + fitted + " errs on " + errFitted + " rows, the unit-scale " + unit + " on " + errUnit);
  }

  private static double[] scale(double[] f, double a) {
    double[] s = new double[f.length];
    for (int i = 0; i < f.length; i++) s[i] = a * f[i];
    return s;
  }

  /**
   * The by-class minimiser is the general one: exactly with weights whose sums are exact (ties included: integer f), and
   * to the objective's rounding with any two weights.
   */
  @Test
  void theByClassMinimiserIsTheGeneralOne() {
    Random r = new Random(13);
    for (int trial = 0; trial < 400; trial++) {
      int n = 1 + r.nextInt(60);
      double[] f = new double[n];
      double[] y = new double[n];
      double[] w = new double[n];
      boolean exact = trial % 2 == 0;
      double wPos = exact ? 1.5 : 0.3 + r.nextDouble();
      double wNeg = exact ? 0.75 : 0.3 + r.nextDouble();
      for (int i = 0; i < n; i++) {
        y[i] = r.nextDouble() < 0.35 ? 1 : -1;
        f[i] = trial % 4 < 2 ? r.nextInt(5) - 2 : 2 * r.nextGaussian();
        w[i] = y[i] > 0 ? wPos : wNeg;
      }
      double general = CommonOffset.hingeMinimiser(f, y, w);
      double byClass = CommonOffset.hingeMinimiserByClass(f, y, wPos, wNeg);
      if (exact) assertEquals(general, byClass, 0, "trial " + trial);
      double best = objective(f, y, w, general);
      assertEquals(best, objective(f, y, w, byClass), 1e-12 * Math.max(1, best), "trial " + trial);
    }
  }

  /** Blocks, each an {@link OffsetSvcSolver} solution of its own rows (C = 2), as a model of averaged blocks. */
  private static KernelModel blocks(int nb, int rows, long seed) {
    return blocks(nb, rows, 0, seed);
  }

  /** As above, the first {@code shared} rows (vectors and labels) the same in every block. */
  private static KernelModel blocks(int nb, int rows, int shared, long seed) {
    Random r = new Random(seed);
    SparseVector[] common = new SparseVector[shared];
    double[] commonY = new double[shared];
    for (int i = 0; i < shared; i++) {
      commonY[i] = r.nextDouble() < 0.4 ? 1 : -1;
      common[i] = SparseVector.ofDense(new double[] {r.nextGaussian() + 0.7 * commonY[i], r.nextGaussian(), r.nextGaussian()});
    }
    KernelExpansion[] ex = new KernelExpansion[nb];
    long[][] ids = new long[nb][];
    int[] blockIds = new int[nb];
    for (int b = 0; b < nb; b++) {
      double[] y = new double[rows];
      SparseVector[] x = new SparseVector[rows];
      for (int i = 0; i < rows; i++) {
        if (i < shared) {
          y[i] = commonY[i];
          x[i] = SparseVector.ofDense(common[i].toDense(3)); // equal, not the same object
          continue;
        }
        y[i] = r.nextDouble() < 0.4 ? 1 : -1;
        x[i] = SparseVector.ofDense(new double[] {r.nextGaussian() + 0.7 * y[i], r.nextGaussian(), r.nextGaussian() - 0.3 * y[i]});
      }
      OffsetSvcSolver.Result res = new OffsetSvcSolver(K, SolverOptions.defaults().withEps(1e-7)).solve(x, y, 2, 2, null);
      double[] coef = new double[rows];
      for (int i = 0; i < rows; i++) coef[i] = res.alpha()[i] * y[i];
      ex[b] = KernelExpansion.nonZero(K, x, coef, res.bias());
      ids[b] = new long[ex[b].size()];
      blockIds[b] = b;
    }
    return new KernelModel(KernelSpec.rbf(0.7), new org.sodm.solver.Loss.Hinge(2, false, org.sodm.solver.Loss.Weights.NONE), null,
        null, blockIds, ids, ex, null);
  }

  /**
   * {C+ P / p, C- N / q} for every {@code stride}-th support vector: P, N the +1 and -1 support vectors of the model, p, q those
   * of them in the subset, counted here from the coefficients' signs.
   */
  private static double[] strideWeights(KernelModel m, double cPos, double cNeg, int stride) {
    long[] all = new long[2];
    long[] used = new long[2];
    int k = 0;
    for (int e = 0; e < m.blockCount(); e++) {
      for (int i = 0; i < m.block(e).size(); i++) {
        int c = m.block(e).coef(i) > 0 ? 0 : 1;
        all[c]++;
        if (k++ % stride == 0) used[c]++;
      }
    }
    return new double[] {cPos * all[0] / used[0], cNeg * all[1] / used[1]};
  }

  /**
   * sum_i C_i hinge(y_i (f(x_i) + b)) over every {@code stride}-th support vector, f summed with the kernel, C_i the class's
   * bound times its share among all the support vectors over its share in the subset ({@link #strideWeights}).
   */
  private static double byHand(KernelModel m, double cPos, double cNeg, int stride, double b) {
    double[] cw = strideWeights(m, cPos, cNeg, stride);
    cPos = cw[0];
    cNeg = cw[1];
    double sum = 0;
    int k = 0;
    for (int e = 0; e < m.blockCount(); e++) {
      for (int i = 0; i < m.block(e).size(); i++) {
        if (k++ % stride != 0) continue;
        SparseVector x = m.block(e).supportVector(i);
        double f = 0;
        for (int d = 0; d < m.blockCount(); d++) {
          for (int j = 0; j < m.block(d).size(); j++) f += m.block(d).coef(j) * K.eval(m.block(d).supportVector(j), x);
        }
        double y = m.block(e).coef(i) > 0 ? 1 : -1;
        sum += (y > 0 ? cPos : cNeg) * Math.max(0, 1 - y * (f / m.blockCount() + b));
      }
    }
    return sum;
  }

  @Test
  void theOffsetMinimisesTheHingeOfTheAveragedFunction() {
    KernelModel m = blocks(3, 120, 1);
    CommonOffset.Result r = CommonOffset.of(m, 2, 3, CommonOffset.BUDGET);
    assertEquals(m.supportVectors(), r.supportVectors());
    assertEquals(m.supportVectors(), r.used());
    double mean = 0;
    for (int b = 0; b < 3; b++) mean += m.block(b).bias() / 3;
    assertEquals(mean, r.blockMean(), 1e-12);
    double at = byHand(m, 2, 3, 1, r.offset());
    for (double d : new double[] {-0.3, -0.05, -1e-3, 1e-3, 0.05, 0.3}) {
      assertTrue(at <= byHand(m, 2, 3, 1, r.offset() + d) + 1e-9, "b + " + d + " is better");
    }
    assertTrue(at < byHand(m, 2, 3, 1, mean), "the blocks' mean offset is worse for the averaged function");
    KernelModel w = m.withBias(r.offset());
    for (int b = 0; b < 3; b++) {
      assertEquals(r.offset(), w.block(b).bias(), 0);
      for (int i = 0; i < m.block(b).size(); i++) assertEquals(m.block(b).coef(i), w.block(b).coef(i), 0);
    }
  }

  /**
   * Blocks that share rows (as an averaged tree's blocks do): a support vector of several blocks is scored once, and the
   * offset is the minimiser of the hinge over every block's support vectors, each scored by hand with the kernel.
   */
  @Test
  void sharedSupportVectorsAreScoredOnceAndCountedInEveryBlock() {
    KernelModel m = blocks(3, 90, 40, 5);
    java.util.Set<java.util.List<Double>> distinct = new java.util.HashSet<>();
    int n = (int) m.supportVectors();
    double[] f = new double[n];
    double[] y = new double[n];
    double[] w = new double[n];
    int k = 0;
    for (int e = 0; e < m.blockCount(); e++) {
      for (int i = 0; i < m.block(e).size(); i++, k++) {
        SparseVector x = m.block(e).supportVector(i);
        distinct.add(java.util.Arrays.stream(x.toDense(3)).boxed().toList());
        for (int d = 0; d < m.blockCount(); d++) {
          for (int j = 0; j < m.block(d).size(); j++) f[k] += m.block(d).coef(j) * K.eval(m.block(d).supportVector(j), x);
        }
        f[k] /= m.blockCount();
        y[k] = m.block(e).coef(i) > 0 ? 1 : -1;
        w[k] = y[k] > 0 ? 2 : 3;
      }
    }
    assertTrue(distinct.size() < n - 20, "the test's premise: blocks share support vectors (" + distinct.size() + " of " + n + ")");
    CommonOffset.Result r = CommonOffset.of(m, 2, 3, CommonOffset.BUDGET);
    assertEquals(n, r.used());
    assertEquals(distinct.size(), r.scored(), "each distinct support vector scored once");
    assertEquals(CommonOffset.hingeMinimiser(f, y, w), r.offset(), 1e-9);

    // a budget for every second support vector: the scoring of the distinct ones among those (not the merged expansion's)
    int used = (n + 1) / 2;
    double[] f2 = new double[used];
    double[] y2 = new double[used];
    double[] w2 = new double[used];
    java.util.Set<java.util.List<Double>> distinct2 = new java.util.HashSet<>();
    double[] cw = strideWeights(m, 2, 3, 2);
    for (int i = 0, t = 0; i < n; i += 2, t++) {
      f2[t] = f[i];
      y2[t] = y[i];
      w2[t] = y[i] > 0 ? cw[0] : cw[1];
    }
    k = 0;
    for (int e = 0; e < m.blockCount(); e++) {
      for (int i = 0; i < m.block(e).size(); i++, k++) {
        if (k % 2 == 0) distinct2.add(java.util.Arrays.stream(m.block(e).supportVector(i).toDense(3)).boxed().toList());
      }
    }
    CommonOffset.Result half = CommonOffset.of(m, 2, 3, (long) used * n);
    assertEquals(used, half.used());
    assertTrue(distinct2.size() < used, "the premise: the used ones share vectors too");
    assertEquals(distinct2.size(), half.scored());
    assertEquals(CommonOffset.hingeMinimiser(f2, y2, w2), half.offset(), 1e-9);
  }

  @Test
  void aSmallBudgetUsesEveryKthSupportVector() {
    KernelModel m = blocks(3, 120, 2);
    long svs = m.supportVectors();
    CommonOffset.Result r = CommonOffset.of(m, 1, 1, (svs + 2) / 3 * svs); // stride 3
    assertEquals((svs + 2) / 3, r.used());
    double at = byHand(m, 1, 1, 3, r.offset());
    for (double d : new double[] {-0.1, -1e-3, 1e-3, 0.1}) assertTrue(at <= byHand(m, 1, 1, 3, r.offset() + d) + 1e-9, "b + " + d);
  }

  /**
   * A subset whose class shares are not the model's weighs each class as all its support vectors do. Two blocks of 8 support
   * vectors, the pattern (+x, +x, -z, +x) repeated (12 positives, 4 negatives; every positive at x, every negative at z, so
   * one breakpoint P = 1 - f(x) for the positives and Q = -1 - f(z) &lt; P for the negatives). All 16: the slope is -12 + 4
   * past Q, so the minimiser is P. Every second vector (a budget of 8 x 16): 4 positives and 4 negatives - unweighted, the
   * slope is 0 past Q and the minimiser the midpoint of Q and P; weighted 12/4 and 4/4, P again.
   */
  @Test
  void aSubsetWeighsEachClassAsTheWholeModelDoes() {
    SparseVector x = SparseVector.ofDense(new double[] {0.3, -0.2});
    SparseVector z = SparseVector.ofDense(new double[] {-0.4, 0.5});
    KernelExpansion[] ex = new KernelExpansion[2];
    for (int b = 0; b < 2; b++) {
      SparseVector[] sv = new SparseVector[8];
      double[] coef = new double[8];
      for (int i = 0; i < 8; i++) {
        boolean neg = i % 4 == 2;
        sv[i] = neg ? z : x;
        coef[i] = neg ? -0.1 : 0.1;
      }
      ex[b] = KernelExpansion.nonZero(K, sv, coef, 0);
    }
    KernelModel m = new KernelModel(KernelSpec.rbf(0.7), new org.sodm.solver.Loss.Hinge(1, false, org.sodm.solver.Loss.Weights.NONE),
        null, null, new int[] {0, 1}, new long[2][8], ex, null);
    double fx = m.withBias(0).decisionPrepared(x);
    double fz = m.withBias(0).decisionPrepared(z);
    double p = 1 - fx;
    double q = -1 - fz;
    assertTrue(q < p, "the premise: Q < P");
    CommonOffset.Result all = CommonOffset.of(m, 1, 1, CommonOffset.BUDGET);
    assertEquals(16, all.used());
    assertEquals(p, all.offset(), 1e-12);
    CommonOffset.Result half = CommonOffset.of(m, 1, 1, 8 * 16);
    assertEquals(8, half.used());
    assertEquals(p, half.offset(), 1e-12, "unweighted it would be the midpoint " + (p + q) / 2);
    assertArrayEquals(new double[] {3, 1}, CommonOffset.classWeights(1, 1, 12, 4, 4, 4), 0);
    assertArrayEquals(new double[] {2, 3}, CommonOffset.classWeights(2, 3, 12, 4, 12, 4), 0, "every vector used: C+ and C-");
  }

  /** However small the budget, at least minUsed support vectors stand for the rest (every k-th, k = floor(svs / minUsed)). */
  @Test
  void aFloorOfSupportVectorsBeatsTheBudget() {
    KernelModel m = blocks(3, 120, 2);
    long svs = m.supportVectors();
    assertTrue(svs >= 200, "the premise: " + svs + " support vectors");
    CommonOffset.Result few = CommonOffset.of(m, 1, 1, 1);
    assertEquals(1, few.used(), "the budget alone: one vector");
    int floor = (int) (svs / 3);
    CommonOffset.Result r = CommonOffset.of(m, 1, 1, 1, floor);
    assertEquals((svs + 2) / 3, r.used(), "stride 3");
    assertTrue(r.used() >= floor);
    assertEquals(CommonOffset.of(m, 1, 1, (svs + 2) / 3 * svs).offset(), r.offset(), 0, "the same vectors as the stride-3 budget");
    assertEquals(svs, CommonOffset.of(m, 1, 1, 1, (int) svs + 5).used(), "a floor above the count: all of them");
  }

  /** A budget below the model's size (it used to loop forever): one support vector stands for all. */
  @Test
  void aBudgetBelowTheModelsSizeUsesOneVector() {
    KernelModel m = blocks(3, 120, 2);
    long svs = m.supportVectors();
    CommonOffset.Result r = CommonOffset.of(m, 1, 1, 1);
    assertEquals(1, r.used());
    assertEquals(svs, r.supportVectors());
    assertTrue(Double.isFinite(r.offset()));
  }

  @Test
  void oneBlockGivesTheSolversOwnOffset() {
    KernelModel m = blocks(1, 300, 3);
    CommonOffset.Result r = CommonOffset.of(m, 2, 2, CommonOffset.BUDGET);
    assertEquals(m.block(0).bias(), r.offset(), 1e-5, "LIBSVM's -rho from the solver's gradient");
  }

  @Test
  void refusesBadBounds() {
    KernelModel m = blocks(2, 60, 4);
    assertThrows(IllegalArgumentException.class, () -> CommonOffset.of(m, 0, 1, CommonOffset.BUDGET));
    assertThrows(IllegalArgumentException.class, () -> CommonOffset.hingeMinimiser(new double[0], new double[0], new double[0]));
  }
}
