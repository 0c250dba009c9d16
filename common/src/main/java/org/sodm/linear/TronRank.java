package org.sodm.linear;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.StateCodec;

/**
 * One rank of distributed logistic regression (binary, {@link LogisticBlock}, or multinomial, {@link SoftmaxBlock}) by {@link
 * Tron} over an {@link AllReduce}: the rank keeps its block's rows; f, its gradient and Hessian diagonal, and every
 * Hessian-vector product of the conjugate gradients are sums over the blocks (one AllReduce each: 1, 2n and n doubles for a w of
 * n weights), and every rank runs the same trust-region
 * arithmetic on them, so every rank holds the same w (the distributed Newton method of Zhuang, Chin, Juan and Lin, "Distributed
 * Newton methods for regularized logistic regression", PAKDD 2015). One iteration of the resident loop is one trial step.
 *
 * <p>With {@code l1} the problem is |w|_1 + sum_i C_i loss_i (LIBLINEAR's {@code -s 6} for logistic regression), solved by {@link
 * Owlqn} on the same sums (the loss's value and gradient; the Hessian is not used), its stop the same rule on the
 * pseudo-gradient; or, with few weights, by {@link GlmNet} (LIBLINEAR's own method for {@code -s 6}: Newton steps on the
 * dense Hessian, reduced once per iteration as n + n^2 doubles). An L1 run's last step carries its duality gap ({@link
 * DualityGap}: how far its f can be from the optimum), and {@link #stopByGap} makes that gap the stop.
 *
 * <p>The stop is LIBLINEAR's for {@code -s 0}: |grad f(w)| &lt;= eps max(min(n+, n-), 1) / n |grad f(0)|, n+ and n- the rows of
 * each label over every block (multinomial: the fewest rows of a class in place of min(n+, n-)). A checkpoint holds w, the radius and the counts (f, grad f and the preconditioner are recomputed
 * from w, the same sums in the same order): a resumed run takes the same steps bit for bit.
 */
public final class TronRank implements ResidentLoop.Program {
  /**
   * The method: TRON for 1/2 |w|^2; OWL-QN or newGLMNET for |w|_1, newGLMNET in its dense form (GLMNET: the Hessian reduced
   * over the ranks) or its column form (GLMNET_COLUMNS, LIBLINEAR's: one rank, a block with {@link TronBlock#columns}).
   */
  public enum Solver {
    TRON, OWLQN, GLMNET, GLMNET_COLUMNS;

    public boolean l1() {
      return this != TRON;
    }
  }

  /**
   * The regulariser l1 |w|_1 + l2 / 2 |w|^2 of an L1 method (OWL-QN, newGLMNET): {@link #L1} for LIBLINEAR's -s 6, {@link
   * #elasticNet} for scikit-learn's elastic net. TRON's is always 1/2 |w|^2.
   */
  public record Penalty(double l1, double l2) {
    public static final Penalty L1 = new Penalty(1, 0);

    public Penalty {
      if (!(l1 > 0) || !(l2 >= 0)) throw new IllegalArgumentException("an L1 method's penalty needs l1 > 0, l2 >= 0: " + l1 + ", " + l2);
    }

    /** rho |w|_1 + (1 - rho) / 2 |w|^2, rho in (0, 1]. */
    public static Penalty elasticNet(double rho) {
      if (!(rho > 0 && rho <= 1)) throw new IllegalArgumentException("the L1 ratio must be in (0, 1], got " + rho);
      return new Penalty(rho, 1 - rho);
    }
  }

  /** Progress values per trial step ({@link #encode}). */
  public static final int PROGRESS = 9;

  private final TronBlock block;
  private final int size;
  private final double eps;
  private final int maxIterations;
  private final Solver solver;
  private final Penalty penalty;
  private final boolean l1;
  private final State resume;
  private final double[] start;
  private final List<Tron.Trial> history = new ArrayList<>();
  private Tron tron;
  private Owlqn owlqn;
  private GlmNet glmnet;
  private TrialRun run; // the one of the three
  private AllReduce ar;

  /**
   * @param size the weights of w (binary: the dimension + 1, the bias feature's last)
   * @param eps LIBLINEAR's -e (its default for -s 0 is 0.01), scaled as above
   * @param globalState a checkpoint's state ({@link #globalState}), or null (or empty: not started) to start at w = 0
   */
  public TronRank(TronBlock block, int size, double eps, int maxIterations, byte[] globalState) throws IOException {
    this(block, size, eps, maxIterations, globalState, null);
  }

  /** As above, a fresh run starting from {@code start} ({@code size} weights; null: zeros) instead of 0 ({@link TronPath}'s warm start). */
  public TronRank(TronBlock block, int size, double eps, int maxIterations, byte[] globalState, double[] start) throws IOException {
    this(block, size, eps, maxIterations, globalState, start, false);
  }

