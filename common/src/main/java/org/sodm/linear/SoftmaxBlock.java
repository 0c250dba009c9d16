package org.sodm.linear;

import java.io.IOException;

/**
 * A block's part of multinomial (softmax) logistic regression over K classes, the model of Spark MLlib's and scikit-learn's
 * multi-class logistic regression: min 1/2 sum_k |w_k|^2 + sum_i C_i (log sum_k exp(z_ik) - z_{i,y_i}), z_ik = w_k'x_i, C_i = C
 * times the weight of row i's class; with a bias, x_i has a constant feature 1 whose weights are regularised (as LIBLINEAR's
 * -B 1). Its sums over the block's rows, which {@link TronRank} adds over the blocks: the loss at a trial W (keeping each row's
 * z_i), the gradient sum_i C_i (p_ik - [y_i = k]) x_i and the Hessian diagonal sum_i C_i p_ik (1 - p_ik) x_ij^2 at an accepted W
 * (keeping p_i = softmax(z_i), apart from the trial steps' z), and the Hessian-vector products sum_i C_i x_i p_ik (u_ik - sum_j p_ij u_ij), u_ik = v_k'x_i.
 *
 * <p>W is one vector, feature-major: the weight of feature f (0-based; the bias feature is f = dim) for class k at f K + k, so
 * one pass over a row's stored values serves every class. Threads: fixed chunks of rows ({@link RowChunks}), so every bit of
 * the model depends on the rows alone.
 */
public final class SoftmaxBlock extends RowChunks implements TronBlock {
  private final Csr x;
  private final int[] y;
  private final double[] classC;
  private final int k;
  private final int dim;
  private final double bf;
  private final double[] z; // rows x classes: z_ik at the last loss's W (a trial's, whether or not it is taken)
  private final double[] prob; // rows x classes: p_ik at the last gradient's W (the Hessian's until the next)
  private double[][] gradientParts;
  private double[][] hessianParts;
  private double[][] pairParts;

  /**
   * @param y each row's class, 0 to K - 1
   * @param classC C times each class's weight (K values, each &gt; 0)
   * @param dim the features (1 to dim); the vector W has K (dim + 1) weights, the bias feature's last
   * @param threads the threads of the chunks' sums (1: in turn on the caller's thread)
   */
  public SoftmaxBlock(Csr x, int[] y, double[] classC, int dim, boolean bias, int threads) {
    super(y.length, threads);
    if (y.length != x.rows()) throw new IllegalArgumentException(x.rows() + " rows, " + y.length + " labels");
    if (classC.length < 2) throw new IllegalArgumentException("softmax needs 2 or more classes, got " + classC.length);
    for (double c : classC) if (!(c > 0) || !Double.isFinite(c)) throw new IllegalArgumentException("C must be > 0 and finite, got " + c);
    for (int c : y) if (c < 0 || c >= classC.length) throw new IllegalArgumentException("class " + c + " of " + classC.length);
    this.x = x;
    this.y = y;
    this.classC = classC.clone();
    this.k = classC.length;
    this.dim = dim;
    this.bf = bias ? 1.0 : 0.0;
    this.z = new double[y.length * k];
    this.prob = new double[y.length * k];
  }

  /** The weights of W: K (dim + 1). */
  public int size() {
    return k * (dim + 1);
  }

  @Override
  public double[] classCounts() {
    double[] n = new double[k];
    for (int c : y) n[c]++;
    return n;
  }

  /** z_i = W'x_i into z[i K .. i K + K). */
  private void scores(int i, double[] w, double[] out, int at) {
    for (int c = 0; c < k; c++) out[at + c] = bf * w[dim * k + c];
    for (int p = x.from[i], e = x.to[i]; p < e; p++) {
      int f = x.index[p];
      if (f >= dim) continue; // beyond the dimension: ignored
      double v = x.value[p];
      int base = f * k;
      for (int c = 0; c < k; c++) out[at + c] += v * w[base + c];
    }
  }

  /** log sum_k exp(z[at + k]), without overflow. */
  private double logSumExp(double[] v, int at) {
    double max = v[at];
    for (int c = 1; c < k; c++) max = Math.max(max, v[at + c]);
    double s = 0;
    for (int c = 0; c < k; c++) s += Math.exp(v[at + c] - max);
    return max + Math.log(s);
  }

  /** sum_i C_i (log sum_k exp(z_ik) - z_{i,y_i}); z is kept for {@link #gradient}. */
  @Override
  public double loss(double[] w) throws IOException {
    check(w.length);
    return sum(ch -> {
      double s = 0;
      for (int i = from(ch), e = to(ch); i < e; i++) {
        int at = i * k;
        scores(i, w, z, at);
        s += classC[y[i]] * (logSumExp(z, at) - z[at + y[i]]);
      }
      return s;
    });
  }

