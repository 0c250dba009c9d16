package org.sodm.saddle;

import java.util.List;
import java.util.OptionalDouble;

/**
 * The options of {@link SaddleSvc} (seed 002, Saddle-SVC and Saddle-DSVC, linear kernel).
 *
 * @param variant hard-margin SVM (C-Hull (2), HM-Saddle (4)) or nu-SVM (RC-Hull (6), nu-Saddle (8))
 * @param nu nu-SVM only: nu as in LIBSVM's {@code svm-train -s 1 -n} (Schoelkopf et al.: an upper
 *     bound on the fraction of margin errors, a lower bound on the fraction of support vectors), in
 *     (0, 1]. The paper's nu of (5)-(8) is the cap on eta and xi, cap = 2 / (n nu) (Appendix D,
 *     "mu-SVM": its mu is this nu). Empty: the paper's default of Section 5, cap = 1 / (alpha
 *     min(n1, n2)), i.e. nu = 2 alpha min(n1, n2) / n
 * @param alpha the default's alpha, in (0, 1] (0.85 in the paper's experiments)
 * @param eps the target relative duality gap, in (0, 1): also the eps of gamma = eps beta / (2 log n)
 * @param maxIterations iterations of Algorithm 2 per beta tried
 * @param checkInterval iterations between duality-gap checks; 0 for the paper's
 *     T = d + sqrt(d / (eps beta)) (Appendix D)
 * @param betas the values of beta tried, in order (footnote 4: beta = 10^-k); the first run whose
 *     gap reaches eps is kept, else the run with the largest certified margin
 * @param seed the seed of the sign diagonal D and of the coordinate draws
 * @param projection the rule projecting eta, xi onto the capped simplex (nu-SVM); SORTING needs
 *     {@code clients == 1}
 * @param clients the number of in-process Saddle-DSVC clients the points are split over
 *     (contiguous ranges of rows); 1 is Saddle-SVC
 * @param stallChecks a run stops (and the next beta is tried) after this many gap checks in a row
 *     without progress ({@link SaddleSvc}); 0: never
 * @param separationTolerance a (reduced) hull distance, relative to the largest point norm, at or
 *     below which data that no hyperplane separated so far are reported as not separable
 */