  /** As above; {@code l1}: |w|_1 in place of 1/2 |w|^2, by {@link Owlqn}. */
  public TronRank(TronBlock block, int size, double eps, int maxIterations, byte[] globalState, double[] start, boolean l1)
      throws IOException {
    this(block, size, eps, maxIterations, globalState, start, l1 ? Solver.OWLQN : Solver.TRON);
  }

  /** As above, by the given method ({@link Solver#GLMNET} needs a block with {@link TronBlock#densePairs}). */
  public TronRank(TronBlock block, int size, double eps, int maxIterations, byte[] globalState, double[] start, Solver solver)
      throws IOException {
    this(block, size, eps, maxIterations, globalState, start, solver, Penalty.L1);
  }

  /** As above; an L1 method's regulariser is {@code penalty} (TRON ignores it). */
  public TronRank(TronBlock block, int size, double eps, int maxIterations, byte[] globalState, double[] start, Solver solver,
      Penalty penalty) throws IOException {
    this.penalty = penalty;
    if (solver == Solver.GLMNET && !block.densePairs()) {
      throw new IllegalArgumentException("newGLMNET needs the dense Hessian, which " + block.getClass().getSimpleName() + " does not give");
    }
    if (solver == Solver.GLMNET_COLUMNS && block.columns(size) == null) {
      throw new IllegalArgumentException("newGLMNET by column needs the Hessian's columns, which " + block.getClass().getSimpleName()
          + " does not give");
    }
    if (!(eps > 0)) throw new IllegalArgumentException("eps must be > 0, got " + eps);
    this.block = block;
    this.size = size;
    this.eps = eps;
    this.maxIterations = maxIterations;
    this.solver = solver;
    this.l1 = solver.l1();
    this.start = start == null ? new double[size] : start.clone();
    if (this.start.length != size) throw new IllegalArgumentException("a start of " + this.start.length + " weights for " + size);
    if (globalState == null || globalState.length == 0) {
      resume = null;
    } else {
      resume = decodeState(globalState);
      history.addAll(resume.history());
    }
  }

  /**
   * An L1 method stops by its duality gap: gap &lt;= {@code tolerance} f ({@link L1Run#stopByGap}), in place of LIBLINEAR's rule on
   * the pseudo-gradient. Before the first iteration; the block must have a dual ({@link TronBlock#hasDual}).
   */
  public TronRank stopByGap(double tolerance) {
    if (!l1) throw new IllegalArgumentException("the duality gap's stop is an L1 method's; this run is " + solver);
    if (!block.hasDual()) throw new IllegalArgumentException(block.getClass().getSimpleName() + " gives no dual: no duality gap's stop");
    if (!(tolerance > 0 && tolerance < 1)) throw new IllegalArgumentException("the gap's tolerance must be in (0, 1), got " + tolerance);
    if (run != null) throw new IllegalStateException("the stop is chosen before the first iteration");
    gapTolerance = tolerance;
    return this;
  }

  private double gapTolerance;

  /**
   * The duality gap at the run's w ({@link DualityGap}): the rows' margins at w (evaluated again when the last value() was at a
   * trial point), the loss's gradient (the run's less the penalty's l2 w) and one scalar sum over the ranks.
   */
  private double gapAt(L1Run r) throws IOException {
    if (!java.util.Arrays.equals(current, r.w)) smoothValue(r.w); // every rank takes the same branch: the same w
    double[] lossGradient = new double[r.n];
    for (int i = 0; i < r.n; i++) lossGradient[i] = r.grad[i] - penalty.l2() * r.w[i];
    return DualityGap.gap(r.f, lossGradient, penalty.l1(), penalty.l2(), s -> ar.sum(block.dual(s)));
  }

  /** The w of the last value(): the gradient's regulariser term. */
  private double[] current;

  /** f and its derivatives as sums over the ranks, the regulariser's terms added once. */
  private final Tron.Objective objective = new Tron.Objective() {
    @Override
    public double value(double[] w) throws IOException {
      current = w.clone();
      return 0.5 * Vectors.dot(w, w) + ar.sum(block.loss(w));
    }

    @Override
    public void gradient(double[] g, double[] diag) throws IOException {
      int n = g.length;
      double[] part = new double[2 * n];
      block.gradient(part, n);
      double[] sum = ar.sum(part);
      for (int i = 0; i < n; i++) {
        g[i] = sum[i] + current[i];
        diag[i] = 1 + sum[n + i];
      }
    }

    @Override
    public void hessian(double[] v, double[] hv) throws IOException {
      double[] part = new double[v.length];
      block.hessian(v, part);
      double[] sum = ar.sum(part);
      for (int i = 0; i < v.length; i++) hv[i] = v[i] + sum[i];
    }
  };

