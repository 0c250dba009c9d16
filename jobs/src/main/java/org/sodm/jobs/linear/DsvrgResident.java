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
import org.sodm.jobs.allreduce.FsCheckpoints;
import org.sodm.jobs.allreduce.ResidentJob;
import org.sodm.jobs.allreduce.ResidentMapper;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.linear.Dsvrg;
import org.sodm.linear.DsvrgRank;
import org.sodm.linear.OdmPrimal;

/**
 * DSVRG for linear ODM (seed 000 Algorithm 2) as one resident AllReduce job: every task computes
 * its block's part of the full gradient each epoch; rank 0 runs the serial round-robin inner
 * loop ({@link DsvrgRank}) and so also loads the other blocks' files once, at start (the inner
 * loop is serial: this is the data {@link DsvrgJob}'s single reducer streams each epoch).
 */
public final class DsvrgResident {
  private DsvrgResident() {}

  /** Called on the driver for each epoch as rank 0 reports it, with the time the previous report came. */
  public interface Progress {
    void epoch(Dsvrg.Epoch e, long sinceNanos);
  }

  /**
   * @param blockDir the block files, or null: one task deals the one block from the ingested data ({@link DealtInputFormat};
   *     {@link LinearKeys#INGEST_DIR} set)
   */
  public static DsvrgRank.State train(Configuration base, Path blockDir, Path workDir, int dim, Progress progress, Consumer<String> notes)
      throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    long[] since = {System.nanoTime()};
    int[] printed = {-1};
    ResidentJob.Listener listener = (t, v) -> {
      if (t > printed[0]) {
        progress.epoch(new Dsvrg.Epoch((int) v[0], v[1], v[2], v[3]), since[0]);
        printed[0] = t;
      }
      since[0] = System.nanoTime();
    };
    ResidentJob.Result r = blockDir != null ? ResidentJob.run(conf, "dsvrg", Task.class, blockDir, workDir, dim + 3, listener, notes)
        : dealtOne(conf, Task.class, workDir, dim, listener, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    return DsvrgRank.decodeState(global);
  }

  /** The resident run on one block that its task deals from the ingested data ({@link DealtInputFormat}). */
  private static ResidentJob.Result dealtOne(Configuration conf, Class<? extends Task> task, Path workDir, int dim,
      ResidentJob.Listener listener, Consumer<String> notes) throws IOException {
    conf.setInt(LinearKeys.BLOCKS, 1);
    return ResidentJob.run(conf, "dsvrg", task, List.of(0), DealtInputFormat.INPUT, workDir, dim + 3, listener, notes);
  }

  /** Called on the driver for each task's epoch as rank 0 reports it. */
  public interface TaskProgress {
    void epoch(int task, Dsvrg.Epoch e, long sinceNanos);
  }

  /** Progress values per task of a multi-task run ({@link DsvrgRank#progress}). */
  static final int PROGRESS = 4;

  /**
   * Every task of a multi-class problem in one resident run on the blocks of {@code blockDir} (null: one block, dealt by its
   * task), dealt with y = the row's class
   * index ({@link LinearKeys#CLASS_INDEX}): a {@link TaskPrograms} of one {@link DsvrgRank} per task over that task's rows of
   * each block, so each task's state is the one a run of that task alone ends with; in task order.
   */
  public static DsvrgRank.State[] trainTasks(Configuration base, Path blockDir, Path workDir, int dim, TaskProgress progress,
      Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    int tasks = org.sodm.jobs.phase.MulticlassKeys.plan(conf).count();
    long[] since = {System.nanoTime()};
    ResidentJob.Listener listener = (t, values) -> {
      for (int task = 0; task < tasks; task++) {
        double[] v = TaskPrograms.progressOf(values, task, PROGRESS);
        if (v != null) progress.epoch(task, new Dsvrg.Epoch((int) v[0], v[1], v[2], v[3]), since[0]);
      }
      since[0] = System.nanoTime();
    };
    ResidentJob.Result r = blockDir != null ? ResidentJob.run(conf, "dsvrg", TaskRanks.class, blockDir, workDir, dim + 3, listener, notes)
        : dealtOne(conf, TaskRanks.class, workDir, dim, listener, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    byte[][] states = TaskPrograms.programStates(global);
    DsvrgRank.State[] out = new DsvrgRank.State[states.length];
    for (int t = 0; t < out.length; t++) out[t] = DsvrgRank.decodeState(states[t]);
    return out;
  }

  /**
   * Sub-problem {@code u}'s rows of a block whose y is the class index (in id order): y = +-1, rows of other classes and of the
   * held-out fold (folds: each row's, or null) left out.
   */
  static DsvrgRank.Block taskBlock(DsvrgRank.Block b, int[] folds, org.sodm.model.Subproblems plan, int u) {
    int task = plan.task(u);
    int heldOut = plan.heldOutFold(u);
    List<org.sodm.data.SparseVector> x = new ArrayList<>();
    double[] y = new double[b.y().length];
    for (int i = 0; i < b.y().length; i++) {
      double yi = plan.y(task, (int) b.y()[i]);
      if (yi == 0 || (heldOut >= 0 && folds[i] == heldOut)) continue;
      y[x.size()] = yi;
      x.add(b.x()[i]);
    }
    return new DsvrgRank.Block(b.id(), x.toArray(new org.sodm.data.SparseVector[0]), java.util.Arrays.copyOf(y, x.size()));
  }

  /** A block's rows sorted by id (as {@link DsvrgJob} sorts them). */
  static DsvrgRank.Block block(int id, List<TrainRecord> records) {
    records.sort(Comparator.comparingLong(TrainRecord::getId));
    org.sodm.data.SparseVector[] x = new org.sodm.data.SparseVector[records.size()];
    double[] y = new double[records.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = Instances.features(records.get(i).getFeatures());
      y[i] = records.get(i).getY();
    }
    return new DsvrgRank.Block(id, x, y);
  }

  /** A resident DSVRG task. */
  public static class Task extends org.sodm.jobs.allreduce.RecordsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      DsvrgRank.Block own = ownBlock(blocks.get(rank));
      List<DsvrgRank.Block> all = rank == 0 ? everyBlock(context, own, rank, blocks, files) : null;
      return rank(conf, own, all, globalState);
    }

