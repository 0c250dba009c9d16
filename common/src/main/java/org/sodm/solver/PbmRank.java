package org.sodm.solver;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.Gather;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.StateCodec;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.model.KernelExpansion;

/**
 * One block of PBM (seed 004 Algorithm 1) over an {@link AllReduce}, for one resident job instead
 * of two MapReduce jobs per iteration. The rank keeps its rows, alpha and Q gamma resident; per
 * iteration it solves its subproblem (7) ({@link BlockSubproblem}), the blocks' scalars are
 * gathered and summed in block order, the changed rows (x_j, y_j dgamma_j) are gathered and every
 * rank computes (Q dgamma)_i of its own rows from them (in the order of the rows' global index),
 * the curvature terms dgamma_i (Q dgamma)_i are gathered and summed in that order, and every rank
 * takes the same step ({@link PbmStep}). Arithmetic and summation order are {@link PbmSolver}'s,
 * so the iterates equal the single-process solver's bit for bit (tested).
 */
public final class PbmRank implements ResidentLoop.Program {
  private final Kernel kernel;
  private final Loss loss;
  private final SparseVector[] x;
  private final double[] y;
  private final long[] index;
  private final int n;
  private final PbmSolver.Options opts;
  private final DualProblem prob;
  private final int vpi;
  private final double[] alpha;
  private double[] qg;
  /** The direction of the last iteration (exact mode's local routing uses it), or null before the first. */
  private double[] lastDelta;
  private double[] progress = new double[0];
  private boolean converged;
  private double objective = Double.NaN;
  private double violation = Double.NaN;
  private int iterations;

  /**
   * @param kernel the problem's kernel (augmented for the bias option: {@link PbmSolver#problemKernel})
   * @param index each row's global index (ascending within the block); orders every sum
   * @param n the rows of the whole problem
   * @param alpha0 the block's starting alpha (instance-major), or null for zero
   * @param qg0 the block's (Q gamma)_i at alpha0, or null to compute it at the first iteration
   * @param rankState a checkpoint of this rank ({@link #rankState()}), or null
   */
  public PbmRank(Kernel kernel, Loss loss, SparseVector[] x, double[] y, long[] index, int n, PbmSolver.Options opts, double[] alpha0,
      double[] qg0, byte[] rankState) throws IOException {
    this.kernel = kernel;
    this.loss = loss;
    this.x = x;
    this.y = y;
    this.index = index;
    this.n = n;
    this.opts = opts;
    this.prob = loss.dual(y, n);
    this.vpi = prob.variablesPerInstance();
    for (int s = 1; s < index.length; s++) {
      if (index[s] <= index[s - 1]) throw new IllegalArgumentException("row indices must ascend within a block");
    }
    if (rankState != null) {
      DataInputStream in = StateCodec.decode(rankState);
      this.alpha = StateCodec.readArray(in);
      this.qg = StateCodec.readArray(in);
      this.lastDelta = StateCodec.readArray(in);
      if (alpha.length != x.length * vpi || qg.length != x.length) {
        throw new IOException("PBM checkpoint has " + alpha.length + " variables and " + qg.length + " gradients for " + x.length + " rows");
      }
    } else {
      this.alpha = alpha0 == null ? new double[x.length * vpi] : alpha0.clone();
      for (int s = 0; s < x.length; s++) prob.project(alpha, s);
      this.qg = qg0 == null ? null : qg0.clone();
    }
  }

  public double[] alpha() {
    return alpha;
  }

  public double[] qg() {
    return qg;
  }

  /** The last iteration's direction d (instance-major), or null before the first iteration. */
  public double[] lastDelta() {
    return lastDelta;
  }

  /** Decodes a rank state: {alpha, qg, last direction}. */
  public static double[][] decodeRankState(byte[] state) throws IOException {
    DataInputStream in = StateCodec.decode(state);
    return new double[][] {StateCodec.readArray(in), StateCodec.readArray(in), StateCodec.readArray(in)};
  }

  /** Decodes rank 0's global state: {objective, violation, iterations, converged (1 or 0)}. */
  public static double[] decodeGlobalState(byte[] state) throws IOException {
    return StateCodec.readArray(StateCodec.decode(state));
  }

  public boolean converged() {
    return converged;
  }

  public double objective() {
    return objective;
  }

  public double violation() {
    return violation;
  }

