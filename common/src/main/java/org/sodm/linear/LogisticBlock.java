package org.sodm.linear;

/**
 * A block's part of the logistic-regression primal ({@link LogisticPrimal}) and of its derivatives, the sums over the block's
 * rows that {@link TronRank} adds over the blocks: the loss at a trial w (keeping each row's w'x_i), then at an accepted w the
 * gradient's and the Hessian diagonal's sums and D_ii = C_i s_i (1 - s_i), s_i = sigmoid(y_i w'x_i), which the Hessian-vector
 * products X' D X v of the conjugate-gradient steps use until the next accepted w. The regulariser's terms (w, 1, v) are the
 * caller's, added once after the sum over the blocks.
 */
public final class LogisticBlock {
  private final Csr x;
  private final double[] y;
  private final LogisticPrimal loss;
  private final double bf;
  private final double[] z;
  private final double[] d;

  public LogisticBlock(Csr x, double[] y, LogisticPrimal loss) {
    if (y.length != x.rows()) throw new IllegalArgumentException(x.rows() + " rows, " + y.length + " labels");
    this.x = x;
    this.y = y;
    this.loss = loss;
    this.bf = loss.biasFeature();
    this.z = new double[y.length];
    this.d = new double[y.length];
  }

  public int rows() {
    return y.length;
  }

  /** Rows labelled +1 and -1. */
  public double[] classCounts() {
    double pos = 0;
    for (double v : y) if (v > 0) pos++;
    return new double[] {pos, y.length - pos};
  }

  /** sum_i C_i log(1 + exp(-y_i w'x_i)); w'x_i is kept for {@link #gradient}. */
  public double loss(double[] w) {
    double s = 0;
    for (int i = 0; i < y.length; i++) {
      z[i] = x.dot(i, w, bf);
      s += loss.loss(y[i], y[i] * z[i]);
    }
    return s;
  }

  /**
   * At the w of the last {@link #loss}: adds sum_i C_i (s_i - 1) y_i x_i to {@code out[0..n)} and sum_i D_ii x_ij^2 to
   * {@code out[n..2n)} (n = w's length, the bias feature last), and keeps D for {@link #hessian}.
   */
  public void gradient(double[] out, int n) {
    for (int i = 0; i < y.length; i++) {
      double ci = loss.c(y[i]);
      double s = LogisticPrimal.sigmoid(y[i] * z[i]);
      d[i] = ci * s * (1 - s);
      double a = ci * (s - 1) * y[i];
      for (int k = x.from[i], e = x.to[i]; k < e; k++) {
        int f = x.index[k];
        if (f >= n - 1) continue; // beyond the dimension: ignored, as w'x_i ignores it
        double v = x.value[k];
        out[f] += a * v;
        out[n + f] += d[i] * v * v;
      }
      out[n - 1] += a * bf;
      out[2 * n - 1] += d[i] * bf * bf;
    }
  }

  /** Adds sum_i x_i D_ii x_i'v to {@code out} (D of the last {@link #gradient}). */
  public void hessian(double[] v, double[] out) {
    for (int i = 0; i < y.length; i++) {
      double t = d[i] * x.dot(i, v, bf);
      if (t != 0) x.axpy(t, i, out, bf);
    }
  }
}
