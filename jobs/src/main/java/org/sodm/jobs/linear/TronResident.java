package org.sodm.jobs.linear;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.TaskPrograms;
import org.sodm.jobs.allreduce.FsCheckpoints;
import org.sodm.jobs.allreduce.ResidentJob;
import org.sodm.jobs.allreduce.ResidentMapper;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.linear.BqoPath;
import org.sodm.linear.LogisticBlock;
import org.sodm.linear.SoftmaxBlock;
import org.sodm.linear.Tron;
import org.sodm.linear.TronPath;
import org.sodm.linear.TronRank;

/**
 * Logistic regression by TRON as one resident AllReduce job ({@link ResidentJob}): each task holds a block's rows for the whole
 * run and runs {@link TronRank}, whose function values, gradients and Hessian-vector products are sums over the blocks; the
 * driver prints rank 0's trial steps as they come and reads the final w from the final checkpoint.
 */
public final class TronResident {
  private TronResident() {}

  /** Called on the driver for each trial step of sub-problem {@code u} (0 in a binary run) as rank 0 reports it. */
  public interface Progress {
    void trial(int u, Tron.Trial trial, long sinceNanos);
  }

  /**
   * The AllReduce frames' size: the gradient and the Hessian's diagonal, 2 (d + 1) doubles (multinomial: K times that); with
   * newGLMNET's dense form the gradient and the dense Hessian, n + n^2 for those n = (d + 1) (K (d + 1)) weights.
   */
  private static int maxDoubles(Configuration conf, int dim) {
    boolean softmax = TrainSpec.of(conf).multinomial();
    int size = (dim + 1) * (softmax ? org.sodm.jobs.phase.MulticlassKeys.plan(conf).classes() : 1);
    if (method(conf) == TronRank.Solver.GLMNET) return size + size * size;
    return 2 * size;
  }

  /** The method the driver chose ({@link LinearKeys#L1_METHOD}); TRON or (l1, not chosen: a path's stage) OWL-QN. */
  static TronRank.Solver method(Configuration conf) {
    String m = conf.get(LinearKeys.L1_METHOD);
    if (m != null) return TronRank.Solver.valueOf(m);
    return TrainSpec.of(conf).l1() ? TronRank.Solver.OWLQN : TronRank.Solver.TRON;
  }

  /**
   * The programs of a plan's run: one per sub-problem (task, or (task, fold)), or with --multiclass multinomial one per slot of
   * a task (the full problem and each fold held out), every class in one softmax model.
   */
  private static int programs(Configuration conf) {
    org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
    return TrainSpec.of(conf).multinomial() ? plan.slots() : plan.count();
  }

  /**
   * A binary problem on the blocks of {@code blockDir}, or (null) on {@code k} blocks that the tasks deal from the ingested data
   * ({@link DealtInputFormat}; {@link LinearKeys#INGEST_DIR} set).
   */
  public static TronRank.State train(Configuration base, Path blockDir, int k, Path workDir, int dim, Progress progress,
      Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    long[] since = {System.nanoTime()};
    int[] printed = {-1};
    ResidentJob.Listener listener = (t, values) -> {
      if (t > printed[0]) {
        progress.trial(0, TronRank.decode(values), since[0]);
        printed[0] = t;
      }
      since[0] = System.nanoTime();
    };
    ResidentJob.Result r;
    if (blockDir != null) {
      r = ResidentJob.run(conf, "tron", Task.class, blockDir, workDir, maxDoubles(conf, dim), listener, notes);
    } else {
      conf.setInt(LinearKeys.BLOCKS, k);
      List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
      r = ResidentJob.run(conf, "tron", Task.class, blocks, DealtInputFormat.INPUT, workDir, maxDoubles(conf, dim), listener, notes);
    }
    return TronRank.decodeState(finalState(conf, r));
  }

  /**
   * Every sub-problem of the plan (tasks, or (task, fold) pairs) in one resident run on {@code k} blocks that the tasks deal from
   * the ingested data: a {@link TaskPrograms} of one {@link TronRank} per sub-problem, each ending as a run of it alone; in
   * sub-problem order. With --multiclass multinomial one softmax {@link TronRank} per slot ({@link SoftmaxRanks}), in slot order.
   */
  public static TronRank.State[] trainTasks(Configuration base, int k, Path workDir, int dim, Progress progress, Consumer<String> notes)
      throws IOException {
    return trainTasks(base, null, k, workDir, dim, progress, notes);
  }

