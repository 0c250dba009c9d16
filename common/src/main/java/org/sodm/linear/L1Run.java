package org.sodm.linear;

import java.io.IOException;

/**
 * What the two methods for min lambda |w|_1 + L(w) ({@link Owlqn}, {@link GlmNet}) share (lambda = 1 for L1-regularised
 * logistic regression; an elastic net's rho, its ridge part then in L): the point, f, L's gradient, the
 * pseudo-gradient and its norm now and at 0, the counts, and the stop: |pseudo-gradient| &lt;= tolerance |pseudo-gradient at
 * 0| (or, {@link #stopByGap}, the duality gap &lt;= tolerance f), after {@code maxIterations} iterations, or when no step
 * decreases f (what is left is rounding).
 */
abstract class L1Run implements TrialRun {
  final int n;
  final double tolerance;
  final int maxIterations;
  /** The weight of |w|_1. */
  final double lambda;
  final double[] w;
  double[] grad;
  double[] pg;
  double f;
  double pgNorm;
  double pgNorm0;
  int iterations;
  int trials;
  Tron.Status status = Tron.Status.RUNNING;
  /** The duality gap at w where it was taken since the last step, else NaN. */
  double gap = Double.NaN;
  private Certificate certificate;
  private double gapTolerance;

  /** The duality gap at the run's w ({@link DualityGap}), its f and L's gradient there. */
  interface Certificate {
    double gap(L1Run run) throws IOException;
  }

  /** At {@code w} (copied), or at {@code resumed} (a checkpoint's w) when it is not null. */
  L1Run(double[] w, double lambda, double tolerance, int maxIterations, double[] resumed) {
    if (!(tolerance > 0)) throw new IllegalArgumentException("tolerance must be > 0, got " + tolerance);
    if (!(lambda > 0)) throw new IllegalArgumentException("the weight of |w|_1 must be > 0, got " + lambda);
    this.lambda = lambda;
    if (maxIterations < 1) throw new IllegalArgumentException("maxIterations must be >= 1, got " + maxIterations);
    this.n = w.length;
    this.tolerance = tolerance;
    this.maxIterations = maxIterations;
    this.w = (resumed == null ? w : resumed).clone();
    if (this.w.length != n) throw new IllegalArgumentException("a point of " + this.w.length + " weights for " + n);
    this.grad = new double[n];
  }

  /** L(w) (the last evaluation, so the derivatives to come are at w). */
  abstract double smooth(double[] w) throws IOException;

  /** At the w of the last {@link #smooth}: L's gradient into {@code g} (and whatever else the method keeps of that point). */
  abstract void derivatives(double[] g) throws IOException;

  /**
   * Where the subclass's constructor ends: a fresh run takes |pseudo-gradient at 0| (at w itself when w is 0) and may already
   * meet the stop; a resumed one its checkpoint's counts.
   */
  final void begin(boolean resumed, double resumedNorm0, int resumedIterations, int resumedTrials, Tron.Status resumedStatus)
      throws IOException {
    boolean zero = true;
    for (double v : w) zero &= v == 0;
    if (!resumed && !zero) {
      smooth(new double[n]);
      derivatives(grad);
      pgNorm0 = norm(pseudoGradient(new double[n], grad, lambda));
    }
    f = smooth(w) + l1(w);
    derivatives(grad);
    pseudo();
    if (resumed) {
      pgNorm0 = resumedNorm0;
      iterations = resumedIterations;
      trials = resumedTrials;
      status = resumedStatus;
      return;
    }
    if (zero) pgNorm0 = pgNorm;
    iterations = 1;
    if (converged()) status = Tron.Status.CONVERGED;
  }

  /**
   * Stops the run by its duality gap instead: when gap &lt;= {@code tolerance} f, which bounds f - min f by tolerance f (LIBLINEAR's
   * rule on the pseudo-gradient can hold far from the optimum on badly scaled data). The gap is taken at every accepted step (one
   * pass over the rows' margins, one more scalar sum); the start's stop is decided again by it.
   */
  final void stopByGap(Certificate c, double tolerance) throws IOException {
    certificate = c; // tolerance in (0, 1): TronRank#stopByGap checks it
    gapTolerance = tolerance;
    if (status == Tron.Status.RUNNING || status == Tron.Status.CONVERGED) {
      status = converged() ? Tron.Status.CONVERGED : Tron.Status.RUNNING;
    }
  }

  /** The stop: |pseudo-gradient| &lt;= tolerance |pseudo-gradient at 0|, or by gap the duality gap (kept in {@link #gap}). */
  private boolean converged() throws IOException {
    if (certificate == null) return pgNorm <= tolerance * pgNorm0;
    gap = certificate.gap(this);
    return gap <= gapTolerance * f;
  }

  /** The pseudo-gradient at w from {@link #grad}. */
  final void pseudo() {
    pg = pseudoGradient(w, grad, lambda);
    pgNorm = norm(pg);
  }

  /**
   * Ends a step: with {@code taken} w holds the new point and f its value (the caller has the derivatives there too); counts,
   * the stop, and the step as a {@link Tron.Trial}: its number, the iteration count after it, f and |pseudo-gradient|, the step
   * length (as the trial's "delta"), the evaluations of f (as its "cgSteps"), whether a step was taken.
   */
  final Tron.Trial ended(boolean taken, double fOld, double alpha, int evals) throws IOException {
    trials++;
    gap = Double.NaN;
    if (taken) {
      iterations++;
      if (converged()) status = Tron.Status.CONVERGED;
    }
    if (status == Tron.Status.RUNNING) {
      if (!taken || f == fOld) { // no step decreases f: what is left is rounding
        status = Tron.Status.NO_PROGRESS;
      } else if (iterations > maxIterations) {
        status = Tron.Status.MAX_ITERATIONS;
      }
    }
    return new Tron.Trial(trials, iterations, f, pgNorm, taken ? alpha : 0, evals, taken, status, gap);
  }

  /** lambda |w|_1. */
  final double l1(double[] w) {
    double s = 0;
    for (double v : w) s += Math.abs(v);
    return lambda * s;
  }

  static double norm(double[] v) {
    return Math.sqrt(Vectors.dot(v, v));
  }

  /** The pseudo-gradient of |w|_1 + L: grad L + sign(w) off zero; at zero the one-sided derivative that descends, else 0. */
  static double[] pseudoGradient(double[] w, double[] gl) {
    return pseudoGradient(w, gl, 1);
  }

  /** The pseudo-gradient of lambda |w|_1 + L. */
  static double[] pseudoGradient(double[] w, double[] gl, double lambda) {
    double[] p = new double[w.length];
    for (int i = 0; i < w.length; i++) {
      if (w[i] > 0) {
        p[i] = gl[i] + lambda;
      } else if (w[i] < 0) {
        p[i] = gl[i] - lambda;
      } else if (gl[i] + lambda < 0) {
        p[i] = gl[i] + lambda;
      } else if (gl[i] - lambda > 0) {
        p[i] = gl[i] - lambda;
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
}
