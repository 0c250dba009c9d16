package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.SparseVector;

/**
 * Multinomial logistic regression by TRON ({@link SoftmaxBlock} under {@link TronRank}): W against the optimum of an
 * independent solver (damped Newton's method on the dense Hessian, written here class-major from the formulas, solved by
 * Cholesky), the stop checked from the rows, 1 and 3 ranks, the Hessian of the accepted W after a trial step that was not
 * taken, the sums on 1 and 4 threads bit for bit, and a C path's stages at their optima.
 */
class SoftmaxTest {
  private static final int K = 3;
  private static final int DIM = 4;

  /** Three overlapping Gaussian classes in 4 features (one of them often absent), 360 rows. */
  static SparseVector[] x;
  static int[] y;

  static {
    SplittableRandom r = new SplittableRandom(11);
    int n = 360;
    x = new SparseVector[n];
    y = new int[n];
    double[][] centre = {{1, 0, 0.5, 0}, {0, 1, 0.5, 0.3}, {0.6, 0.6, 0, 1}};
    for (int i = 0; i < n; i++) {
      int c = i % 7 == 0 ? 2 : r.nextInt(K); // uneven classes
      List<Integer> idx = new ArrayList<>();
      List<Double> val = new ArrayList<>();
      for (int f = 0; f < DIM; f++) {
        if (f == 3 && r.nextInt(3) == 0) continue; // sparse
        idx.add(f + 1);
        val.add(centre[c][f] + 0.8 * r.nextGaussian());
      }
      x[i] = new SparseVector(idx.stream().mapToInt(Integer::intValue).toArray(), val.stream().mapToDouble(Double::doubleValue).toArray());
      y[i] = c;
    }
  }

  /** Row i's features with the bias feature (value bf) last. */
  private static double[] dense(int i, double bf) {
    double[] v = java.util.Arrays.copyOf(x[i].toDense(DIM), DIM + 1);
    v[DIM] = bf;
    return v;
  }

  /**
   * f, the gradient and the dense Hessian of the primal at W, class-major (class c's weights at c (DIM + 1) ..), from the
   * formulas and the rows alone.
   */
  static double primal(double[] wc, double[] cc, double bf, double[] g, double[][] h) {
    int d1 = DIM + 1;
    int n = K * d1;
    double f = 0.5 * Vectors.dot(wc, wc);
    if (g != null) System.arraycopy(wc, 0, g, 0, n);
    if (h != null) for (int a = 0; a < n; a++) {
      java.util.Arrays.fill(h[a], 0);
      h[a][a] = 1;
    }
    for (int i = 0; i < y.length; i++) {
      double[] xi = dense(i, bf);
      double[] z = new double[K];
      for (int c = 0; c < K; c++) for (int j = 0; j < d1; j++) z[c] += wc[c * d1 + j] * xi[j];
      double sum = 0;
      for (int c = 0; c < K; c++) sum += Math.exp(z[c]);
      double ci = cc[y[i]];
      f += ci * (Math.log(sum) - z[y[i]]);
      double[] p = new double[K];
      for (int c = 0; c < K; c++) p[c] = Math.exp(z[c]) / sum;
      if (g != null) for (int c = 0; c < K; c++) for (int j = 0; j < d1; j++) g[c * d1 + j] += ci * (p[c] - (c == y[i] ? 1 : 0)) * xi[j];
      if (h != null) {
        for (int c = 0; c < K; c++) for (int e = 0; e < K; e++) {
          double pce = ci * ((c == e ? p[c] : 0) - p[c] * p[e]);
          for (int j = 0; j < d1; j++) for (int l = 0; l < d1; l++) h[c * d1 + j][e * d1 + l] += pce * xi[j] * xi[l];
        }
      }
    }
    return f;
  }

  /** Class-major W to the solver's feature-major layout. */
  static double[] featureMajor(double[] wc) {
    int d1 = DIM + 1;
    double[] w = new double[wc.length];
    for (int c = 0; c < K; c++) for (int j = 0; j < d1; j++) w[j * K + c] = wc[c * d1 + j];
    return w;
  }

