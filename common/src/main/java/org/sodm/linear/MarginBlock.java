package org.sodm.linear;

import java.io.IOException;

/**
 * A block's part of a primal whose loss is a function of each row's margin ({@link LogisticBlock}: logistic regression; {@link
 * SquaredHingeBlock}: the L2-SVM), the sums over the block's rows that {@link TronRank} adds over the blocks: the loss at a trial
 * w (keeping each row's w'x_i), then at an accepted w the gradient's and the Hessian diagonal's sums and D_ii, the loss's second
 * derivative in w'x_i, which the Hessian-vector products X' D X v of the conjugate-gradient steps, the dense Hessian's pairs and
 * its columns use until the next accepted w. The regulariser's terms (w, 1, v) are the caller's, added once after the sum over
 * the blocks.
 *
 * <p>Threads: the rows' sums are taken in fixed chunks ({@link RowChunks}), so every sum, and so every bit of the model, depends
 * on the rows alone, not on the threads.
 */
public abstract class MarginBlock extends RowChunks implements TronBlock {
  final Csr x;
  final double[] y;
  private final LinearPrimal primal;
  final double bf;
  /** w'x_i at the last {@link #loss}. */
  final double[] z;
  /** D_ii at the last {@link #gradient}. */
  final double[] d;
  private double[][] gradientParts; // per chunk, for the vector sums of more than one chunk
  private double[][] hessianParts;
  private double[][] pairParts;

  /** @param threads the threads of the chunks' sums (1: in turn on the caller's thread) */
  MarginBlock(Csr x, double[] y, LinearPrimal primal, int threads) {
    super(y.length, threads);
    if (y.length != x.rows()) throw new IllegalArgumentException(x.rows() + " rows, " + y.length + " labels");
    this.x = x;
    this.y = y;
    this.primal = primal;
    this.bf = primal.biasFeature();
    this.z = new double[y.length];
    this.d = new double[y.length];
  }

  /** The block of {@code primal}'s loss: logistic ({@link LogisticPrimal}) or squared hinge ({@link SvmLoss} squared). */
  public static MarginBlock of(LinearPrimal primal, Csr x, double[] y, int threads) {
    if (primal instanceof LogisticPrimal p) return new LogisticBlock(x, y, p, threads);
    if (primal instanceof SvmLoss p && p.squared()) return new SquaredHingeBlock(x, y, p, threads);
    throw new IllegalArgumentException("the primal Newton methods take the logistic and the squared-hinge loss, not " + primal);
  }

  /** Row i's loss at its margin y_i z_i. */
  final double rowLoss(int i) {
    return primal.loss(y[i], y[i] * z[i]);
  }

  /** Row i's loss's derivative in w'x_i at z_i, its second derivative (generalised) stored in d[i]. */
  abstract double rowDerivatives(int i);

  /** -h_i*(-s theta_i) at z_i ({@link TronBlock#dual}); {@code logS} = log s, taken once per pass. */
  abstract double rowDual(int i, double s, double logS);

  @Override
  public boolean hasDual() {
    return true;
  }

  @Override
  public double dual(double s) throws IOException {
    double logS = Math.log(s);
    return sum(c -> {
      double t = 0;
      for (int i = from(c), e = to(c); i < e; i++) t += rowDual(i, s, logS);
      return t;
    });
  }

  public int rows() {
    return y.length;
  }

  /** Rows labelled +1 and -1. */
  @Override
  public double[] classCounts() {
    double pos = 0;
    for (double v : y) if (v > 0) pos++;
    return new double[] {pos, y.length - pos};
  }

  /** sum_i loss_i(y_i w'x_i); w'x_i is kept for {@link #gradient}. */
  @Override
  public double loss(double[] w) throws IOException {
    return sum(c -> {
      double s = 0;
      for (int i = from(c), e = to(c); i < e; i++) {
        z[i] = x.dot(i, w, bf);
        s += rowLoss(i);
      }
      return s;
    });
  }

  /**
   * At the w of the last {@link #loss}: adds sum_i loss_i'(w'x_i) x_i to {@code out[0..n)} and sum_i D_ii x_ij^2 to
   * {@code out[n..2n)} (n = w's length, the bias feature last), and keeps D for {@link #hessian}.
   */
  @Override
  public void gradient(double[] out, int n) throws IOException {
    gradientParts = addChunks(gradientParts, out, (c, o) -> gradientRows(c, o, n));
  }

  private void gradientRows(int c, double[] out, int n) {
    boolean diagonal = out.length >= 2 * n; // OWL-QN asks for the gradient alone
    for (int i = from(c), e = to(c); i < e; i++) {
      double a = rowDerivatives(i);
      for (int k = x.from[i], end = x.to[i]; k < end; k++) {
        int f = x.index[k];
        if (f >= n - 1) continue; // beyond the dimension: ignored, as w'x_i ignores it
        double v = x.value[k];
        out[f] += a * v;
        if (diagonal) out[n + f] += d[i] * v * v;
      }
      out[n - 1] += a * bf;
      if (diagonal) out[2 * n - 1] += d[i] * bf * bf;
    }
  }

  /** Adds sum_i x_i D_ii x_i'v to {@code out} (D of the last {@link #gradient}). */
  @Override
  public void hessian(double[] v, double[] out) throws IOException {
    hessianParts = addChunks(hessianParts, out, (c, o) -> hessianRows(c, v, o));
  }

  private void hessianRows(int c, double[] v, double[] out) {
    for (int i = from(c), e = to(c); i < e; i++) {
      double t = d[i] * x.dot(i, v, bf);
      if (t != 0) x.axpy(t, i, out, bf);
    }
  }

  @Override
  public boolean densePairs() {
    return true;
  }

  /** Adds sum_i D_ii x_ia x_ib for each pair of row i's stored values (the bias feature n - 1's included) once, at (a, b) in the
   * row's order ({@link TronBlock#hessianPairs}). */
  @Override
  public void hessianPairs(double[] out, int offset, int n) throws IOException {
    pairParts = addChunks(pairParts, out, (c, o) -> pairRows(c, o, offset, n));
  }

  private void pairRows(int c, double[] out, int offset, int n) {
    for (int i = from(c), e = to(c); i < e; i++) {
      double di = d[i];
      if (di == 0) continue;
      for (int k = x.from[i], end = x.to[i]; k < end; k++) {
        int a = x.index[k];
        if (a >= n - 1) continue;
        double va = di * x.value[k];
        int row = offset + a * n;
        for (int l = k; l < end; l++) {
          int b = x.index[l];
          if (b < n - 1) out[row + b] += va * x.value[l];
        }
        out[row + n - 1] += va * bf;
      }
      out[offset + (n - 1) * n + n - 1] += di * bf * bf;
    }
  }

  /** X'DX by column (D of the last {@link #gradient}) from the rows' transpose ({@link Csr#columns}, built once per rows). */
  @Override
  public Columns columns(int n) {
    Csc c = x.columns(n - 1);
    int bias = n - 1;
    return new Columns() {
      @Override
      public int rows() {
        return y.length;
      }

      @Override
      public double hessianDot(int j, double[] q) {
        if (j < bias) return c.weightedDot(j, d, q);
        double s = 0;
        for (int i = 0; i < q.length; i++) s += d[i] * bf * q[i];
        return s;
      }

      @Override
      public void add(int j, double z, double[] q) {
        if (j < bias) {
          c.axpy(j, z, q);
        } else {
          for (int i = 0; i < q.length; i++) q[i] += z * bf;
        }
      }

      @Override
      public int size(int j) {
        return j < bias ? c.size(j) : bf == 0 ? 0 : y.length;
      }
    };
  }
}
