package org.sodm.solver;

import java.util.Optional;

/**
 * A box-constrained dual min_alpha 1/2 gamma'Q gamma + sum_i g_i(alpha_i) whose variables are
 * grouped per instance ({@link #variablesPerInstance()} each, instance-major in a flat alpha
 * array) and whose quadratic part depends on alpha only through the signed coefficient gamma_i
 * of each instance. The solvers maintain qg_i = (Q gamma)_i and call these per-instance methods;
 * everything else (kernel, cache, ordering) is theirs. Instance indices refer to the label
 * array the problem was built on (solvers may permute that array and alpha together).
 */
public interface DualProblem {

  /** Number of instances n. */
  int size();

  int variablesPerInstance();

  /** gamma_i of instance i (for ODM zeta_i - beta_i, else alpha_i). */
  double gamma(double[] alpha, int i);

  /**
   * One coordinate-descent pass over instance i's variables (each set to the clipped minimiser
   * of the objective along it, the later seeing the earlier's effect on qg_i), writes the new
   * values into alpha and returns the change of gamma_i. Before updating it stores in
   * {@code info[0]} the instance's projected-gradient violation max|PG| and in {@code info[1]}
   * 1 when every variable sits at a bound with its gradient pointing out of the box by more
   * than {@code shrinkThreshold} (a shrinking candidate), else 0.
   *
   * @param qg (Q gamma)_i
   * @param qii Q_ii = k(x_i, x_i)
   */
  double step(double[] alpha, int i, double qg, double qii, double shrinkThreshold, double[] info);

  /**
   * True when every variable of instance i sits at a bound with its gradient pointing out of
   * the box by more than {@code threshold} (the variable would not move: shrinking candidate).
   */
  boolean shrinkable(double[] alpha, int i, double qg, double threshold);

  /** The projected-gradient violation max|PG| of instance i's variables. */
  double violation(double[] alpha, int i, double qg);

  /**
   * The instance in [0, to) with the largest violation (lowest index on ties), -1 when none is
   * positive; its violation goes to {@code best[0]}. The greedy solver's hot loop: the
   * implementations override it with a tight loop.
   */
  default int argmaxViolation(double[] alpha, double[] qg, int to, double[] best) {
    int bp = -1;
    double bv = 0;
    for (int i = 0; i < to; i++) {
      double v = violation(alpha, i, qg[i]);
      if (v > bv) {
        bv = v;
        bp = i;
      }
    }
    best[0] = bv;
    return bp;
  }

  /**
   * qg[0..to) += delta col[0..to) (G after gamma_p changed by delta, col = Q[p]), then
   * {@link #argmaxViolation} over [0, to): the greedy solver's step. Implementations may fuse
   * the two loops.
   */
  default int applyArgmax(double[] alpha, double[] qg, double delta, float[] col, int to, double[] best) {
    for (int j = 0; j < to; j++) qg[j] += delta * col[j];
    return argmaxViolation(alpha, qg, to, best);
  }

  /** This problem with the capability of two-variable steps, when it has it. */
  default Optional<PairDual> pairs() {
    return Optional.empty();
  }

  /** Upper bound of each of instance i's variables (the lower bound is 0 for every loss here). */
  default double upperBound(int i) {
    return Double.POSITIVE_INFINITY;
  }

  /**
   * The largest beta &gt;= 0 with alpha + beta d inside the box for instance i's variables
   * (infinite when d points into no bound).
   */
  default double maxStep(double[] alpha, double[] d, int i) {
    int vpi = variablesPerInstance();
    double u = upperBound(i);
    double m = Double.POSITIVE_INFINITY;
    for (int k = i * vpi; k < (i + 1) * vpi; k++) {
      if (d[k] < 0) m = Math.min(m, Math.max(0, alpha[k]) / -d[k]);
      else if (d[k] > 0 && u < Double.POSITIVE_INFINITY) m = Math.min(m, Math.max(0, u - alpha[k]) / d[k]);
    }
    return m;
  }

  /** Clips instance i's variables into the box; returns true if anything changed. */
  boolean project(double[] alpha, int i);

  /**
   * The separable part g_i(alpha_i) of instance i's variables (the objective without the
   * quadratic 1/2 gamma'Q gamma term): hinge -alpha_i; squared hinge alpha_i^2/(4 C_i) - alpha_i;
   * ODM (m c_i / 2)(v zeta_i^2 + beta_i^2) + (theta-1) zeta_i + (theta+1) beta_i. Used by the
   * PBM line search (per-instance, so the second differences stay small numbers).
   */
  double separable(double[] alpha, int i);

  /** The dual objective (minimised) from alpha and qg = Q gamma (both instance order). */
  double dualObjective(double[] alpha, double[] qg);

  /**
   * The primal objective of w = sum_i y_i gamma_i phi(x_i) (so y_i f(x_i) = qg_i and
   * |w|^2 = gamma'Q gamma), NaN where not defined.
   */
  double primalObjective(double[] alpha, double[] qg);
}
