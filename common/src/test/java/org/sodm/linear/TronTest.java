package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.LibsvmReader;
import org.sodm.solver.Loss;

/**
 * Logistic regression by TRON over ranks ({@link TronRank}): its w against the optimum of an independent solver (Newton's method
 * with the dense Hessian solved by Cholesky, to machine precision), LIBLINEAR's stop checked from the rows, the same optimum
 * over 1 and 3 ranks, and a resumed run identical to an uninterrupted one.
 */
class TronTest {
  /** Gradient and dense Hessian of the primal at w, from the rows (no code of the solver under test). */
  static double[][] derivatives(LibsvmReader.Data d, double[] w, LogisticPrimal loss, double[][] hessian) {
    int n = w.length;
    double bf = loss.biasFeature();
    double[] g = w.clone();
    for (int a = 0; a < n; a++) {
      java.util.Arrays.fill(hessian[a], 0);
      hessian[a][a] = 1;
    }
    for (int i = 0; i < d.y().length; i++) {
      double[] x = java.util.Arrays.copyOf(d.x()[i].toDense(n - 1), n);
      x[n - 1] = bf;
      double z = 0;
      for (int a = 0; a < n; a++) z += w[a] * x[a];
      double yi = d.y()[i];
      double c = yi > 0 ? loss.cPos() : loss.cNeg();
      double p = 1 / (1 + Math.exp(-yi * z));
      for (int a = 0; a < n; a++) {
        g[a] += c * (p - 1) * yi * x[a];
        for (int b = 0; b < n; b++) hessian[a][b] += c * p * (1 - p) * x[a] * x[b];
      }
    }
    return new double[][] {g};
  }

  /** The optimum by Newton's method (full steps; the problem is strongly convex and smooth), |grad| below 1e-10. */
  static double[] newton(LibsvmReader.Data d, int n, LogisticPrimal loss) {
    double[] w = new double[n];
    double[][] h = new double[n][n];
    for (int it = 0; it < 100; it++) {
      double[] g = derivatives(d, w, loss, h)[0];
      if (Math.sqrt(Vectors.dot(g, g)) < 1e-10) return w;
      double[] step = cholesky(h, g);
      for (int a = 0; a < n; a++) w[a] -= step[a];
    }
    throw new AssertionError("Newton's method did not converge");
  }