  /** The optimum by damped Newton's method (halving the step until f decreases), |grad| below 1e-10. */
  static double[] newton(double[] cc, double bf) {
    int n = K * (DIM + 1);
    double[] w = new double[n];
    double[] g = new double[n];
    double[][] h = new double[n][n];
    for (int it = 0; it < 200; it++) {
      double f = primal(w, cc, bf, g, h);
      if (Math.sqrt(Vectors.dot(g, g)) < 1e-10) return w;
      double[] step = TronTest.cholesky(h, g);
      for (double t = 1; ; t /= 2) {
        double[] next = w.clone();
        for (int a = 0; a < n; a++) next[a] -= t * step[a];
        if (primal(next, cc, bf, null, null) <= f || t < 1e-12) {
          w = next;
          break;
        }
      }
    }
    throw new AssertionError("Newton's method did not converge");
  }

  static Csr rows(int[] b, int rank, List<Integer> ys) {
    List<SparseVector> xs = new ArrayList<>();
    for (int i = 0; i < b.length; i++) {
      if (b[i] != rank) continue;
      xs.add(x[i]);
      ys.add(y[i]);
    }
    return Csr.of(xs.toArray(new SparseVector[0]));
  }

  static TronRank.State run(int k, double[] cc, boolean bias, double eps, int threads) throws Exception {
    int[] b = LinearTestData.randomBlocks(y.length, k, 5);
    List<TronRank.State> all = InProcessAllReduce.run(k, ar -> {
      List<Integer> ys = new ArrayList<>();
      Csr csr = rows(b, ar.rank(), ys);
      SoftmaxBlock block = new SoftmaxBlock(csr, ys.stream().mapToInt(Integer::intValue).toArray(), cc, DIM, bias, threads);
      TronRank r = new TronRank(block, block.size(), eps, 1000, null);
      ResidentLoop.run(r, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
      return TronRank.decodeState(r.globalState());
    });
    for (TronRank.State s : all) assertArrayEquals(all.get(0).point().w(), s.point().w(), "every rank holds the same W");
    return all.get(0);
  }

  /**
   * Class weights (C 2, 0.5, 1) and a bias, over 1 and 3 ranks at eps 1e-9: W within 1e-6 of Newton's optimum; at eps 0.01 the
   * run stops where |grad f| &lt;= 0.01 max(min_k n_k, 1) / n |grad f(0)|, recomputed from the rows.
   */
  @Test
  void reachesTheOptimumOfAnIndependentNewtonSolve() throws Exception {
    double[] cc = {2, 0.5, 1};
    double[] star = featureMajor(newton(cc, 1));
    int n = K * (DIM + 1);
    int[] counts = new int[K];
    for (int c : y) counts[c]++;
    int fewest = Math.min(counts[0], Math.min(counts[1], counts[2]));
    double g0;
    {
      double[] g = new double[n];
      primal(new double[n], cc, 1, g, null);
      g0 = Math.sqrt(Vectors.dot(g, g));
    }
    for (int k : new int[] {1, 3}) {
      TronRank.State tight = run(k, cc, true, 1e-9, 1);
      assertEquals(Tron.Status.CONVERGED, tight.point().status());
      double[] w = tight.point().w();
      for (int a = 0; a < n; a++) assertEquals(star[a], w[a], 1e-6 * Math.max(1, Math.abs(star[a])), k + " ranks, weight " + a);

      TronRank.State loose = run(k, cc, true, 0.01, 1);
      double[] wl = loose.point().w();
      double[] wc = new double[n];
      for (int c = 0; c < K; c++) for (int j = 0; j <= DIM; j++) wc[c * (DIM + 1) + j] = wl[j * K + c];
      double[] g = new double[n];
      double f = primal(wc, cc, 1, g, null);
      double gn = Math.sqrt(Vectors.dot(g, g));
      assertTrue(gn <= 0.01 * fewest / y.length * g0 * (1 + 1e-9), k + " ranks: |grad| " + gn);
      assertEquals(f, loose.last().f(), 1e-10 * f, "the recorded f is W's");
      assertTrue(loose.point().iterations() < tight.point().iterations());
    }
  }

  /** Without a bias the bias weights stay 0, and W is the optimum of the problem without the constant feature. */
  @Test
  void withoutABiasTheBiasWeightsStayZero() throws Exception {
    double[] cc = {1, 1, 1};
    double[] star = featureMajor(newton(cc, 0));
    double[] w = run(2, cc, false, 1e-9, 1).point().w();
    for (int a = 0; a < w.length; a++) assertEquals(star[a], w[a], 1e-6 * Math.max(1, Math.abs(star[a])), "weight " + a);
    for (int c = 0; c < K; c++) assertEquals(0.0, w[DIM * K + c]);
  }

  /**
   * The Hessian-vector product after a trial W's loss that was not taken is still the Hessian at the W of the last gradient;
   * the gradient and diagonal are the formulas'.
   */
  @Test
  void hessianIsTheAcceptedPointsAfterARejectedTrial() throws Exception {
    double[] cc = {1.5, 1, 0.7};
    int n = K * (DIM + 1);
    SplittableRandom r = new SplittableRandom(2);
    double[] wc = new double[n];
    double[] vc = new double[n];
    for (int a = 0; a < n; a++) {
      wc[a] = r.nextGaussian();
      vc[a] = r.nextGaussian();
    }
    double[] g = new double[n];
    double[][] h = new double[n][n];
    double f = primal(wc, cc, 1, g, h);
    SoftmaxBlock block = new SoftmaxBlock(Csr.of(x), y, cc, DIM, true, 1);
    double[] w = featureMajor(wc);
    assertEquals(f - 0.5 * Vectors.dot(w, w), block.loss(w), 1e-9 * f);
    double[] gd = new double[2 * n];
    block.gradient(gd, n);
    double[] trial = w.clone();
    for (int a = 0; a < n; a++) trial[a] += 3 * r.nextGaussian();
    block.loss(trial); // a trial step that is not taken
    double[] hv = new double[n];
    block.hessian(featureMajor(vc), hv);
    double[] expectG = featureMajor(g);
    double[] hvc = new double[n];
    double[] diagc = new double[n];
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) hvc[a] += h[a][b] * vc[b];
      hvc[a] -= vc[a]; // the regulariser's identity is the caller's
      diagc[a] = h[a][a] - 1;
    }
    double[] expectHv = featureMajor(hvc);
    double[] expectDiag = featureMajor(diagc);
    for (int a = 0; a < n; a++) {
      assertEquals(expectG[a] - w[a], gd[a], 1e-9 * Math.max(1, Math.abs(expectG[a])), "gradient " + a);
      assertEquals(expectDiag[a], gd[n + a], 1e-9 * Math.max(1, Math.abs(expectDiag[a])), "diagonal " + a);
      assertEquals(expectHv[a], hv[a], 1e-9 * Math.max(1, Math.abs(expectHv[a])), "Hessian-vector " + a);
    }
  }

  /** A block of more than one chunk: its sums on 1 and 4 threads are the same bit for bit. */
  /**
   * newGLMNET's dense Hessian of the softmax loss: two blocks' pairs, summed and folded, are the Hessian from the formulas (less
   * its identity, the regulariser's) at a W off the optimum, with and without the bias feature, in the solver's layout.
   */
  /**
   * newGLMNET's column form of the softmax Hessian: with q built by moves of a random d, every weight's hessianDot is (H d) from
   * the formulas (less the regulariser's identity) at a W off the optimum, with and without the bias feature.
   */
  @Test
  void columnsAreTheSoftmaxHessian() throws Exception {
    int d1 = DIM + 1;
    int n = K * d1;
    double[] cc = {2, 0.5, 1};
    double[] wc = new double[n];
    for (int a = 0; a < n; a++) wc[a] = 0.15 * (a % 7) - 0.4;
    java.util.Random r = new java.util.Random(6);
    double[] d = new double[n]; // feature-major, as W
    for (int a = 0; a < n; a++) d[a] = r.nextGaussian();
    for (double bf : new double[] {1, 0}) {
      double[][] h = new double[n][n];
      primal(wc, cc, bf, null, h);
      SoftmaxBlock block = new SoftmaxBlock(Csr.of(x), y, cc, DIM, bf != 0, 1);
      block.loss(featureMajor(wc));
      block.gradient(new double[n], n);
      TronBlock.Columns cols = block.columns(n);
      assertEquals(y.length, cols.rows());
      double[] q = new double[cols.scratch()];
      for (int a = 0; a < n; a++) cols.add(a, d[a], q);
      for (int c = 0; c < K; c++) for (int j = 0; j < d1; j++) {
        double want = 0;
        for (int e = 0; e < K; e++) for (int l = 0; l < d1; l++) {
          want += (h[c * d1 + j][e * d1 + l] - (c * d1 + j == e * d1 + l ? 1 : 0)) * d[l * K + e];
        }
        assertEquals(want, cols.hessianDot(j * K + c, q), 1e-10 * Math.max(1, Math.abs(want)), "bf " + bf + " (" + c + "," + j + ")");
      }
    }
  }

  @Test
  void densePairsAreTheSoftmaxHessian() throws Exception {
    int d1 = DIM + 1;
    int n = K * d1;
    double[] cc = {2, 0.5, 1};
    double[] wc = new double[n];
    for (int a = 0; a < n; a++) wc[a] = 0.15 * (a % 7) - 0.4;
    for (double bf : new double[] {1, 0}) {
      double[][] h = new double[n][n];
      primal(wc, cc, bf, null, h);
      double[] sum = new double[n * n];
      int[] b = new int[y.length];
      for (int i = 0; i < y.length; i++) b[i] = i % 2;
      for (int rank = 0; rank < 2; rank++) {
        List<Integer> ys = new ArrayList<>();
        SoftmaxBlock block = new SoftmaxBlock(rows(b, rank, ys), ys.stream().mapToInt(Integer::intValue).toArray(), cc, DIM, bf != 0, 1);
        assertTrue(block.densePairs());
        block.loss(featureMajor(wc));
        block.gradient(new double[n], n);
        double[] out = new double[2 + n * n];
        block.hessianPairs(out, 2, n);
        for (int a = 0; a < n * n; a++) sum[a] += out[2 + a];
      }
      GlmNet.symmetrize(sum, n);
      for (int c = 0; c < K; c++) for (int j = 0; j < d1; j++) for (int e = 0; e < K; e++) for (int l = 0; l < d1; l++) {
        double want = h[c * d1 + j][e * d1 + l] - (c * d1 + j == e * d1 + l ? 1 : 0);
        assertEquals(want, sum[(j * K + c) * n + l * K + e], 1e-10 * Math.max(1, Math.abs(want)), "bf " + bf + " (" + c + "," + j + ") (" + e + "," + l + ")");
      }
    }
  }

  /**
   * Multinomial L1 by newGLMNET and by OWL-QN (C 1, 0.5, 2 with a bias, 2 ranks, eps 1e-8) and by newGLMNET's column form (1 rank):
   * the same f to 1e-10 and W to 1e-5, the pseudo-gradient from the formulas below 1e-6 of its value at 0 - newGLMNET in far fewer
   * iterations.
   */
  @Test
  void multinomialL1ByNewGlmnetAndOwlqn() throws Exception {
    double[] cc = {1, 0.5, 2};
    int n = K * (DIM + 1);
    TronRank.State[] st = new TronRank.State[3];
    TronRank.Solver[] solvers = {TronRank.Solver.GLMNET, TronRank.Solver.OWLQN, TronRank.Solver.GLMNET_COLUMNS};
    for (int s = 0; s < 3; s++) {
      TronRank.Solver solver = solvers[s];
      int ranks = solver == TronRank.Solver.GLMNET_COLUMNS ? 1 : 2; // the column form: every row on one rank
      int[] b = LinearTestData.randomBlocks(y.length, ranks, 3);
      st[s] = InProcessAllReduce.run(ranks, ar -> {
        List<Integer> ys = new ArrayList<>();
        SoftmaxBlock block = new SoftmaxBlock(rows(b, ar.rank(), ys), ys.stream().mapToInt(Integer::intValue).toArray(), cc, DIM, true, 1);
        TronRank r = new TronRank(block, n, 1e-8, 5000, null, null, solver);
        ResidentLoop.run(r, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
        return TronRank.decodeState(r.globalState());
      }).get(0);
    }
    double[] fs = new double[3];
    for (int s = 0; s < 3; s++) {
      double[] w = st[s].point().w();
      double[] wc = new double[n];
      for (int c = 0; c < K; c++) for (int j = 0; j <= DIM; j++) wc[c * (DIM + 1) + j] = w[j * K + c];
      double[] g = new double[n];
      double f = primal(wc, cc, 1, g, null); // 1/2 |W|^2 + loss: take the regulariser out for L1
      double l1 = 0;
      for (int a = 0; a < n; a++) {
        g[a] -= wc[a];
        f -= 0.5 * wc[a] * wc[a];
        l1 += Math.abs(wc[a]);
      }
      fs[s] = f + l1;
      double[] g0 = new double[n];
      primal(new double[n], cc, 1, g0, null);
      double pg = OwlqnTest.norm(L1Run.pseudoGradient(wc, g));
      assertTrue(pg <= 1e-6 * OwlqnTest.norm(L1Run.pseudoGradient(new double[n], g0)), solvers[s] + ": |pseudo-gradient| " + pg);
    }
    assertEquals(fs[1], fs[0], 1e-10 * fs[1]);
    assertEquals(fs[1], fs[2], 1e-10 * fs[1], "by column");
    for (int a = 0; a < n; a++) assertEquals(st[1].point().w()[a], st[0].point().w()[a], 1e-5, "weight " + a);
    for (int a = 0; a < n; a++) assertEquals(st[1].point().w()[a], st[2].point().w()[a], 1e-5, "by column, weight " + a);
    assertTrue(2 * st[0].point().iterations() < st[1].point().iterations(),
        "newGLMNET " + st[0].point().iterations() + ", OWL-QN " + st[1].point().iterations());
  }

  @Test
  void manyChunksSumTheSameOnAnyNumberOfThreads() throws Exception {
    int rows = SoftmaxBlock.CHUNK * 5 / 2;
    SparseVector[] xs = new SparseVector[rows];
    int[] ys = new int[rows];
    for (int i = 0; i < rows; i++) {
      xs[i] = x[i % x.length];
      ys[i] = y[i % y.length];
    }
    Csr csr = Csr.of(xs);
    int n = K * (DIM + 1);
    double[] w = new double[n];
    double[] v = new double[n];
    for (int a = 0; a < n; a++) {
      w[a] = 0.1 * (a % 5) - 0.2;
      v[a] = 1 - 0.3 * (a % 4);
    }
    double[][] got = new double[2][];
    int[] threads = {1, 4};
    for (int t = 0; t < 2; t++) {
      SoftmaxBlock b = new SoftmaxBlock(csr, ys, new double[] {1, 2, 0.5}, DIM, true, threads[t]);
      double[] all = new double[1 + 3 * n + n * n];
      all[0] = b.loss(w);
      double[] g = new double[2 * n];
      b.gradient(g, n);
      double[] hv = new double[n];
      b.hessian(v, hv);
      System.arraycopy(g, 0, all, 1, 2 * n);
      System.arraycopy(hv, 0, all, 1 + 2 * n, n);
      b.hessianPairs(all, 1 + 3 * n, n); // newGLMNET's dense Hessian
      got[t] = all;
    }
    assertArrayEquals(got[0], got[1], "1 and 4 threads");
  }

  /** A C path (C = 1/4, 1, 4) over 2 ranks: every stage at Newton's optimum of its C, in fewer iterations than cold starts. */
  @Test
  void aPathOfCEndsEachStageAtItsOptimum() throws Exception {
    double[] scales = {0.25, 1, 4};
    int[] b = LinearTestData.randomBlocks(y.length, 2, 9);
    List<List<BqoPath.Solved>> all = InProcessAllReduce.run(2, ar -> {
      List<Integer> ys = new ArrayList<>();
      Csr csr = rows(b, ar.rank(), ys);
      int[] yi = ys.stream().mapToInt(Integer::intValue).toArray();
      TronPath p = new TronPath(s -> new SoftmaxBlock(csr, yi, new double[] {s, s, s}, DIM, true, 1), K * (DIM + 1), scales, 1e-9, 1000,
          null);
      ResidentLoop.run(p, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
      return p.solved();
    });
    int warm = 0;
    int cold = 0;
    for (int s = 0; s < scales.length; s++) {
      double c = scales[s];
      double[] star = featureMajor(newton(new double[] {c, c, c}, 1));
      double[] w = all.get(0).get(s).w();
      for (int a = 0; a < w.length; a++) assertEquals(star[a], w[a], 1e-6 * Math.max(1, Math.abs(star[a])), "C " + c + ", weight " + a);
      warm += all.get(0).get(s).iterations();
      cold += run(2, new double[] {c, c, c}, true, 1e-9, 1).point().iterations() - 1;
    }
    assertTrue(warm < cold, "warm " + warm + " cold " + cold);
  }
}
