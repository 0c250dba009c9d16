package org.sodm.linear;

import java.io.IOException;

/**
 * A trust-region Newton method with preconditioned conjugate gradients (Lin, Weng and Keerthi, "Trust region Newton method for
 * large-scale logistic regression", JMLR 2008; the rules of LIBLINEAR's TRON: the step bounds sigma 0.25 / 0.5 / 4, acceptance
 * eta0 = 1e-4, the diagonal preconditioner mixed 0.99 / 0.01 with the identity, conjugate gradients stopped on the decrease of
 * the quadratic model) over an {@link Objective} whose sums may be taken over many blocks: every rank of an AllReduce runs this
 * same arithmetic on the same reduced numbers, so every rank takes the same steps.
 *
 * <p>One {@link #step} is one trial step (LIBLINEAR's loop body); an accepted step is an iteration. The run stops when
 * |grad f(w)| &lt;= tolerance |grad f(0)|, after {@code maxIterations} iterations, or when the model's predicted reduction is
 * no longer positive or both reductions fall below 1e-12 |f| (what is left is rounding).
 */
public final class Tron implements TrialRun {
  /** f and its derivatives; {@link #gradient} and {@link #hessian} are at the w of the last {@link #value} that was accepted. */
  public interface Objective {
    /** f(w), the regulariser 1/2 |w|^2 included. */
    double value(double[] w) throws IOException;

    /** At the w of the last {@link #value}: grad f into {@code g}, the Hessian's diagonal into {@code diag}. */
    void gradient(double[] g, double[] diag) throws IOException;

    /** H v into {@code hv}, H at the w of the last {@link #gradient}. */
    void hessian(double[] v, double[] hv) throws IOException;
  }

  /** How a run ended. */
  public enum Status { RUNNING, CONVERGED, MAX_ITERATIONS, NO_PROGRESS }

  /**
   * One trial step: the iteration count after it, f and |grad f| at the current w, the radius, CG steps, accepted or not; an L1
   * run's duality gap at w where it was taken ({@link DualityGap}), else NaN.
   */
  public record Trial(int trial, int iterations, double f, double gradientNorm, double delta, int cgSteps, boolean accepted,
      Status status, double gap) {
    public Trial(int trial, int iterations, double f, double gradientNorm, double delta, int cgSteps, boolean accepted, Status status) {
      this(trial, iterations, f, gradientNorm, delta, cgSteps, accepted, status, Double.NaN);
    }

    /** This step with the gap at its w. */
    public Trial withGap(double g) {
      return new Trial(trial, iterations, f, gradientNorm, delta, cgSteps, accepted, status, g);
    }
  }

  private static final double ETA0 = 1e-4;
  private static final double ETA1 = 0.25;
  private static final double ETA2 = 0.75;
  private static final double SIGMA1 = 0.25;
  private static final double SIGMA2 = 0.5;
  private static final double SIGMA3 = 4;
  private static final double ALPHA_PCG = 0.01;
  private static final double EPS_CG = 0.1;

  private final Objective fun;
  private final int n;
  private final double tolerance;
  private final int maxIterations;
  private final double[] w;
  private final double[] g;
  private final double[] m;
  private double f;
  private double gnorm;
  private double gnorm0;
  private double delta;
  private boolean deltaAdjusted;
  private int iterations;
  private int trials;
  private Status status = Status.RUNNING;

  /** Where a run stands between trial steps (a checkpoint): w and the radius; f, grad f and the preconditioner follow from w. */
  public record Point(double[] w, double gradientNorm0, double delta, boolean deltaAdjusted, int iterations, int trials, Status status) {}

  /**
   * Starts at {@code w} (copied; zeros for a fresh run), or resumes {@code from} a point when it is not null.
   *
   * @param tolerance the stop |grad f(w)| &lt;= tolerance |grad f(0)|
   */
  public Tron(Objective fun, double[] w, double tolerance, int maxIterations, Point from) throws IOException {
    if (!(tolerance > 0)) throw new IllegalArgumentException("tolerance must be > 0, got " + tolerance);
    if (maxIterations < 1) throw new IllegalArgumentException("maxIterations must be >= 1, got " + maxIterations);
    this.fun = fun;
    this.n = w.length;
    this.tolerance = tolerance;
    this.maxIterations = maxIterations;
    this.w = (from == null ? w : from.w()).clone();
    if (this.w.length != n) throw new IllegalArgumentException("a point of " + this.w.length + " weights for " + n);
    this.g = new double[n];
    this.m = new double[n];
    f = fun.value(this.w);
    gradient();
    if (from != null) {
      gnorm0 = from.gradientNorm0();
      delta = from.delta();
      deltaAdjusted = from.deltaAdjusted();
      iterations = from.iterations();
      trials = from.trials();
      status = from.status();
      return;
    }
    boolean zero = true;
    for (double v : this.w) zero &= v == 0;
    if (zero) {
      gnorm0 = gnorm;
    } else { // |grad f(0)| for the stop, then back to w
      double[] g0 = new double[n];
      fun.value(new double[n]);
      fun.gradient(g0, new double[n]);
      gnorm0 = Math.sqrt(Vectors.dot(g0, g0));
      f = fun.value(this.w);
      gradient();
    }
    delta = Math.sqrt(mNorm2(g, g, true));
    iterations = 1;
    if (gnorm <= tolerance * gnorm0) status = Status.CONVERGED;
  }

  /** grad f and the preconditioner at the w of the last value(), |grad f|. */
  private void gradient() throws IOException {
    fun.gradient(g, m);
    for (int i = 0; i < n; i++) m[i] = (1 - ALPHA_PCG) + ALPHA_PCG * m[i];
    gnorm = Math.sqrt(Vectors.dot(g, g));
  }

