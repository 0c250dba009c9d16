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
 * its negative from the last {@value #MEMORY} pairs (s, y) of L's gradients, zeroed where it disagrees in sign with the
 * steepest descent direction, then a backtracking line search (halving from 1; the first iteration from 1 / |pseudo-gradient|)
 * on the orthant of w (a coordinate crossing zero is set to zero) until f decreases by 1e-4 of the pseudo-gradient's
 * directional derivative. The run stops when |pseudo-gradient| &lt;= tolerance |pseudo-gradient at 0|, after
 * {@code maxIterations} iterations, or when no step decreases f (what is left is rounding).
 */
public final class Owlqn implements TrialRun {
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
  private final int n;
  private final double tolerance;
  private final int maxIterations;
  private final double[] w;
  private double[] grad;
  private double[] pg;
  private double f;
  private double pgNorm;
  private double pgNorm0;
  private int iterations;
  private int trials;
  private Tron.Status status = Tron.Status.RUNNING;
  private final List<double[]> s = new ArrayList<>();
  private final List<double[]> y = new ArrayList<>();

  /** Starts at {@code w} (copied; zeros for a fresh run), or resumes {@code from} a point when it is not null. */
  public Owlqn(Objective fun, double[] w, double tolerance, int maxIterations, Point from) throws IOException {
    if (!(tolerance > 0)) throw new IllegalArgumentException("tolerance must be > 0, got " + tolerance);
    if (maxIterations < 1) throw new IllegalArgumentException("maxIterations must be >= 1, got " + maxIterations);
    this.fun = fun;
    this.n = w.length;
    this.tolerance = tolerance;
    this.maxIterations = maxIterations;
    this.w = (from == null ? w : from.w()).clone();
    if (this.w.length != n) throw new IllegalArgumentException("a point of " + this.w.length + " weights for " + n);
    evaluate();
    if (from != null) {
      pgNorm0 = from.gradientNorm0();
      iterations = from.iterations();
      trials = from.trials();
      status = from.status();
      for (int k = 0; k < from.s().size(); k++) {
        s.add(from.s().get(k).clone());
        y.add(from.y().get(k).clone());
      }
      return;
    }
    boolean zero = true;
    for (double v : this.w) zero &= v == 0;
    if (zero) {
      pgNorm0 = pgNorm;
    } else { // |pseudo-gradient at 0| for the stop, then back to w
      fun.value(new double[n]);
      double[] g0 = new double[n];
      fun.gradient(g0);
      pgNorm0 = norm(pseudoGradient(new double[n], g0));
      evaluate();
    }
    iterations = 1;
    if (pgNorm <= tolerance * pgNorm0) status = Tron.Status.CONVERGED;
  }

  /** f, grad L and the pseudo-gradient at w. */
  private void evaluate() throws IOException {
    f = fun.value(w) + l1(w);
    grad = new double[n];
    fun.gradient(grad);
    pg = pseudoGradient(w, grad);
    pgNorm = norm(pg);
  }

  static double l1(double[] w) {
    double s = 0;
    for (double v : w) s += Math.abs(v);
    return s;
  }

  private static double norm(double[] v) {
    return Math.sqrt(Vectors.dot(v, v));
  }

  /** The pseudo-gradient of |w|_1 + L: grad L + sign(w) off zero; at zero the one-sided derivative that descends, else 0. */
  static double[] pseudoGradient(double[] w, double[] gl) {
    double[] p = new double[w.length];
    for (int i = 0; i < w.length; i++) {
      if (w[i] > 0) {
        p[i] = gl[i] + 1;
      } else if (w[i] < 0) {
        p[i] = gl[i] - 1;
      } else if (gl[i] + 1 < 0) {
        p[i] = gl[i] + 1;
      } else if (gl[i] - 1 > 0) {
        p[i] = gl[i] - 1;
      }
    }
    return p;
  }

  @Override
  public Tron.Status status() {
    return status;
  }

  @Override
  public boolean done() {
    return status != Tron.Status.RUNNING;
  }

  public double[] w() {
    return w;
  }

  /** f = |w|_1 + L(w). */
  @Override
  public double value() {
    return f;
  }

  /** |pseudo-gradient| at w. */
  @Override
  public double gradientNorm() {
    return pgNorm;
  }

  public double initialGradientNorm() {
    return pgNorm0;
  }

  @Override
  public int iterations() {
    return iterations;
  }

  public Point point() {
    return new Point(w.clone(), pgNorm0, iterations, trials, status, List.copyOf(s), List.copyOf(y));
  }

  /**
   * One iteration: direction, line search, the memory's new pair. As a {@link Tron.Trial}: the step's number, the iteration count after it, f and
   * |pseudo-gradient|, the step length taken (as the trial's "delta"), the function evaluations of the line search (as its
   * "cgSteps"), whether a step was taken.
   */
  @Override
  public Tron.Trial step() throws IOException {
    if (done()) throw new IllegalStateException("the run has ended: " + status);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) v[i] = -pg[i];
    double[] d = direction(v);
    for (int i = 0; i < n; i++) if (d[i] * v[i] <= 0) d[i] = 0;
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
    trials++;
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
      pg = pseudoGradient(w, grad);
      pgNorm = norm(pg);
      iterations++;
      if (pgNorm <= tolerance * pgNorm0) status = Tron.Status.CONVERGED;
    }
    if (status == Tron.Status.RUNNING) {
      if (!taken || f == fOld) { // no step decreases f: what is left is rounding
        status = Tron.Status.NO_PROGRESS;
      } else if (iterations > maxIterations) {
        status = Tron.Status.MAX_ITERATIONS;
      }
    }
    return new Tron.Trial(trials, iterations, f, pgNorm, taken ? alpha : 0, evals, taken, status);
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
