package org.sodm.solver;

/**
 * PBM's step size (seed 004 section 4.2) from aggregated scalars. Along a direction d with
 * alpha and alpha + d feasible, f(alpha + beta d) - f(alpha) = slope * beta + curvature * beta^2 / 2
 * exactly for the three losses here (their separable parts are at most quadratic), where
 * slope = sum_i (Q gamma)_i dgamma_i + sepLinear and curvature = dgamma'Q dgamma + sepQuadratic.
 *
 * <ul>
 *   <li>{@link Rule#EXACT}: eq. (13) restricted to [0, 1], beta = clip(-slope / curvature, 0, 1).
 *       The box (and every other convex constraint set) contains alpha and alpha + d, hence the
 *       whole segment between them, so any beta in [0, 1] is feasible without looking at the
 *       bounds; eq. (13)'s wider interval [eta_low, eta_high] could allow beta &gt; 1 for the box
 *       losses, which this implementation forgoes (one fewer reduction, and the block solutions
 *       already overshoot rather than undershoot).
 *   <li>{@link Rule#ARMIJO}: eq. (8), beta in {1, 1/2, 1/4, ...} until
 *       f(alpha + beta d) - f(alpha) &lt;= sigma * beta * slope (the decrease is evaluated from the
 *       same two scalars, the "O(1) communication" of section 4.2), 0 when d is not a descent
 *       direction. The paper's extra condition f(alpha + beta d) &lt;= f(alpha + d/k) is not used.
 * </ul>
 *
 * Both never increase the objective (beta = 0 when slope &gt;= 0).
 */
public final class PbmStep {
  public enum Rule { EXACT, ARMIJO }

  private PbmStep() {}

  /** f(alpha + beta d) - f(alpha). */
  public static double change(double beta, double slope, double curvature) {
    return beta * slope + 0.5 * beta * beta * curvature;
  }

  public static double exact(double slope, double curvature) {
    return exact(slope, curvature, 1);
  }

  /** The minimiser on [0, max] (max &gt;= 1: eq. 13's feasibility limit, capped at {@link #MAX_EXTRAPOLATION}). */
  public static double exact(double slope, double curvature, double max) {
    double hi = Math.min(Math.max(1, max), MAX_EXTRAPOLATION);
    if (!(slope < 0)) return 0;
    if (!(curvature > 0)) return hi;
    return Math.min(hi, -slope / curvature);
  }

  /** Cap of the extrapolated step beyond alpha + d (a guard against rounding in tiny curvatures). */
  public static final double MAX_EXTRAPOLATION = 1000;

  public static double armijo(double slope, double curvature, double sigma) {
    if (!(slope < 0)) return 0;
    double beta = 1;
    for (int k = 0; k < 60; k++, beta /= 2) {
      if (change(beta, slope, curvature) <= sigma * beta * slope) return beta;
    }
    return 0;
  }

  public static double step(Rule rule, double slope, double curvature, double sigma) {
    return step(rule, slope, curvature, sigma, 1);
  }

  /** With {@code max} the largest feasible beta (eq. 13's upper limit); Armijo stays in [0, 1]. */
  public static double step(Rule rule, double slope, double curvature, double sigma, double max) {
    return rule == Rule.ARMIJO ? armijo(slope, curvature, sigma) : exact(slope, curvature, max);
  }
}