  private void check(int n) {
    if (n != size()) throw new IllegalArgumentException("a W of " + n + " weights for " + k + " classes of " + (dim + 1));
  }

  /**
   * At the W of the last {@link #loss}: adds the gradient's sums to {@code out[0..n)} and the Hessian diagonal's to
   * {@code out[n..2n)}, and keeps p_i = softmax(z_i) for {@link #hessian}.
   */
  @Override
  public void gradient(double[] out, int n) throws IOException {
    check(n);
    gradientParts = addChunks(gradientParts, out, (ch, o) -> gradientRows(ch, o, n));
  }

  private void gradientRows(int ch, double[] out, int n) {
    boolean diagonal = out.length >= 2 * n; // OWL-QN asks for the gradient alone
    double[] a = new double[k];
    double[] h = new double[k];
    for (int i = from(ch), e = to(ch); i < e; i++) {
      int at = i * k;
      double lse = logSumExp(z, at);
      double ci = classC[y[i]];
      for (int c = 0; c < k; c++) {
        double p = Math.exp(z[at + c] - lse);
        prob[at + c] = p;
        a[c] = ci * (c == y[i] ? p - 1 : p);
        h[c] = ci * p * (1 - p);
      }
      for (int q = x.from[i], end = x.to[i]; q < end; q++) {
        int f = x.index[q];
        if (f >= dim) continue;
        double v = x.value[q];
        int base = f * k;
        for (int c = 0; c < k; c++) {
          out[base + c] += a[c] * v;
          if (diagonal) out[n + base + c] += h[c] * v * v;
        }
      }
      int base = dim * k;
      for (int c = 0; c < k; c++) {
        out[base + c] += a[c] * bf;
        if (diagonal) out[n + base + c] += h[c] * bf * bf;
      }
    }
  }

  @Override
  public boolean hasDual() {
    return true;
  }

  /**
   * At the W of the last {@link #loss} ({@link TronBlock#dual}): theta_i = C_i (e_{y_i} - p_i), p_i = softmax(z_i), and the
   * conjugate of C_i (log sum exp(z) - z_{y_i}) at -s theta_i is -C_i H(q_i), q_i = (1 - s) e_{y_i} + s p_i (a distribution), so
   * the row's term is C_i times q_i's entropy; q_{i,y_i} = 1 - s (1 - p_{i,y_i}) with 1 - p_{i,y_i} summed over the other classes.
   */
  @Override
  public double dual(double s) throws IOException {
    return sum(ch -> {
      double t = 0;
      for (int i = from(ch), e = to(ch); i < e; i++) {
        int at = i * k;
        double lse = logSumExp(z, at);
        double others = 0;
        double h = 0;
        for (int c = 0; c < k; c++) {
          if (c == y[i]) continue;
          double pc = Math.exp(z[at + c] - lse);
          others += pc;
          double q = s * pc;
          if (q > 0) h -= q * Math.log(q);
        }
        double rest = s * others; // 1 - q_{i,y_i}
        if (rest < 1) h -= (1 - rest) * Math.log1p(-rest);
        t += classC[y[i]] * h;
      }
      return t;
    });
  }

  /** Adds the loss's Hessian times {@code v} (at p of the last {@link #gradient}) to {@code out}. */
  @Override
  public void hessian(double[] v, double[] out) throws IOException {
    check(v.length);
    hessianParts = addChunks(hessianParts, out, (ch, o) -> hessianRows(ch, v, o));
  }

  private void hessianRows(int ch, double[] v, double[] out) {
    double[] u = new double[k];
    for (int i = from(ch), e = to(ch); i < e; i++) {
      int at = i * k;
      scores(i, v, u, 0);
      double s = 0;
      for (int c = 0; c < k; c++) s += prob[at + c] * u[c];
      double ci = classC[y[i]];
      for (int c = 0; c < k; c++) u[c] = ci * prob[at + c] * (u[c] - s);
      for (int q = x.from[i], end = x.to[i]; q < end; q++) {
        int f = x.index[q];
        if (f >= dim) continue;
        double val = x.value[q];
        int base = f * k;
        for (int c = 0; c < k; c++) out[base + c] += u[c] * val;
      }
      int base = dim * k;
      for (int c = 0; c < k; c++) out[base + c] += u[c] * bf;
    }
  }

  @Override
  public boolean densePairs() {
    return true;
  }