  /** u' M v, or u' M^-1 v with {@code inverse}. */
  private double mNorm2(double[] u, double[] v, boolean inverse) {
    double s = 0;
    for (int i = 0; i < n; i++) s += inverse ? u[i] * v[i] / m[i] : u[i] * m[i] * v[i];
    return s;
  }

  @Override
  public Status status() {
    return status;
  }

  @Override
  public boolean done() {
    return status != Status.RUNNING;
  }

  public double[] w() {
    return w;
  }

  @Override
  public double value() {
    return f;
  }

  @Override
  public double gradientNorm() {
    return gnorm;
  }

  public double initialGradientNorm() {
    return gnorm0;
  }

  @Override
  public int iterations() {
    return iterations;
  }

  /** This run's point for a checkpoint. */
  public Point point() {
    return new Point(w.clone(), gnorm0, delta, deltaAdjusted, iterations, trials, status);
  }

  /** One trial step; a step that decreases f enough is taken. */
  @Override
  public Trial step() throws IOException {
    if (done()) throw new IllegalStateException("the run has ended: " + status);
    double[] s = new double[n];
    double[] r = new double[n];
    boolean[] boundary = new boolean[1];
    int cg = conjugateGradients(s, r, boundary);
    double[] wNew = w.clone();
    for (int i = 0; i < n; i++) wNew[i] += s[i];
    double gs = Vectors.dot(g, s);
    double prered = -0.5 * (gs - Vectors.dot(s, r));
    double fNew = fun.value(wNew);
    double actred = f - fNew;
    double sMnorm = Math.sqrt(mNorm2(s, s, false));
    if (iterations == 1 && !deltaAdjusted) {
      delta = Math.min(delta, sMnorm);
      deltaAdjusted = true;
    }
    double alpha = fNew - f - gs <= 0 ? SIGMA3 : Math.max(SIGMA1, -0.5 * (gs / (fNew - f - gs)));
    if (actred < ETA0 * prered) {
      delta = Math.min(alpha * sMnorm, SIGMA2 * delta);
    } else if (actred < ETA1 * prered) {
      delta = Math.max(SIGMA1 * delta, Math.min(alpha * sMnorm, SIGMA2 * delta));
    } else if (actred < ETA2 * prered) {
      delta = Math.max(SIGMA1 * delta, Math.min(alpha * sMnorm, SIGMA3 * delta));
    } else if (boundary[0]) {
      delta = SIGMA3 * delta;
    } else {
      delta = Math.max(delta, Math.min(alpha * sMnorm, SIGMA3 * delta));
    }
    boolean accepted = actred > ETA0 * prered;
    trials++;
    if (accepted) {
      iterations++;
      System.arraycopy(wNew, 0, w, 0, n);
      f = fNew;
      gradient();
      if (gnorm <= tolerance * gnorm0) status = Status.CONVERGED;
    }
    if (status == Status.RUNNING) {
      if (prered <= 0 || Math.abs(actred) <= 1e-12 * Math.abs(f) && Math.abs(prered) <= 1e-12 * Math.abs(f)) {
        status = Status.NO_PROGRESS;
      } else if (iterations > maxIterations) {
        status = Status.MAX_ITERATIONS;
      }
    }
    return new Trial(trials, iterations, f, gnorm, delta, cg, accepted, status);
  }

  /** Preconditioned CG on H s = -g inside |s|_M &lt;= delta; r = -g - H s on return. */
  private int conjugateGradients(double[] s, double[] r, boolean[] boundary) throws IOException {
    double[] d = new double[n];
    double[] hd = new double[n];
    double[] z = new double[n];
    for (int i = 0; i < n; i++) {
      r[i] = -g[i];
      z[i] = r[i] / m[i];
      d[i] = z[i];
    }
    double zTr = Vectors.dot(z, r);
    double cgtol = Math.min(EPS_CG, Math.sqrt(Math.sqrt(zTr)));
    int steps = 0;
    int maxSteps = Math.max(n, 5);
    double q = 0;
    while (steps < maxSteps) {
      steps++;
      fun.hessian(d, hd);
      double dHd = Vectors.dot(d, hd);
      if (dHd <= 1e-16) break;
      double alpha = zTr / dHd;
      for (int i = 0; i < n; i++) s[i] += alpha * d[i];
      if (Math.sqrt(mNorm2(s, s, false)) > delta) { // back to the boundary along d
        boundary[0] = true;
        for (int i = 0; i < n; i++) s[i] -= alpha * d[i];
        double sMd = mNorm2(s, d, false);
        double sMs = mNorm2(s, s, false);
        double dMd = mNorm2(d, d, false);
        double dsq = delta * delta;
        double rad = Math.sqrt(sMd * sMd + dMd * (dsq - sMs));
        alpha = sMd >= 0 ? (dsq - sMs) / (sMd + rad) : (rad - sMd) / dMd;
        for (int i = 0; i < n; i++) {
          s[i] += alpha * d[i];
          r[i] -= alpha * hd[i];
        }
        break;
      }
      for (int i = 0; i < n; i++) {
        r[i] -= alpha * hd[i];
        z[i] = r[i] / m[i];
      }
      double zTrNew = Vectors.dot(z, r);
      double qNew = -0.5 * (Vectors.dot(s, r) - Vectors.dot(s, g)); // the model g's + s'Hs/2 at s
      double qDiff = qNew - q;
      if (qNew > 0 || qDiff > 0) break; // rounding: the model no longer decreases
      if (steps * qDiff >= cgtol * qNew) break;
      q = qNew;
      double beta = zTrNew / zTr;
      for (int i = 0; i < n; i++) d[i] = z[i] + beta * d[i];
      zTr = zTrNew;
    }
    return steps;
  }
}
