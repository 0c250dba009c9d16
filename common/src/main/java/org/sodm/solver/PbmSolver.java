package org.sodm.solver;

import java.util.ArrayList;
import java.util.List;
import org.sodm.data.SparseVector;
import org.sodm.kernel.AugmentedKernel;
import org.sodm.kernel.Kernel;
import org.sodm.model.KernelExpansion;

/**
 * PBM (seed 004 Algorithm 1) in one process: the reference of what the MapReduce jobs of
 * {@code sodm train --exact} compute, step by step with the same pieces ({@link BlockSubproblem},
 * {@link PbmStep}, {@link #multiply}), and the unit tests' subject. Per iteration t: every block
 * solves its subproblem (7) at alpha_t for d_S; Q dgamma is computed from the changed instances;
 * the step beta comes from the aggregated scalars; alpha += beta d, Q gamma += beta Q dgamma.
 * Stops when the max violation at alpha_t is at most the tolerance (d is then not applied), or
 * after maxIterations steps.
 *
 * <p>Convergence is linear at a rate set by the coupling between blocks (||Q - Q_blockdiag||,
 * seed 004 sections 4.3 and 5): block-Jacobi directions fix the slowly converging coupled modes
 * only a little per iteration. On a smooth, near-singular kernel matrix (svmguide1, gamma 2 on
 * [0,1]^4) the tail is long: hinge C = 2 on 386 rows reaches a relative error of 1e-4 in tens of
 * iterations, ODM with lambda = 10000 is still at 1e-3 after 4000 (with lambda = 100, whose
 * diagonal terms condition the problem, in hundreds). Warm starts close to the optimum (DC-SVM's
 * refine) are what makes the exact mode practical.
 */
public final class PbmSolver {
  /** Parameters. innerEps / innerEpochs bound the block solves; cacheBytes is per block. */
  public record Options(double tolerance, int maxIterations, double innerEps, int innerEpochs, long cacheBytes,
      PbmStep.Rule rule, double sigma, double reference, double gap) {
    public Options(double tolerance, int maxIterations, double innerEps, int innerEpochs, long cacheBytes, PbmStep.Rule rule,
        double sigma) {
      this(tolerance, maxIterations, innerEps, innerEpochs, cacheBytes, rule, sigma, Double.NaN, 0);
    }

    public static Options defaults() {
      return new Options(1e-3, 200, 1e-3, 50, 64L << 20, PbmStep.Rule.EXACT, 0.01);
    }

    /** Also stop when (f - reference) / |reference| &lt;= gap (as sodm.train.exact.reference / .gap). */
    public Options withReference(double ref, double g) {
      return new Options(tolerance, maxIterations, innerEps, innerEpochs, cacheBytes, rule, sigma, ref, g);
    }

    public Options withTolerance(double t) {
      return new Options(t, maxIterations, innerEps, innerEpochs, cacheBytes, rule, sigma, reference, gap);
    }

    public Options withInnerEps(double e) {
      return new Options(tolerance, maxIterations, e, innerEpochs, cacheBytes, rule, sigma, reference, gap);
    }

    public Options withMaxIterations(int m) {
      return new Options(tolerance, m, innerEps, innerEpochs, cacheBytes, rule, sigma, reference, gap);
    }

    public Options withRule(PbmStep.Rule r) {
      return new Options(tolerance, maxIterations, innerEps, innerEpochs, cacheBytes, r, sigma, reference, gap);
    }
  }

  /** One iteration as printed by the driver: f and violation at alpha_t, the step taken. */
  public record Iteration(int t, double objective, double violation, double beta, int changed, double slope,
      double curvature) {}

  public record Result(double[] alpha, double[] qg, double objective, double violation, boolean converged,
      List<Iteration> history) {}

  private PbmSolver() {}

  /** The kernel of the problem: k, or k + 1 with the bias option. */
  public static Kernel problemKernel(Kernel base, Loss loss) {
    return loss.bias() ? new AugmentedKernel(base) : base;
  }

  /**
   * (Q v)_i = y_i sum_j y_j v_j k(x_j, x_i) over the non-zero v_j, for every i of {@code rows}
   * (Q_ij = y_i y_j k(x_i, x_j); k already augmented when the bias option is on).
   */
  public static double[] multiply(Kernel k, SparseVector[] x, double[] y, double[] v, SparseVector[] rows, double[] rowY) {
    double[] yv = new double[v.length];
    for (int j = 0; j < v.length; j++) yv[j] = y[j] * v[j];
    KernelExpansion f = KernelExpansion.nonZero(k, x, yv, 0);
    double[] out = new double[rows.length];
    if (f.size() == 0) return out;
    f.decision(rows, out);
    for (int i = 0; i < out.length; i++) out[i] *= rowY[i];
    return out;
  }

