package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.SparseVector;

/**
 * The L2-SVM's primal on the primal Newton methods ({@link SquaredHingeBlock}: LIBLINEAR's {@code -s 2} by TRON, {@code -s 5}
 * with |w|_1): the block's sums against the formulas written from the rows; TRON's w against the optimum of dual coordinate
 * descent (LIBLINEAR's {@code -s 1}, written here); the L1 optimum by newGLMNET's two forms and OWL-QN against accelerated
 * proximal gradient ({@link OwlqnTest#proximal}).
 */
class SquaredHingeTest {
  static double[] dense(SparseVector x, int n, double bf) {
    double[] v = new double[n];
    for (int k = 0; k < x.indices().length; k++) if (x.indices()[k] < n) v[x.indices()[k] - 1] = x.values()[k];
    v[n - 1] = bf;
    return v;
  }

  /** sum_i C_i max(0, 1 - y_i w'x_i)^2, with |w|_1 times l1 and 1/2 |w|^2 times l2 added. */
  static double objective(SparseVector[] x, double[] y, double[] w, SvmLoss loss, double l1, double l2) {
    double f = 0;
    for (double v : w) f += l1 * Math.abs(v) + l2 / 2 * v * v;
    for (int i = 0; i < y.length; i++) {
      double xi = Math.max(0, 1 - y[i] * Vectors.dot(dense(x[i], w.length, loss.biasFeature()), w));
      f += (y[i] > 0 ? loss.cPos() : loss.cNeg()) * xi * xi;
    }
    return f;
  }

  /** grad of the loss: sum over the rows with xi_i > 0 of -2 C_i xi_i y_i x_i. */
  static double[] gradient(SparseVector[] x, double[] y, double[] w, SvmLoss loss) {
    double[] g = new double[w.length];
    for (int i = 0; i < y.length; i++) {
      double[] xi = dense(x[i], w.length, loss.biasFeature());
      double e = 1 - y[i] * Vectors.dot(xi, w);
      if (e <= 0) continue;
      double a = -2 * (y[i] > 0 ? loss.cPos() : loss.cNeg()) * e * y[i];
      for (int j = 0; j < w.length; j++) g[j] += a * xi[j];
    }
    return g;
  }

  /** The generalised Hessian: sum over the rows with xi_i > 0 of 2 C_i x_i x_i'. */
  static double[] hessian(SparseVector[] x, double[] y, double[] w, SvmLoss loss) {
    int n = w.length;
    double[] h = new double[n * n];
    for (int i = 0; i < y.length; i++) {
      double[] xi = dense(x[i], n, loss.biasFeature());
      if (1 - y[i] * Vectors.dot(xi, w) <= 0) continue;
      double di = 2 * (y[i] > 0 ? loss.cPos() : loss.cNeg());
      for (int a = 0; a < n; a++) for (int b = 0; b < n; b++) h[a * n + b] += di * xi[a] * xi[b];
    }
    return h;
  }

