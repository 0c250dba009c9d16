package org.sodm.linear;

/**
 * A block's part of the logistic-regression primal ({@link LogisticPrimal}) and of its derivatives ({@link MarginBlock}): loss_i =
 * C_i log(1 + exp(-y_i w'x_i)), its derivative C_i (s_i - 1) y_i and D_ii = C_i s_i (1 - s_i), s_i = sigmoid(y_i w'x_i).
 */
public final class LogisticBlock extends MarginBlock {
  private final LogisticPrimal loss;

  public LogisticBlock(Csr x, double[] y, LogisticPrimal loss) {
    this(x, y, loss, 1);
  }

  /** @param threads the threads of the chunks' sums (1: in turn on the caller's thread) */
  public LogisticBlock(Csr x, double[] y, LogisticPrimal loss, int threads) {
    super(x, y, loss, threads);
    this.loss = loss;
  }

  @Override
  double rowDerivatives(int i) {
    double ci = loss.c(y[i]);
    double s = LogisticPrimal.sigmoid(y[i] * z[i]);
    d[i] = ci * s * (1 - s);
    return ci * (s - 1) * y[i];
  }

  /**
   * C_i H(p), p = s sigmoid(-m) (theta_i / C_i scaled), 1 - p = (1 - s) + s sigmoid(m) without cancellation, 0 log 0 = 0; one exp
   * and one or two logs: log p = log s - softplus(m), and log(1 - p) = -softplus(-m) when s = 1.
   */
  @Override
  double rowDual(int i, double s, double logS) {
    double m = y[i] * z[i];
    double e = Math.exp(-Math.abs(m));
    double l = Math.log1p(e);
    double below = m >= 0 ? e / (1 + e) : 1 / (1 + e); // sigmoid(-m)
    double p = s * below;
    double q = (1 - s) + s * (m >= 0 ? 1 / (1 + e) : e / (1 + e)); // sigmoid(m) as computed, not 1 - sigmoid(-m)
    double h = 0;
    if (p > 0) h -= p * (logS - (Math.max(m, 0) + l));
    if (q > 0) h -= q * (s == 1 ? -(Math.max(-m, 0) + l) : Math.log(q));
    return loss.c(y[i]) * h;
  }
}
