package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.SparseVector;
import org.sodm.solver.Loss;

/**
 * newGLMNET's column form ({@link TronRank.Solver#GLMNET_COLUMNS}, LIBLINEAR's own for {@code -s 6}: coordinate descent over the
 * features of one block through q = X d, shrinking): the columns against the rows, the Hessian's columns against X'DX written
 * from the rows, w against proximal gradient's optimum ({@link OwlqnTest#proximal}) beyond the dense form's limit of weights, a
 * resumed run bit for bit, the refusals (the elastic net: {@link GlmNetTest#theElasticNetByBothMethods}).
 */
class GlmNetColumnsTest {
  /** A subset's columns are its rows transposed: each stored value once, at its row, rows ascending, features beyond dim left out. */
  @Test
  void columnsAreTheRowsTransposed() {
    Object[] data = LinearTestData.sparse(new Random(3), 80, 12, 0.3);
    SparseVector[] x = (SparseVector[]) data[0];
    int[] rows = {5, 2, 40, 79, 11, 0, 33};
    Csr sub = Csr.of(x).subset(rows);
    Csc c = sub.columns(10);
    assertEquals(10, c.columns());
    double[][] dense = new double[rows.length][10];
    int stored = 0;
    for (int i = 0; i < rows.length; i++) {
      SparseVector v = x[rows[i]];
      for (int k = 0; k < v.indices().length; k++) {
        if (v.indices()[k] <= 10) {
          dense[i][v.indices()[k] - 1] = v.values()[k];
          stored++;
        }
      }
    }
    int seen = 0;
    for (int j = 0; j < 10; j++) {
      int last = -1;
      for (int p = c.start[j]; p < c.start[j + 1]; p++) {
        assertTrue(c.row[p] > last, "rows ascend in column " + j);
        last = c.row[p];
        assertEquals(dense[c.row[p]][j], c.value[p], "column " + j + ", row " + c.row[p]);
        assertTrue(c.value[p] != 0);
        seen++;
      }
    }
    assertEquals(stored, seen, "every stored value below dim once");
    assertTrue(sub.columns(10) == c, "kept for the next call");
  }

