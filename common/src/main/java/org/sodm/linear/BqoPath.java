package org.sodm.linear;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.StateCodec;

/**
 * One rank of BQO along a path of C values (a linear grid's warm-started C path, as LIBLINEAR's -C and sodm's kernel grid
 * walk C): stage k solves the problem at C_k = C_0 * scales[k] ({@link BqoRank}, its own stop, pocket and pass seeds) and,
 * once it stops, stage k + 1 starts from its point rescaled by C_{k+1} / C_k: alpha' = r alpha and w' = r w (w = X'Y alpha
 * is linear in alpha, so the pair stays consistent, and r alpha stays in the box [0, r C_i] of the hinge dual; the squared
 * hinge's dual has no upper bound). The scales must increase. Each stage's pocket model is kept ({@link #solved}).
 *
 * <p>Progress: the stage, then the stage's {@link BqoRank#encode} values. Checkpoints: the stage, the iteration it began at,
 * every finished stage's result and the current stage's {@link BqoRank} state, so a resumed run ends identically.
 */
public final class BqoPath implements ResidentLoop.Program {
  /** A finished stage: its pocket w (dim + 1), the pocket's primal, its iterations, whether it converged, its last violation. */
  public record Solved(double[] w, double primal, int iterations, boolean converged, double violation, double initialViolation) {}

  /** Values of {@link #progress}: the stage, then {@link BqoRank#encode}'s. */
  public static final int PROGRESS = 9;

  private final Csr x;
  private final double[] y;
  private final int block;
  private final int dim;
  private final SvmLoss base;
  private final double[] scales;
  private final BqoBlock.Options inner;
  private final BqoState.Options outer;
  private final long seed;
  private final List<Solved> solved = new ArrayList<>();
  private int stage;
  private int stageStart;
  private BqoRank current;
  private double[] last;

  /**
   * @param base the loss at C_0 (scales[0] is normally 1)
   * @param scales C_k / C_0, strictly increasing
   * @param rankState, globalState this rank's and the shared checkpointed state, or nulls to start at alpha = 0
   */
  public BqoPath(Csr x, double[] y, int block, int dim, SvmLoss base, double[] scales, BqoBlock.Options inner, BqoState.Options outer,
      long seed, byte[] rankState, byte[] globalState) throws IOException {
    checkScales(scales);
    this.x = x;
    this.y = y;
    this.block = block;
    this.dim = dim;
    this.base = base;
    this.scales = scales.clone();
    this.inner = inner;
    this.outer = outer;
    this.seed = seed;
    byte[] rankGs = null;
    if (globalState != null) {
      Stages st = Stages.decode(globalState);
      stage = st.stage();
      stageStart = st.stageStart();
      solved.addAll(st.solved());
      rankGs = st.current();
    }
    current = stage < scales.length ? new BqoRank(x, y, block, dim, loss(stage), inner, outer, seed, rankState, rankGs) : null;
  }

  /** A path's C_k / C_0: at least one, positive, strictly increasing. */
  static void checkScales(double[] scales) {
    if (scales.length == 0) throw new IllegalArgumentException("a path of no C values");
    for (int k = 0; k < scales.length; k++) {
      if (!(scales[k] > 0) || (k > 0 && !(scales[k] > scales[k - 1]))) {
        throw new IllegalArgumentException("the path's C values must be positive and increasing: " + java.util.Arrays.toString(scales));
      }
    }
  }

  /** The loss of stage k: C_i scaled by scales[k]. */
  public SvmLoss loss(int k) {
    return new SvmLoss(base.squared(), base.cPos() * scales[k], base.cNeg() * scales[k], base.bias());
  }

  /** The finished stages' results, in stage order. */
  public List<Solved> solved() {
    return solved;
  }

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    if (current == null) throw new IllegalStateException("the path has ended");
    boolean stop = current.iterate(t - stageStart, ar);
    BqoState s = current.state();
    List<BqoState.Iteration> h = s.history();
    last = new double[PROGRESS];
    last[0] = stage;
    double[] v = BqoRank.encode(h.get(h.size() - 1));
    System.arraycopy(v, 0, last, 1, v.length);
    if (!stop) return false;
    solved.add(new Solved(s.pocket(), s.pocketPrimal(), h.size(), s.converged(), h.get(h.size() - 1).violation(), h.get(0).violation()));
    if (++stage == scales.length) {
      current = null;
      return true;
    }
    double r = scales[stage] / scales[stage - 1];
    double[] alpha = current.alpha();
    for (int i = 0; i < alpha.length; i++) alpha[i] *= r;
    double[] w = s.w().clone();
    for (int f = 0; f < w.length; f++) w[f] *= r;
    SvmLoss next = loss(stage);
    BqoState start = BqoState.restore(next, outer, inner.tau(),
        new BqoState.Snapshot(w, null, Double.POSITIVE_INFINITY, -1, List.of(), false));
    current = new BqoRank(x, y, block, dim, next, inner, seed, alpha, start);
    stageStart = t + 1;
    return false;
  }

  /** The stage that took the last iteration, then that iteration's {@link BqoRank#encode} values. */
  @Override
  public double[] progress() {
    if (last == null) throw new IllegalStateException("no iteration yet");
    return last.clone();
  }

  @Override
  public byte[] rankState() throws IOException {
    return current == null ? null : current.rankState();
  }

  @Override
  public byte[] globalState() throws IOException {
    byte[] g = current == null ? new byte[0] : current.globalState();
    return encodeStages(stage, stageStart, solved, g);
  }

  /**
   * A path's global state: the stage, the iteration it began at, every finished stage, the current stage's program state ({@code
   * current}, empty when the path has ended). {@link TronPath} keeps the same layout, so {@link #solvedOf} reads both.
   */
  static byte[] encodeStages(int stage, int stageStart, List<Solved> solved, byte[] current) throws IOException {
    return StateCodec.encode(out -> {
      out.writeInt(stage);
      out.writeInt(stageStart);
      out.writeInt(solved.size());
      for (Solved s : solved) {
        StateCodec.writeArray(out, s.w());
        out.writeDouble(s.primal());
        out.writeInt(s.iterations());
        out.writeBoolean(s.converged());
        out.writeDouble(s.violation());
        out.writeDouble(s.initialViolation());
      }
      out.writeInt(current.length);
      out.write(current);
    });
  }

  /** Every finished stage of a {@link #globalState} (or a {@link TronPath}'s). */
  public static List<Solved> solvedOf(byte[] globalState) throws IOException {
    return Stages.decode(globalState).solved();
  }

  /** A path's global state as {@link #encodeStages} writes it (BQO's and TRON's). */
  record Stages(int stage, int stageStart, List<Solved> solved, byte[] current) {
    static Stages decode(byte[] globalState) throws IOException {
      DataInputStream in = StateCodec.decode(globalState);
      int stage = in.readInt();
      int stageStart = in.readInt();
      int n = in.readInt();
      List<Solved> solved = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        solved.add(new Solved(StateCodec.readArray(in), in.readDouble(), in.readInt(), in.readBoolean(), in.readDouble(), in.readDouble()));
      }
      byte[] current = new byte[in.readInt()];
      in.readFully(current);
      return new Stages(stage, stageStart, solved, current);
    }
  }
}
