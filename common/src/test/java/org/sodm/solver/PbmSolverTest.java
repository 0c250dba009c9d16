package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.LibsvmReader;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.data.StatsAccumulator;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

/** PBM in one process: reaches the single-node optimum; the step never increases f. */
class PbmSolverTest {
  private static LibsvmReader.Data svmguide1;

  static synchronized LibsvmReader.Data svmguide1() throws Exception {
    if (svmguide1 == null) {
      String p = System.getProperty("sodm.project.dir");
      Path d = p != null ? Paths.get(p) : Paths.get("").toAbsolutePath();
      while (!Files.isDirectory(d.resolve("sample-data"))) d = d.getParent();
      LibsvmReader.Data raw = LibsvmReader.read(d.resolve("sample-data/svmguide1"));
      StatsAccumulator acc = new StatsAccumulator();
      for (int i = 0; i < raw.size(); i++) acc.add(raw.labels()[i], raw.x()[i], i + 1, "x");
      LibsvmReader.Data all = raw.scaled(Scaler.fromStats(acc.toAvro(), 0, 1));
      // every 8th row (386 rows): PBM's tail on this strongly coupled kernel (gamma 2 on [0,1]^4)
      // is slow (see the class comment of PbmSolver), so the unit test keeps the problem small
      int m = (all.size() + 7) / 8;
      SparseVector[] x = new SparseVector[m];
      double[] y = new double[m];
      for (int i = 0; i < m; i++) {
        x[i] = all.x()[8 * i];
        y[i] = all.y()[8 * i];
      }
      svmguide1 = new LibsvmReader.Data(x, new String[m], all.labelMap(), y);
    }
    return svmguide1;
  }

  /** A seeded balanced random partition (each block gets every K-th instance of a permutation). */
  static int[] partition(int n, int k, long seed) {
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) perm[i] = i;
    Random r = new Random(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    int[] b = new int[n];
    for (int i = 0; i < n; i++) b[perm[i]] = i % k;
    return b;
  }

  private static double reference(Kernel k, LibsvmReader.Data d, Loss loss) {
    SolveResult ref = new KernelDualSolver(k, new SolverOptions(1e-6, 100000, true, 64L << 20, 7))
        .solve(d.x(), d.y(), loss, null);
    assertTrue(ref.report().converged());
    return ref.report().dualObjective();
  }

  private static void check(Loss loss, int[] ks, PbmSolver.Options opts) throws Exception {
    LibsvmReader.Data d = svmguide1();
    Kernel k = KernelSpec.rbf(2).create();
    double ref = reference(k, d, loss);
    for (int blocks : ks) {
      PbmSolver.Result r = PbmSolver.solve(k, d.x(), d.y(), loss, partition(d.size(), blocks, blocks), blocks, null,
          opts.withReference(ref, 1e-4));
      double rel = Math.abs(r.objective() - ref) / Math.abs(ref);
      String what = loss + " K=" + blocks + " iterations " + r.history().size() + " rel " + rel;
      assertTrue(r.converged(), what);
      assertTrue(rel <= 1e-4, what);
      // monotone: f(alpha_t) never increases
      for (int t = 1; t < r.history().size(); t++) {
        assertTrue(r.history().get(t).objective() <= r.history().get(t - 1).objective() + 1e-9 * Math.abs(ref), what + " at " + t);
      }
      // the reported objective is that of the returned alpha (qg kept exactly)
      DualProblem p = loss.dual(d.y(), d.size());
      double[] gamma = new double[d.size()];
      for (int i = 0; i < gamma.length; i++) gamma[i] = p.gamma(r.alpha(), i);
      double[] qg = PbmSolver.multiply(PbmSolver.problemKernel(k, loss), d.x(), d.y(), gamma, d.x(), d.y());
      assertEquals(p.dualObjective(r.alpha(), qg), r.objective(), 1e-8 * Math.abs(ref), what);
    }
  }

  @Test
  void hingeReachesTheSingleNodeOptimumWith2To8Blocks() throws Exception {
    check(Loss.hinge(2), new int[] {2, 4, 8}, PbmSolver.Options.defaults().withTolerance(1e-3).withInnerEps(1e-4).withMaxIterations(4000));
  }

  @Test
  void hingeWithBiasAndArmijo() throws Exception {
    check(Loss.hinge(2).withBias(true), new int[] {4}, PbmSolver.Options.defaults().withTolerance(1e-3).withInnerEps(1e-4).withMaxIterations(4000));
    check(Loss.hinge(2), new int[] {4},
        PbmSolver.Options.defaults().withTolerance(1e-3).withInnerEps(1e-4).withMaxIterations(4000).withRule(PbmStep.Rule.ARMIJO));
  }

  @Test
  void odmReachesTheSingleNodeOptimum() throws Exception {
    check(Loss.odm(100, 0.5, 0.5), new int[] {2, 4, 8}, PbmSolver.Options.defaults().withTolerance(3e-4).withInnerEps(1e-5).withMaxIterations(4000));
  }