    /** This task's block (its records are released). */
    protected final DsvrgRank.Block ownBlock(int id) {
      List<TrainRecord> records = recordsById();
      DsvrgRank.Block own = block(id, records);
      records.clear();
      return own;
    }

    /** Rank 0: every block in block order (the inner loop is serial), this task's own from memory, the others read once. */
    protected static List<DsvrgRank.Block> everyBlock(Context context, DsvrgRank.Block own, int rank, List<Integer> blocks, List<Path> files)
        throws IOException {
      List<DsvrgRank.Block> all = new ArrayList<>();
      for (int k = 0; k < blocks.size(); k++) {
        all.add(k == rank ? own
            : block(blocks.get(k), new ArrayList<>(AvroFiles.readAll(context.getConfiguration(), files.get(k), TrainRecord.class))));
        context.progress();
      }
      return all;
    }

    protected static DsvrgRank rank(Configuration conf, DsvrgRank.Block own, List<DsvrgRank.Block> all, byte[] globalState)
        throws IOException {
      return rank(conf, TrainSpec.of(conf).loss(), own, all, globalState);
    }

    /** The rank of {@code loss} (a task's, with its class weights). */
    protected static DsvrgRank rank(Configuration conf, org.sodm.solver.Loss loss, DsvrgRank.Block own, List<DsvrgRank.Block> all,
        byte[] globalState) throws IOException {
      TrainSpec spec = TrainSpec.of(conf);
      return new DsvrgRank(loss.odmPrimal(), own, all, conf.getInt(LinearKeys.DIM, 0), spec.linear().step(), spec.linear().epochs(),
          spec.linear().eps(), spec.seed(), globalState);
    }
  }

  /** A resident task of a multi-task run: its block (and on rank 0 every block) once, one {@link DsvrgRank} per task. */
  public static class TaskRanks extends Task {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
      long seed = TrainSpec.of(conf).seed();
      List<TrainRecord> records = recordsById();
      long[] ownIds = records.stream().mapToLong(TrainRecord::getId).toArray();
      DsvrgRank.Block own = block(blocks.get(rank), records);
      records.clear();
      int[] ownFolds = LinearKeys.folds(conf, plan, seed, ownIds);
      List<DsvrgRank.Block> all = null;
      List<int[]> allFolds = null;
      if (rank == 0) { // every block in block order, each with its rows' folds
        all = new ArrayList<>();
        allFolds = new ArrayList<>();
        for (int k = 0; k < blocks.size(); k++) {
          if (k == rank) {
            all.add(own);
            allFolds.add(ownFolds);
            continue;
          }
          List<TrainRecord> r = new ArrayList<>(AvroFiles.readAll(conf, files.get(k), TrainRecord.class));
          r.sort(Comparator.comparingLong(TrainRecord::getId));
          allFolds.add(LinearKeys.folds(conf, plan, seed, r.stream().mapToLong(TrainRecord::getId).toArray()));
          all.add(block(blocks.get(k), r));
          context.progress();
        }
      }
      List<DsvrgRank.Block> every = all;
      List<int[]> everyFolds = allFolds;
      return new TaskPrograms(plan.count(), PROGRESS, (u, rs, gs) -> {
        List<DsvrgRank.Block> mine = null;
        if (every != null) {
          mine = new ArrayList<>();
          for (int k = 0; k < every.size(); k++) mine.add(taskBlock(every.get(k), everyFolds.get(k), plan, u));
        }
        return rank(conf, org.sodm.jobs.phase.MulticlassKeys.taskLoss(conf, TrainSpec.of(conf).loss(), plan.task(u)), taskBlock(own, ownFolds, plan, u),
            mine, gs);
      }, rankState, globalState, org.sodm.jobs.allreduce.ResidentMapper.programThreads(conf, own.y().length));
    }
  }
}
