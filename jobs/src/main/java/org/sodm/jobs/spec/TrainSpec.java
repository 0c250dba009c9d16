package org.sodm.jobs.spec;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.sodm.kernel.KernelSpec;
import org.sodm.linear.BqoBlock;
import org.sodm.linear.BqoState;
import org.sodm.solver.Loss;
import org.sodm.solver.PbmStep;
import org.sodm.solver.SolverOptions;
import org.sodm.solver.WarmStart;

/**
 * Everything {@code sodm train} was asked to do, typed and validated completely on the driver
 * before any job ({@link #from}), serialised once into each job's configuration ({@link #writeTo})
 * and read back by the tasks ({@link #of}), which never read raw keys.
 *
 * <p>It is built from the values of the training parameters of the {@link Param} table; those
 * values ({@link #values()}) are also what the model's provenance and {@code --resume}'s check
 * compare.
 */
public final class TrainSpec {
  /** The configuration key that carries the serialised spec to the tasks. */
  public static final String CONF_KEY = "sodm.internal.spec";

  /** The parameter groups that make up a training run. */
  static final List<Param.Group> GROUPS = List.of(Param.Group.INGEST, Param.Group.LOSS, Param.Group.KERNEL, Param.Group.TREE, Param.Group.EXACT,
      Param.Group.SOLVER, Param.Group.LINEAR);

  public enum Partitioner { STRATIFIED, KMEANS, RANDOM }

  public enum Merge { WARM, CASCADE }

  /** The kernel as configured: gamma 0 means 1 / dimension ({@link #resolve}). */
  public record Kernel(KernelSpec.Type type, double gamma, double coef0, int degree) {
    public KernelSpec resolve(int dimension) {
      double g = gamma > 0 ? gamma : 1.0 / Math.max(1, dimension);
      return new KernelSpec(type, type == KernelSpec.Type.LINEAR ? 0 : g, coef0, degree);
    }
  }

