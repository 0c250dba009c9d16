package org.sodm.linear;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.sodm.data.SparseVector;

/**
 * DSVRG for linear ODM (seed 000 Algorithm 2) on one machine with the blocks in memory: the
 * arithmetic of the MapReduce driver ({@code org.sodm.jobs.linear.DsvrgJob}), for tests and
 * small data. Epoch l: the full gradient h = w^(l) + 1/M sum_i g_i(w^(l)) y_i x_i over all
 * blocks (the per-block sums h_j of line 7), then one pass of inner updates taking one
 * instance from each block in turn (round robin over j = 1..K, line 12), each block's
 * instances drawn without replacement (a seeded permutation per block and epoch, {@link
 * #order}); a block that has run out is skipped (lines 17-18). The epoch's last iterate is
 * w^(l+1).
 */
public final class Dsvrg {
  private Dsvrg() {}

  /** One epoch: the primal objective p(w^(l)) at its start (computed with the full gradient). */
  public record Epoch(int epoch, double objective, double gradientNorm, double eta) {}

  public record Result(double[] w, List<Epoch> epochs, double finalObjective) {}

  /** The step size: {@code eta} when > 0, else {@code factor} / L_max with L_max = 1 + curvature * max |x|^2. */
  public static double stepSize(double eta, double factor, OdmPrimal odm, double maxSquaredNorm) {
    if (eta > 0) return eta;
    return factor / (1 + odm.curvature() * maxSquaredNorm);
  }

  public static final double DEFAULT_STEP_FACTOR = 0.5;

  public static Result train(SparseVector[] x, double[] y, int[] block, int blocks, OdmPrimal odm, double eta, int epochs,
      long seed, Consumer<Epoch> progress) {
    int n = x.length;
    int dim = Vectors.dimension(x);
    double bf = odm.biasFeature();
    List<List<Integer>> members = new ArrayList<>();
    for (int k = 0; k < blocks; k++) members.add(new ArrayList<>());
    for (int i = 0; i < n; i++) members.get(block[i]).add(i);
    double maxSq = 0;
    for (SparseVector v : x) maxSq = Math.max(maxSq, Vectors.squaredNorm(v, bf));
    double step = stepSize(eta, DEFAULT_STEP_FACTOR, odm, maxSq);
    double[] w = new double[dim + 1];
    List<Epoch> out = new ArrayList<>();
    double[] margin = new double[n];
    for (int l = 0; ; l++) {
      double[] gbar = new double[dim + 1];
      double lossSum = 0;
      for (int i = 0; i < n; i++) {
        margin[i] = y[i] * Vectors.dot(x[i], w, bf);
        lossSum += odm.loss(y[i], margin[i]);
        double g = odm.coef(y[i], margin[i]);
        if (g != 0) Vectors.axpy(g * y[i] / n, x[i], gbar, bf);
      }
      double obj = OdmPrimal.objective(Vectors.squaredNorm(w), lossSum, n);
      double gn = 0;
      for (int k = 0; k <= dim; k++) gn += (w[k] + gbar[k]) * (w[k] + gbar[k]);
      Epoch e = new Epoch(l, obj, Math.sqrt(gn), step);
      out.add(e);
      if (progress != null) progress.accept(e);
      if (l == epochs) return new Result(w, out, obj);
      SvrgInner inner = new SvrgInner(odm, step, w, gbar);
      int[][] perm = new int[blocks][];
      for (int k = 0; k < blocks; k++) perm[k] = order(members.get(k).size(), seed, l, k);
      int longest = 0;
      for (int[] p : perm) longest = Math.max(longest, p.length);
      for (int r = 0; r < longest; r++) {
        for (int k = 0; k < blocks; k++) {
          if (r >= perm[k].length) continue;
          int i = members.get(k).get(perm[k][r]);
          inner.step(x[i], y[i], margin[i]);
        }
      }
      w = inner.w();
    }
  }

  /** The order in which block k draws its n instances (by position) at epoch l: a seeded permutation. */
  public static int[] order(int n, long seed, int epoch, int block) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) p[i] = i;
    SplittableRandom rng = new SplittableRandom(Bqo.passSeed(seed ^ 0x5356524747L, epoch, block));
    for (int t = n - 1; t > 0; t--) {
      int r = rng.nextInt(t + 1);
      int tmp = p[t];
      p[t] = p[r];
      p[r] = tmp;
    }
    return p;
  }
}
