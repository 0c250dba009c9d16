package org.sodm.linear;

import java.util.function.Consumer;
import org.sodm.data.SparseVector;

/**
 * BQO on one machine with the blocks in memory: exactly the arithmetic of the MapReduce driver
 * ({@code org.sodm.jobs.linear.BqoJob}), one loop iteration per job there. For tests and for
 * data that fits one JVM.
 */
public final class Bqo {
  private Bqo() {}

  public record Result(double[] w, double[] pocket, double[] alpha, BqoState state) {
    /** The pocket model's decision value. */
    public double decision(SparseVector x, double bf) {
      return Vectors.dot(x, pocket, bf);
    }
  }

  /**
   * @param block block of each instance in [0, blocks)
   * @param seed seeds the inner pass orders: block k at iteration t uses {@link #passSeed}
   */
  public static Result train(SparseVector[] x, double[] y, int[] block, int blocks, SvmLoss loss, BqoBlock.Options inner,
      BqoState.Options outer, long seed, Consumer<BqoState.Iteration> progress) {
    int n = x.length;
    int dim = Vectors.dimension(x);
    int[][] members = new int[blocks][];
    int[] count = new int[blocks];
    for (int b : block) count[b]++;
    for (int k = 0; k < blocks; k++) members[k] = new int[count[k]];
    int[] fill = new int[blocks];
    for (int i = 0; i < n; i++) members[block[i]][fill[block[i]]++] = i;
    double[] alpha = new double[n];
    BqoState state = new BqoState(dim, loss, outer, inner.tau());
    double[] d = new double[n];
    for (int t = 0; ; t++) {
      BqoSums sums = BqoSums.EMPTY;
      double[] dw = new double[dim + 1];
      for (int k = 0; k < blocks; k++) {
        int[] m = members[k];
        SparseVector[] xb = new SparseVector[m.length];
        double[] yb = new double[m.length];
        double[] ab = new double[m.length];
        for (int j = 0; j < m.length; j++) {
          xb[j] = x[m[j]];
          yb[j] = y[m[j]];
          ab[j] = alpha[m[j]];
        }
        BqoBlock.Result r = BqoBlock.solve(xb, yb, ab, state.w(), loss, inner.at(t), passSeed(seed, t, k));
        sums = sums.merge(r.sums());
        for (int f = 0; f <= dim; f++) dw[f] += r.dw()[f];
        for (int j = 0; j < m.length; j++) d[m[j]] = r.d()[j];
      }
      BqoState.Step step = state.next(sums, dw);
      if (progress != null) progress.accept(step.info());
      if (step.stop()) break;
      for (int i = 0; i < n; i++) alpha[i] = BqoBlock.apply(alpha[i], d[i], step.eta(), loss.upper(y[i]));
    }
    return new Result(state.w().clone(), state.pocket(), alpha, state);
  }

  /** The seed of block k's inner passes at iteration t. */
  public static long passSeed(long seed, int t, int k) {
    return org.sodm.data.Seeds.pass(seed, t, k);
  }
}
