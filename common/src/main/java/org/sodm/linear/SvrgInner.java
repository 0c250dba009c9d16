package org.sodm.linear;

import org.sodm.data.SparseVector;

/**
 * The inner updates of DSVRG (seed 000 Algorithm 2, line 14) at O(nnz(x_i)) per step on sparse
 * data. With the snapshot w~ and the full gradient h = w~ + gbar, gbar = 1/M sum_j g_j(w~) y_j x_j,
 *
 * <pre>
 *   w &lt;- w - eta (grad p_i(w) - grad p_i(w~) + h) = (1 - eta) w - eta gbar - eta (g_i(w) - g_i(w~)) y_i x_i,
 * </pre>
 *
 * so w is kept lazily as w = a u + c gbar: the dense part is two scalars (a &lt;- (1-eta) a,
 * c &lt;- (1-eta) c - eta) and only u changes at the features of x_i. u is renormalised when a
 * gets tiny.
 */
public final class SvrgInner {
  private final OdmPrimal odm;
  private final double eta;
  private final double bf;
  private final double[] u;
  private final double[] gbar;
  private double a = 1;
  private double c = 0;
  private long steps;

  /** Starts at w = w0 (copied); gbar as above (length dim + 1, not copied). */
  public SvrgInner(OdmPrimal odm, double eta, double[] w0, double[] gbar) {
    if (!(eta > 0 && eta < 1)) throw new IllegalArgumentException("step size must be in (0, 1), got " + eta);
    this.odm = odm;
    this.eta = eta;
    this.bf = odm.biasFeature();
    this.u = w0.clone();
    this.gbar = gbar;
  }

  /** One update on instance (x, y) whose snapshot margin is y w~'x. */
  public void step(SparseVector x, double y, double snapshotMargin) {
    double m = y * (a * Vectors.dot(x, u, bf) + c * Vectors.dot(x, gbar, bf));
    double delta = odm.coef(y, m) - odm.coef(y, snapshotMargin);
    a *= 1 - eta;
    c = (1 - eta) * c - eta;
    if (delta != 0) Vectors.axpy(-eta * delta * y / a, x, u, bf);
    if (a < 1e-150) {
      for (int k = 0; k < u.length; k++) u[k] *= a;
      a = 1;
    }
    steps++;
  }

  public long steps() {
    return steps;
  }

  /** The current w, materialised. */
  public double[] w() {
    double[] w = new double[u.length];
    for (int k = 0; k < w.length; k++) w[k] = a * u[k] + c * gbar[k];
    return w;
  }
}
