package org.sodm.linear;

import java.io.IOException;

/**
 * A certificate of how far an L1 run's f is from the optimum: the Fenchel duality gap of P(w) = l1 |w|_1 + l2 / 2 |w|^2 +
 * sum_i h_i(y_i w'x_i), h_i convex (logistic, squared hinge: {@link TronBlock#dual}). For any theta, D(theta) = -sum_i
 * h_i*(-theta_i) - g*(A'theta), A's rows y_i x_i and g = l1 |.|_1 + l2 / 2 |.|^2, is at most min P; so P(w) - D(theta) bounds
 * P(w) - min P from above, and is 0 at the optimum with theta_i = -h_i'(y_i w'x_i).
 *
 * <p>The theta of w: theta_i = -h_i'(y_i w'x_i), so A'theta = -(the loss's gradient), which the run has. With l2 = 0, g* is 0
 * on |A'theta|_inf &lt;= l1 and infinite off it, so theta is scaled by s = min(1, l1 / |A'theta|_inf) into the dual's domain (the
 * certificate of El Ghaoui et al.'s safe screening and of the L1 solvers' gap stops); with l2 &gt; 0, g*(v) = sum_j
 * max(|v_j| - l1, 0)^2 / (2 l2) and s = 1. The rows' part is one more scalar sum over the blocks.
 */
public final class DualityGap {
  private DualityGap() {}

  /** The rows' part of D at theta scaled by s: sum_i -h_i*(-s theta_i) over every block. */
  public interface Rows {
    double at(double s) throws IOException;
  }

  /**
   * P(w) - D(s theta(w)).
   *
   * @param f P(w)
   * @param lossGradient the loss's gradient at w (without the l2 w term): -A'theta
   */
  public static double gap(double f, double[] lossGradient, double l1, double l2, Rows rows) throws IOException {
    if (!(l1 > 0) || !(l2 >= 0)) throw new IllegalArgumentException("the penalty needs l1 > 0, l2 >= 0: " + l1 + ", " + l2);
    if (l2 == 0) {
      double max = 0;
      for (double v : lossGradient) max = Math.max(max, Math.abs(v));
      return f - rows.at(max <= l1 ? 1 : l1 / max);
    }
    double conjugate = 0;
    for (double v : lossGradient) {
      double e = Math.abs(v) - l1;
      if (e > 0) conjugate += e * e;
    }
    return f - (rows.at(1) - conjugate / (2 * l2));
  }
}