  /** The merge tree. */
  public record Tree(int partitions, int fanout, int landmarks, int candidates, long landmarkDriverRows, Partitioner partitioner,
      Merge merge, boolean earlyStop, long maxBlockRows, int reducers, boolean auto, long cacheBytes, long autoAboveRows,
      long autoBlockRows, double blockC, double autoBlockC, long blockCRows) {

    /** As before issue 18 item 1: a fixed shape (no automatic tree). */
    public Tree(int partitions, int fanout, int landmarks, int candidates, long landmarkDriverRows, Partitioner partitioner,
        Merge merge, boolean earlyStop, long maxBlockRows, int reducers) {
      this(partitions, fanout, landmarks, candidates, landmarkDriverRows, partitioner, merge, earlyStop, maxBlockRows, reducers, false,
          0, 0, 0, 0, 0, 0);
    }

    /**
     * The automatic tree ({@code --levels auto} with {@code --partitions 0}, the default; issue 18
     * item 1) for data of {@code rows} rows: <b>one level</b> of B = ceil(rows / m) blocks, m =
     * floor(sqrt(cacheBytes / 4)) rows the largest block whose whole kernel matrix fits the kernel
     * cache as floats (8,192 rows at 256 MB), so its solve computes each kernel column once. Data of
     * at most {@code autoAboveRows} rows (sodm.train.exact.below.rows) keeps p^2 -> p: it ends with
     * the one exact block anyway, for which the tree is the warm start.
     *
     * <p>No merge round: up to 2026-11-26 more than p^2 final blocks took a bottom level of p B
     * blocks of m / p rows merged once into B. The merged blocks start warm, but the start saved
     * less than the bottom level cost: at 400,000 rows (B = 49) the merge tree took 25.6 s
     * (ijcnn1's pattern, hinge C = 32, gamma = 2; 98.16% on ijcnn1.tst) and 71.8 s (synthetic, C
     * = 4, gamma = 1; 97.62%), one level of the same 49 blocks solved cold 15.2 s (98.27%) and 53.9 s
     * (97.60%); its 49 merged blocks alone took longer than the 49 cold ones (14.3 s against 11.3 s:
     * the children's 66,624 support vectors, scaled to the parent's box, are twice the parents'
     * 34,669). ODM (the default loss, ijcnn1's pattern, gamma = 2): 34.6 s (97.18%) against 24.2 s
     * (97.19%). The final blocks - the model - are the same B blocks of m rows either way.
     *
     * <p>Larger final blocks where small ones lose: {@code blockC} &gt; 0 is the C that hinge
     * blocks scale by B (times the larger class weight). When C B &gt; {@code autoBlockC}, the level
     * has B' = ceil(rows / M) blocks of at most M = {@code blockRows} rows (0: 3m, 24,576 at 256
     * MB), at any n. Measured (test accuracy against svm-train at the same C and gamma): ijcnn1 at C
     * = 32, gamma = 2, 7 blocks of m rows (C B = 224) -0.16 point over three seeds, 3 blocks +0.18;
     * its pattern enlarged to 100,000 rows 13 blocks (C B = 416) -0.32, 5 blocks +0.14; the
     * 12,000-row sample, 2 blocks (C B = 64) -0.38, one block 0; at 400,000 rows 49 blocks of m rows
     * 98.27%, 17 blocks of 3m 98.70% (30.1 s); at C B <= 32 (LIBSVM's C = 1 on ijcnn1, a9a, skin; a9a
     * at C = 8) blocks of m rows were within 0.17 point and 20-30% faster than larger ones.
     */
    public static List<Integer> autoShape(long rows, long cacheBytes, long blockRows, double blockC, double autoBlockC,
        long blockCRows) {
      long blocks = cacheBlocks(rows, cacheBytes);
      if (blockC > 0 && blockC * WarmStart.cFactor((int) Math.min(blocks, 1_000_000), rows, blockCRows) > autoBlockC) {
        blocks = blocksOf(rows, blockRows > 0 ? blockRows : 3 * cacheRows(cacheBytes));
      }
      return List.of((int) Math.min(blocks, 1_000_000));
    }

    /** {@link #autoShape(long, long, long, double, double, long)} for losses whose blocks keep C (ODM, --block-c same). */
    public static List<Integer> autoShape(long rows, long cacheBytes) {
      return autoShape(rows, cacheBytes, 0, 0, 0, 0);
    }

    /** m = floor(sqrt(cacheBytes / 4)): the rows of the largest block whose float kernel matrix fits the cache. */
    public static long cacheRows(long cacheBytes) {
      return Math.max(2, (long) Math.floor(Math.sqrt(cacheBytes / 4.0)));
    }

    /** Whether the automatic shape for {@code rows} rows took the larger final blocks (C B above sodm.train.auto.block.c). */
    public boolean enlarged(long rows) {
      return auto && rows > autoAboveRows && !shape(rows).equals(autoShape(rows, cacheBytes));
    }

    /** B = ceil(rows / m): the blocks of at most m = {@link #cacheRows} rows. */
    static long cacheBlocks(long rows, long cacheBytes) {
      return blocksOf(rows, cacheRows(cacheBytes));
    }

    /** ceil(rows / bound), at least 1: the blocks of at most {@code bound} rows. */
    static long blocksOf(long rows, long bound) {
      return Math.max(1, (rows + bound - 1) / bound);
    }

    /** The C B (C times {@link WarmStart#cFactor}) of blocks of m rows for {@code rows} rows ({@link #enlarged}'s test). */
    public double smallBlocksC(long rows) {
      return blockC * WarmStart.cFactor((int) Math.min(cacheBlocks(rows, cacheBytes), 1_000_000), rows, blockCRows);
    }

    /** The automatic tree's largest final block of one level: sodm.train.auto.block.rows, or 3m. */
    public long autoBlockBound() {
      return autoBlockRows > 0 ? autoBlockRows : 3 * cacheRows(cacheBytes);
    }

    /**
     * The separable-blocks rule's shape (KernelTreeTrainer): ceil(rows / M) blocks of at most M = {@link #autoBlockBound} rows,
     * or --max-block-rows when that is smaller.
     */
    public int largerBlocks(long rows) {
      return (int) Math.min(1_000_000, blocksOf(rows, maxBlockRows > 0 ? Math.min(autoBlockBound(), maxBlockRows) : autoBlockBound()));
    }

    /** The block counts per level for {@code rows} rows before --max-block-rows: the automatic shape, or {@link #levelBlocks()}. */
    public List<Integer> shape(long rows) {
      return auto && rows > autoAboveRows ? autoShape(rows, cacheBytes, autoBlockRows, blockC, autoBlockC, blockCRows)
          : levelBlocks();
    }

    /** Block counts per level from the bottom up: K, ceil(K/p), ..., down to <= p blocks (at least one level). */
    public List<Integer> levelBlocks() {
      List<Integer> out = new ArrayList<>();
      int b = partitions;
      out.add(b);
      while (b > fanout) {
        b = (b + fanout - 1) / fanout;
        out.add(b);
      }
      return out;
    }

    /**
     * The levels actually run on {@code rows} rows: {@link #levelBlocks()}, cut before the first
     * merge whose blocks would exceed {@link #maxBlockRows} rows on average (the bottom level is
     * always run). With a fixed bottom block size this keeps the work per block, and so the
     * training time per row, independent of n.
     */
    public List<Integer> levelBlocks(long rows) {
      List<Integer> all = shape(rows);
      if (maxBlockRows <= 0) return all;
      int keep = 1;
      while (keep < all.size() && (rows + all.get(keep) - 1) / all.get(keep) <= maxBlockRows) keep++;
      return all.subList(0, keep);
    }

    /** The number of the top level as planned: levels keep these numbers when --max-block-rows stops early. */
    public int plannedTop() {
      List<Integer> b = levelBlocks();
      return b.get(b.size() - 1) > 1 ? b.size() : b.size() - 1;
    }
  }

  /** Exact mode (PBM or one block). {@code reference} is NaN when not given. */
  public record Exact(boolean on, long belowRows, double tolerance, int maxIterations, int innerEpochs, PbmStep.Rule lineSearch,
      boolean refine, String single, double reference, double gap) {

    /**
     * True when a run on {@code rows} rows whose last level has {@code lastBlocks} blocks ends with
     * the one-block exact solve although --exact was not given: small data, for which averaging a
     * few blocks of n/p rows costs accuracy (0.3-0.8 point on phishing's 8,844 rows) and one block
     * of n rows costs little.
     */
    public boolean bySize(long rows, int lastBlocks) {
      return !on && belowRows > 0 && rows <= belowRows && lastBlocks > 1;
    }
  }

