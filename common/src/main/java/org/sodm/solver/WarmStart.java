package org.sodm.solver;

/**
 * The loss a block of a merge tree solves, and the warm start a merged block takes from its
 * children (issue 18 item 0, issue 19 item 2).
 *
 * <p><b>Block C.</b> The hinge losses put C on every row's error, so a block of n/B rows solved
 * with the whole problem's C weighs its errors 1/B as much against ||w||^2 / 2 as the whole
 * problem does: each block is a more regularised problem, and the average of B such models is
 * too smooth (ijcnn1 at C = 1, gamma = 1/22: 1.5 points below LIBSVM with 4 final blocks). Written
 * as regularised risk, the whole problem is min ||w||^2 / (2 C n) + (1/n) sum_i loss_i; a block of
 * m = n/B rows estimates the same risk with (1/m) sum over its rows, i.e. C_block = C n / m = C B.
 * {@link #blockLoss} returns that loss. ODM already averages its loss over the rows of the problem
 * being solved (its dual's m c_i terms), so it is returned unchanged.
 *
 * <p><b>At most the regularisation of R rows</b> ({@link #cFactor}). C B grows with n at a fixed
 * block size, and an SMO solve's iterations grow about linearly with C on data with label noise
 * (a block of 24,576 rows of the synthetic pattern, 2% flipped labels: 60k, 235k, 520k, 1.4M
 * iterations at C = 17, 68, 164, 400), so every doubling of n would make each block dearer and the
 * whole tree quadratic in n. With a bound R on the rows, a level of B blocks of a problem of n &gt;
 * R rows solves with C B R / n instead: each block weighs its errors as a problem of R rows does,
 * and the per-block cost stops growing with n.
 *
 * <p><b>Warm start across a merge.</b> A child block's optimum has w_c = sum_i gamma_i y_i phi(x_i)
 * estimating the same w as its parent; concatenating p children's dual variables starts the parent
 * at sum_c w_c, about p w (and, for hinge with block C, at alpha up to C B_child, outside the
 * parent's box [0, C B_parent]). The carried variables are therefore scaled so that the parent
 * starts at a weighted mean of its children's w:
 *
 * <ul>
 *   <li>hinge losses: by C_parent / C_child = B_parent / B_child (1/p for a full merge; 1 with
 *       the same C at every level, where the box is the same);
 *   <li>ODM: by m_child / m_parent, the rows of the child in the parent over the parent's rows
 *       (ODM's zeta and beta scale as 1/m: its dual is m c_i-weighted), so the parent starts at
 *       sum_c (m_c / m) w_c.
 * </ul>
 */
public final class WarmStart {
  private WarmStart() {}

  /** Hinge and squared hinge with C times {@code factor} ({@link #cFactor}), anything else unchanged. */
  public static Loss blockLoss(Loss loss, double factor) {
    if (!(factor >= 1) || Double.isInfinite(factor)) throw new IllegalArgumentException("the C factor must be finite and >= 1, got " + factor);
    if (factor == 1) return loss;
    if (loss instanceof Loss.Hinge h) return new Loss.Hinge(h.c() * factor, h.bias(), h.weights());
    if (loss instanceof Loss.SquaredHinge s) return new Loss.SquaredHinge(s.c() * factor, s.bias(), s.weights());
    return loss;
  }

  /**
   * The factor of C for a level of {@code blocks} blocks of a problem of {@code rows} rows (see the class comment):
   * {@code blocks} when {@code capRows} &lt;= 0 or {@code rows} &lt;= {@code capRows}, else blocks * capRows / rows, at
   * least 1 (a block larger than capRows keeps C).
   */
  public static double cFactor(int blocks, long rows, long capRows) {
    if (blocks < 1) throw new IllegalArgumentException("blocks must be >= 1, got " + blocks);
    if (rows < 0) throw new IllegalArgumentException("rows must be >= 0, got " + rows);
    if (capRows <= 0 || rows <= capRows) return blocks;
    return Math.max(1.0, blocks * (double) capRows / rows);
  }

  /**
   * The per-row factors of a merged block's warm start (see the class comment): {@code child[i]} is the block of the level
   * below that row i comes from; {@code factor} and {@code childFactor} are the C factors ({@link #cFactor}) of the parent's
   * and the children's levels, and hinge losses scale by {@code factor / childFactor}. A size-dependent loss (ODM) scales
   * row i by m_child(i) / m_parent, the change of its dual variable's 1/m scale from the child's problem to the parent's,
   * also when the parent holds only part of a child (DC-SVM's re-clustering at every level moves rows between blocks), with
   * {@code childSizes.get(c)} = m_c; without sizes (null, or a child missing from them) m_c is the number of the child's
   * rows in this parent: exact when parents are unions of whole children (the index merge).
   */
  public static double[] factors(Loss loss, double factor, double childFactor, int[] child,
      java.util.Map<Integer, Integer> childSizes) {
    int n = child.length;
    double[] f = new double[n];
    if (loss.sizeDependent()) {
      java.util.Map<Integer, Integer> count = new java.util.HashMap<>();
      for (int c : child) count.merge(c, 1, Integer::sum);
      for (int i = 0; i < n; i++) {
        Integer m = childSizes == null ? null : childSizes.get(child[i]);
        f[i] = (m != null ? m : count.get(child[i])) / (double) n;
      }
      return f;
    }
    if (!(factor >= 1) || !(childFactor >= 1)) {
      throw new IllegalArgumentException("the C factors must be >= 1, got " + factor + " and " + childFactor);
    }
    boolean hinge = loss instanceof Loss.Hinge || loss instanceof Loss.SquaredHinge;
    java.util.Arrays.fill(f, hinge ? factor / childFactor : 1);
    return f;
  }

  /** Multiplies instance i's {@code vars} variables of {@code alpha} by {@code f[i]}, in place. */
  public static void apply(double[] alpha, int vars, double[] f) {
    for (int i = 0; i < f.length; i++) {
      for (int j = 0; j < vars; j++) alpha[i * vars + j] *= f[i];
    }
  }
}
