package org.sodm.linear;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Orthant-wise limited-memory quasi-Newton (OWL-QN; Andrew and Gao, "Scalable training of L1-regularized log-linear models",
 * ICML 2007, the method of Spark MLlib's L1 and elastic-net logistic regression) for min |w|_1 + L(w), L smooth and convex,
 * over an {@link Objective} whose sums may be taken over many blocks: every rank of an AllReduce runs this same arithmetic on
 * the same reduced numbers, so every rank takes the same steps.
 *
 * <p>An iteration: the pseudo-gradient of |w|_1 + L at w (the steepest descent direction's negative), the L-BFGS direction of
 * its negative from the last {@value #MEMORY} pairs (s, y) of L's gradients, zeroed where a weight at 0 would leave the orthant
 * the steepest descent direction chooses for it, then a backtracking line search (halving from 1; the first iteration from 1 / |pseudo-gradient|)
 * on the orthant of w (a coordinate crossing zero is set to zero) until f decreases by 1e-4 of the pseudo-gradient's
 * directional derivative. The run stops when |pseudo-gradient| &lt;= tolerance |pseudo-gradient at 0|, after
 * {@code maxIterations} iterations, or when no step decreases f (what is left is rounding).
 */
public final class Owlqn extends L1Run {
  /** L and its gradient; {@link #gradient} is at the w of the last {@link #value}. */
  public interface Objective {
    /** L(w), the smooth part (without |w|_1). */
    double value(double[] w) throws IOException;

    /** At the w of the last {@link #value}: grad L into {@code g}. */
    void gradient(double[] g) throws IOException;
  }

  /** Pairs (s, y) the direction uses. */
  static final int MEMORY = 10;
  private static final double GAMMA = 1e-4;
  private static final int MAX_HALVINGS = 60;

  /** A checkpoint: w, |pseudo-gradient at 0|, the iterations and steps so far, the status, the memory's pairs (oldest first). */
  public record Point(double[] w, double gradientNorm0, int iterations, int trials, Tron.Status status, List<double[]> s,
      List<double[]> y) {}

  private final Objective fun;
  private final List<double[]> s = new ArrayList<>();
  private final List<double[]> y = new ArrayList<>();

  /** Starts at {@code w} (copied; zeros for a fresh run), or resumes {@code from} a point when it is not null. */
  public Owlqn(Objective fun, double[] w, double tolerance, int maxIterations, Point from) throws IOException {
    this(fun, 1, w, tolerance, maxIterations, from);
  }

  /** As above for min lambda |w|_1 + L(w). */
  public Owlqn(Objective fun, double lambda, double[] w, double tolerance, int maxIterations, Point from) throws IOException {
    super(w, lambda, tolerance, maxIterations, from == null ? null : from.w());
    this.fun = fun;
    if (from != null) {
      for (int k = 0; k < from.s().size(); k++) {
        s.add(from.s().get(k).clone());
        y.add(from.y().get(k).clone());
      }
      begin(true, from.gradientNorm0(), from.iterations(), from.trials(), from.status());
    } else {
      begin(false, 0, 0, 0, null);
    }
  }

  @Override
  double smooth(double[] x) throws IOException {
    return fun.value(x);
  }

  @Override
  void derivatives(double[] g) throws IOException {
    fun.gradient(g);
  }

  public Point point() {
    return new Point(w.clone(), pgNorm0, iterations, trials, status, List.copyOf(s), List.copyOf(y));
  }

  /** One iteration: direction, line search, the memory's new pair ({@link L1Run#ended}'s trial). */
  @Override
  public Tron.Trial step() throws IOException {
    if (done()) throw new IllegalStateException("the run has ended: " + status);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) v[i] = -pg[i];
    double[] d = direction(v);
    // Only a weight at 0 must follow the steepest descent's sign (its orthant is that sign); a weight off 0 may move against it,
    // as a quasi-Newton step across a correlated valley does. d stays a descent direction: v'd > 0 for L-BFGS's positive
    // definite H, and each zeroed term v_i d_i <= 0 only adds to it. Andrew and Gao zero every disagreeing coordinate, which
    // crawls along such valleys (OwlqnTest.correlatedFeaturesConvergeInFewIterations: 2,476 iterations against 239).
    for (int i = 0; i < n; i++) if (w[i] == 0 && d[i] * v[i] <= 0) d[i] = 0;
    double alpha = s.isEmpty() ? 1 / pgNorm : 1;
    double[] wNew = new double[n];
    double fNew = f;
    int evals = 0;
    boolean taken = false;
    for (int h = 0; h < MAX_HALVINGS; h++) {
      for (int i = 0; i < n; i++) {
        double orthant = w[i] != 0 ? Math.signum(w[i]) : Math.signum(v[i]);
        double t = w[i] + alpha * d[i];
        wNew[i] = Math.signum(t) == orthant ? t : 0;
      }
      evals++;
      fNew = fun.value(wNew) + l1(wNew);
      double decrease = 0;
      for (int i = 0; i < n; i++) decrease += v[i] * (wNew[i] - w[i]);
      if (fNew <= f - GAMMA * decrease) {
        taken = true;
        break;
      }
      alpha /= 2;
    }
    double fOld = f;
    if (taken) {
      double[] gNew = new double[n];
      fun.gradient(gNew);
      double[] sk = new double[n];
      double[] yk = new double[n];
      for (int i = 0; i < n; i++) {
        sk[i] = wNew[i] - w[i];
        yk[i] = gNew[i] - grad[i];
      }
      if (Vectors.dot(sk, yk) > 0) {
        s.add(sk);
        y.add(yk);
        if (s.size() > MEMORY) {
          s.remove(0);
          y.remove(0);
        }
      }
      System.arraycopy(wNew, 0, w, 0, n);
      f = fNew;
      grad = gNew;
      pseudo();
    }
    return ended(taken, fOld, alpha, evals);
  }

  /** L-BFGS's two loops: H v, H the inverse-Hessian estimate of the memory's pairs (v itself without pairs). */
  private double[] direction(double[] v) {
    double[] q = v.clone();
    int m = s.size();
    double[] a = new double[m];
    for (int k = m - 1; k >= 0; k--) {
      double rho = 1 / Vectors.dot(y.get(k), s.get(k));
      a[k] = rho * Vectors.dot(s.get(k), q);
      double[] yk = y.get(k);
      for (int i = 0; i < n; i++) q[i] -= a[k] * yk[i];
    }
    if (m > 0) {
      double scale = Vectors.dot(s.get(m - 1), y.get(m - 1)) / Vectors.dot(y.get(m - 1), y.get(m - 1));
      for (int i = 0; i < n; i++) q[i] *= scale;
    }
    for (int k = 0; k < m; k++) {
      double rho = 1 / Vectors.dot(y.get(k), s.get(k));
      double b = rho * Vectors.dot(y.get(k), q);
      double[] sk = s.get(k);
      for (int i = 0; i < n; i++) q[i] += sk[i] * (a[k] - b);
    }
    return q;
  }
}
