package org.sodm.solver;

import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.data.SparseVector;

/**
 * LIBLINEAR's dual coordinate descent (Hsieh et al. 2008) for the linear kernel, keeping
 * w = sum_i y_i gamma_i x_i explicitly so each step costs O(nnz(x_i)): for sparse
 * high-dimensional data. Same duals as {@link KernelDualSolver} ({@link DualProblem}: hinge,
 * squared hinge, and ODM too), same stopping rule (max |projected gradient| &lt;= eps on the
 * unshrunk problem), seeded random permutation per epoch, LIBLINEAR-style shrinking, warm
 * start. The bias option appends a constant feature 1 (regularized bias, the augmented linear
 * kernel x'z + 1), as LIBLINEAR's -B 1.
 */
public final class LinearDualCd {
  private static final Logger LOG = LoggerFactory.getLogger(LinearDualCd.class);

  /** w over features 1..w.length (w[f-1]), the bias, alpha (instance-major), the report. */
  public record Result(double[] w, double bias, double[] alpha, SolveReport report) {
    public double decision(SparseVector x) {
      return x.dot(w) + bias;
    }
  }

  private final SolverOptions opts;

  public LinearDualCd(SolverOptions opts) {
    if (opts == null) throw new IllegalArgumentException("solver options are required");
    this.opts = opts;
  }

  public Result solve(SparseVector[] x, double[] y, Loss loss, double[] initialAlpha) {
    SolveInputs.check(x, y, loss);
    long t0 = System.nanoTime();
    int n = x.length;
    DualProblem prob = loss.dual(y.clone(), Math.max(1, n));
    double[] alpha = SolveInputs.start(prob, n, initialAlpha);
    double bf = loss.bias() ? 1.0 : 0.0;
    int dim = 0;
    for (SparseVector v : x) dim = Math.max(dim, v.maxIndex());
    double[] w = new double[dim];
    double[] b = {0};
    double[] qd = new double[n];
    double[] gam = new double[n];
    long dots = 0;
    for (int i = 0; i < n; i++) {
      qd[i] = x[i].squaredNorm() + bf;
      double gm = prob.gamma(alpha, i);
      gam[i] = gm;
      if (gm != 0) axpy(gm * y[i], x[i], w, b, bf);
    }
    double initialViolation = 0;
    for (int i = 0; i < n; i++) {
      initialViolation = Math.max(initialViolation, prob.violation(alpha, i, y[i] * (x[i].dot(w) + b[0])));
    }
    dots += n;
    double eps = opts.eps();
    int[] index = new int[n];
    for (int i = 0; i < n; i++) index[i] = i;
    int active = n;
    SplittableRandom rng = new SplittableRandom(opts.seed());
    double mbar = Double.POSITIVE_INFINITY;
    double[] info = new double[2];
    int epochs = 0;
    boolean converged = n == 0 || initialViolation <= eps;
    double maxViolation = initialViolation;
    while (!converged && epochs < opts.maxEpochs()) {
      org.sodm.data.Seeds.shuffle(index, active, rng);
      double viol = 0;
      double thr = opts.shrinking() ? mbar : Double.POSITIVE_INFINITY;
      for (int t = 0; t < active; t++) {
        int i = index[t];
        double qg = y[i] * (x[i].dot(w) + b[0]);
        dots++;
        double delta = prob.step(alpha, i, qg, qd[i], thr, info);
        if (info[0] > viol) viol = info[0];
        if (delta != 0) {
          gam[i] += delta;
          axpy(delta * y[i], x[i], w, b, bf);
        } else if (info[1] != 0) {
          active--;
          index[t] = index[active];
          index[active] = i;
          t--;
        }
      }
      epochs++;
      if (viol <= eps) {
        double full = 0;
        for (int i = 0; i < n; i++) full = Math.max(full, prob.violation(alpha, i, y[i] * (x[i].dot(w) + b[0])));
        dots += n;
        maxViolation = full;
        if (full <= eps) {
          converged = true;
          break;
        }
        active = n;
        mbar = Double.POSITIVE_INFINITY;
      } else {
        mbar = viol;
        maxViolation = viol;
      }
    }
    double[] qg = new double[n];
    for (int i = 0; i < n; i++) qg[i] = y[i] * (x[i].dot(w) + b[0]);
    dots += n;
    if (!converged) {
      maxViolation = 0;
      for (int i = 0; i < n; i++) maxViolation = Math.max(maxViolation, prob.violation(alpha, i, qg[i]));
      LOG.warn("linear dual CD stopped at the epoch limit {} with max violation {} > eps {}",
          opts.maxEpochs(), maxViolation, eps);
    }
    int nsv = 0;
    for (int i = 0; i < n; i++) if (prob.gamma(alpha, i) != 0) nsv++;
    double dual = prob.dualObjective(alpha, qg);
    double primal = prob.primalObjective(alpha, qg);
    SolveReport rep = new SolveReport(dual, primal, primal + dual, initialViolation, maxViolation, epochs, nsv,
        dots, 0, 0, (System.nanoTime() - t0) / 1e9, converged);
    return new Result(w, b[0] * bf, alpha, rep);
  }

  private static void axpy(double a, SparseVector v, double[] w, double[] b, double bf) {
    int[] idx = v.indices();
    double[] val = v.values();
    for (int k = 0; k < idx.length; k++) w[idx[k] - 1] += a * val[k];
    b[0] += a * bf;
  }
}