  /** The linear solvers (BQO, DSVRG). */
  /**
   * @param blocks K, 0 = auto ({@link #blocksFor})
   * @param innerPasses BQO's inner passes, 0 = auto ({@link #inner})
   */
  public record Linear(LinearSolver solver, int blocks, long blockNonZeros, double eps, int maxIterations, int innerPasses, double tau,
      BqoState.LineSearch lineSearch, int epochs, double step, IterationMode iterationMode) {

    /**
     * BQO's inner solve with {@code k} blocks: the given number of passes (stopping early at a projected gradient of 1e-4),
     * or auto: with more than one block one pass; with one block the subproblem is the whole problem, so it is solved as
     * LIBLINEAR solves it, up to {@value #ONE_BLOCK_PASSES} passes with shrinking kept across them, to a projected gradient
     * of {@value #ONE_BLOCK_EPS} (LIBLINEAR's default eps) at the first iteration and ten times smaller at each later one,
     * which the certified gap asks for only when the first did not reach it.
     */
    public BqoBlock.Options inner(int k) {
      if (innerPasses > 0) return new BqoBlock.Options(innerPasses, tau, 1e-4);
      return k == 1 ? new BqoBlock.Options(ONE_BLOCK_PASSES, tau, ONE_BLOCK_EPS, 0.1) : new BqoBlock.Options(1, tau, 1e-4);
    }

    /** Auto inner solve with one block: LIBLINEAR's iteration limit and default tolerance of its dual solvers. */
    static final int ONE_BLOCK_PASSES = 1000;
    static final double ONE_BLOCK_EPS = 0.1;

    /**
     * The block count for data of {@code rows} rows and {@code nonZeros} stored values: the given K (at most one block
     * per row), or auto: the fewest blocks of at most {@code blockNonZeros} values each.
     */
    public int blocksFor(long rows, long nonZeros) {
      long k = blocks > 0 ? blocks : Math.max(1, (nonZeros + blockNonZeros - 1) / blockNonZeros);
      return (int) Math.max(1, Math.min(k, Math.min(rows, 1_000_000)));
    }

    public BqoState.Options outer() {
      return new BqoState.Options(lineSearch, eps, maxIterations, 0.1, 0.5, 0);
    }
  }

  /**
   * Saddle-SVC / Saddle-DSVC (seed 002): at most {@code maxIterations} iterations per beta, a gap check every
   * {@code checkInterval} (0: the paper's T).
   */
  public record Saddle(long maxIterations, long checkInterval) {}

  /** How BQO and DSVRG iterate: one resident AllReduce job for the whole run, or one MapReduce job per iteration. */
  public enum IterationMode { ALLREDUCE, JOBS }

  /** Which solver trains a linear-kernel model. */
  public enum LinearSolver { AUTO, BQO, DSVRG, KERNEL, SADDLE, TRON }

  private final Map<Param, String> values;
  private final Loss loss;
  private final Kernel kernel;
  private final Tree tree;
  private final Exact exact;
  private final Linear linear;
  private final Saddle saddle;
  private final SolverOptions solver;
  private final long seed;
  /** The training data's dimension once known (0 before ingest): resolves gamma 0 = 1/d. */
  private final int dimension;
  private static final String DIMENSION = "sodm.internal.dimension";

