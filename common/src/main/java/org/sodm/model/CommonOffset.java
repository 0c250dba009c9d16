package org.sodm.model;

import org.sodm.data.SparseVector;

/**
 * One offset for a model of averaged blocks, by LIBSVM's rule ({@code calculate_rho}) applied to the averaged function instead
 * of each block's own: with f(x) = (1/B) sum_b sum_i c_bi k(s_bi, x) the blocks' mean without its constant, the offset is
 * the mean of y_i - f(x_i) over the free support vectors of the blocks (0 &lt; alpha_i &lt; C_i, y_i the sign of c_i), the rows
 * that a solution of the whole problem puts on its margin. Each block's own offset fits its own expansion; their mean does not
 * fit the averaged one (ijcnn1, C = 32, g = 2, 7 blocks: the mean of the blocks' offsets -1.495, the common offset -1.127,
 * test accuracy 98.40% against 98.65%, LIBSVM's 98.70%).
 *
 * <p>Cost: one decision value of the averaged model per free support vector. When free x support vectors exceeds
 * {@code budget} kernel evaluations, an evenly strided subset of the free support vectors (every k-th in block order, then
 * support-vector order) estimates the mean.
 */
public final class CommonOffset {
  /** The default budget of kernel evaluations (2^28: ijcnn1's 4,110 free x 4,260 support vectors are 2^24). */
  public static final long BUDGET = 1L << 28;

  private CommonOffset() {}

  /**
   * The offset and what it came from.
   *
   * @param offset the common offset, or NaN when no support vector is free
   * @param blockMean the mean of the blocks' own offsets (the averaged model's offset before)
   * @param free the free support vectors, and {@code used} of them in the mean
   */
  public record Result(double offset, double blockMean, int free, int used) {}

  /**
   * @param free per block (the model's block order), per support vector: whether it is free (0 &lt; alpha &lt; C)
   * @param budget kernel evaluations allowed (free x support vectors beyond it: a strided subset of the free ones)
   */
  public static Result of(KernelModel m, boolean[][] free, long budget) {
    int nb = m.blockCount();
    if (free.length != nb) throw new IllegalArgumentException(free.length + " free masks for " + nb + " blocks");
    double blockMean = 0;
    int count = 0;
    long svs = 0;
    for (int b = 0; b < nb; b++) {
      KernelExpansion e = m.block(b);
      if (free[b].length != e.size()) {
        throw new IllegalArgumentException("block " + b + ": " + free[b].length + " flags for " + e.size() + " support vectors");
      }
      blockMean += e.bias();
      svs += e.size();
      for (boolean f : free[b]) if (f) count++;
    }
    blockMean /= nb;
    if (count == 0) return new Result(Double.NaN, blockMean, 0, 0);
    long stride = Math.max(1, (count * Math.max(1, svs) + budget - 1) / budget);
    int used = (int) ((count + stride - 1) / stride);
    SparseVector[] xs = new SparseVector[used];
    double[] ys = new double[used];
    int k = 0;
    int u = 0;
    for (int b = 0; b < nb; b++) {
      KernelExpansion e = m.block(b);
      for (int i = 0; i < e.size(); i++) {
        if (!free[b][i]) continue;
        if (k++ % stride != 0) continue;
        xs[u] = e.supportVector(i);
        ys[u++] = Math.signum(e.coef(i));
      }
    }
    KernelModel zero = m.withBias(0);
    double[] f = new double[used];
    zero.decisionsPrepared(xs, used, f);
    double sum = 0;
    for (int i = 0; i < used; i++) sum += ys[i] - f[i];
    return new Result(sum / used, blockMean, count, used);
  }
}
