package org.sodm.linear;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.StateCodec;
import org.sodm.data.SparseVector;

/**
 * One rank of BQO (seed 003 Algorithm 1) over an {@link AllReduce}: the rank keeps its block
 * (rows sorted by id, as the job-per-iteration path sorts them) and its alpha resident; each
 * iteration it solves the block subproblem (7) at the shared w^t ({@link BqoBlock#solve}, pass
 * order seeded by (seed, t, block)), sums Delta w and the scalars of (13)-(19) (min lambda of
 * (21) and the violation by max), and every rank takes the same step with its own copy of
 * {@link BqoState} (exact or Armijo step, pocket, gap stop (27), all unchanged); then
 * alpha^{t+1} = alpha^t + eta d^t on the rank's rows.
 */
public final class BqoRank implements ResidentLoop.Program {
  private final Csr x;
  private final double[] y;
  private final int block;
  private final SvmLoss loss;
  private final BqoBlock.Options inner;
  private final long seed;
  private final double[] alpha;
  private final BqoState state;
  private final int dim;

  /**
   * @param rankState this rank's checkpointed alpha, or null to start at alpha = 0
   * @param globalState the checkpointed {@link BqoState}, or null to start at w = 0
   */
  public BqoRank(SparseVector[] x, double[] y, int block, int dim, SvmLoss loss, BqoBlock.Options inner, BqoState.Options outer,
      long seed, byte[] rankState, byte[] globalState) throws IOException {
    this(Csr.of(x), y, block, dim, loss, inner, outer, seed, rankState, globalState);
  }

  /** Over rows already in CSR form (shared, not copied: tasks over the same rows share one). */
  public BqoRank(Csr x, double[] y, int block, int dim, SvmLoss loss, BqoBlock.Options inner, BqoState.Options outer,
      long seed, byte[] rankState, byte[] globalState) throws IOException {
    this(x, y, block, dim, loss, inner, seed, rankState == null ? new double[y.length] : StateCodec.readArray(StateCodec.decode(rankState)),
        globalState == null ? new BqoState(dim, loss, outer, inner.tau()) : BqoState.restore(loss, outer, inner.tau(), decodeState(globalState)));
  }

  /**
   * From a given point: {@code alpha} (this rank's, kept and updated in place; feasible for {@code loss}) and a state whose w is
   * the global X'Y alpha ({@link BqoPath}'s warm start).
   */
  BqoRank(Csr x, double[] y, int block, int dim, SvmLoss loss, BqoBlock.Options inner, long seed, double[] alpha, BqoState state)
      throws IOException {
    if (y.length != x.rows()) throw new IllegalArgumentException(x.rows() + " rows, " + y.length + " labels");
    if (alpha.length != y.length) {
      throw new IOException("checkpoint of block " + block + " has " + alpha.length + " alphas for " + y.length + " rows");
    }
    this.x = x;
    this.y = y;
    this.block = block;
    this.dim = dim;
    this.loss = loss;
    this.inner = inner;
    this.seed = seed;
    this.alpha = alpha;
    this.state = state;
  }

  /** This rank's alpha^t (live; at a stop, the point whose w is {@code state().w()}). */
  double[] alpha() {
    return alpha;
  }