  private TrainSpec(Map<Param, String> values, int dimension) {
    this.values = Collections.unmodifiableMap(values);
    this.dimension = dimension;
    String nu = get(Param.NU);
    loss = Loss.of(get(Param.LOSS), real(Param.C), real(Param.LAMBDA), real(Param.THETA), real(Param.MU),
        nu.isEmpty() ? Double.NaN : Double.parseDouble(nu), bool(Param.BIAS), real(Param.WEIGHT_POSITIVE), real(Param.WEIGHT_NEGATIVE));
    if (!nu.isEmpty() && !(loss instanceof Loss.Nu)) throw bad(Param.NU, "nu applies to --loss nu only, not " + loss.id());
    kernel = new Kernel(KernelSpec.Type.parse(get(Param.KERNEL)), real(Param.GAMMA), real(Param.COEF0), (int) integer(Param.DEGREE));
    if (offset()) {
      if (!(loss instanceof Loss.Hinge)) throw bad(Param.OFFSET, "LIBSVM's offset is for --loss hinge (C-SVC), not " + loss.id());
      if (loss.bias()) throw bad(Param.OFFSET, "choose one bias: --offset (LIBSVM's, unregularised) or --bias (regularised, k + 1)");
    }

    int fanout = (int) integer(Param.FANOUT);
    long k = integer(Param.PARTITIONS);
    boolean autoTree = k == 0 && get(Param.LEVELS).equals("auto");
    if (k == 0) {
      k = 1;
      // auto: planned as L = 2 (the phases' names; small data runs it), the shape from n once the data is read (Tree.shape)
      for (long l = autoTree ? 2 : integer(Param.LEVELS); l > 0; l--) k *= fanout;
      if (k > 1_000_000) throw bad(Param.LEVELS, "fanout^levels = " + k + " blocks is more than 1000000");
    }
    tree = new Tree((int) k, fanout, (int) integer(Param.LANDMARKS), (int) integer(Param.LANDMARK_CANDIDATES),
        integer(Param.LANDMARK_DRIVER_ROWS), choice(Param.PARTITIONER, Partitioner.class), choice(Param.MERGE, Merge.class),
        bool(Param.EARLY_STOP), integer(Param.MAX_BLOCK_ROWS), (int) integer(Param.TRAIN_REDUCERS), autoTree,
        integer(Param.CACHE_MB) << 20, integer(Param.EXACT_BELOW_ROWS), integer(Param.AUTO_BLOCK_ROWS), autoBlockC(loss, get(Param.BLOCK_C)) * maxClassWeight(get(Param.CLASS_WEIGHTS)),
        real(Param.AUTO_BLOCK_C), integer(Param.BLOCK_C_ROWS));

    if (tree.partitioner() == Partitioner.KMEANS && !kernel.resolve(1).positiveSemiDefinite()) { // gamma does not decide it
      throw bad(Param.PARTITIONER, "kernel k-means needs a positive semi-definite kernel (distances in its feature space); "
          + kernel.type().id() + (kernel.type() == KernelSpec.Type.POLY ? " with --coef0 " + kernel.coef0() + " < 0" : "")
          + " is not: use --partitioner stratified (the default: its strata are then the inner product's) or random");
    }
    String ref = get(Param.EXACT_REFERENCE);
    exact = new Exact(bool(Param.EXACT), integer(Param.EXACT_BELOW_ROWS), real(Param.EXACT_TOLERANCE),
        (int) integer(Param.EXACT_MAX_ITERATIONS), (int) integer(Param.EXACT_INNER_EPOCHS),
        choice(Param.EXACT_LINE_SEARCH, PbmStep.Rule.class), bool(Param.EXACT_REFINE), get(Param.EXACT_SINGLE).toLowerCase(Locale.ROOT),
        ref.isEmpty() ? Double.NaN : Double.parseDouble(ref), real(Param.EXACT_GAP));

    seed = integer(Param.SEED);
    solver = new SolverOptions(real(Param.EPS), (int) integer(Param.MAX_EPOCHS), bool(Param.SHRINKING), integer(Param.CACHE_MB) << 20,
        seed).withPairs(bool(Param.PAIRS)).withTrace(bool(Param.TRACE));

    LinearSolver ls = choice(Param.LINEAR_SOLVER, LinearSolver.class);
    boolean odm = loss instanceof Loss.Odm;
    if (ls == LinearSolver.BQO && odm) {
      throw bad(Param.LINEAR_SOLVER, "bqo solves hinge and squared-hinge, not odm (use dsvrg or auto)");
    }
    if (ls == LinearSolver.DSVRG && !odm) {
      throw bad(Param.LINEAR_SOLVER, "dsvrg solves odm, not " + loss.id() + " (use auto)");
    }
    boolean saddleLoss = loss instanceof Loss.Nu || loss instanceof Loss.HardMargin;
    if (loss instanceof Loss.HardMargin && kernel.type() != KernelSpec.Type.LINEAR) {
      throw bad(Param.KERNEL, "hard-margin needs --kernel linear (Saddle-SVC, seed 002)");
    }
    boolean nuTree = loss instanceof Loss.Nu && (kernel.type() != KernelSpec.Type.LINEAR || ls == LinearSolver.KERNEL);
    if (offset()) {
      if (kernel.type() == KernelSpec.Type.LINEAR && ls != LinearSolver.KERNEL) {
        throw bad(Param.OFFSET, "LIBSVM's offset is fitted by the kernel merge tree; the linear solvers fit --bias (or give "
            + "--linear-solver kernel)");
      }
      if ("never".equalsIgnoreCase(get(Param.EXACT_SINGLE))) {
        throw bad(Param.EXACT_SINGLE, "with --offset exact mode is the one-block solve (PBM keeps no equality constraint)");
      }
    }
    if (nuTree && "never".equalsIgnoreCase(get(Param.EXACT_SINGLE))) {
      throw bad(Param.EXACT_SINGLE, "nu-SVC's exact mode is the one-block solve (its dual is not a box: no PBM)");
    }
    if (saddleLoss && !nuTree && ls != LinearSolver.AUTO && ls != LinearSolver.SADDLE) {
      throw bad(Param.LINEAR_SOLVER, ls.name().toLowerCase(Locale.ROOT) + " does not solve " + loss.id() + " (use saddle or auto)");
    }
    boolean logistic = loss instanceof Loss.Logistic;
    if (logistic && kernel.type() != KernelSpec.Type.LINEAR) {
      throw bad(Param.KERNEL, "logistic regression is trained with --kernel linear only (TRON; there is no kernel logistic regression)");
    }
    if (logistic && ls != LinearSolver.AUTO && ls != LinearSolver.TRON) {
      throw bad(Param.LINEAR_SOLVER, ls.name().toLowerCase(Locale.ROOT) + " does not solve logistic (use tron or auto)");
    }
    boolean squaredHinge = loss instanceof Loss.SquaredHinge;
    if (l1() && !logistic && !squaredHinge) {
      throw bad(Param.PENALTY, get(Param.PENALTY).toLowerCase(Locale.ROOT) + " is logistic regression's (l1: LIBLINEAR's -s 6) and the "
          + "L2-SVM's (-s 5): give --loss logistic or squared-hinge with --kernel linear, not " + loss.id());
    }
    if (l1() && squaredHinge && kernel.type() != KernelSpec.Type.LINEAR) {
      throw bad(Param.PENALTY, get(Param.PENALTY).toLowerCase(Locale.ROOT) + " with squared-hinge is a linear model's (LIBLINEAR's -s 5): "
          + "give --kernel linear");
    }
    if (l1() && squaredHinge && ls != LinearSolver.AUTO && ls != LinearSolver.TRON) {
      throw bad(Param.LINEAR_SOLVER, ls.name().toLowerCase(Locale.ROOT) + " solves the dual, which has no |w|_1: --penalty "
          + get(Param.PENALTY).toLowerCase(Locale.ROOT) + " with squared-hinge is trained in the primal (use tron or auto)");
    }
    if (!get(Param.L1_RATIO).isEmpty() && !get(Param.PENALTY).equalsIgnoreCase("elasticnet")) {
      throw bad(Param.L1_RATIO, "is --penalty elasticnet's rho; give --penalty elasticnet, or leave --l1-ratio out");
    }
    if (!get(Param.L1_SOLVER).equalsIgnoreCase("auto") && !l1()) {
      throw bad(Param.L1_SOLVER, "chooses --penalty l1's method; give --penalty l1, or leave --l1-solver out");
    }
    if (!get(Param.L1_GAP).isEmpty() && !l1()) {
      throw bad(Param.L1_GAP, "is --penalty l1's and elasticnet's stop; give --penalty l1 or elasticnet, or leave --l1-gap out");
    }
    if (multinomial() && !logistic) {
      throw bad(Param.MULTICLASS, "multinomial is logistic regression's multi-class model (one softmax over the classes): give "
          + "--loss logistic --kernel linear, or ovr / ovo for " + loss.id());
    }
    if (ls == LinearSolver.TRON && !logistic && !squaredHinge) {
      throw bad(Param.LINEAR_SOLVER, "tron solves logistic and squared-hinge in the primal, not " + loss.id() + " (use auto)");
    }
    boolean tron = logistic || ls == LinearSolver.TRON || (l1() && squaredHinge);
    if (tron && choice(Param.ITERATION_MODE, IterationMode.class) == IterationMode.JOBS) {
      throw bad(Param.ITERATION_MODE, "TRON runs as one resident AllReduce job only (a Hessian-vector product per conjugate-gradient "
          + "step; a job per step is not an option): use allreduce");
    }
    if (ls == LinearSolver.SADDLE && !saddleLoss) {
      throw bad(Param.LINEAR_SOLVER, "saddle solves nu and hard-margin, not " + loss.id() + " (use auto)");
    }
    if (saddleLoss && !nuTree && !(real(Param.LINEAR_EPS) < 1)) {
      throw bad(Param.LINEAR_EPS, "Saddle-SVC needs a relative duality gap eps in (0, 1), got " + get(Param.LINEAR_EPS));
    }
    if (saddleLoss && !nuTree && choice(Param.ITERATION_MODE, IterationMode.class) == IterationMode.JOBS) {
      throw bad(Param.ITERATION_MODE, "Saddle-DSVC runs as one resident AllReduce job only (thousands of rounds of a few scalars; "
          + "a job per round is not an option): use allreduce");
    }
    saddle = new Saddle(integer(Param.SADDLE_MAX_ITERATIONS), integer(Param.SADDLE_CHECK_INTERVAL));
    linear = new Linear(ls, autoInt(Param.LINEAR_BLOCKS), integer(Param.LINEAR_BLOCK_NONZEROS), real(Param.LINEAR_EPS),
        (int) integer(Param.LINEAR_MAX_ITERATIONS), autoInt(Param.LINEAR_INNER_PASSES), real(Param.LINEAR_TAU), choice(Param.LINEAR_LINE_SEARCH, BqoState.LineSearch.class),
        (int) integer(Param.LINEAR_EPOCHS), real(Param.LINEAR_STEP), choice(Param.ITERATION_MODE, IterationMode.class));
  }

