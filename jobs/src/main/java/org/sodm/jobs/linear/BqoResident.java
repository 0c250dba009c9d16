package org.sodm.jobs.linear;

import org.sodm.jobs.spec.TrainSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.TaskPrograms;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.allreduce.FsCheckpoints;
import org.sodm.jobs.allreduce.ResidentJob;
import org.sodm.jobs.allreduce.ResidentMapper;
import org.sodm.linear.BqoBlock;
import org.sodm.linear.BqoPath;
import org.sodm.linear.BqoRank;
import org.sodm.linear.Csr;
import org.sodm.linear.BqoState;
import org.sodm.linear.SvmLoss;

/**
 * BQO (seed 003 Algorithm 1) as one resident AllReduce job ({@link ResidentJob}): each task
 * holds a block and its alpha for the whole run and runs {@link BqoRank}; the driver prints rank
 * 0's iteration reports as they come and restores the final {@link BqoState} (pocket, history)
 * from the final checkpoint. Same arithmetic as {@link BqoJob}'s job per iteration.
 */
public final class BqoResident {
  private BqoResident() {}

  /** Progress values per task of a multi-task run ({@link BqoRank#encode}). */
  static final int PROGRESS = 8;

  /** Called on the driver for each iteration as rank 0 reports it, with the time the previous report came. */
  public interface Progress {
    void iteration(BqoState.Iteration it, long sinceNanos);
  }