  /**
   * Property: for random feasible alpha and random feasible targets alpha + d, the step computed
   * from the aggregated scalars never increases the true objective, keeps alpha in the box, and
   * the predicted change equals the true change.
   */
  @Test
  void stepNeverIncreasesTheObjectiveAndRespectsTheBounds() {
    Random r = new Random(5);
    Kernel k = KernelSpec.rbf(0.8).create();
    for (int rep = 0; rep < 300; rep++) {
      int n = 2 + r.nextInt(30);
      SparseVector[] x = QpReference.randomData(r, n, 3, 0.8);
      double[] y = QpReference.randomLabels(r, n);
      Loss loss = switch (rep % 4) {
        case 0 -> Loss.hinge(0.1 + 3 * r.nextDouble());
        case 1 -> Loss.squaredHinge(0.1 + 3 * r.nextDouble());
        case 2 -> Loss.odm(0.5 + 5 * r.nextDouble(), 0.4 * r.nextDouble(), 0.2 + 0.8 * r.nextDouble());
        default -> Loss.hinge(1).withBias(true);
      };
      DualProblem p = loss.dual(y, n);
      int vpi = p.variablesPerInstance();
      double c = rep % 4 == 2 ? 1 : loss.svmPrimal().cPos(); // ODM: the scale 1
      double[] a = new double[n * vpi];
      double[] b = new double[n * vpi];
      for (int j = 0; j < a.length; j++) {
        a[j] = r.nextDouble() < 0.3 ? 0 : r.nextDouble() * c * 1.2;
        b[j] = r.nextDouble() < 0.3 ? (r.nextBoolean() ? 0 : c) : r.nextDouble() * c * 1.2;
      }
      for (int i = 0; i < n; i++) {
        p.project(a, i);
        p.project(b, i);
      }
      Kernel pk = PbmSolver.problemKernel(k, loss);
      double[] ga = new double[n];
      double[] dg = new double[n];
      for (int i = 0; i < n; i++) {
        ga[i] = p.gamma(a, i);
        dg[i] = p.gamma(b, i) - ga[i];
      }
      double[] qg = PbmSolver.multiply(pk, x, y, ga, x, y);
      double[] qd = PbmSolver.multiply(pk, x, y, dg, x, y);
      double slope = 0;
      double curv = 0;
      double[] w = a.clone();
      for (int i = 0; i < n; i++) {
        double s0 = p.separable(a, i);
        System.arraycopy(b, i * vpi, w, i * vpi, vpi);
        double s1 = p.separable(w, i) - s0;
        for (int v = 0; v < vpi; v++) w[i * vpi + v] = 2 * b[i * vpi + v] - a[i * vpi + v];
        double s2 = p.separable(w, i) - s0;
        System.arraycopy(a, i * vpi, w, i * vpi, vpi);
        slope += qg[i] * dg[i] + s1 - (s2 - 2 * s1) / 2;
        curv += dg[i] * qd[i] + (s2 - 2 * s1);
      }
      for (PbmStep.Rule rule : PbmStep.Rule.values()) {
        double beta = PbmStep.step(rule, slope, curv, 0.01);
        assertTrue(beta >= 0 && beta <= 1, "beta " + beta);
        double[] nb = new double[a.length];
        for (int j = 0; j < a.length; j++) nb[j] = a[j] + beta * (b[j] - a[j]);
        double[] nq = new double[n];
        double[] ng = new double[n];
        for (int i = 0; i < n; i++) {
          double[] copy = nb.clone();
          assertTrue(!p.project(copy, i) || maxDiff(copy, nb) < 1e-12, "alpha + beta d leaves the box");
          ng[i] = p.gamma(nb, i);
        }
        nq = PbmSolver.multiply(pk, x, y, ng, x, y);
        double f0 = p.dualObjective(a, qg);
        double f1 = p.dualObjective(nb, nq);
        double scale = 1e-9 * (1 + Math.abs(f0));
        assertTrue(f1 <= f0 + scale, rule + " increased f: " + f0 + " -> " + f1);
        assertEquals(f1 - f0, PbmStep.change(beta, slope, curv), scale * 10, rule + " predicted change");
        if (rule == PbmStep.Rule.EXACT) {
          // optimal on [0, 1]: no other point of a grid is lower
          for (double t = 0; t <= 1.0; t += 0.05) {
            assertTrue(PbmStep.change(beta, slope, curv) <= PbmStep.change(t, slope, curv) + 1e-12 * (1 + Math.abs(f0)));
          }
        }
      }
    }
  }

  private static double maxDiff(double[] a, double[] b) {
    double m = 0;
    for (int i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
    return m;
  }

  /** The block subproblem's direction is the exact block optimum: with one block PBM is one solve. */
  @Test
  void oneBlockIsTheSingleNodeSolveInOneIteration() throws Exception {
    LibsvmReader.Data d = svmguide1();
    Kernel k = KernelSpec.rbf(2).create();
    double ref = reference(k, d, Loss.hinge(2));
    PbmSolver.Result r = PbmSolver.solve(k, d.x(), d.y(), Loss.hinge(2), new int[d.size()], 1, null,
        PbmSolver.Options.defaults().withTolerance(1e-5).withInnerEps(1e-6).withMaxIterations(3));
    assertTrue(r.history().size() <= 3, "iterations " + r.history());
    assertEquals(1.0, r.history().get(0).beta(), 1e-6);
    assertEquals(ref, r.objective(), 1e-5 * Math.abs(ref));
  }
}