  /**
   * The parameters that decide what a run trains, in table order: those of {@link #GROUPS} and
   * the seed (not how the work is spread: reducers, parallelism, overwrite).
   */
  public static List<Param> parameters() {
    List<Param> ps = new ArrayList<>(Param.of(GROUPS.toArray(new Param.Group[0])));
    ps.add(Param.SEED);
    return ps;
  }

  /**
   * Reads and validates every training parameter of {@code conf} (absent keys take the table's
   * defaults); throws {@link BadParameterException} naming the first bad parameter and its option.
   */
  public static TrainSpec from(Configuration conf) {
    Map<Param, String> v = new EnumMap<>(Param.class);
    for (Param p : Param.values()) {
      if (!(GROUPS.contains(p.group()) || p == Param.SEED || p == Param.TRAIN_REDUCERS)) continue;
      String raw = conf.get(p.key());
      v.put(p, p.check(raw == null ? p.defaultValue() : raw));
    }
    return build(v, 0);
  }

  private static TrainSpec build(Map<Param, String> v, int dimension) {
    try {
      return new TrainSpec(v, dimension);
    } catch (IllegalArgumentException e) {
      throw new BadParameterException("bad parameters: " + e.getMessage());
    }
  }

  /** The spec a task's configuration carries ({@link #writeTo}); fails when the driver set none. */
  public static TrainSpec of(Configuration conf) {
    String s = conf.get(CONF_KEY);
    if (s == null) throw new IllegalStateException("the task configuration carries no training spec (" + CONF_KEY + ")");
    Properties p = new Properties();
    try {
      p.load(new StringReader(s));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<Param, String> v = new EnumMap<>(Param.class);
    int dim = Integer.parseInt(p.getProperty(DIMENSION, "0"));
    p.remove(DIMENSION);
    for (String k : p.stringPropertyNames()) {
      Param param = Param.byKey(k);
      if (param == null) throw new IllegalStateException("training spec names an unknown key " + k);
      v.put(param, p.getProperty(k));
    }
    return build(v, dim);
  }

  /** Puts the spec into a job configuration for its tasks (and the raw keys, for Hadoop-level readers). */
  public Configuration writeTo(Configuration conf) {
    Properties p = new Properties();
    values.forEach((k, val) -> p.setProperty(k.key(), val));
    p.setProperty(DIMENSION, Integer.toString(dimension));
    StringWriter w = new StringWriter();
    try {
      p.store(w, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    conf.set(CONF_KEY, w.toString());
    values.forEach((k, val) -> conf.set(k.key(), val));
    return conf;
  }

  /** This spec with one parameter changed (validated as on the command line). */
  public TrainSpec with(Param p, String value) {
    Map<Param, String> v = new EnumMap<>(values);
    v.put(p, p.check(value));
    return build(v, dimension);
  }

  /** This spec with the training data's dimension (which resolves gamma 0 = 1/d). */
  public TrainSpec withDimension(int d) {
    return build(new EnumMap<>(values), d);
  }

  /** The kernel with gamma resolved; needs the dimension ({@link #withDimension}). */
  public KernelSpec resolvedKernel() {
    if (dimension <= 0) throw new IllegalStateException("the training spec has no data dimension yet");
    return kernel.resolve(dimension);
  }

  /** The parameter values this spec was built from, by key (the model's provenance, --resume's check). */
  public Map<String, String> values() {
    Map<String, String> m = new TreeMap<>();
    for (Param p : parameters()) m.put(p.key(), values.get(p));
    return m;
  }

  public Loss loss() {
    return loss;
  }

  public Kernel kernel() {
    return kernel;
  }

  public Tree tree() {
    return tree;
  }

  public Exact exact() {
    return exact;
  }

  public Linear linear() {
    return linear;
  }

  public Saddle saddle() {
    return saddle;
  }

  public SolverOptions solver() {
    return solver;
  }

  public long seed() {
    return seed;
  }

  /**
   * The largest weight of --class-weights above 1 (1 without them), by which the automatic tree's C B test takes the
   * heaviest class's C, as it takes the larger of --weight-positive / --weight-negative (two classes' weights become
   * those once the run knows which label is +1, and the class weights are then cleared).
   */
  static double maxClassWeight(String classWeights) {
    double max = 1;
    if (classWeights == null || classWeights.isBlank()) return max;
    for (String e : classWeights.split(",")) {
      int colon = e.lastIndexOf(':');
      try {
        if (colon > 0) max = Math.max(max, Double.parseDouble(e.substring(colon + 1).trim()));
      } catch (NumberFormatException x) {
        // ClassWeights.parse reports it by name
      }
    }
    return max;
  }

  /** The C that the blocks of a level of B blocks scale by B (hinge losses, --block-c scaled; times the larger class weight), else 0. */
  static double autoBlockC(Loss loss, String blockCMode) {
    if (!blockCMode.equals("scaled")) return 0;
    double c = loss instanceof Loss.Hinge h ? h.c() : loss instanceof Loss.SquaredHinge q ? q.c() : 0;
    return c * Math.max(loss.weights().positive(), loss.weights().negative());
  }

  /** Hinge losses: whether a block of a level of B blocks solves with C times B ({@link Param#BLOCK_C}). */
  public boolean blockScaledC() {
    return get(Param.BLOCK_C).equals("scaled");
  }

  /**
   * Hinge losses: the factor of C in a block of a level of {@code blocks} blocks of a problem of {@code rows} rows (the
   * largest sub-problem's): {@link WarmStart#cFactor} with {@link Param#BLOCK_C_ROWS} under --block-c scaled, else 1.
   */
  public double blockCFactor(int blocks, long rows) {
    return blockScaledC() ? WarmStart.cFactor(blocks, rows, tree.blockCRows()) : 1;
  }

  /**
   * Hinge with LIBSVM's unregularised offset per block ({@link Param#OFFSET}; the kernel tree's solves): true when the
   * setting is true, or auto as {@link #resolveOffset} decided it (auto before that: false).
   */
  public boolean offset() {
    return get(Param.OFFSET).equalsIgnoreCase("true");
  }

  /** {@link Param#COMMON_OFFSET}: one offset for a model of averaged --offset blocks. */
  public boolean commonOffset() {
    return bool(Param.COMMON_OFFSET);
  }

  /** {@link Param#COMMON_OFFSET_SCALE}: whether the common offset's fit also fits the averaged function's scale. */
  public boolean commonOffsetScaled() {
    return bool(Param.COMMON_OFFSET_SCALE);
  }

  /** Whether {@link Param#OFFSET} is auto (not yet resolved by {@link #resolveOffset}). */
  public boolean offsetAuto() {
    return get(Param.OFFSET).equalsIgnoreCase("auto");
  }

  /**
   * {@link Param#OFFSET} auto resolved for training data of {@code rows} rows: on for hinge in the kernel merge tree (LIBSVM's
   * model class, C-SVC), except with --bias (the other bias), with sodm.train.exact.single=never, and with --exact on more than
   * sodm.train.exact.below.rows rows (PBM's block steps keep no equality constraint; the offset would force one solve of every
   * row). Returns this spec when the setting is not auto.
   */
  public TrainSpec resolveOffset(long rows) {
    if (!offsetAuto()) return this;
    boolean on = loss instanceof Loss.Hinge && !loss.bias() && linearSolver() == null
        && !"never".equalsIgnoreCase(get(Param.EXACT_SINGLE)) && !(exact().on() && rows > exact().belowRows());
    return with(Param.OFFSET, Boolean.toString(on));
  }

  /** Whether an unconverged exact solve may end the run with exit code 0 ({@link Param#EXACT_ALLOW_UNCONVERGED}). */
  public boolean allowUnconverged() {
    return bool(Param.EXACT_ALLOW_UNCONVERGED);
  }

  /** The linear solver that trains this spec, or null when the kernel pipeline does (any other kernel, or --linear-solver kernel). */
  public LinearSolver linearSolver() {
    if (kernel.type() != KernelSpec.Type.LINEAR || linear.solver() == LinearSolver.KERNEL) return null;
    if (linear.solver() != LinearSolver.AUTO) return linear.solver();
    if (loss instanceof Loss.Nu || loss instanceof Loss.HardMargin) return LinearSolver.SADDLE;
    if (loss instanceof Loss.Logistic || l1()) return LinearSolver.TRON; // |w|_1 with squared-hinge: the primal, LIBLINEAR's -s 5
    return loss instanceof Loss.Odm ? LinearSolver.DSVRG : LinearSolver.BQO;
  }

  /** The multi-class scheme: --multiclass, auto resolved (ovr for the linear solvers BQO, DSVRG and TRON, else ovo). */
  public org.sodm.model.Subproblems.Scheme multiclass() {
    String m = get(Param.MULTICLASS);
    if (m.equalsIgnoreCase("multinomial")) return org.sodm.model.Subproblems.Scheme.OVR; // a w per class, as one-vs-rest's models
    if (m.equals("auto")) {
      LinearSolver ls = linearSolver();
      return ls == LinearSolver.BQO || ls == LinearSolver.DSVRG || ls == LinearSolver.TRON ? org.sodm.model.Subproblems.Scheme.OVR
          : org.sodm.model.Subproblems.Scheme.OVO;
    }
    return org.sodm.model.Subproblems.Scheme.parse(m);
  }

  /**
   * --multiclass multinomial: logistic regression's classes in one softmax model (Spark MLlib's and scikit-learn's multi-class
   * logistic regression), trained as one problem over every class instead of one binary problem per class.
   */
  public boolean multinomial() {
    return get(Param.MULTICLASS).equalsIgnoreCase("multinomial");
  }

  /** --penalty l1 or elasticnet: a |w|_1 term (logistic regression or the L2-SVM, by newGLMNET or OWL-QN). */
  public boolean l1() {
    return !get(Param.PENALTY).equalsIgnoreCase("l2");
  }

  /** The L1 methods' regulariser: |w|_1 (l1), or rho |w|_1 + (1 - rho)/2 |w|^2 (elasticnet, rho = --l1-ratio). */
  public org.sodm.linear.TronRank.Penalty penalty() {
    return get(Param.PENALTY).equalsIgnoreCase("elasticnet")
        ? org.sodm.linear.TronRank.Penalty.elasticNet(get(Param.L1_RATIO).isEmpty() ? 0.5 : Double.parseDouble(get(Param.L1_RATIO)))
        : org.sodm.linear.TronRank.Penalty.L1;
  }

  /** --l1-gap: an L1 method's stop by relative duality gap, or 0 for LIBLINEAR's rule on the pseudo-gradient. */
  public double l1Gap() {
    return get(Param.L1_GAP).isEmpty() ? 0 : Double.parseDouble(get(Param.L1_GAP));
  }

  /** --l1-solver was given (not auto). */
  public boolean l1SolverGiven() {
    return !get(Param.L1_SOLVER).equalsIgnoreCase("auto");
  }

  /**
   * The method of a logistic problem of {@code weights} weights in all ({@code classes} times the features + 1: a multinomial
   * model's; 1 class otherwise) on {@code rows} rows holding {@code nonZeros} stored values, over {@code blocks} blocks: TRON for
   * l2; for l1 --l1-solver's. newGLMNET takes its dense form where {@link org.sodm.linear.GlmNet#prefer} does (a row's values
   * times the classes: the softmax Hessian's part of a row is K^2 times a binary one's, its gradient's K times), else its column
   * form where every row is in one block, else (glmnet given, at most {@link
   * org.sodm.linear.GlmNet#MAX_WEIGHTS} weights) the dense form; auto takes newGLMNET in either form, else OWL-QN. Refuses glmnet
   * that neither form can run, naming the parameter.
   */
  public org.sodm.linear.TronRank.Solver logisticSolver(int weights, int classes, long rows, long nonZeros, int blocks) {
    if (!l1()) return org.sodm.linear.TronRank.Solver.TRON;
    String s = get(Param.L1_SOLVER).toLowerCase(Locale.ROOT);
    if (s.equals("owlqn")) return org.sodm.linear.TronRank.Solver.OWLQN;
    double perRow = (rows == 0 ? 1 : (double) nonZeros / rows + 1) * classes;
    boolean dense = org.sodm.linear.GlmNet.prefer(weights, perRow);
    boolean columns = blocks == 1;
    if (dense) return org.sodm.linear.TronRank.Solver.GLMNET;
    if (columns) return org.sodm.linear.TronRank.Solver.GLMNET_COLUMNS;
    if (s.equals("glmnet")) {
      if (weights > org.sodm.linear.GlmNet.MAX_WEIGHTS) {
        throw bad(Param.L1_SOLVER, "glmnet runs on " + weights + " weights by column, which needs every row in one block, and this run "
            + "has " + blocks + " blocks (--linear-blocks 1 if the rows fit one task); its dense form takes at most "
            + org.sodm.linear.GlmNet.MAX_WEIGHTS + " weights (use owlqn or auto)");
      }
      return org.sodm.linear.TronRank.Solver.GLMNET;
    }
    return org.sodm.linear.TronRank.Solver.OWLQN;
  }

  /**
   * Two classes under --multiclass multinomial: the binary logistic model at 2C, the same optimum (with W = (w_1, w_2) the
   * regulariser is least at w_1 = -w_2 for a given w = w_2 - w_1, and 1/2 (|w_1|^2 + |w_2|^2) = 1/4 |w|^2: half the binary
   * primal at 2C), whose sigmoid is the softmax's probability; the multinomial choice is then spent (auto).
   */
  public TrainSpec multinomialOfTwoClasses() {
    if (!multinomial()) throw new IllegalStateException("not --multiclass multinomial");
    return with(Param.C, Double.toString(2 * real(Param.C))).with(Param.MULTICLASS, "auto");
  }

  /**
   * Whether the model gives probabilities: --probability (Platt's sigmoids), or a logistic loss, whose decision values are
   * log-odds (the probabilities liblinear-predict -b 1 computes: the sigmoids, normalised over one-vs-rest's classes).
   */
  public boolean probabilityModel() {
    return probability() || loss instanceof Loss.Logistic;
  }

  /** The internal folds of Platt's fit: --probability's, none for a logistic loss (its probabilities are its own). */
  public int plattFolds() {
    return probability() && !(loss instanceof Loss.Logistic) ? probabilityFolds() : 0;
  }

  /** --probability: Platt sigmoids from an internal cross-validation of {@link #probabilityFolds} folds. */
  public boolean probability() {
    return bool(Param.PROBABILITY);
  }

  public int probabilityFolds() {
    return (int) integer(Param.PROBABILITY_FOLDS);
  }

  /** sodm.train.exact.single.evaluations: exact mode's one-reducer solve when SV x N is at most this (auto). */
  public long exactSingleEvaluations() {
    return integer(Param.EXACT_SINGLE_EVALUATIONS);
  }

  /** --exact-blocks: PBM's block count, 0 for auto (the reduce slots). */
  public int exactBlocks() {
    return autoInt(Param.EXACT_BLOCKS);
  }

  /** --linear-partitioner stratified: DSVRG deals stratified blocks. */
  public boolean linearStratified() {
    return get(Param.LINEAR_PARTITIONER).equals("stratified");
  }

  /** --kmeans-sample: the most points each level's kernel k-means is fitted on (DC-SVM's m). */
  public int kmeansSample() {
    return (int) integer(Param.KMEANS_SAMPLE);
  }

  /** --max-classes. */
  public int maxClasses() {
    return (int) integer(Param.MAX_CLASSES);
  }

  /**
   * Fails naming --partitions when K exceeds the number of rows. The automatic tree (no --partitions, --levels auto) takes
   * its shape from the rows, and its planned 16 blocks are no bound: data of 2 to 15 rows trained in one block as svm-train
   * trains them, where this failed naming an option that was never given.
   */
  public void checkRows(long rows) {
    if (!tree.auto() && tree.partitions() > rows) {
      throw bad(Param.PARTITIONS, "K = " + tree.partitions() + " blocks is more than the " + rows + " training rows");
    }
  }

  public static BadParameterException bad(Param p, String what) {
    return new BadParameterException("bad parameter " + p.optionName() + " (" + p.key() + "): " + what);
  }

  private String get(Param p) {
    String v = values.get(p);
    if (v == null) throw new IllegalStateException("training spec has no " + p.key());
    return v;
  }

  private double real(Param p) {
    return Double.parseDouble(get(p));
  }

  private long integer(Param p) {
    return Long.parseLong(get(p));
  }

  /** An "auto or integer" parameter: 0 for auto. */
  private int autoInt(Param p) {
    return get(p).equals("auto") ? 0 : (int) integer(p);
  }

  private boolean bool(Param p) {
    return Boolean.parseBoolean(get(p));
  }

  private <E extends Enum<E>> E choice(Param p, Class<E> type) {
    return Enum.valueOf(type, get(p).toUpperCase(Locale.ROOT).replace('-', '_'));
  }
}
