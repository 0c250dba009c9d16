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

  /** The AllReduce frames' size: the gradient and the Hessian's diagonal, 2 (d + 1) doubles. */
  private static int maxDoubles(int dim) {
    return 2 * (dim + 1);
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
      r = ResidentJob.run(conf, "tron", Task.class, blockDir, workDir, maxDoubles(dim), listener, notes);
    } else {
      conf.setInt(LinearKeys.BLOCKS, k);
      List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
      r = ResidentJob.run(conf, "tron", Task.class, blocks, DealtInputFormat.INPUT, workDir, maxDoubles(dim), listener, notes);
    }
    return TronRank.decodeState(finalState(conf, r));
  }

  /**
   * Every sub-problem of the plan (tasks, or (task, fold) pairs) in one resident run on {@code k} blocks that the tasks deal from
   * the ingested data: a {@link TaskPrograms} of one {@link TronRank} per sub-problem, each ending as a run of it alone; in
   * sub-problem order.
   */
  public static TronRank.State[] trainTasks(Configuration base, int k, Path workDir, int dim, Progress progress, Consumer<String> notes)
      throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    conf.setInt(LinearKeys.BLOCKS, k);
    conf.setBoolean(LinearKeys.CLASS_INDEX, true);
    int count = org.sodm.jobs.phase.MulticlassKeys.plan(conf).count();
    long[] since = {System.nanoTime()};
    ResidentJob.Listener listener = (t, values) -> {
      for (int u = 0; u < count; u++) {
        double[] v = TaskPrograms.progressOf(values, u, TronRank.PROGRESS);
        if (v != null) progress.trial(u, TronRank.decode(v), since[0]);
      }
      since[0] = System.nanoTime();
    };
    List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
    ResidentJob.Result r = ResidentJob.run(conf, "tron", TaskRanks.class, blocks, DealtInputFormat.INPUT, workDir, maxDoubles(dim),
        listener, notes);
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
   * resident run on {@code k} blocks that the tasks deal from the ingested data ({@link TronPath}); per sub-problem, every
   * stage's result in stage order.
   */
  public static List<List<BqoPath.Solved>> trainPath(Configuration base, int k, Path workDir, int dim, double[] scales,
      PathProgress progress, Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    conf.setInt(LinearKeys.BLOCKS, k);
    conf.setBoolean(LinearKeys.CLASS_INDEX, true);
    BqoResident.setScales(conf, scales);
    int count = org.sodm.jobs.phase.MulticlassKeys.plan(conf).count();
    ResidentJob.Listener listener = (t, values) -> {
      for (int u = 0; u < count; u++) {
        double[] v = TaskPrograms.progressOf(values, u, TronPath.PROGRESS);
        if (v != null) progress.trial(u, (int) v[0]);
      }
    };
    List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
    ResidentJob.Result r = ResidentJob.run(conf, "tron-path", PathRanks.class, blocks, DealtInputFormat.INPUT, workDir,
        maxDoubles(dim), listener, notes);
    List<List<BqoPath.Solved>> out = new java.util.ArrayList<>();
    for (byte[] state : TaskPrograms.programStates(finalState(conf, r))) out.add(BqoPath.solvedOf(state));
    return out;
  }

  /** One {@link TronPath} per sub-problem ({@link #trainPath}). */
  public static class PathRanks extends BqoResident.SubproblemRanks {
    @Override
    ResidentLoop.Program program(BqoResident.Sub sub, int block, int blocks, TrainSpec spec, Configuration conf, byte[] rankState,
        byte[] globalState) throws IOException {
      return new TronPath(sub.x(), sub.y(), conf.getInt(LinearKeys.DIM, 0), sub.loss().logisticPrimal(), BqoResident.scales(conf),
          spec.linear().eps(), spec.linear().maxIterations(), globalState);
    }

    @Override
    int width() {
      return TronPath.PROGRESS;
    }
  }

  private static byte[] finalState(Configuration conf, ResidentJob.Result r) throws IOException {
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    return global;
  }

  static TronRank rank(org.sodm.linear.Csr x, double[] y, org.sodm.solver.Loss loss, int dim, TrainSpec spec, int threads,
      byte[] globalState) throws IOException {
    return new TronRank(new LogisticBlock(x, y, loss.logisticPrimal(), threads), dim + 1, spec.linear().eps(), spec.linear().maxIterations(),
        globalState);
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
      return rank(rows.x(), rows.y(), spec.loss(), dim, spec, sumThreads(conf, blocks.size(), 1), globalState);
    }
  }

  /** One {@link TronRank} per sub-problem of the plan ({@link #trainTasks}). */
  public static class TaskRanks extends BqoResident.SubproblemRanks {
    @Override
    ResidentLoop.Program program(BqoResident.Sub sub, int block, int blocks, TrainSpec spec, Configuration conf, byte[] rankState,
        byte[] globalState) throws IOException {
      int programs = org.sodm.jobs.phase.MulticlassKeys.plan(conf).count();
      return rank(sub.x(), sub.y(), sub.loss(), conf.getInt(LinearKeys.DIM, 0), spec, sumThreads(conf, blocks, programs), globalState);
    }

    @Override
    int width() {
      return TronRank.PROGRESS;
    }
  }
}