  /** At a w with margins on both sides of 1: the loss, gradient, Hessian diagonal, Hessian-vector product, pairs and columns. */
  @Test
  void theBlocksSumsAreTheFormulas() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(9), 300, 12, 0.4);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    SvmLoss loss = new SvmLoss(true, 0.8, 0.3, true);
    int n = 13;
    Random r = new Random(2);
    double[] w = new double[n];
    double[] v = new double[n];
    for (int j = 0; j < n; j++) {
      w[j] = r.nextGaussian() * 2;
      v[j] = r.nextGaussian();
    }
    MarginBlock block = MarginBlock.of(loss, Csr.of(x), y, 3);
    assertTrue(block instanceof SquaredHingeBlock);
    double f = block.loss(w);
    assertEquals(objective(x, y, w, loss, 0, 0), f, 1e-12 * f);
    int active = 0;
    for (int i = 0; i < y.length; i++) if (y[i] * Vectors.dot(dense(x[i], n, 1), w) < 1) active++;
    assertTrue(active > 30 && active < 270, "margins on both sides of 1: " + active);
    double[] gd = new double[2 * n];
    block.gradient(gd, n);
    double[] g = gradient(x, y, w, loss);
    double[] h = hessian(x, y, w, loss);
    double[] hv = new double[n];
    block.hessian(v, hv);
    double[] pairs = new double[n * n];
    block.hessianPairs(pairs, 0, n);
    GlmNet.symmetrize(pairs, n);
    TronBlock.Columns cols = block.columns(n);
    double[] q = new double[cols.rows()];
    for (int j = 0; j < n; j++) cols.add(j, v[j], q);
    for (int a = 0; a < n; a++) {
      double want = 0;
      for (int b = 0; b < n; b++) want += h[a * n + b] * v[b];
      assertEquals(g[a], gd[a], 1e-12 * Math.max(1, Math.abs(g[a])), "gradient " + a);
      assertEquals(h[a * n + a], gd[n + a], 1e-12 * Math.max(1, h[a * n + a]), "diagonal " + a);
      assertEquals(want, hv[a], 1e-12 * Math.max(1, Math.abs(want)), "Hv " + a);
      assertEquals(want, cols.hessianDot(a, q), 1e-12 * Math.max(1, Math.abs(want)), "by column " + a);
      for (int b = 0; b < n; b++) assertEquals(h[a * n + b], pairs[a * n + b], 1e-12 * Math.max(1, Math.abs(h[a * n + b])), "pair " + a + "," + b);
    }
    assertThrows(IllegalArgumentException.class, () -> MarginBlock.of(new SvmLoss(false, 1, 1, false), Csr.of(x), y, 1));
  }

  /**
   * The L2-SVM's optimum by dual coordinate descent (LIBLINEAR's -s 1: alpha_i &gt;= 0, Q_ii = |x_i|^2 + 1/(2 C_i), w = sum_i
   * alpha_i y_i x_i), to a projected gradient of 1e-13.
   */
  static double[] dualOptimum(SparseVector[] x, double[] y, int n, SvmLoss loss) {
    double[][] rows = new double[y.length][];
    for (int i = 0; i < y.length; i++) rows[i] = dense(x[i], n, loss.biasFeature());
    double[] alpha = new double[y.length];
    double[] w = new double[n];
    for (int pass = 0; pass < 100_000; pass++) {
      double worst = 0;
      for (int i = 0; i < y.length; i++) {
        double di = 0.5 / (y[i] > 0 ? loss.cPos() : loss.cNeg());
        double gi = y[i] * Vectors.dot(rows[i], w) - 1 + di * alpha[i];
        double pg = alpha[i] == 0 ? Math.min(gi, 0) : gi;
        worst = Math.max(worst, Math.abs(pg));
        if (pg == 0) continue;
        double next = Math.max(alpha[i] - gi / (Vectors.dot(rows[i], rows[i]) + di), 0);
        for (int j = 0; j < n; j++) w[j] += (next - alpha[i]) * y[i] * rows[i][j];
        alpha[i] = next;
      }
      if (worst < 1e-13) return w;
    }
    throw new AssertionError("dual coordinate descent did not converge");
  }

  /** TRON (LIBLINEAR's -s 2) on 1 and 3 ranks, a bias and class weights, eps 1e-7: f within 1e-12 and w within 1e-5 of the dual's. */
  @Test
  void tronReachesTheDualsOptimum() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(4), 400, 15, 0.4);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    SvmLoss loss = new SvmLoss(true, 0.6, 0.25, true);
    double[] star = dualOptimum(x, y, 16, loss);
    double fStar = objective(x, y, star, loss, 0, 1);
    for (int k : new int[] {1, 3}) {
      TronRank.State st = OwlqnTest.run(x, y, LinearTestData.randomBlocks(y.length, k, 3), k, 15, loss, 1e-7, new MemoryCheckpoints(),
          ResidentLoop.Policy.none(), TronRank.Solver.TRON);
      assertEquals(Tron.Status.CONVERGED, st.point().status(), st.last().toString());
      double[] w = st.point().w();
      double f = objective(x, y, w, loss, 0, 1);
      assertEquals(fStar, f, 1e-12 * fStar, k + " ranks");
      assertEquals(f, st.last().f(), 1e-12 * f, "the recorded f is w's");
      for (int j = 0; j < 16; j++) assertEquals(star[j], w[j], 1e-5, k + " ranks, weight " + j); // |w - w*|^2 <= 2 (f - f*)
    }
  }

  /**
   * |w|_1 + sum_i C_i max(0, 1 - y_i w'x_i)^2 (LIBLINEAR's -s 5; 30 features, a bias, C = 0.05, eps 1e-8): newGLMNET's dense form
   * and OWL-QN on 3 ranks, its column form on one, all within 1e-10 of proximal gradient's optimum; newGLMNET's exactly 0 where the
   * optimum's zeros are strict.
   */
  @Test
  void theL1OptimumByEveryMethod() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(7), 500, 30, 0.3);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    SvmLoss loss = new SvmLoss(true, 0.05, 0.05, true);
    double lip = 0;
    for (SparseVector v : x) lip += 2 * 0.05 * (v.squaredNorm() + 1);
    double[] star = OwlqnTest.proximal(31, lip, 1, v -> gradient(x, y, v, loss), v -> objective(x, y, v, loss, 1, 0));
    double fStar = objective(x, y, star, loss, 1, 0);
    double[] gStar = gradient(x, y, star, loss);
    int strict = 0;
    for (int j = 0; j < 31; j++) if (star[j] == 0 && Math.abs(gStar[j]) < 0.999) strict++;
    assertTrue(strict >= 3 && strict < 28, "a sparse optimum: " + strict + " strict zeros");
    for (TronRank.Solver solver : new TronRank.Solver[] {TronRank.Solver.GLMNET, TronRank.Solver.OWLQN, TronRank.Solver.GLMNET_COLUMNS}) {
      int k = solver == TronRank.Solver.GLMNET_COLUMNS ? 1 : 3;
      TronRank.State st = OwlqnTest.run(x, y, LinearTestData.randomBlocks(y.length, k, 5), k, 30, loss, 1e-8, new MemoryCheckpoints(),
          ResidentLoop.Policy.none(), solver);
      double[] w = st.point().w();
      double f = objective(x, y, w, loss, 1, 0);
      assertTrue(f >= fStar * (1 - 1e-14) && f - fStar <= 1e-10 * fStar, solver + ": f " + f + " against " + fStar);
      if (solver == TronRank.Solver.OWLQN) continue;
      for (int j = 0; j < 31; j++) if (star[j] == 0 && Math.abs(gStar[j]) < 0.999) assertEquals(0.0, w[j], solver + ": weight " + j);
    }
  }

  /**
   * The warm-started C path (C = 0.05, 0.2, 0.8; LIBLINEAR's -C walk; eps 1e-6) of the L1 L2-SVM by newGLMNET's column form on one rank,
   * its stages sharing the block's columns: every stage converged and within 1e-10 of proximal gradient's optimum at its C.
   */
  @Test
  void anL1PathByColumn() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(8), 400, 25, 0.3);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    double[] scales = {1, 4, 16};
    Csr csr = Csr.of(x);
    Csc columns = csr.columns(25); // the 25 features' columns (the bias feature's is the block's own)
    java.util.List<BqoPath.Solved> stages = org.sodm.allreduce.InProcessAllReduce.run(1, ar -> {
      TronPath p = new TronPath(csr, y, 25, new SvmLoss(true, 0.05, 0.05, true), scales, 1e-6, 1000, null,
          TronRank.Solver.GLMNET_COLUMNS, TronRank.Penalty.L1);
      ResidentLoop.run(p, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
      return BqoPath.solvedOf(p.globalState());
    }).get(0);
    assertTrue(csr.columns(25) == columns, "every stage used the rows' one set of columns");
    for (int k = 0; k < 3; k++) {
      SvmLoss at = new SvmLoss(true, 0.05 * scales[k], 0.05 * scales[k], true);
      double lip = 0;
      for (SparseVector v : x) lip += 2 * at.cPos() * (v.squaredNorm() + 1);
      double fStar = objective(x, y, OwlqnTest.proximal(26, lip, 1, v -> gradient(x, y, v, at), v -> objective(x, y, v, at, 1, 0)), at, 1, 0);
      BqoPath.Solved s = stages.get(k);
      double f = objective(x, y, s.w(), at, 1, 0);
      assertTrue(s.converged(), "stage " + k + ": " + s.iterations() + " iterations, violation " + s.violation() + " of "
          + s.initialViolation());
      assertTrue(f >= fStar * (1 - 1e-14) && f - fStar <= 1e-10 * fStar, "stage " + k + ": f " + f + " against " + fStar);
      assertEquals(f, s.primal(), 1e-12 * f, "the recorded f is w's at that C");
    }
  }
}