  /** Iterations run (the last one, which found convergence or the cap, included). */
  public int iterations() {
    return iterations;
  }

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    if (qg == null) {
      double[] gamma = new double[x.length];
      for (int s = 0; s < x.length; s++) gamma[s] = prob.gamma(alpha, s);
      qg = multiply(ar, gamma);
    }
    BlockSubproblem.Result r = BlockSubproblem.solve(kernel, x, y, prob, alpha, qg, opts.innerEps(), opts.innerEpochs(), opts.cacheBytes());
    lastDelta = r.delta();
    // the blocks' scalars, summed in block order on every rank (as PbmSolver's loop over the blocks)
    double[] mine = {r.objective(), r.violation(), r.qgDgamma() + r.sepLinear(), r.sepQuadratic(), r.changed(), r.maxStep()};
    double[] all = Gather.all(ar, mine)[0];
    double obj = 0;
    double viol = 0;
    double slope = 0;
    double curvatureSep = 0;
    long changed = 0;
    double maxStep = Double.POSITIVE_INFINITY;
    for (int b = 0; b < ar.size(); b++) {
      obj += all[6 * b];
      viol = Math.max(viol, all[6 * b + 1]);
      slope += all[6 * b + 2];
      curvatureSep += all[6 * b + 3];
      changed += (long) all[6 * b + 4];
      maxStep = Math.min(maxStep, all[6 * b + 5]);
    }
    objective = obj;
    violation = viol;
    iterations = t + 1;
    boolean stop = false;
    double beta = 0;
    double curvature = Double.NaN;
    if (viol <= opts.tolerance() || (opts.gap() > 0 && (obj - opts.reference()) / Math.abs(opts.reference()) <= opts.gap())) {
      converged = true;
      stop = true;
    } else if (t >= opts.maxIterations()) {
      stop = true;
    } else {
      double[] qd = multiply(ar, r.dgamma());
      curvature = orderedDot(ar, curvatureSep, r.dgamma(), qd);
      beta = PbmStep.step(opts.rule(), slope, curvature, opts.sigma(), maxStep);
      if (beta == 0) {
        stop = true; // no descent possible along d (numerically at the optimum)
      } else {
        double[] d = r.delta();
        for (int j = 0; j < alpha.length; j++) alpha[j] += beta * d[j];
        for (int s = 0; s < x.length; s++) {
          prob.project(alpha, s);
          qg[s] += beta * qd[s];
        }
      }
    }
    progress = new double[] {obj, viol, beta, changed, slope, curvature};
    return stop;
  }

  /**
   * (Q v)_i for this rank's rows: the rows with v_j != 0 of every rank gathered as (global index,
   * y_j v_j, features), ordered by global index, as {@link PbmSolver#multiply} orders them.
   */
  private double[] multiply(AllReduce ar, double[] v) throws IOException {
    int size = 0;
    int rows = 0;
    for (int s = 0; s < x.length; s++) {
      if (v[s] != 0) {
        size += 3 + 2 * x[s].nnz();
        rows++;
      }
    }
    double[] mine = new double[size];
    for (int s = 0, p = 0; s < x.length; s++) {
      if (v[s] == 0) continue;
      mine[p++] = index[s];
      mine[p++] = y[s] * v[s];
      mine[p++] = x[s].nnz();
      for (int k = 0; k < x[s].nnz(); k++) {
        mine[p++] = x[s].index(k);
        mine[p++] = x[s].value(k);
      }
    }
    double[] all = Gather.all(ar, mine)[0];
    // decode (each rank's part is ascending; merge them by global index)
    java.util.List<double[]> entries = new java.util.ArrayList<>();
    java.util.List<SparseVector> vectors = new java.util.ArrayList<>();
    for (int p = 0; p < all.length;) {
      double gid = all[p];
      double coef = all[p + 1];
      int nnz = (int) all[p + 2];
      int[] idx = new int[nnz];
      double[] val = new double[nnz];
      for (int k = 0; k < nnz; k++) {
        idx[k] = (int) all[p + 3 + 2 * k];
        val[k] = all[p + 4 + 2 * k];
      }
      entries.add(new double[] {gid, coef, vectors.size()});
      vectors.add(new SparseVector(idx, val));
      p += 3 + 2 * nnz;
    }
    entries.sort((a, b) -> Double.compare(a[0], b[0]));
    SparseVector[] sv = new SparseVector[entries.size()];
    double[] coef = new double[entries.size()];
    for (int k = 0; k < sv.length; k++) {
      sv[k] = vectors.get((int) entries.get(k)[2]);
      coef[k] = entries.get(k)[1];
    }
    double[] out = new double[x.length];
    if (sv.length == 0) return out;
    new KernelExpansion(kernel, sv, coef, 0).decision(x, out);
    for (int s = 0; s < out.length; s++) out[s] *= y[s];
    return out;
  }

  /** start + sum_i a_i b_i over every rank's rows with a_i != 0, added in the order of the global index. */
  private double orderedDot(AllReduce ar, double start, double[] a, double[] b) throws IOException {
    int m = 0;
    for (double v : a) if (v != 0) m++;
    double[] mine = new double[2 * m];
    for (int s = 0, p = 0; s < a.length; s++) {
      if (a[s] == 0) continue;
      mine[p++] = index[s];
      mine[p++] = a[s] * b[s];
    }
    double[] all = Gather.all(ar, mine)[0];
    double[][] pairs = new double[all.length / 2][];
    for (int k = 0; k < pairs.length; k++) pairs[k] = new double[] {all[2 * k], all[2 * k + 1]};
    Arrays.sort(pairs, (p, q) -> Double.compare(p[0], q[0]));
    double sum = start;
    for (double[] p : pairs) sum += p[1];
    return sum;
  }

  /** {objective, violation, beta, changed, slope, curvature} of the last iteration. */
  @Override
  public double[] progress() {
    return progress.clone();
  }

  @Override
  public byte[] rankState() throws IOException {
    return StateCodec.encode(out -> {
      StateCodec.writeArray(out, alpha);
      StateCodec.writeArray(out, qg);
      StateCodec.writeArray(out, lastDelta);
    });
  }

  @Override
  public byte[] globalState() throws IOException {
    return StateCodec.encode(out -> StateCodec.writeArray(out, new double[] {objective, violation, iterations, converged ? 1 : 0}));
  }
}