  /**
   * As above on the blocks of {@code blockDir} (the partition job's, rows with their class index: {@link
   * LinearTrainer#partitionByClass}), or (null) on {@code k} blocks the tasks deal from the ingested data.
   */
  public static TronRank.State[] trainTasks(Configuration base, Path blockDir, int k, Path workDir, int dim, Progress progress,
      Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    conf.setInt(LinearKeys.BLOCKS, k);
    conf.setBoolean(LinearKeys.CLASS_INDEX, true);
    int count = programs(conf);
    long[] since = {System.nanoTime()};
    ResidentJob.Listener listener = (t, values) -> {
      for (int u = 0; u < count; u++) {
        double[] v = TaskPrograms.progressOf(values, u, TronRank.PROGRESS);
        if (v != null) progress.trial(u, TronRank.decode(v), since[0]);
      }
      since[0] = System.nanoTime();
    };
    List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
    Class<? extends BqoResident.RowsMapper> mapper = TrainSpec.of(conf).multinomial() ? SoftmaxRanks.class : TaskRanks.class;
    ResidentJob.Result r = blockDir != null
        ? ResidentJob.run(conf, "tron", mapper, blockDir, workDir, maxDoubles(conf, dim), listener, notes)
        : ResidentJob.run(conf, "tron", mapper, blocks, DealtInputFormat.INPUT, workDir, maxDoubles(conf, dim), listener, notes);
    byte[][] states = TaskPrograms.programStates(finalState(conf, r));
    TronRank.State[] out = new TronRank.State[states.length];
    for (int u = 0; u < out.length; u++) out[u] = TronRank.decodeState(states[u]);
    return out;
  }

  /** Called on the driver for each trial step of a path as rank 0 reports it: the sub-problem and the stage. */
  public interface PathProgress {
    void trial(int u, int stage);
  }

  /**
   * sodm grid --kernel linear --loss logistic's warm-started C path: every sub-problem of the plan along C_0 * scales in one
   * resident run on {@code k} blocks that the tasks deal from the ingested data ({@link TronPath}); per sub-problem (multinomial:
   * per slot), every stage's result in stage order.
   */
  public static List<List<BqoPath.Solved>> trainPath(Configuration base, int k, Path workDir, int dim, double[] scales,
      PathProgress progress, Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    conf.setInt(LinearKeys.BLOCKS, k);
    conf.setBoolean(LinearKeys.CLASS_INDEX, true);
    BqoResident.setScales(conf, scales);
    int count = programs(conf);
    ResidentJob.Listener listener = (t, values) -> {
      for (int u = 0; u < count; u++) {
        double[] v = TaskPrograms.progressOf(values, u, TronPath.PROGRESS);
        if (v != null) progress.trial(u, (int) v[0]);
      }
    };
    List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
    Class<? extends BqoResident.RowsMapper> mapper = TrainSpec.of(conf).multinomial() ? SoftmaxRanks.class : PathRanks.class;
    ResidentJob.Result r = ResidentJob.run(conf, "tron-path", mapper, blocks, DealtInputFormat.INPUT, workDir, maxDoubles(conf, dim),
        listener, notes);
    List<List<BqoPath.Solved>> out = new java.util.ArrayList<>();
    for (byte[] state : TaskPrograms.programStates(finalState(conf, r))) out.add(BqoPath.solvedOf(state));
    return out;
  }

  /** One {@link TronPath} per sub-problem ({@link #trainPath}). */
  public static class PathRanks extends BqoResident.SubproblemRanks {
    @Override
    ResidentLoop.Program program(BqoResident.Sub sub, int block, int blocks, TrainSpec spec, Configuration conf, byte[] rankState,
        byte[] globalState) throws IOException {
      return gapStop(new TronPath(sub.x(), sub.y(), conf.getInt(LinearKeys.DIM, 0), sub.loss().primal(), BqoResident.scales(conf),
          spec.linear().eps(), spec.linear().maxIterations(), globalState, method(conf), penalty(spec)), spec);
    }

    @Override
    int width() {
      return TronPath.PROGRESS;
    }
  }

