package org.sodm.linear;

import java.util.ArrayList;
import java.util.List;

/**
 * The driver side of BQO (seed 003 Algorithm 1, steps 2.4-2.5) shared by the single-node
 * {@link Bqo} and the MapReduce driver: given the global sums of one iteration (taken at
 * (alpha^t, w^t)) and Delta w^t, it records the primal f^P(w^t) and dual f(alpha^t) objectives,
 * keeps the pocket model (the w^t with the smallest primal objective seen), tests the relative
 * duality gap, and otherwise takes the step: the exact feasible step (20)-(21)
 * eta = min(-grad' d / |d|^2_Qbar, min_i lambda_i) or the Armijo step (12), with
 * grad' d = w'Dw + sum s_i alpha_i d_i - e'd (19) and |d|^2_Qbar = |Dw|^2 + sum s_i d_i^2 (18).
 * Then w^{t+1} = w^t + eta Dw^t (16); the tasks apply alpha^{t+1} = alpha^t + eta d^t.
 *
 * <p><b>The stop.</b> Seed 003's test (27) is f^P(w^t) + f(alpha^t) &lt;= eps sum_i C_i. The optimum
 * lies far below f^P(0) = sum_i C_i (ijcnn1 hinge, C = 1: 0.17 sum C), so (27) at eps = 1e-3 let the
 * model stop up to 5.8e-3 above the optimal primal (issue 14's bench measured 1.8e-3 against
 * LIBLINEAR's -e 1e-4). The test here certifies the model it returns: with
 * the pocket primal P and the smallest dual objective seen F = min_t f(alpha^t) (-F is a lower
 * bound of the optimum P*), it stops when (P + F) / (-F) &lt;= eps, which bounds the pocket's
 * relative primal suboptimality (P - P*) / P* by eps, and implies (27) for the pocket (-F &lt;= P* &lt;= sum C).
 */
public final class BqoState {
  public enum LineSearch { EXACT, ARMIJO }

  /**
   * @param eps the certified relative primal gap to stop at (see the class comment)
   * @param maxIterations guard on the iterations (jobs)
   * @param sigma, beta, gamma Armijo's parameters (12) (the paper: 0.1, 0.5, 0)
   */
  public record Options(LineSearch lineSearch, double eps, int maxIterations, double sigma, double beta, double gamma) {
    public Options {
      if (!(eps > 0)) throw new IllegalArgumentException("gap eps must be > 0, got " + eps);
      if (maxIterations < 1) throw new IllegalArgumentException("max iterations must be >= 1, got " + maxIterations);
      if (!(sigma > 0 && sigma < 1) || !(beta > 0 && beta < 1) || !(gamma >= 0 && gamma < 1)) {
        throw new IllegalArgumentException("Armijo needs sigma, beta in (0,1) and gamma in [0,1)");
      }
    }

    public static Options defaults() {
      return new Options(LineSearch.EXACT, 1e-3, 1000, 0.1, 0.5, 0);
    }

    public Options withEps(double e) {
      return new Options(lineSearch, e, maxIterations, sigma, beta, gamma);
    }

    public Options withMaxIterations(int m) {
      return new Options(lineSearch, eps, m, sigma, beta, gamma);
    }

    public Options withLineSearch(LineSearch l) {
      return new Options(l, eps, maxIterations, sigma, beta, gamma);
    }
  }

  /** One iteration: objectives at (alpha^t, w^t) and the step taken from there (0 when it stopped). */
  public record Iteration(int t, double primal, double dual, double relativeGap, double violation, double eta,
      double dualDecrease, boolean pocket) {}

  /** What the driver does next. */
  public record Step(boolean stop, double eta, Iteration info) {}

  private final SvmLoss loss;
  private final Options opts;
  private final double tau;
  private final double[] w;
  private double[] best;
  private double bestPrimal = Double.POSITIVE_INFINITY;
  private int bestIteration = -1;
  private double bestDual = Double.POSITIVE_INFINITY;
  private final List<Iteration> history = new ArrayList<>();
  private boolean converged;

  /** w^0 = 0 (alpha^0 = 0), of length dim + 1. */
  public BqoState(int dim, SvmLoss loss, Options opts, double tau) {
    this.loss = loss;
    this.opts = opts;
    this.tau = tau;
    this.w = new double[dim + 1];
  }

  /** The current w^t (live). */
  public double[] w() {
    return w;
  }

  /** The pocket model: the evaluated w^t with the smallest primal objective. */
  public double[] pocket() {
    return best == null ? w.clone() : best.clone();
  }

  public int pocketIteration() {
    return bestIteration;
  }

  public double pocketPrimal() {
    return bestPrimal;
  }

  public List<Iteration> history() {
    return history;
  }

  public boolean converged() {
    return converged;
  }

  /**
   * Whether {@link #next} with these sums at (alpha^t, w^t) stops by the certified gap whatever the direction: then an
   * iteration need not solve its subproblem, and {@code next(atPoint, zero Delta w)} records exactly what the solved one would
   * (the gap and the pocket depend only on the point; eta is 0 either way).
   */
  public boolean certifies(BqoSums atPoint) {
    double[] pd = primalDual(atPoint);
    return certifiedGap(Math.min(bestPrimal, pd[0]), Math.min(bestDual, pd[1]), atPoint.cSum()) <= opts.eps();
  }

