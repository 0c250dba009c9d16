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
import org.sodm.jobs.support.SodmConf;
import org.sodm.linear.BqoBlock;
import org.sodm.linear.BqoRank;
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
      r = ResidentJob.run(conf, "bqo", Task.class, blocks, job -> {
        job.setInputFormatClass(DealtInputFormat.class);
        org.apache.avro.mapreduce.AvroJob.setInputKeySchema(job, TrainRecord.getClassSchema());
      }, workDir, maxDoubles, listener, notes);
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
    SvmLoss loss = spec.loss().svmPrimal();
    int tasks = org.sodm.jobs.phase.MulticlassKeys.plan(conf).count(); // every sub-problem: a task, or a task without a fold
    long[] since = {System.nanoTime()};
    ResidentJob.Listener listener = (t, values) -> {
      for (int task = 0; task < tasks; task++) {
        double[] v = TaskPrograms.progressOf(values, task, PROGRESS);
        if (v != null) progress.iteration(task, BqoRank.decode(v), since[0]);
      }
      since[0] = System.nanoTime();
    };
    java.util.List<Integer> blocks = java.util.stream.IntStream.range(0, k).boxed().toList();
    ResidentJob.Result r = ResidentJob.run(conf, "bqo", TaskRanks.class, blocks, job -> {
      job.setInputFormatClass(DealtInputFormat.class);
      org.apache.avro.mapreduce.AvroJob.setInputKeySchema(job, TrainRecord.getClassSchema());
    }, workDir, dim + 1 + org.sodm.linear.BqoSums.SIZE, listener, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    byte[][] states = TaskPrograms.programStates(global);
    BqoState[] out = new BqoState[states.length];
    for (int t = 0; t < out.length; t++) {
      out[t] = BqoState.restore(loss, spec.linear().outer(), spec.linear().tau(), BqoRank.decodeState(states[t]));
    }
    return out;
  }

  private record Row(long id, double y, SparseVector x) {}

  /** A resident task keeping its block's rows (converted as they load). */
  abstract static class RowsMapper extends ResidentMapper {
    private final List<Row> rows = new ArrayList<>();

    @Override
    protected final void load(TrainRecord r) {
      rows.add(new Row(r.getId(), r.getY(), Instances.features(r.getFeatures())));
    }

    /** The block's rows by id (as {@link BqoJob} sorts them), checked against the training dimension; the caller's to keep. */
    protected final List<Row> rowsById(int dim) throws IOException {
      List<Row> out = new ArrayList<>(rows);
      rows.clear();
      out.sort(Comparator.comparingLong(Row::id));
      for (Row row : out) {
        if (row.x().maxIndex() > dim) {
          throw new IOException("row " + row.id() + " has feature " + row.x().maxIndex() + " beyond the training dimension " + dim);
        }
      }
      return out;
    }
  }

  /** A resident BQO task: its block's rows sorted by id. */
  public static class Task extends RowsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      int dim = conf.getInt(LinearKeys.DIM, 0);
      List<Row> rows = rowsById(dim);
      SparseVector[] x = new SparseVector[rows.size()];
      double[] y = new double[rows.size()];
      for (int i = 0; i < x.length; i++) {
        x[i] = rows.get(i).x();
        y[i] = rows.get(i).y();
      }
      TrainSpec spec = TrainSpec.of(conf);
      return new BqoRank(x, y, blocks.get(rank), dim, spec.loss().svmPrimal(), spec.linear().inner(blocks.size()), spec.linear().outer(),
          spec.seed(), rankState, globalState);
    }
  }

  /**
   * A resident task holding its block's rows once (y = class index) and one {@link BqoRank} per sub-problem of the plan: a
   * binary task (one-vs-rest: the class against the rest; one-vs-one: the pair's rows) or, with cross-validation or
   * --probability's internal folds, a task without one fold's rows. Each sub-problem's rows are a view of the block's one
   * {@link org.sodm.linear.Csr} ({@code subset}) in id order, so its arithmetic is that of a run of that sub-problem alone.
   */
  public static class TaskRanks extends RowsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      int dim = conf.getInt(LinearKeys.DIM, 0);
      List<Row> rows = rowsById(dim);
      org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
      TrainSpec spec = TrainSpec.of(conf);
      SvmLoss loss = spec.loss().svmPrimal();
      int block = blocks.get(rank);
      SparseVector[] all = new SparseVector[rows.size()];
      long[] ids = new long[rows.size()];
      for (int i = 0; i < all.length; i++) {
        all[i] = rows.get(i).x();
        ids[i] = rows.get(i).id();
      }
      int[] fold = LinearKeys.folds(conf, plan, spec.seed(), ids); // sodm cv: the fold file; --probability: a hash of the id
      org.sodm.linear.Csr csr = org.sodm.linear.Csr.of(all);
      return new TaskPrograms(plan.count(), PROGRESS, (u, rs, gs) -> {
        int task = plan.task(u);
        int heldOut = plan.heldOutFold(u);
        int[] pick = new int[rows.size()];
        double[] y = new double[rows.size()];
        int m = 0;
        for (int i = 0; i < pick.length; i++) {
          double yi = plan.y(task, (int) rows.get(i).y());
          if (yi == 0 || (heldOut >= 0 && fold[i] == heldOut)) continue;
          y[m] = yi;
          pick[m++] = i;
        }
        return new BqoRank(csr.subset(java.util.Arrays.copyOf(pick, m)), java.util.Arrays.copyOf(y, m), block, dim, loss,
            spec.linear().inner(blocks.size()), spec.linear().outer(), spec.seed(), rs, gs);
      }, rankState, globalState);
    }
  }
}