  /**
   * --multiclass multinomial: one program per slot of the plan (the full problem, and each cross-validation fold held out), each
   * a {@link TronRank} - along a grid's C path a {@link TronPath} - over a {@link SoftmaxBlock} of the block's rows of every
   * class, C_i = C times the weight of row i's class.
   */
  public static class SoftmaxRanks extends BqoResident.RowsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      int dim = conf.getInt(LinearKeys.DIM, 0);
      BqoResident.Block rows = rowsById(dim);
      org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
      TrainSpec spec = TrainSpec.of(conf);
      int[] fold = LinearKeys.folds(conf, plan, spec.seed(), rows.ids());
      int classes = plan.classes();
      double[] classC = org.sodm.jobs.phase.MulticlassKeys.classWeights(conf, classes);
      double c = spec.loss().logisticPrimal().cPos();
      for (int j = 0; j < classes; j++) classC[j] *= c;
      boolean bias = spec.loss().bias();
      boolean path = conf.get(BqoResident.PATH_SCALES) != null;
      int size = classes * (dim + 1);
      int n = rows.ids().length;
      int threads = sumThreads(conf, blocks.size(), plan.slots());
      return new TaskPrograms(plan.slots(), path ? TronPath.PROGRESS : TronRank.PROGRESS, (slot, rs, gs) -> {
        int heldOut = plan.heldOutFold(slot);
        int[] pick = new int[n];
        int[] y = new int[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
          if (heldOut >= 0 && fold[i] == heldOut) continue;
          y[m] = (int) rows.y()[i];
          pick[m++] = i;
        }
        org.sodm.linear.Csr x = rows.x().subset(java.util.Arrays.copyOf(pick, m));
        int[] ys = java.util.Arrays.copyOf(y, m);
        if (path) {
          return gapStop(new TronPath(scale -> new SoftmaxBlock(x, ys, times(classC, scale), dim, bias, threads), size,
              BqoResident.scales(conf), spec.linear().eps(), spec.linear().maxIterations(), gs, method(conf), penalty(spec)), spec);
        }
        return gapStop(new TronRank(new SoftmaxBlock(x, ys, classC, dim, bias, threads), size, spec.linear().eps(),
            spec.linear().maxIterations(), gs, null, method(conf), penalty(spec)), spec);
      }, rankState, globalState, ResidentMapper.programThreads(conf, n));
    }

    private static double[] times(double[] v, double a) {
      double[] out = new double[v.length];
      for (int j = 0; j < v.length; j++) out[j] = v[j] * a;
      return out;
    }
  }

  private static byte[] finalState(Configuration conf, ResidentJob.Result r) throws IOException {
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    return global;
  }

  static TronRank rank(org.sodm.linear.Csr x, double[] y, org.sodm.solver.Loss loss, int dim, TrainSpec spec, TronRank.Solver method,
      int threads, byte[] globalState) throws IOException {
    return gapStop(new TronRank(org.sodm.linear.MarginBlock.of(loss.primal(), x, y, threads), dim + 1, spec.linear().eps(),
        spec.linear().maxIterations(), globalState, null, method, penalty(spec)), spec);
  }

  /** {@code r} stopping by duality gap where --l1-gap asks for it (every rank and path of an L1 run is made through these two). */
  private static TronRank gapStop(TronRank r, TrainSpec spec) {
    return spec.l1Gap() > 0 ? r.stopByGap(spec.l1Gap()) : r;
  }

  private static TronPath gapStop(TronPath p, TrainSpec spec) {
    return spec.l1Gap() > 0 ? p.stopByGap(spec.l1Gap()) : p;
  }

  /** The L1 methods' regulariser ({@link TrainSpec#penalty}); L1 alone for TRON, which does not use it. */
  private static TronRank.Penalty penalty(TrainSpec spec) {
    return spec.l1() ? spec.penalty() : TronRank.Penalty.L1;
  }

  /**
   * The threads of one program's sums over its block's rows ({@link LogisticBlock}: the model does not depend on them): the
   * task's cores ({@link ResidentMapper#programThreads}) shared by the programs that run at once - in local mode by the tasks
   * of the job, which share the machine, and within a task by its sub-problems when one rank holds every row (they run at once).
   */
  static int sumThreads(Configuration conf, int blocks, int programs) {
    int t = ResidentMapper.programThreads(conf);
    if (org.sodm.jobs.support.Jobs.isLocal(conf)) t /= blocks;
    if (blocks == 1) t /= programs;
    return Math.max(1, t);
  }

  /** A resident TRON task of a binary run: its block's rows (y = +-1) sorted by id. */
  public static class Task extends BqoResident.RowsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      int dim = conf.getInt(LinearKeys.DIM, 0);
      TrainSpec spec = TrainSpec.of(conf);
      BqoResident.Block rows = rowsById(dim);
      return rank(rows.x(), rows.y(), spec.loss(), dim, spec, method(conf), sumThreads(conf, blocks.size(), 1), globalState);
    }
  }

  /** One {@link TronRank} per sub-problem of the plan ({@link #trainTasks}). */
  public static class TaskRanks extends BqoResident.SubproblemRanks {
    @Override
    ResidentLoop.Program program(BqoResident.Sub sub, int block, int blocks, TrainSpec spec, Configuration conf, byte[] rankState,
        byte[] globalState) throws IOException {
      int programs = org.sodm.jobs.phase.MulticlassKeys.plan(conf).count();
      return rank(sub.x(), sub.y(), sub.loss(), conf.getInt(LinearKeys.DIM, 0), spec, method(conf), sumThreads(conf, blocks, programs), globalState);
    }

    @Override
    int width() {
      return TronRank.PROGRESS;
    }
  }
}