  /**
   * Adds the loss's Hessian at p of the last {@link #gradient} ({@link TronBlock#hessianPairs}): for each pair of row i's stored
   * features a, b (the bias feature's included), the block sum_i C_i x_ia x_ib (p_ik [k = l] - p_ik p_il) at (a K + k, b K + l),
   * for a pair of two features all K x K entries once, for a feature with itself k &lt;= l only.
   */
  @Override
  public void hessianPairs(double[] out, int offset, int n) throws IOException {
    check(n);
    pairParts = addChunks(pairParts, out, (ch, o) -> pairRows(ch, o, offset, n));
  }

  private void pairRows(int ch, double[] out, int offset, int n) {
    double[] s = new double[k * k];
    int[] fs = new int[0];
    double[] vs = new double[0];
    for (int i = from(ch), e = to(ch); i < e; i++) {
      int at = i * k;
      double ci = classC[y[i]];
      for (int c = 0; c < k; c++) {
        for (int l = 0; l < k; l++) s[c * k + l] = ci * prob[at + c] * ((c == l ? 1 : 0) - prob[at + l]);
      }
      int m = 0;
      int len = x.to[i] - x.from[i] + 1;
      if (fs.length < len) {
        fs = new int[len];
        vs = new double[len];
      }
      for (int q = x.from[i], end = x.to[i]; q < end; q++) {
        if (x.index[q] >= dim) continue;
        fs[m] = x.index[q];
        vs[m++] = x.value[q];
      }
      if (bf != 0) {
        fs[m] = dim;
        vs[m++] = bf;
      }
      for (int p = 0; p < m; p++) {
        int ra = fs[p] * k;
        double va = vs[p];
        for (int c = 0; c < k; c++) { // the feature with itself: k <= l
          int row = offset + (ra + c) * n + ra;
          for (int l = c; l < k; l++) out[row + l] += va * va * s[c * k + l];
        }
        for (int q = p + 1; q < m; q++) {
          int rb = fs[q] * k;
          double vv = va * vs[q];
          for (int c = 0; c < k; c++) {
            int row = offset + (ra + c) * n + rb;
            for (int l = 0; l < k; l++) out[row + l] += vv * s[c * k + l];
          }
        }
      }
    }
  }

  /**
   * The softmax Hessian by column (p of the last {@link #gradient}) for newGLMNET's column form: weight (f, c) is feature f's
   * column of the rows' transpose ({@link Csr#columns}) for class c. q holds u_ic = x_i'd_c (rows x K, row-major) and then s_i =
   * sum_l p_il u_il (rows), so (H d)_(f,c) = sum_i C_i x_if p_ic (u_ic - s_i) costs the column's values, as a move does.
   */
  @Override
  public Columns columns(int n) {
    check(n);
    Csc cols = x.columns(dim);
    int rows = y.length;
    int sAt = rows * k;
    return new Columns() {
      @Override
      public int rows() {
        return rows;
      }

      @Override
      public int scratch() {
        return rows * (k + 1);
      }

      @Override
      public double hessianDot(int j, double[] q) {
        int f = j / k;
        int c = j % k;
        double s = 0;
        if (f < dim) {
          for (int p = cols.start[f], e = cols.start[f + 1]; p < e; p++) {
            int i = cols.row[p];
            int at = i * k + c;
            s += cols.value[p] * classC[y[i]] * prob[at] * (q[at] - q[sAt + i]);
          }
          return s;
        }
        if (bf == 0) return 0;
        for (int i = 0; i < rows; i++) {
          int at = i * k + c;
          s += bf * classC[y[i]] * prob[at] * (q[at] - q[sAt + i]);
        }
        return s;
      }

      @Override
      public void add(int j, double z, double[] q) {
        int f = j / k;
        int c = j % k;
        if (f < dim) {
          for (int p = cols.start[f], e = cols.start[f + 1]; p < e; p++) {
            int i = cols.row[p];
            double t = z * cols.value[p];
            q[i * k + c] += t;
            q[sAt + i] += prob[i * k + c] * t;
          }
          return;
        }
        if (bf == 0) return;
        for (int i = 0; i < rows; i++) {
          double t = z * bf;
          q[i * k + c] += t;
          q[sAt + i] += prob[i * k + c] * t;
        }
      }

      @Override
      public int size(int j) {
        int f = j / k;
        return f < dim ? cols.size(f) : bf == 0 ? 0 : rows;
      }
    };
  }

  /** Class c's weights (dim + 1, the bias feature's last) out of W. */
  public static double[] classWeights(double[] w, int classes, int c) {
    int d1 = w.length / classes;
    double[] out = new double[d1];
    for (int f = 0; f < d1; f++) out[f] = w[f * classes + c];
    return out;
  }
}
