package org.sodm.solver;

import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * PBM's block subproblem (seed 004 eq. 7) for a block S of the global dual
 * min_alpha f(alpha) = 1/2 gamma'Q gamma + sum_i g_i(alpha_i):
 *
 * <pre>
 *   d_S = argmin_D 1/2 dgamma'Q_SS dgamma + sum_{i in S} g_i(alpha_i + D_i) + (Q gamma)_i dgamma_i
 * </pre>
 *
 * which is the global problem restricted to S with every other coordinate fixed (the terms
 * that do not involve S are constants). So it is solved by the same per-instance coordinate
 * updates as the single-node solver ({@link DualProblem#step}) when qg_i starts at the global
 * (Q gamma)_i and is kept up to date with Q_SS times the change of gamma_S. The problem must be
 * built on the block's labels with the GLOBAL size (ODM's m = N), so its separable terms are the
 * global problem's.
 *
 * <p>Inner solver: greedy (Gauss-Southwell, the largest projected-gradient violation first, as
 * seed 004 section 4.1), at most {@code innerEpochs * |S|} coordinate steps or until the block's
 * violation is at most {@code innerEps}; kernel columns of S in a double LRU {@link KernelCache}
 * (double, so the direction is computed from the same Q the exact global quantities use).
 * Deterministic. Alongside d it returns what the distributed line search needs from the block
 * (all at the current alpha): its share of f, its max violation, sum_i qg_i dgamma_i and the
 * change of the separable part along d, which is quadratic in the step for the three losses
 * (g(alpha + beta d) - g(alpha) = sepLinear * beta + sepQuadratic * beta^2 / 2).
 */
public final class BlockSubproblem {
  /**
   * @param delta d, instance-major as alpha (alpha + d is feasible)
   * @param dgamma change of gamma_i along d
   * @param objective the block's share of f at alpha: sum_i 1/2 gamma_i qg_i + g_i(alpha_i)
   * @param violation max projected-gradient violation of the block at alpha (global gradient)
   * @param innerViolation the subproblem's violation at alpha + d
   * @param qgDgamma sum_i qg_i dgamma_i
   * @param sepLinear d/dbeta of the separable part at beta = 0
   * @param sepQuadratic second derivative of the separable part along d
   * @param steps coordinate steps taken
   * @param changed instances with dgamma_i != 0
   * @param kernelEvaluations kernel evaluations
   * @param maxStep the largest beta (&gt;= 1) with alpha + beta d feasible: the block's share of
   *     eq. (13)'s upper limit
   */
  public record Result(double[] delta, double[] dgamma, double objective, double violation, double innerViolation,
      double qgDgamma, double sepLinear, double sepQuadratic, long steps, int changed, long kernelEvaluations, double maxStep) {}

  private BlockSubproblem() {}

  /**
   * Solves the subproblem of one block.
   *
   * @param kernel the kernel of the problem (already augmented when the bias option is on)
   * @param x the block's instances
   * @param prob the dual built on the block's labels with the global m
   * @param alpha the block's current variables (instance-major; not modified)
   * @param qg the GLOBAL (Q gamma)_i of the block's instances (not modified)
   */
  public static Result solve(Kernel kernel, SparseVector[] x, double[] y, DualProblem prob, double[] alpha, double[] qg,
      double innerEps, int innerEpochs, long cacheBytes) {
    int n = x.length;
    int vpi = prob.variablesPerInstance();
    if (alpha.length != n * vpi || qg.length != n || y.length != n || prob.size() != n) {
      throw new IllegalArgumentException("block arrays differ in length");
    }
    double objective = prob.dualObjective(alpha, qg);
    double violation = 0;
    for (int i = 0; i < n; i++) violation = Math.max(violation, prob.violation(alpha, i, qg[i]));
    double[] a = alpha.clone();
    double[] g = qg.clone();
    QMatrix qm = new QMatrix(kernel, x, y, true, new KernelCache(n, cacheBytes, true), new Trace(false));
    double[] best = new double[1];
    double[] info = new double[2];
    long budget = (long) innerEpochs * n;
    long steps = 0;
    double inner = violation;
    while (steps < budget) {
      int p = prob.argmaxViolation(a, g, n, best);
      inner = p < 0 ? 0 : best[0];
      if (p < 0 || best[0] <= innerEps) break;
      double dg = prob.step(a, p, g[p], qm.diag(p), Double.POSITIVE_INFINITY, info);
      steps++;
      if (dg != 0) {
        double[] col = qm.doubleColumn(p, n);
        for (int j = 0; j < n; j++) g[j] += dg * col[j];
      }
    }
    if (steps >= budget) {
      inner = 0;
      for (int i = 0; i < n; i++) inner = Math.max(inner, prob.violation(a, i, g[i]));
    }
    double[] delta = new double[a.length];
    for (int k = 0; k < a.length; k++) delta[k] = a[k] - alpha[k];
    double[] dgamma = new double[n];
    double qgDg = 0;
    double sepLin = 0;
    double sepQuad = 0;
    int changed = 0;
    double maxStep = Double.POSITIVE_INFINITY;
    double[] one = new double[vpi];
    double[] two = new double[vpi];
    double[] zero = new double[vpi];
    double[] w = alpha.clone();
    for (int i = 0; i < n; i++) {
      boolean moved = false;
      for (int v = 0; v < vpi; v++) moved |= delta[i * vpi + v] != 0;
      if (!moved) continue;
      maxStep = Math.min(maxStep, prob.maxStep(alpha, delta, i));
      dgamma[i] = prob.gamma(a, i) - prob.gamma(alpha, i);
      if (dgamma[i] != 0) changed++;
      qgDg += qg[i] * dgamma[i];
      for (int v = 0; v < vpi; v++) {
        zero[v] = alpha[i * vpi + v];
        one[v] = zero[v] + delta[i * vpi + v];
        two[v] = zero[v] + 2 * delta[i * vpi + v];
      }
      // per-instance separable terms on a one-instance view (index 0 of the small arrays)
      double s0 = separable(prob, w, zero, i, vpi);
      double h1 = separable(prob, w, one, i, vpi) - s0;
      double h2 = separable(prob, w, two, i, vpi) - s0;
      double q = h2 - 2 * h1;
      sepQuad += q;
      sepLin += h1 - q / 2;
    }
    return new Result(delta, dgamma, objective, violation, inner, qgDg, sepLin, sepQuad, steps, changed, qm.kernelEvaluations(),
        Math.max(1, maxStep));
  }

  /** g_i with instance i's variables set to {@code vars} (in the work array w). */
  private static double separable(DualProblem prob, double[] w, double[] vars, int i, int vpi) {
    System.arraycopy(vars, 0, w, i * vpi, vpi);
    return prob.separable(w, i);
  }
}