public record SaddleOptions(Variant variant, OptionalDouble nu, double alpha, double eps, long maxIterations,
    long checkInterval, List<Double> betas, long seed, ProjectionRule projection, int clients, int stallChecks,
    double separationTolerance) {

  public enum Variant { HARD_MARGIN, NU }

  /** The capped-simplex projection of Lemma 11: Rule 3 / (12) (what Saddle-DSVC runs) or Rule 2. */
  public enum ProjectionRule { ITERATIVE, SORTING }

  public static final double DEFAULT_ALPHA = 0.85;
  public static final double DEFAULT_EPS = 1e-3;
  public static final long DEFAULT_MAX_ITERATIONS = 1_000_000;
  public static final List<Double> DEFAULT_BETAS = List.of(1.0, 0.1, 0.01, 0.001);
  public static final int DEFAULT_STALL_CHECKS = 50;
  public static final double DEFAULT_SEPARATION_TOLERANCE = 1e-3;

  public SaddleOptions {
    if (variant == null) throw new IllegalArgumentException("variant is required");
    if (nu == null) throw new IllegalArgumentException("nu must be given or empty, not null");
    if (nu.isPresent() && variant != Variant.NU) throw new IllegalArgumentException("nu applies to nu-SVM only");
    if (nu.isPresent() && !(nu.getAsDouble() > 0 && nu.getAsDouble() <= 1)) {
      throw new IllegalArgumentException("nu must be in (0, 1], got " + nu.getAsDouble());
    }
    if (!(alpha > 0 && alpha <= 1)) throw new IllegalArgumentException("alpha must be in (0, 1], got " + alpha);
    if (!(eps > 0 && eps < 1)) throw new IllegalArgumentException("eps must be in (0, 1), got " + eps);
    if (maxIterations < 1) throw new IllegalArgumentException("maxIterations must be >= 1, got " + maxIterations);
    if (checkInterval < 0) throw new IllegalArgumentException("checkInterval must be >= 0 (0: the paper's T), got " + checkInterval);
    if (betas == null || betas.isEmpty()) throw new IllegalArgumentException("at least one beta is required");
    for (double b : betas) {
      if (!(b > 0) || !Double.isFinite(b)) throw new IllegalArgumentException("beta must be positive and finite, got " + b);
    }
    betas = List.copyOf(betas);
    if (projection == null) throw new IllegalArgumentException("projection rule is required");
    if (clients < 1) throw new IllegalArgumentException("clients must be >= 1, got " + clients);
    if (projection == ProjectionRule.SORTING && clients != 1) {
      throw new IllegalArgumentException("the sorting projection rule needs all of eta and xi on one client (clients = 1), got "
          + clients + " clients; Saddle-DSVC uses the iterative rule (12)");
    }
    if (stallChecks < 0) throw new IllegalArgumentException("stallChecks must be >= 0 (0: never), got " + stallChecks);
    if (!(separationTolerance >= 0) || !Double.isFinite(separationTolerance)) {
      throw new IllegalArgumentException("separationTolerance must be >= 0 and finite, got " + separationTolerance);
    }
  }

  /** Hard-margin SVM with the defaults. */
  public static SaddleOptions hardMargin() {
    return new SaddleOptions(Variant.HARD_MARGIN, OptionalDouble.empty(), DEFAULT_ALPHA, DEFAULT_EPS, DEFAULT_MAX_ITERATIONS,
        0, DEFAULT_BETAS, 1, ProjectionRule.ITERATIVE, 1, DEFAULT_STALL_CHECKS,
        DEFAULT_SEPARATION_TOLERANCE);
  }

  /** nu-SVM with the defaults (nu from alpha = 0.85). */
  public static SaddleOptions nuSvm() {
    return hardMargin().withVariant(Variant.NU);
  }

  public SaddleOptions withVariant(Variant v) {
    return new SaddleOptions(v, v == Variant.NU ? nu : OptionalDouble.empty(), alpha, eps, maxIterations, checkInterval, betas,
        seed, projection, clients, stallChecks, separationTolerance);
  }

  public SaddleOptions withNu(double v) {
    return new SaddleOptions(variant, OptionalDouble.of(v), alpha, eps, maxIterations, checkInterval, betas, seed, projection,
        clients, stallChecks, separationTolerance);
  }

  public SaddleOptions withAlpha(double v) {
    return new SaddleOptions(variant, nu, v, eps, maxIterations, checkInterval, betas, seed, projection, clients, stallChecks,
        separationTolerance);
  }

  public SaddleOptions withEps(double v) {
    return new SaddleOptions(variant, nu, alpha, v, maxIterations, checkInterval, betas, seed, projection, clients, stallChecks,
        separationTolerance);
  }

  public SaddleOptions withMaxIterations(long v) {
    return new SaddleOptions(variant, nu, alpha, eps, v, checkInterval, betas, seed, projection, clients, stallChecks, separationTolerance);
  }

  public SaddleOptions withCheckInterval(long v) {
    return new SaddleOptions(variant, nu, alpha, eps, maxIterations, v, betas, seed, projection, clients, stallChecks, separationTolerance);
  }

  public SaddleOptions withBetas(Double... v) {
    return new SaddleOptions(variant, nu, alpha, eps, maxIterations, checkInterval, List.of(v), seed, projection, clients, stallChecks,
        separationTolerance);
  }

  public SaddleOptions withSeed(long v) {
    return new SaddleOptions(variant, nu, alpha, eps, maxIterations, checkInterval, betas, v, projection, clients, stallChecks,
        separationTolerance);
  }

  public SaddleOptions withProjection(ProjectionRule v) {
    return new SaddleOptions(variant, nu, alpha, eps, maxIterations, checkInterval, betas, seed, v, clients, stallChecks, separationTolerance);
  }

  public SaddleOptions withClients(int v) {
    return new SaddleOptions(variant, nu, alpha, eps, maxIterations, checkInterval, betas, seed, projection, v, stallChecks,
        separationTolerance);
  }

  public SaddleOptions withStallChecks(int v) {
    return new SaddleOptions(variant, nu, alpha, eps, maxIterations, checkInterval, betas, seed, projection, clients, v,
        separationTolerance);
  }

  public SaddleOptions withSeparationTolerance(double v) {
    return new SaddleOptions(variant, nu, alpha, eps, maxIterations, checkInterval, betas, seed, projection, clients, stallChecks, v);
  }
}