  /** (hessianDot(j, X d))_j is X'DX d from the rows at a random w and d, the bias feature's column included (with and without a bias). */
  @Test
  void hessianColumnsAreXtDX() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(9), 200, 12, 0.4);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    for (boolean bias : new boolean[] {true, false}) {
      LogisticPrimal loss = Loss.logistic(0.7).withBias(bias).withWeights(1.3, 0.6).logisticPrimal();
      int n = 13;
      Random r = new Random(2);
      double[] w = new double[n];
      double[] d = new double[n];
      for (int j = 0; j < n; j++) {
        w[j] = r.nextGaussian() * 0.3;
        d[j] = r.nextGaussian();
      }
      LogisticBlock block = new LogisticBlock(Csr.of(x), y, loss);
      block.loss(w);
      double[] gd = new double[2 * n];
      block.gradient(gd, n);
      TronBlock.Columns cols = block.columns(n);
      double[] q = new double[cols.rows()];
      for (int j = 0; j < n; j++) cols.add(j, d[j], q);
      double[] h = GlmNetTest.hessianFromRows(x, y, w, loss);
      for (int a = 0; a < n; a++) {
        double want = 0;
        for (int b = 0; b < n; b++) want += h[a * n + b] * d[b];
        assertEquals(want, cols.hessianDot(a, q), 1e-12 * Math.max(1, Math.abs(want)), "bias " + bias + ", coordinate " + a);
        assertEquals(h[a * n + a], gd[n + a], 1e-12 * Math.max(1, h[a * n + a]), "the diagonal, coordinate " + a);
      }
      assertEquals(bias ? y.length : 0, cols.size(n - 1), "the bias feature's column");
    }
  }

  /** {@link OwlqnTest}'s problem (30 features, a bias, class weights) on one rank: f within 1e-12 of proximal gradient's, exact zeros. */
  @Test
  void reachesTheL1Optimum() throws Exception {
    int[][] iterations = OwlqnTest.reachesTheL1Optimum(TronRank.Solver.GLMNET_COLUMNS, 1);
    assertTrue(iterations[1][0] < iterations[0][0]);
  }

  /**
   * 4,200 sparse features (more weights than the dense form takes), 120 rows, a bias, C = 2, eps 1e-6: f within 1e-11 of
   * proximal gradient's optimum, every strict zero of the optimum exactly 0, and the last step's coordinate descent took only
   * the few coordinates shrinking left it.
   */
  @Test
  void manyFeaturesBeyondTheDenseForm() throws Exception {
    int dim = 4200;
    Object[] data = LinearTestData.sparse(new Random(21), 120, dim, 0.003);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    LogisticPrimal loss = Loss.logistic(2).withBias(true).logisticPrimal();
    double[] star = OwlqnTest.proximal(x, y, dim + 1, loss);
    double fStar = OwlqnTest.objective(x, y, star, loss);
    double[] gStar = OwlqnTest.lossGradient(x, y, star, loss);
    int nonZero = 0;
    for (double v : star) if (v != 0) nonZero++;
    assertTrue(nonZero > 10 && nonZero < dim / 10, "a sparse optimum: " + nonZero + " non-zeros");
    assertThrows(IllegalArgumentException.class, () -> new GlmNet((GlmNet.Objective) null, new double[dim + 1], 0.1, 10, null));
    Csr csr = Csr.of(x);
    int[] active = new int[1];
    TronRank.State st = InProcessAllReduce.run(1, ar -> {
      TronRank rank = new TronRank(new LogisticBlock(csr, y, loss), dim + 1, 1e-6, 500, null, null, TronRank.Solver.GLMNET_COLUMNS);
      ResidentLoop.run(rank, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
      active[0] = ((GlmNet) rank.run()).lastActive();
      return TronRank.decodeState(rank.globalState());
    }).get(0);
    assertEquals(Tron.Status.CONVERGED, st.point().status(), st.last().toString());
    double[] w = st.point().w();
    double f = OwlqnTest.objective(x, y, w, loss);
    assertTrue(f >= fStar * (1 - 1e-14) && f - fStar <= 1e-11 * fStar, "f " + f + " against " + fStar);
    for (int j = 0; j <= dim; j++) {
      if (star[j] == 0 && Math.abs(gStar[j]) < 0.999) assertEquals(0.0, w[j], "weight " + j);
    }
    assertTrue(active[0] < 4 * nonZero, "the last step's coordinates " + active[0] + " for " + nonZero + " non-zeros of " + (dim + 1));
  }

  /** A run failing at iteration 2 (checkpoints every 1): the resumed run ends with the same w and history, bit for bit. */
  @Test
  void aResumedRunEndsIdentically() throws Exception {
    GlmNetTest.resumesIdentically(1, TronRank.Solver.GLMNET_COLUMNS);
  }

  /** Refused: on more than one rank (the rows are split), and for a block that gives no columns. */
  @Test
  void refusals() throws Exception {
    Object[] data = LinearTestData.sparse(new Random(5), 60, 8, 0.4);
    SparseVector[] x = (SparseVector[]) data[0];
    double[] y = (double[]) data[1];
    LogisticPrimal loss = Loss.logistic(1).logisticPrimal();
    Exception e = assertThrows(Exception.class, () -> OwlqnTest.run(x, y, LinearTestData.randomBlocks(y.length, 2, 1), 2, 8, loss, 0.01,
        new MemoryCheckpoints(), ResidentLoop.Policy.none(), TronRank.Solver.GLMNET_COLUMNS));
    Throwable c = e;
    while (c.getCause() != null && !(c instanceof IllegalStateException)) c = c.getCause();
    assertTrue(String.valueOf(c.getMessage()).contains("every row on one rank; this run has 2"), String.valueOf(c));
    assertNull(GlmNetTest.BARE.columns(3));
    assertThrows(IllegalArgumentException.class, () -> new TronRank(GlmNetTest.BARE, 3, 0.01, 10, null, null, TronRank.Solver.GLMNET_COLUMNS));
  }
}