  public BqoState state() {
    return state;
  }

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    if (t != state.history().size()) throw new IllegalStateException("BQO rank at iteration " + state.history().size() + " asked for " + t);
    BqoBlock.Options opts = inner.at(t);
    BqoBlock.Start start = BqoBlock.start(x, y, alpha, state.w(), loss, opts);
    if (ar.size() == 1 && state.certifies(start.atPoint())) {
      // one block holds every row: its sums are the global ones, and a certified point needs no solve of its subproblem
      // (a run over several blocks would need another reduce to know; it solves and then stops, as the job per iteration does)
      state.next(start.atPoint(), new double[dim + 1]);
      return true;
    }
    BqoBlock.Result r = BqoBlock.solve(start, x, y, alpha, loss, opts, Bqo.passSeed(seed, t, block));
    double[][] packed = pack(r.dw(), r.sums().toArray());
    double[][] global = unpack(ar.sum(packed[0]), ar.max(packed[1]), dim);
    double[] dw = global[0];
    double[] sums = global[1];
    BqoState.Step step = state.next(BqoSums.fromArray(sums), dw);
    if (step.stop()) return true;
    for (int i = 0; i < alpha.length; i++) alpha[i] = BqoBlock.apply(alpha[i], r.d()[i], step.eta(), loss.upper(y[i]));
    return false;
  }

  /**
   * A block's Delta w and sums as the AllReduce combines them: {[Delta w, sums] (summed; min
   * lambda and violation zeroed), [-min lambda, violation] (by max)}. The job-per-iteration
   * reducer combines the same packs in the same {@link org.sodm.allreduce.ReduceTree} order, so
   * both modes take bit-identical steps.
   */
  /** Positions of min lambda and the violation in {@link BqoSums#toArray()}. */
  private static final int MIN_LAMBDA = 8;
  private static final int VIOLATION = 10;

  public static double[][] pack(double[] dw, double[] sums) {
    int dim = dw.length - 1;
    double[] sum = new double[dim + 1 + BqoSums.SIZE];
    System.arraycopy(dw, 0, sum, 0, dim + 1);
    System.arraycopy(sums, 0, sum, dim + 1, BqoSums.SIZE);
    sum[dim + 1 + MIN_LAMBDA] = 0;
    sum[dim + 1 + VIOLATION] = 0;
    return new double[][] {sum, {-sums[MIN_LAMBDA], sums[VIOLATION]}};
  }

  /** {Delta w, sums} from the combined packs. */
  public static double[][] unpack(double[] sum, double[] max, int dim) {
    double[] dw = java.util.Arrays.copyOf(sum, dim + 1);
    double[] sums = java.util.Arrays.copyOfRange(sum, dim + 1, sum.length);
    sums[MIN_LAMBDA] = -max[0];
    sums[VIOLATION] = max[1];
    return new double[][] {dw, sums};
  }

  @Override
  public double[] progress() {
    return encode(state.history().get(state.history().size() - 1));
  }

  @Override
  public byte[] rankState() throws IOException {
    return StateCodec.encode(out -> StateCodec.writeArray(out, alpha));
  }

  @Override
  public byte[] globalState() throws IOException {
    BqoState.Snapshot s = state.snapshot();
    return StateCodec.encode(out -> {
      StateCodec.writeArray(out, s.w());
      StateCodec.writeArray(out, s.best());
      out.writeDouble(s.bestPrimal());
      out.writeInt(s.bestIteration());
      out.writeBoolean(s.converged());
      out.writeInt(s.history().size());
      for (BqoState.Iteration it : s.history()) StateCodec.writeArray(out, encode(it));
    });
  }

  /** The state of a checkpoint's global bytes. */
  public static BqoState.Snapshot decodeState(byte[] bytes) throws IOException {
    DataInputStream in = StateCodec.decode(bytes);
    double[] w = StateCodec.readArray(in);
    double[] best = StateCodec.readArray(in);
    double bestPrimal = in.readDouble();
    int bestIteration = in.readInt();
    boolean converged = in.readBoolean();
    int n = in.readInt();
    List<BqoState.Iteration> history = new ArrayList<>();
    for (int k = 0; k < n; k++) history.add(decode(StateCodec.readArray(in)));
    return new BqoState.Snapshot(w, best, bestPrimal, bestIteration, history, converged);
  }

  /** An iteration as the doubles the progress reports carry. */
  public static double[] encode(BqoState.Iteration it) {
    return new double[] {it.t(), it.primal(), it.dual(), it.relativeGap(), it.violation(), it.eta(), it.dualDecrease(),
        it.pocket() ? 1 : 0};
  }

  public static BqoState.Iteration decode(double[] v) {
    return new BqoState.Iteration((int) v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] != 0);
  }
}
