package org.sodm.linear;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.ResidentLoop;

/**
 * One rank of logistic regression (or the L2-SVM's primal) along a path of C values (a linear grid's warm-started C path, as LIBLINEAR's {@code -C} walks
 * it for {@code -s 0}): stage k solves the problem at C_k = C_0 * scales[k] by {@link TronRank} (its own stop, at LIBLINEAR's
 * tolerance of that problem; with l1 by {@link TronRank.Solver#OWLQN} or {@link TronRank.Solver#GLMNET}) from stage k - 1's w, the
 * first from 0. The scales must increase. Progress: the stage, then the
 * stage's {@link TronRank#encode} values. Checkpoints keep {@link BqoPath}'s layout (the stage, the iteration it began at, every
 * finished stage, the current stage's state), so {@link BqoPath#solvedOf} reads them and a resumed run ends identically.
 */
public final class TronPath implements ResidentLoop.Program {
  /** Values of {@link #progress}: the stage, then {@link TronRank#encode}'s. */
  public static final int PROGRESS = 1 + TronRank.PROGRESS;

  /** A stage's block: the rows' sums at C_0 times the given scale. */
  public interface Blocks {
    TronBlock at(double scale);
  }

  private final Blocks blocks;
  private final int size;
  private final double[] scales;
  private final double eps;
  private final int maxIterations;
  private final TronRank.Solver solver;
  private final TronRank.Penalty penalty;
  private final List<BqoPath.Solved> solved = new ArrayList<>();
  private int stage;
  private int stageStart;
  private TronRank current;
  private double[] last;

  /**
   * @param base the loss at C_0 (scales[0] is normally 1)
   * @param scales C_k / C_0, strictly increasing
   * @param globalState the checkpointed state, or null to start at w = 0
   */
  public TronPath(Csr x, double[] y, int dim, LinearPrimal base, double[] scales, double eps, int maxIterations, byte[] globalState)
      throws IOException {
    this(s -> MarginBlock.of(scaled(base, s), x, y, 1), dim + 1, scales, eps, maxIterations, globalState, TronRank.Solver.TRON,
        TronRank.Penalty.L1);
  }

  /** As above, by the given method (an L1 method with {@code penalty}). */
  public TronPath(Csr x, double[] y, int dim, LinearPrimal base, double[] scales, double eps, int maxIterations, byte[] globalState,
      TronRank.Solver solver, TronRank.Penalty penalty) throws IOException {
    this(s -> MarginBlock.of(scaled(base, s), x, y, 1), dim + 1, scales, eps, maxIterations, globalState, solver, penalty);
  }

  /**
   * A path over any {@link TronBlock} (multinomial: {@link SoftmaxBlock}) of w's {@code size} weights.
   *
   * @param blocks each stage's block at its scale
   * @param scales C_k / C_0, strictly increasing
   * @param globalState the checkpointed state, or null to start at w = 0
   */
  public TronPath(Blocks blocks, int size, double[] scales, double eps, int maxIterations, byte[] globalState) throws IOException {
    this(blocks, size, scales, eps, maxIterations, globalState, TronRank.Solver.TRON, TronRank.Penalty.L1);
  }

  /** As above, by the given method (an L1 method with {@code penalty}). */
  public TronPath(Blocks blocks, int size, double[] scales, double eps, int maxIterations, byte[] globalState, TronRank.Solver solver,
      TronRank.Penalty penalty) throws IOException {
    BqoPath.checkScales(scales);
    this.solver = solver;
    this.penalty = penalty;
    this.blocks = blocks;
    this.size = size;
    this.scales = scales.clone();
    this.eps = eps;
    this.maxIterations = maxIterations;
    byte[] stageState = null;
    if (globalState != null) {
      BqoPath.Stages st = BqoPath.Stages.decode(globalState);
      stage = st.stage();
      stageStart = st.stageStart();
      solved.addAll(st.solved());
      stageState = st.current();
    }
    if (stage < scales.length) current = rank(stageState, stage == 0 ? null : solved.get(stage - 1).w());
  }

  private TronRank rank(byte[] state, double[] start) throws IOException {
    TronRank r = new TronRank(blocks.at(scales[stage]), size, eps, maxIterations, state, start, solver, penalty);
    return gapTolerance > 0 ? r.stopByGap(gapTolerance) : r;
  }

  private double gapTolerance;

  /** Every stage's L1 run stops by its duality gap ({@link TronRank#stopByGap}); before the first iteration. */
  public TronPath stopByGap(double tolerance) {
    gapTolerance = tolerance;
    if (current != null) current = current.stopByGap(tolerance);
    return this;
  }

  /** {@code base} (logistic or squared hinge: {@link MarginBlock#of}) with C_i scaled by {@code scale}. */
  static LinearPrimal scaled(LinearPrimal base, double scale) {
    if (base instanceof SvmLoss p) return new SvmLoss(p.squared(), p.cPos() * scale, p.cNeg() * scale, p.bias());
    LogisticPrimal p = (LogisticPrimal) base;
    return new LogisticPrimal(p.cPos() * scale, p.cNeg() * scale, p.bias());
  }

  /** The finished stages' results (w, f, Newton iterations, converged, |grad f|, |grad f(0)|), in stage order. */
  public List<BqoPath.Solved> solved() {
    return solved;
  }

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    if (current == null) throw new IllegalStateException("the path has ended");
    boolean stop = current.iterate(t - stageStart, ar);
    List<Tron.Trial> h = current.history();
    last = new double[PROGRESS];
    last[0] = stage;
    double[] v = TronRank.encode(h.get(h.size() - 1));
    System.arraycopy(v, 0, last, 1, v.length);
    if (!stop) return false;
    TrialRun run = current.run();
    solved.add(new BqoPath.Solved(run.w().clone(), run.value(), run.iterations() - 1, run.status() == Tron.Status.CONVERGED,
        run.gradientNorm(), run.initialGradientNorm()));
    if (++stage == scales.length) {
      current = null;
      return true;
    }
    current = rank(null, run.w());
    stageStart = t + 1;
    return false;
  }

  /** The stage that took the last trial step, then that step's {@link TronRank#encode} values. */
  @Override
  public double[] progress() {
    if (last == null) throw new IllegalStateException("no iteration yet");
    return last.clone();
  }

  @Override
  public byte[] rankState() {
    return null;
  }

  @Override
  public byte[] globalState() throws IOException {
    return BqoPath.encodeStages(stage, stageStart, solved, current == null ? new byte[0] : current.globalState());
  }
}