  /** L = the loss's sums over the ranks + the penalty's l2 / 2 |w|^2 for {@link Owlqn}: |w|_1 is its own. */
  private final Owlqn.Objective smooth = new Owlqn.Objective() {
    @Override
    public double value(double[] w) throws IOException {
      return smoothValue(w);
    }

    @Override
    public void gradient(double[] g) throws IOException {
      double[] part = new double[g.length]; // the gradient alone: no Hessian diagonal computed or reduced
      block.gradient(part, g.length);
      ridgeGradient(ar.sum(part), g);
    }
  };

  /** An L1 method's grad L: the loss's gradient ({@code sum}'s first g.length values) + the penalty's l2 w (w of the last value()). */
  private void ridgeGradient(double[] sum, double[] g) {
    for (int i = 0; i < g.length; i++) g[i] = sum[i] + penalty.l2() * current[i];
  }

  /** L(w) of an L1 method: the loss's sum over the ranks + the penalty's l2 / 2 |w|^2; w kept for the gradient's ridge term. */
  private double smoothValue(double[] w) throws IOException {
    current = w.clone();
    return ar.sum(block.loss(w)) + (penalty.l2() == 0 ? 0 : 0.5 * penalty.l2() * Vectors.dot(w, w));
  }

  /** L, its gradient and its dense Hessian (one AllReduce of n + n^2 doubles) for {@link GlmNet}. */
  private final GlmNet.Objective dense = new GlmNet.Objective() {
    @Override
    public double value(double[] w) throws IOException {
      return smoothValue(w);
    }

    @Override
    public void derivatives(double[] g, double[] h) throws IOException {
      int n = g.length;
      double[] gradient = new double[n];
      block.gradient(gradient, n);
      double[] part = new double[n + n * n];
      System.arraycopy(gradient, 0, part, 0, n);
      block.hessianPairs(part, n, n);
      double[] sum = ar.sum(part);
      System.arraycopy(sum, n, h, 0, n * n);
      GlmNet.symmetrize(h, n);
      ridgeGradient(sum, g);
      for (int i = 0; i < n; i++) h[i * n + i] += penalty.l2();
    }
  };