  /** {primal, dual} objectives at (alpha^t, w^t) from the sums there. */
  private double[] primalDual(BqoSums sums) {
    double ww = Vectors.squaredNorm(w);
    return new double[] {0.5 * ww + sums.loss(), 0.5 * ww + 0.5 * sums.sAlphaSq() - sums.alphaSum()};
  }

  /** Records iteration t from its global sums and Delta w^t, decides and (unless it stops) updates w. */
  public Step next(BqoSums sums, double[] dw) {
    int t = history.size();
    double[] pd = primalDual(sums);
    double primal = pd[0];
    double dual = pd[1];
    boolean pocket = false;
    if (primal < bestPrimal) {
      bestPrimal = primal;
      best = w.clone();
      bestIteration = t;
      pocket = true;
    }
    bestDual = Math.min(bestDual, dual);
    double gap = certifiedGap(bestPrimal, bestDual, sums.cSum());
    double viol = sums.violation();
    double grad = Vectors.dot(w, dw) + sums.sAlphaD() - sums.eD();
    double quad = Vectors.squaredNorm(dw) + sums.sDSq();
    boolean stop = gap <= opts.eps() || !(grad < 0) || t + 1 >= opts.maxIterations();
    converged = gap <= opts.eps() || !(grad < 0);
    double eta = 0;
    double decrease = 0;
    if (!stop) {
      eta = opts.lineSearch() == LineSearch.EXACT ? exactStep(grad, quad, sums.minLambda())
          : armijoStep(grad, quad, hNorm(sums), opts.sigma(), opts.beta(), opts.gamma());
      decrease = -(eta * grad + 0.5 * eta * eta * quad);
      for (int k = 0; k < w.length; k++) w[k] += eta * dw[k];
    }
    Iteration it = new Iteration(t, primal, dual, gap, viol, eta, decrease, pocket);
    history.add(it);
    return new Step(stop, eta, it);
  }

  /**
   * The relative primal suboptimality the pocket is certified to: (P + F) / (-F) for pocket
   * primal P and smallest dual objective F (see the class comment); 0 for a problem with no
   * loss weight ({@code cSum} = 0: w = 0 is optimal); infinite while -F &lt;= 0 (no useful bound yet).
   */
  static double certifiedGap(double pocketPrimal, double minDual, double cSum) {
    if (!(cSum > 0)) return 0;
    double lower = -minDual;
    if (!(lower > 0)) return pocketPrimal + minDual <= 0 ? 0 : Double.POSITIVE_INFINITY;
    return Math.max(0, pocketPrimal + minDual) / lower;
  }

  /** Everything {@link #next} depends on and updates, for a checkpoint of a resident run. */
  public record Snapshot(double[] w, double[] best, double bestPrimal, int bestIteration, List<Iteration> history,
      boolean converged) {}

  public Snapshot snapshot() {
    return new Snapshot(w.clone(), best == null ? null : best.clone(), bestPrimal, bestIteration, List.copyOf(history), converged);
  }

  /** A state that continues exactly where the one that took {@code s} was. */
  public static BqoState restore(SvmLoss loss, Options opts, double tau, Snapshot s) {
    BqoState st = new BqoState(s.w().length - 1, loss, opts, tau);
    System.arraycopy(s.w(), 0, st.w, 0, st.w.length);
    st.best = s.best() == null ? null : s.best().clone();
    st.bestPrimal = s.bestPrimal();
    st.bestIteration = s.bestIteration();
    st.history.addAll(s.history());
    for (Iteration it : s.history()) st.bestDual = Math.min(st.bestDual, it.dual());
    st.converged = s.converged();
    return st;
  }

  /** |d|^2_H of (13): sum over blocks |X_J'Y_J d_J|^2 + sum (s_i + tau~) d_i^2. */
  double hNorm(BqoSums sums) {
    double tt = loss.squared() ? 0 : tau;
    return sums.dwBlockSq() + sums.sDSq() + tt * sums.dSq();
  }

  /**
   * The exact feasible step (20)-(21): eta* = -grad'd / d'Qbar d (infinite when d'Qbar d = 0),
   * capped by min_i lambda_i, the largest step that keeps alpha + eta d in the box.
   */
  public static double exactStep(double grad, double quad, double minLambda) {
    if (!(grad < 0)) return 0;
    double star = quad > 0 ? -grad / quad : Double.POSITIVE_INFINITY;
    double eta = Math.min(star, minLambda);
    if (!Double.isFinite(eta)) throw new IllegalStateException("unbounded step: d'Qd = 0 and no bound binds");
    return eta;
  }

  /**
   * The Armijo step (12): eta = min(1, beta^kbar),
   * kbar = ceil((log(2 / |d|^2_Qbar) + log((sigma - 1) grad'd + sigma gamma |d|^2_H)) / log beta);
   * 1 when |d|^2_Qbar = 0.
   */
  public static double armijoStep(double grad, double quad, double hNorm, double sigma, double beta, double gamma) {
    if (!(grad < 0)) return 0;
    if (!(quad > 0)) return 1;
    double rhs = (sigma - 1) * grad + sigma * gamma * hNorm;
    double kbar = Math.ceil((Math.log(2 / quad) + Math.log(rhs)) / Math.log(beta));
    return Math.min(1, Math.pow(beta, kbar));
  }
}
