package org.sodm.linear;

import java.io.IOException;

/**
 * A block's part of a smooth primal that {@link TronRank} minimises over the blocks: the sums over the block's rows of the loss,
 * its gradient and Hessian diagonal, and the Hessian-vector products. The regulariser's terms (w, 1, v) are the caller's, added
 * once after the sum over the blocks.
 */
public interface TronBlock {
  /** The block's rows per class (binary: +1, then -1), for LIBLINEAR's stop. */
  double[] classCounts();

  /** The loss summed over the rows at a trial w; keeps what {@link #gradient} needs of each row. */
  double loss(double[] w) throws IOException;

  /**
   * At the w of the last {@link #loss}: adds the loss's gradient to {@code out[0..n)} and, when {@code out} has 2n values, its
   * Hessian diagonal to {@code out[n..2n)} (n values: the gradient alone, as {@link Owlqn} needs it), and keeps what
   * {@link #hessian} needs.
   */
  void gradient(double[] out, int n) throws IOException;

  /** Adds the loss's Hessian (at the w of the last {@link #gradient}) times {@code v} to {@code out}. */
  void hessian(double[] v, double[] out) throws IOException;

  /**
   * Adds, at the w of the last {@link #gradient}, the loss's Hessian as the sums over the rows of D_ii x_ia x_ib for each pair
   * (a, b) of a row's stored values (the bias feature's included) once, at {@code out[offset + a n + b]} or at {@code out[offset +
   * b n + a]}: {@link GlmNet#symmetrize} makes the matrix of the sum over the blocks. Only blocks whose {@link #densePairs} is
   * true have it.
   */
  default void hessianPairs(double[] out, int offset, int n) throws IOException {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " gives no dense Hessian");
  }

  /** Whether {@link #hessianPairs} is there. */
  default boolean densePairs() {
    return false;
  }

  /**
   * The loss's Hessian by column, at the w of the last {@link #gradient}, for {@link GlmNet}'s coordinate descent over the
   * features of one block: X'DX is never formed, a coordinate's term of H d comes from its column and q = X d (what the block
   * keeps of d over its rows).
   */
  interface Columns {
    /** The block's rows. */
    int rows();

    /** The length of q, the model's state over the rows (X d; a softmax block keeps more per row). */
    default int scratch() {
      return rows();
    }

    /** (H d)_j from q (binary: sum_i D_ii x_ij q_i over column j, the bias feature's, n - 1, included). */
    double hessianDot(int j, double[] q);

    /** q for d_j moved by z (binary: q_i += z x_ij over column j). */
    void add(int j, double z, double[] q);

    /** Column j's stored values: the cost of either. */
    int size(int j);
  }

  /**
   * Whether {@link #dual} is there: the loss is a sum of convex functions h_i of one margin each (logistic, squared hinge), so
   * its Fenchel dual is a sum over the rows ({@link DualityGap}).
   */
  default boolean hasDual() {
    return false;
  }

  /**
   * At the w of the last {@link #loss}, with theta_i = -h_i'(y_i w'x_i) (the rows' dual variables that w implies): the sum over
   * the block's rows of -h_i*(-s theta_i), h_i* the convex conjugate of row i's loss (logistic: C_i times the entropy of s
   * sigmoid(-y_i w'x_i); squared hinge: s theta_i - (s theta_i)^2 / (4 C_i)). Only blocks whose {@link #hasDual} is true have it.
   */
  default double dual(double s) throws IOException {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " gives no dual");
  }

  /** The Hessian by column for w's of {@code n} weights ({@link Columns}), or null when the block does not give it. */
  default Columns columns(int n) {
    return null;
  }
}