  /**
   * Runs PBM from alpha0 (null: zero) on the partition {@code block} (values 0..blocks-1).
   *
   * @param base the kernel without the bias augmentation
   */
  public static Result solve(Kernel base, SparseVector[] x, double[] y, Loss loss, int[] block, int blocks,
      double[] alpha0, Options opts) {
    int n = x.length;
    Kernel k = problemKernel(base, loss);
    DualProblem global = loss.dual(y, n);
    int vpi = global.variablesPerInstance();
    double[] alpha = alpha0 == null ? new double[n * vpi] : alpha0.clone();
    for (int i = 0; i < n; i++) global.project(alpha, i);
    double[] gamma = new double[n];
    for (int i = 0; i < n; i++) gamma[i] = global.gamma(alpha, i);
    double[] qg = multiply(k, x, y, gamma, x, y);
    int[][] members = new int[blocks][];
    int[] count = new int[blocks];
    for (int b : block) count[b]++;
    for (int b = 0; b < blocks; b++) members[b] = new int[count[b]];
    int[] fill = new int[blocks];
    for (int i = 0; i < n; i++) members[block[i]][fill[block[i]]++] = i;

    List<Iteration> history = new ArrayList<>();
    double objective = Double.NaN;
    double violation = Double.NaN;
    boolean converged = false;
    for (int t = 0; ; t++) {
      double[] d = new double[n * vpi];
      double[] dgamma = new double[n];
      double slope = 0;
      double curvatureSep = 0;
      double maxStep = Double.POSITIVE_INFINITY;
      objective = 0;
      violation = 0;
      int changed = 0;
      for (int b = 0; b < blocks; b++) {
        int[] mem = members[b];
        int nb = mem.length;
        SparseVector[] xb = new SparseVector[nb];
        double[] yb = new double[nb];
        double[] ab = new double[nb * vpi];
        double[] qb = new double[nb];
        for (int s = 0; s < nb; s++) {
          int i = mem[s];
          xb[s] = x[i];
          yb[s] = y[i];
          qb[s] = qg[i];
          System.arraycopy(alpha, i * vpi, ab, s * vpi, vpi);
        }
        BlockSubproblem.Result r = BlockSubproblem.solve(k, xb, yb, loss.dual(yb, n), ab, qb, opts.innerEps(),
            opts.innerEpochs(), opts.cacheBytes());
        objective += r.objective();
        violation = Math.max(violation, r.violation());
        slope += r.qgDgamma() + r.sepLinear();
        curvatureSep += r.sepQuadratic();
        changed += r.changed();
        maxStep = Math.min(maxStep, r.maxStep());
        for (int s = 0; s < nb; s++) {
          int i = mem[s];
          dgamma[i] = r.dgamma()[s];
          System.arraycopy(r.delta(), s * vpi, d, i * vpi, vpi);
        }
      }
      if (violation <= opts.tolerance()
          || (opts.gap() > 0 && (objective - opts.reference()) / Math.abs(opts.reference()) <= opts.gap())) {
        converged = true;
        history.add(new Iteration(t, objective, violation, 0, changed, slope, Double.NaN));
        break;
      }
      if (t >= opts.maxIterations()) {
        history.add(new Iteration(t, objective, violation, 0, changed, slope, Double.NaN));
        break;
      }
      double[] qd = multiply(k, x, y, dgamma, x, y);
      double curvature = curvatureSep;
      for (int i = 0; i < n; i++) curvature += dgamma[i] * qd[i];
      double beta = PbmStep.step(opts.rule(), slope, curvature, opts.sigma(), maxStep);
      history.add(new Iteration(t, objective, violation, beta, changed, slope, curvature));
      if (beta == 0) break; // no descent possible along d (numerically at the optimum)
      for (int j = 0; j < alpha.length; j++) alpha[j] += beta * d[j];
      for (int i = 0; i < n; i++) {
        global.project(alpha, i);
        qg[i] += beta * qd[i];
      }
    }
    return new Result(alpha, qg, objective, violation, converged, history);
  }
}