  /**
   * @param blockDir the block files, or null: the {@code k} tasks deal their blocks from the ingested data
   *     ({@link DealtInputFormat}; {@link LinearKeys#INGEST_DIR} set)
   */
  public static BqoState train(Configuration base, Path blockDir, int k, Path workDir, int dim, Progress progress, Consumer<String> notes)
      throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    TrainSpec spec = TrainSpec.of(conf);
    SvmLoss loss = spec.loss().svmPrimal();
    long[] since = {System.nanoTime()};
    int[] printed = {-1};
    ResidentJob.Listener listener = (t, values) -> {
      if (t > printed[0]) {
        progress.iteration(BqoRank.decode(values), since[0]);
        printed[0] = t;
      }
      since[0] = System.nanoTime();
    };
    int maxDoubles = dim + 1 + org.sodm.linear.BqoSums.SIZE;
    ResidentJob.Result r;
    if (blockDir != null) {
      r = ResidentJob.run(conf, "bqo", Task.class, blockDir, workDir, maxDoubles, listener, notes);
    } else {
      conf.setInt(LinearKeys.BLOCKS, k);
      java.util.List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
      r = ResidentJob.run(conf, "bqo", Task.class, blocks, DealtInputFormat.INPUT, workDir, maxDoubles, listener, notes);
    }
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    return BqoState.restore(loss, spec.linear().outer(), spec.linear().tau(), BqoRank.decodeState(global));
  }

  /** Called on the driver for each task's iteration as rank 0 reports it. */
  public interface TaskProgress {
    void iteration(int task, BqoState.Iteration it, long sinceNanos);
  }

  /**
   * Every task of a multi-class problem in one resident run on {@code k} blocks that the tasks deal from the ingested data
   * ({@link TaskPrograms} of {@link BqoRank}s); each task's state as a run of that task alone ends.
   */
  public static BqoState[] trainTasks(Configuration base, int k, Path workDir, int dim, TaskProgress progress, Consumer<String> notes)
      throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    conf.setInt(LinearKeys.BLOCKS, k);
    conf.setBoolean(LinearKeys.CLASS_INDEX, true);
    TrainSpec spec = TrainSpec.of(conf);
    org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
    int tasks = plan.count(); // every sub-problem: a task, or a task without a fold
    long[] since = {System.nanoTime()};
    ResidentJob.Listener listener = (t, values) -> {
      for (int task = 0; task < tasks; task++) {
        double[] v = TaskPrograms.progressOf(values, task, PROGRESS);
        if (v != null) progress.iteration(task, BqoRank.decode(v), since[0]);
      }
      since[0] = System.nanoTime();
    };
    java.util.List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
    ResidentJob.Result r = ResidentJob.run(conf, "bqo", TaskRanks.class, blocks, DealtInputFormat.INPUT, workDir, dim + 1 + org.sodm.linear.BqoSums.SIZE, listener, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    byte[][] states = TaskPrograms.programStates(global);
    BqoState[] out = new BqoState[states.length];
    for (int t = 0; t < out.length; t++) {
      SvmLoss loss = org.sodm.jobs.phase.MulticlassKeys.taskLoss(conf, spec.loss(), plan.task(t)).svmPrimal();
      out[t] = BqoState.restore(loss, spec.linear().outer(), spec.linear().tau(), BqoRank.decodeState(states[t]));
    }
    return out;
  }

  /** A block's rows in id order: ids, labels (+-1, or the class index) and the rows as one {@link Csr}. */
  record Block(long[] ids, double[] y, Csr x) {}

  /**
   * A resident task keeping its block's rows as they load, straight into one {@link Csr} (a million rows held as objects
   * until the block was complete cost more in garbage collection and in the copy into CSR than reading them).
   */
  abstract static class RowsMapper extends ResidentMapper {
    private Csr.Builder rows = new Csr.Builder();
    private long[] ids = new long[1024];
    private double[] ys = new double[1024];
    private int[] maxIndex = new int[1024];
    private int n;

    /**
     * Sizes the arrays for the block the driver expects ({@link LinearKeys#BLOCK_HINT}): grown by half each time they
     * filled, a million rows' arrays were copied and their fresh pages first touched about three times over (a quarter of
     * the load). A block larger than the hint still grows.
     */
    @Override
    protected final void beforeLoad(Configuration conf) {
      long[] hint = LinearKeys.blockHint(conf);
      if (hint == null) return;
      int r = (int) Math.min(Math.max(hint[0], 1024), Integer.MAX_VALUE - 8);
      rows = new Csr.Builder(r, Math.min(Math.max(hint[1], 1 << 14), Integer.MAX_VALUE - 8));
      ids = new long[r];
      ys = new double[r];
      maxIndex = new int[r];
    }

    @Override
    protected final void load(TrainRecord r) {
      SparseVector x = Instances.features(r.getFeatures());
      rows.add(x);
      added(r.getId(), r.getY(), x.maxIndex());
    }

    /** A block dealt from the ingested data: its rows straight into the arrays ({@link DealtInputFormat#dealRows}). */
    @Override
    protected final boolean loadSplit(Context context) throws IOException {
      if (!(context.getInputSplit() instanceof DealtInputFormat.Split split)) return false;
      return DealtInputFormat.dealRows(split, context.getConfiguration(), (id, y, idx, val, nnz) -> {
        rows.add(idx, val, nnz);
        added(id, y, nnz == 0 ? 0 : idx[nnz - 1]);
      }, context::progress);
    }

    private void added(long id, double y, int max) {
      if (n == ids.length) {
        ids = java.util.Arrays.copyOf(ids, 2 * n);
        ys = java.util.Arrays.copyOf(ys, 2 * n);
        maxIndex = java.util.Arrays.copyOf(maxIndex, 2 * n);
      }
      ids[n] = id;
      ys[n] = y;
      maxIndex[n++] = max;
    }

    /** The block's rows by id (as {@link BqoJob} sorts them), checked against the training dimension; the caller's to keep. */
    protected final Block rowsById(int dim) throws IOException {
      Csr x = rows.build();
      rows = null;
      Integer[] order = null;
      for (int i = 1; i < n && order == null; i++) {
        if (ids[i - 1] > ids[i]) order = new Integer[n];
      }
      if (order != null) { // not the ingested parts in order: sort by id (stable, as the list sort it replaces)
        for (int i = 0; i < n; i++) order[i] = i;
        long[] key = ids;
        java.util.Arrays.sort(order, Comparator.comparingLong(i -> key[i]));
      }
      int[] pick = new int[n];
      long[] id = new long[n];
      double[] y = new double[n];
      for (int j = 0; j < n; j++) {
        int i = order == null ? j : order[j];
        if (maxIndex[i] > dim) throw new IOException("row " + ids[i] + " has feature " + maxIndex[i] + " beyond the training dimension " + dim);
        pick[j] = i;
        id[j] = ids[i];
        y[j] = ys[i];
      }
      ids = null;
      ys = null;
      maxIndex = null;
      return new Block(id, y, order == null ? x : x.subset(pick));
    }
  }

  /** A resident BQO task: its block's rows sorted by id. */
  public static class Task extends RowsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      int dim = conf.getInt(LinearKeys.DIM, 0);
      Block b = rowsById(dim);
      TrainSpec spec = TrainSpec.of(conf);
      return new BqoRank(b.x(), b.y(), blocks.get(rank), dim, spec.loss().svmPrimal(), spec.linear().inner(blocks.size()),
          spec.linear().outer(), spec.seed(), rankState, globalState);
    }
  }

  /** A sub-problem's rows in a block: a view of the block's {@link Csr}, the labels +-1, and the task's loss (class weights). */
  record Sub(Csr x, double[] y, org.sodm.solver.Loss loss) {}

  /**
   * A resident task holding its block's rows once (y = class index) and one program per sub-problem of the plan ({@link
   * #program(Sub, int, int, TrainSpec, byte[], byte[])}): a binary task (one-vs-rest: the class against the rest; one-vs-one: the
   * pair's rows) or, with cross-validation or --probability's internal folds, a task without one fold's rows. Each sub-problem's
   * rows are a view of the block's one {@link org.sodm.linear.Csr} ({@code subset}) in id order, so its arithmetic is that of a
   * run of that sub-problem alone.
   */
  abstract static class SubproblemRanks extends RowsMapper {
    /** Sub-problem {@code sub}'s program on block {@code block} of {@code blocks}, from its checkpointed states (or nulls). */
    abstract ResidentLoop.Program program(Sub sub, int block, int blocks, TrainSpec spec, Configuration conf, byte[] rankState,
        byte[] globalState) throws IOException;

    /** Progress values per sub-problem. */
    abstract int width();

    @Override
    protected final ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      int dim = conf.getInt(LinearKeys.DIM, 0);
      Block rows = rowsById(dim);
      org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
      TrainSpec spec = TrainSpec.of(conf);
      int block = blocks.get(rank);
      int[] fold = LinearKeys.folds(conf, plan, spec.seed(), rows.ids()); // sodm cv: the fold file; --probability: a hash of the id
      Csr csr = rows.x();
      int n = rows.ids().length;
      return new TaskPrograms(plan.count(), width(), (u, rs, gs) -> {
        int task = plan.task(u);
        org.sodm.solver.Loss loss = org.sodm.jobs.phase.MulticlassKeys.taskLoss(conf, spec.loss(), task); // with --class-weights
        int heldOut = plan.heldOutFold(u);
        int[] pick = new int[n];
        double[] y = new double[n];
        int m = 0;
        for (int i = 0; i < pick.length; i++) {
          double yi = plan.y(task, (int) rows.y()[i]);
          if (yi == 0 || (heldOut >= 0 && fold[i] == heldOut)) continue;
          y[m] = yi;
          pick[m++] = i;
        }
        Sub sub = new Sub(csr.subset(java.util.Arrays.copyOf(pick, m)), java.util.Arrays.copyOf(y, m), loss);
        return program(sub, block, blocks.size(), spec, conf, rs, gs);
      }, rankState, globalState, ResidentMapper.programThreads(conf, n));
    }
  }

  /** One {@link BqoRank} per sub-problem ({@link #trainTasks}). */
  public static class TaskRanks extends SubproblemRanks {
    @Override
    ResidentLoop.Program program(Sub sub, int block, int blocks, TrainSpec spec, Configuration conf, byte[] rankState, byte[] globalState)
        throws IOException {
      int dim = conf.getInt(LinearKeys.DIM, 0);
      return new BqoRank(sub.x(), sub.y(), block, dim, sub.loss().svmPrimal(), spec.linear().inner(blocks), spec.linear().outer(), spec.seed(),
          rankState, globalState);
    }

    @Override
    int width() {
      return PROGRESS;
    }
  }

  /** The C path's scales C_k / C_0 ({@link #trainPath}), comma-separated. */
  static final String PATH_SCALES = "sodm.internal.linear.path.scales";

  /** The path's scales ({@link #PATH_SCALES}) into a run's configuration. */
  static void setScales(Configuration conf, double[] scales) {
    String[] s = new String[scales.length];
    for (int i = 0; i < s.length; i++) s[i] = Double.toString(scales[i]);
    conf.setStrings(PATH_SCALES, s);
  }

  /** A path task's scales ({@link #PATH_SCALES}). */
  static double[] scales(Configuration conf) {
    return java.util.Arrays.stream(conf.getTrimmedStrings(PATH_SCALES)).mapToDouble(Double::parseDouble).toArray();
  }

  /** One {@link BqoPath} per sub-problem ({@link #trainPath}). */
  public static class PathRanks extends SubproblemRanks {
    @Override
    ResidentLoop.Program program(Sub sub, int block, int blocks, TrainSpec spec, Configuration conf, byte[] rankState, byte[] globalState)
        throws IOException {
      int dim = conf.getInt(LinearKeys.DIM, 0);
      return new BqoPath(sub.x(), sub.y(), block, dim, sub.loss().svmPrimal(), scales(conf), spec.linear().inner(blocks), spec.linear().outer(),
          spec.seed(), rankState, globalState);
    }

    @Override
    int width() {
      return BqoPath.PROGRESS;
    }
  }

  /** Called on the driver for each sub-problem's iteration of a path as rank 0 reports it. */
  public interface PathProgress {
    void iteration(int subproblem, int stage, BqoState.Iteration it, long sinceNanos);
  }

  /**
   * sodm grid --kernel linear's warm-started C path: every (task, fold) sub-problem of the plan along C_0 * scales[0..] in one
   * resident run on {@code k} blocks that the tasks deal from the ingested data ({@link BqoPath}); per sub-problem, every stage's
   * result in stage order.
   */
  public static List<List<BqoPath.Solved>> trainPath(Configuration base, int k, Path workDir, int dim, double[] scales,
      PathProgress progress, Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    conf.setInt(LinearKeys.BLOCKS, k);
    conf.setBoolean(LinearKeys.CLASS_INDEX, true);
    setScales(conf, scales);
    org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
    int tasks = plan.count();
    long[] since = {System.nanoTime()};
    ResidentJob.Listener listener = (t, values) -> {
      for (int task = 0; task < tasks; task++) {
        double[] v = TaskPrograms.progressOf(values, task, BqoPath.PROGRESS);
        if (v != null) progress.iteration(task, (int) v[0], BqoRank.decode(java.util.Arrays.copyOfRange(v, 1, v.length)), since[0]);
      }
      since[0] = System.nanoTime();
    };
    java.util.List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
    ResidentJob.Result r = ResidentJob.run(conf, "bqo-path", PathRanks.class, blocks, DealtInputFormat.INPUT, workDir,
        dim + 1 + org.sodm.linear.BqoSums.SIZE, listener, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    List<List<BqoPath.Solved>> out = new ArrayList<>();
    for (byte[] state : TaskPrograms.programStates(global)) out.add(BqoPath.solvedOf(state));
    return out;
  }
}