  /** L, its gradient, the Hessian's diagonal and its columns from this rank's block alone, for {@link GlmNet}'s column form. */
  private final GlmNet.ByColumns byColumns = new GlmNet.ByColumns() {
    @Override
    public double value(double[] w) throws IOException {
      return smoothValue(w);
    }

    @Override
    public void derivatives(double[] g, double[] diag) throws IOException {
      int n = g.length;
      double[] part = new double[2 * n];
      block.gradient(part, n);
      double[] sum = ar.sum(part); // one rank: the block's own
      ridgeGradient(sum, g);
      for (int i = 0; i < n; i++) diag[i] = sum[n + i] + penalty.l2();
    }

    @Override
    public TronBlock.Columns columns() {
      return block.columns(size);
    }

    @Override
    public double ridge() {
      return penalty.l2();
    }
  };

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    this.ar = ar;
    if (run == null) {
      int from = resume == null ? 0 : resume.point().trials();
      if (t != from) throw new IllegalStateException("TRON rank at trial " + from + " asked for " + t);
      double[] counts = ar.sum(block.classCounts());
      double n = 0;
      double fewest = Double.POSITIVE_INFINITY;
      for (double c : counts) {
        n += c;
        fewest = Math.min(fewest, c);
      }
      double tolerance = n == 0 ? eps : eps * Math.max(fewest, 1) / n;
      switch (solver) {
        case OWLQN -> run = owlqn = new Owlqn(smooth, penalty.l1(), start, tolerance, maxIterations, resume == null ? null : resume.owlqnPoint());
        case GLMNET -> run = glmnet = new GlmNet(dense, penalty.l1(), start, tolerance, maxIterations, resume == null ? null : resume.glmnetPoint());
        case GLMNET_COLUMNS -> {
          if (ar.size() != 1) {
            throw new IllegalStateException("newGLMNET by column needs every row on one rank; this run has " + ar.size());
          }
          run = glmnet = new GlmNet(byColumns, penalty.l1(), start, tolerance, maxIterations, resume == null ? null : resume.glmnetPoint());
        }
        default -> run = tron = new Tron(objective, start, tolerance, maxIterations, resume == null ? null : resume.point());
      }
      if (gapTolerance > 0) ((L1Run) run).stopByGap(this::gapAt, gapTolerance);
      if (run.done()) { // nothing to do: the start is optimal to the tolerance
        history.add(certified(new Tron.Trial(t, run.iterations(), run.value(), run.gradientNorm(), 0, 0, false, run.status())));
        return true;
      }
    }
    Tron.Trial trial = run.step();
    history.add(run.done() ? certified(trial) : trial);
    return run.done();
  }

  /**
   * The last step of an L1 run whose block has a dual, with the duality gap at its w (taken here unless the gap's stop took it):
   * every finished run reports how far its f can be from the optimum.
   */
  private Tron.Trial certified(Tron.Trial last) throws IOException {
    if (!(run instanceof L1Run r) || !block.hasDual()) return last;
    if (!Double.isNaN(r.gap)) return last.withGap(r.gap);
    return last.withGap(gapAt(r));
  }

  /** The trial steps so far (a resumed run's include those before its checkpoint). */
  public List<Tron.Trial> history() {
    return history;
  }

  /** The run (TRON, OWL-QN or newGLMNET; null before the first iteration). */
  public TrialRun run() {
    return run;
  }

  /** The TRON run (null with l1, or before the first iteration). */
  public Tron tron() {
    return tron;
  }

  @Override
  public double[] progress() {
    return encode(history.get(history.size() - 1));
  }

  @Override
  public byte[] rankState() {
    return null;
  }

  @Override
  public byte[] globalState() throws IOException {
    if (run == null) return new byte[0]; // not started (a path's next stage): it starts again from its start
    Owlqn.Point o = switch (solver) {
      case OWLQN -> owlqn.point();
      case GLMNET, GLMNET_COLUMNS -> { // as OWL-QN's point with no memory
        GlmNet.Point q = glmnet.point();
        yield new Owlqn.Point(q.w(), q.gradientNorm0(), q.iterations(), q.trials(), q.status(), List.of(), List.of());
      }
      default -> null;
    };
    Tron.Point p = l1 ? new Tron.Point(o.w(), o.gradientNorm0(), 0, false, o.iterations(), o.trials(), o.status()) : tron.point();
    return StateCodec.encode(out -> {
      StateCodec.writeArray(out, p.w());
      out.writeDouble(p.gradientNorm0());
      out.writeDouble(p.delta());
      out.writeBoolean(p.deltaAdjusted());
      out.writeInt(p.iterations());
      out.writeInt(p.trials());
      out.writeInt(p.status().ordinal());
      out.writeInt(history.size());
      for (Tron.Trial tr : history) StateCodec.writeArray(out, encode(tr));
      if (o != null) { // OWL-QN's memory (newGLMNET: none)
        out.writeInt(o.s().size());
        for (int k = 0; k < o.s().size(); k++) {
          StateCodec.writeArray(out, o.s().get(k));
          StateCodec.writeArray(out, o.y().get(k));
        }
      }
    });
  }

  /**
   * A checkpoint's point and the trial steps that led to it; with l1 ({@link Owlqn}) also its memory's pairs (else empty), and
   * the point's delta is 0.
   */
  public record State(Tron.Point point, List<Tron.Trial> history, List<double[]> s, List<double[]> y) {
    public Tron.Trial last() {
      return history.get(history.size() - 1);
    }

    GlmNet.Point glmnetPoint() {
      return new GlmNet.Point(point.w(), point.gradientNorm0(), point.iterations(), point.trials(), point.status());
    }

    Owlqn.Point owlqnPoint() {
      return new Owlqn.Point(point.w(), point.gradientNorm0(), point.iterations(), point.trials(), point.status(), s, y);
    }
  }

  public static State decodeState(byte[] bytes) throws IOException {
    DataInputStream in = StateCodec.decode(bytes);
    double[] w = StateCodec.readArray(in);
    Tron.Point p = new Tron.Point(w, in.readDouble(), in.readDouble(), in.readBoolean(), in.readInt(), in.readInt(),
        Tron.Status.values()[in.readInt()]);
    int n = in.readInt();
    List<Tron.Trial> history = new ArrayList<>();
    for (int k = 0; k < n; k++) history.add(decode(StateCodec.readArray(in)));
    List<double[]> s = new ArrayList<>();
    List<double[]> y = new ArrayList<>();
    if (in.available() > 0) {
      int m = in.readInt();
      for (int k = 0; k < m; k++) {
        s.add(StateCodec.readArray(in));
        y.add(StateCodec.readArray(in));
      }
    }
    return new State(p, history, s, y);
  }

  /** A trial as the doubles of a progress report. */
  public static double[] encode(Tron.Trial t) {
    return new double[] {t.trial(), t.iterations(), t.f(), t.gradientNorm(), t.delta(), t.cgSteps(), t.accepted() ? 1 : 0,
        t.status().ordinal(), t.gap()};
  }

  public static Tron.Trial decode(double[] v) {
    return new Tron.Trial((int) v[0], (int) v[1], v[2], v[3], v[4], (int) v[5], v[6] != 0, Tron.Status.values()[(int) v[7]], v[8]);
  }
}
