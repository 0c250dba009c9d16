package org.sodm.linear;

/**
 * A block's part of the L2-SVM primal (squared hinge, {@link SvmLoss} squared: LIBLINEAR's {@code -s 2} and, with |w|_1, {@code
 * -s 5}) and of its derivatives ({@link MarginBlock}): loss_i = C_i max(0, 1 - y_i w'x_i)^2, its derivative -2 C_i y_i (1 - y_i
 * w'x_i) below margin 1 (else 0), and the generalised second derivative D_ii = 2 C_i there (else 0), as LIBLINEAR's TRON uses it.
 */
public final class SquaredHingeBlock extends MarginBlock {
  private final SvmLoss loss;

  /** @param threads the threads of the chunks' sums (1: in turn on the caller's thread) */
  public SquaredHingeBlock(Csr x, double[] y, SvmLoss loss, int threads) {
    super(x, y, loss, threads);
    if (!loss.squared()) throw new IllegalArgumentException("the hinge loss has no gradient: the squared hinge only");
    this.loss = loss;
  }

  @Override
  double rowDerivatives(int i) {
    double xi = 1 - y[i] * z[i];
    if (xi <= 0) {
      d[i] = 0;
      return 0;
    }
    double ci = loss.c(y[i]);
    d[i] = 2 * ci;
    return -2 * ci * xi * y[i];
  }

  /** t - t^2 / (4 C_i), t = s theta_i = 2 s C_i max(0, 1 - m): the conjugate of C_i max(0, 1 - m)^2 at -t. */
  @Override
  double rowDual(int i, double s, double logS) {
    double xi = 1 - y[i] * z[i];
    double ci = loss.c(y[i]);
    if (xi <= 0 || ci == 0) return 0;
    double t = 2 * s * ci * xi;
    return t - t * t / (4 * ci);
  }
}