  /** Solves H s = g for a symmetric positive definite H. */
  static double[] cholesky(double[][] h, double[] g) {
    int n = g.length;
    double[][] l = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j <= i; j++) {
        double s = h[i][j];
        for (int k = 0; k < j; k++) s -= l[i][k] * l[j][k];
        l[i][j] = i == j ? Math.sqrt(s) : s / l[j][j];
      }
    }
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      double s = g[i];
      for (int k = 0; k < i; k++) s -= l[i][k] * y[k];
      y[i] = s / l[i][i];
    }
    double[] x = new double[n];
    for (int i = n - 1; i >= 0; i--) {
      double s = y[i];
      for (int k = i + 1; k < n; k++) s -= l[k][i] * x[k];
      x[i] = s / l[i][i];
    }
    return x;
  }

  static double gradientNorm(LibsvmReader.Data d, double[] w, LogisticPrimal loss) {
    double[] g = derivatives(d, w, loss, new double[w.length][w.length])[0];
    return Math.sqrt(Vectors.dot(g, g));
  }

  /** Every rank's final state (the same on all), over {@code k} ranks of the rows dealt by {@code b}. */
  static TronRank.State run(LibsvmReader.Data d, int[] b, int k, int dim, LogisticPrimal loss, double eps, MemoryCheckpoints ckpt,
      ResidentLoop.Policy policy) throws Exception {
    List<TronRank.State> all = InProcessAllReduce.run(k, ar -> {
      List<Double> ys = new ArrayList<>();
      Csr x = BqoPathTest.rows(d, b, ar.rank(), ys);
      int start = ckpt.committed() > 0 && !ckpt.done() ? ckpt.committed() : 0;
      TronRank r = new TronRank(new LogisticBlock(x, ys.stream().mapToDouble(Double::doubleValue).toArray(), loss), dim + 1, eps, 1000,
          start > 0 ? ckpt.globalState() : null);
      ResidentLoop.run(r, start, ar, policy, ckpt, null);
      return TronRank.decodeState(r.globalState());
    });
    for (TronRank.State s : all) assertArrayEquals(all.get(0).point().w(), s.point().w(), "every rank holds the same w");
    return all.get(0);
  }

  /**
   * svmguide1 with a bias and class weights (C+ = 2, C- = 0.5), over 1 and 3 ranks at eps 1e-8: w within 1e-6 (relative) of
   * Newton's optimum on both; at LIBLINEAR's default eps 0.01 the run stops where |grad f(w)| &lt;= 0.01 min(n+, n-) / n
   * |grad f(0)| holds, recomputed from the rows, with f above the optimum by less than 1e-3 relative.
   */
  @Test
  void reachesTheOptimumOfAnIndependentNewtonSolveOnOneAndThreeRanks() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    LogisticPrimal loss = Loss.logistic(1).withBias(true).withWeights(2, 0.5).logisticPrimal();
    double[] star = newton(d, dim + 1, loss);
    double fStar = primal(d, star, loss);
    for (int k : new int[] {1, 3}) {
      int[] b = LinearTestData.randomBlocks(d.x().length, k, 5);
      TronRank.State tight = run(d, b, k, dim, loss, 1e-8, new MemoryCheckpoints(), ResidentLoop.Policy.none());
      assertEquals(Tron.Status.CONVERGED, tight.point().status());
      double[] w = tight.point().w();
      for (int a = 0; a <= dim; a++) assertEquals(star[a], w[a], 1e-6 * Math.max(1, Math.abs(star[a])), k + " ranks, weight " + a);
      assertEquals(fStar, tight.last().f(), 1e-10 * fStar, "the recorded f is w's");

      TronRank.State loose = run(d, b, k, dim, loss, 0.01, new MemoryCheckpoints(), ResidentLoop.Policy.none());
      long pos = java.util.Arrays.stream(d.y()).filter(y -> y > 0).count();
      double rel = 0.01 * Math.min(pos, d.y().length - pos) / d.y().length;
      double g0 = gradientNorm(d, new double[dim + 1], loss);
      double g = gradientNorm(d, loose.point().w(), loss);
      assertTrue(g <= rel * g0 * (1 + 1e-9), k + " ranks: |grad| " + g + " above " + rel * g0);
      double f = primal(d, loose.point().w(), loss);
      assertTrue(f >= fStar * (1 - 1e-12) && (f - fStar) / fStar < 1e-3, "f " + f + " optimum " + fStar);
      assertTrue(loose.point().iterations() < tight.point().iterations(), "a looser stop takes fewer iterations");
    }
  }

  /** Without a bias, the bias weight stays 0 and w is Newton's optimum of the problem without the constant feature. */
  @Test
  void withoutABiasTheBiasWeightStaysZero() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    LogisticPrimal loss = Loss.logistic(4).logisticPrimal();
    double[] star = newton(d, dim + 1, loss);
    TronRank.State s = run(d, LinearTestData.randomBlocks(d.x().length, 2, 9), 2, dim, loss, 1e-8, new MemoryCheckpoints(),
        ResidentLoop.Policy.none());
    assertEquals(0.0, s.point().w()[dim]);
    for (int a = 0; a < dim; a++) assertEquals(star[a], s.point().w()[a], 1e-6 * Math.max(1, Math.abs(star[a])), "weight " + a);
  }

  /** A rank failing at trial 4 (checkpoints every 2 trials): the resumed run ends with the same w, bit for bit, and history. */
  @Test
  void aResumedRunEndsIdentically() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    LogisticPrimal loss = Loss.logistic(2).withBias(true).logisticPrimal();
    int[] b = LinearTestData.randomBlocks(d.x().length, 3, 5);
    TronRank.State full = run(d, b, 3, dim, loss, 1e-6, new MemoryCheckpoints(), ResidentLoop.Policy.none());
    assertTrue(full.history().size() > 5, "trials " + full.history().size());
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    assertThrows(ResidentLoop.PlantedFault.class, () -> run(d, b, 3, dim, loss, 1e-6, ckpt, new ResidentLoop.Policy(2, 0, 2, 4)));
    assertEquals(4, ckpt.committed());
    TronRank.State resumed = run(d, b, 3, dim, loss, 1e-6, ckpt, ResidentLoop.Policy.none());
    assertArrayEquals(full.point().w(), resumed.point().w());
    assertEquals(full.history(), resumed.history());
  }

  /** Every rank's finished stages of a path over C = 1/4, 1, 4 on 3 ranks (the same on all). */
  static List<BqoPath.Solved> runPath(LibsvmReader.Data d, int[] b, int dim, LogisticPrimal base, MemoryCheckpoints ckpt,
      ResidentLoop.Policy policy) throws Exception {
    List<List<BqoPath.Solved>> all = InProcessAllReduce.run(3, ar -> {
      List<Double> ys = new ArrayList<>();
      Csr x = BqoPathTest.rows(d, b, ar.rank(), ys);
      int start = ckpt.committed() > 0 && !ckpt.done() ? ckpt.committed() : 0;
      TronPath p = new TronPath(x, ys.stream().mapToDouble(Double::doubleValue).toArray(), dim, base, new double[] {1, 4, 16}, 1e-6,
          1000, start > 0 ? ckpt.globalState() : null);
      ResidentLoop.run(p, start, ar, policy, ckpt, null);
      return BqoPath.solvedOf(p.globalState());
    });
    for (List<BqoPath.Solved> s : all) for (int k = 0; k < 3; k++) assertArrayEquals(all.get(0).get(k).w(), s.get(k).w());
    return all.get(0);
  }

  /**
   * A warm-started C path (C = 1/4, 1, 4 with a bias): every stage at its own optimum (Newton's, 1e-5), in fewer Newton
   * iterations in all than cold starts; a fault in the second stage resumed from a checkpoint ends with every stage bit for bit.
   */
  @Test
  void aCPathReachesEachOptimumWarmAndResumesIdentically() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    int[] b = LinearTestData.randomBlocks(d.x().length, 3, 5);
    LogisticPrimal base = Loss.logistic(0.25).withBias(true).logisticPrimal();
    List<BqoPath.Solved> path = runPath(d, b, dim, base, new MemoryCheckpoints(), ResidentLoop.Policy.none());
    int warm = 0;
    int cold = 0;
    for (int k = 0; k < 3; k++) {
      LogisticPrimal at = new LogisticPrimal(0.25 * Math.pow(4, k), 0.25 * Math.pow(4, k), true);
      double[] star = newton(d, dim + 1, at);
      BqoPath.Solved s = path.get(k);
      assertTrue(s.converged(), "stage " + k);
      for (int a = 0; a <= dim; a++) assertEquals(star[a], s.w()[a], 1e-5 * Math.max(1, Math.abs(star[a])), "C stage " + k + ", w" + a);
      assertEquals(primal(d, s.w(), at), s.primal(), 1e-9 * s.primal(), "the recorded f is w's at that C");
      warm += s.iterations();
      cold += run(d, b, 3, dim, at, 1e-6, new MemoryCheckpoints(), ResidentLoop.Policy.none()).point().iterations() - 1;
    }
    assertTrue(warm < cold, "the path took " + warm + " Newton iterations, cold starts " + cold);
    int failAt = path.get(0).iterations() + 3;
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    assertThrows(ResidentLoop.PlantedFault.class, () -> runPath(d, b, dim, base, ckpt, new ResidentLoop.Policy(2, 0, 1, failAt)));
    List<BqoPath.Solved> resumed = runPath(d, b, dim, base, ckpt, ResidentLoop.Policy.none());
    for (int k = 0; k < 3; k++) {
      assertArrayEquals(path.get(k).w(), resumed.get(k).w());
      assertEquals(path.get(k).iterations(), resumed.get(k).iterations());
    }
  }

  /**
   * A block of more than one chunk: its sums (newGLMNET's dense Hessian too) on 1 and 4 threads are the same bit for bit (the
   * chunks are added in order), and the same as row-by-row sums to rounding.
   */
  @Test
  void aBlockOfManyChunksSumsTheSameOnAnyNumberOfThreads() throws Exception {
    int n = LogisticBlock.CHUNK * 5 / 2;
    java.util.SplittableRandom r = new java.util.SplittableRandom(3);
    org.sodm.data.SparseVector[] x = new org.sodm.data.SparseVector[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = new org.sodm.data.SparseVector(new int[] {1 + r.nextInt(2), 3 + r.nextInt(3)}, new double[] {r.nextDouble(), r.nextDouble()});
      y[i] = r.nextBoolean() ? 1 : -1;
    }
    Csr csr = Csr.of(x);
    LogisticPrimal loss = Loss.logistic(2).withBias(true).withWeights(1, 3).logisticPrimal();
    double[] w = {0.3, -0.2, 0.5, 0.1, -0.4, 0.25};
    double[] v = {1, -1, 0.5, 2, 0, -0.3};
    double[][] got = new double[2][];
    int[] threads = {1, 4};
    for (int k = 0; k < 2; k++) {
      LogisticBlock b = new LogisticBlock(csr, y, loss, threads[k]);
      double f = b.loss(w);
      double[] g = new double[12];
      b.gradient(g, 6);
      double[] hv = new double[6];
      b.hessian(v, hv);
      double[] all = new double[19 + 36];
      all[0] = f;
      System.arraycopy(g, 0, all, 1, 12);
      System.arraycopy(hv, 0, all, 13, 6);
      b.hessianPairs(all, 19, 6); // newGLMNET's dense Hessian, at the same point
      got[k] = all;
    }
    assertArrayEquals(got[0], got[1], "1 and 4 threads");
    double f = 0;
    double[] g = new double[6];
    double[] hv = new double[6];
    for (int i = 0; i < n; i++) {
      double[] xi = java.util.Arrays.copyOf(x[i].toDense(5), 6);
      xi[5] = 1;
      double m = 0;
      double xv = 0;
      for (int a = 0; a < 6; a++) {
        m += w[a] * xi[a];
        xv += v[a] * xi[a];
      }
      double c = loss.c(y[i]);
      double p = 1 / (1 + Math.exp(-y[i] * m));
      f += c * Math.log1p(Math.exp(-y[i] * m));
      for (int a = 0; a < 6; a++) {
        g[a] += c * (p - 1) * y[i] * xi[a];
        hv[a] += c * p * (1 - p) * xv * xi[a];
      }
    }
    assertEquals(f, got[0][0], 1e-9 * f);
    for (int a = 0; a < 6; a++) {
      assertEquals(g[a], got[0][1 + a], 1e-9 * Math.abs(f), "gradient " + a);
      assertEquals(hv[a], got[0][13 + a], 1e-9 * Math.abs(f), "Hv " + a);
    }
    double[] h = java.util.Arrays.copyOfRange(got[0], 19, 55);
    GlmNet.symmetrize(h, 6);
    for (int a = 0; a < 6; a++) {
      double hva = 0;
      for (int c = 0; c < 6; c++) hva += h[a * 6 + c] * v[c];
      assertEquals(hv[a], hva, 1e-9 * Math.abs(f), "the dense Hessian times v, " + a);
    }
  }

  @Test
  void logisticHasNoKernelDual() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Loss.logistic(1).dual(new double[] {1}, 1));
    assertTrue(e.getMessage().contains("--kernel linear"), e.getMessage());
    assertEquals("logistic", Loss.canonicalId("LR"));
  }

  static double primal(LibsvmReader.Data d, double[] w, LogisticPrimal loss) {
    double p = 0.5 * Vectors.dot(w, w);
    for (int i = 0; i < d.y().length; i++) p += loss.loss(d.y()[i], d.y()[i] * Vectors.dot(d.x()[i], w, loss.biasFeature()));
    return p;
  }
}
