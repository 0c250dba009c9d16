package org.sodm.jobs.linear;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.allreduce.FsCheckpoints;
import org.sodm.jobs.allreduce.ResidentJob;
import org.sodm.jobs.allreduce.ResidentMapper;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.saddle.SaddleOptions;
import org.sodm.saddle.SaddleRank;

/**
 * Saddle-DSVC (seed 002, Algorithms 3 and 4) as one resident AllReduce job: every map task is a
 * client holding its block's points, its share of eta and xi and a copy of w ({@link SaddleRank});
 * the rounds of Algorithm 4 are AllReduce operations of a few scalars, one resident iteration is
 * one duality-gap check, and the final checkpoint's global state holds the kept run.
 */
public final class SaddleResident {
  private SaddleResident() {}

  /** Rank 0's values of a check: beta, iterations of the run, relative gap, lower and upper hull distance. */
  public interface Progress {
    void check(double[] values, long sinceNanos);
  }

  /**
   * @param blockDir the block files, or null: the {@link LinearKeys#BLOCKS} tasks deal their blocks from the ingested data
   *     ({@link DealtInputFormat}; {@link LinearKeys#INGEST_DIR} set)
   */
  public static SaddleRank.State train(Configuration base, Path blockDir, Path workDir, int maxDoubles, SaddleOptions options,
      Progress progress, Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    long[] since = {System.nanoTime()};
    int[] printed = {-1};
    ResidentJob.Listener listener = (t, v) -> {
      if (t > printed[0]) {
        progress.check(v, since[0]);
        printed[0] = t;
      }
      since[0] = System.nanoTime();
    };
    ResidentJob.Result r = blockDir != null ? ResidentJob.run(conf, "saddle", Task.class, blockDir, workDir, maxDoubles, listener, notes)
        : ResidentJob.run(conf, "saddle", Task.class, java.util.stream.IntStream.range(0, conf.getInt(LinearKeys.BLOCKS, 0)).boxed().toList(),
            DealtInputFormat.INPUT, workDir, maxDoubles, listener, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    return SaddleRank.decode(global, options);
  }

  /** Called on the driver for each check of sub-problem {@code task} as rank 0 reports it. */
  public interface TaskProgress {
    void check(int task, double[] values, long sinceNanos);
  }

  /** Progress values per sub-problem of a multi-task run ({@link SaddleRank#progress}). */
  static final int PROGRESS = 5;

  /**
   * Every sub-problem of a multi-class plan (tasks, or (task, fold) pairs) in one resident run on the blocks of {@code blockDir},
   * dealt with y = the row's class index ({@link LinearKeys#CLASS_INDEX}): a {@link org.sodm.allreduce.TaskPrograms} of one
   * {@link SaddleRank} per sub-problem over its rows of each block, so each state is the one a run of that sub-problem alone
   * ends with; in sub-problem order. {@code maxDoubles} bounds every sub-problem's messages.
   */
  public static SaddleRank.State[] trainTasks(Configuration base, Path blockDir, Path workDir, int maxDoubles, SaddleOptions options,
      TaskProgress progress, Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    int count = org.sodm.jobs.phase.MulticlassKeys.plan(conf).count();
    long[] since = {System.nanoTime()};
    ResidentJob.Result r = ResidentJob.run(conf, "saddle", TaskClients.class, blockDir, workDir, maxDoubles, (t, values) -> {
      for (int u = 0; u < count; u++) {
        double[] v = org.sodm.allreduce.TaskPrograms.progressOf(values, u, PROGRESS);
        if (v != null) progress.check(u, v, since[0]);
      }
      since[0] = System.nanoTime();
    }, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    byte[][] states = org.sodm.allreduce.TaskPrograms.programStates(global);
    SaddleRank.State[] out = new SaddleRank.State[states.length];
    for (int u = 0; u < out.length; u++) out[u] = SaddleRank.decode(states[u], options);
    return out;
  }

  /** A resident task of a multi-task run: its block's rows once, one {@link SaddleRank} client per sub-problem. */
  public static class TaskClients extends org.sodm.jobs.allreduce.RecordsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
      TrainSpec spec = TrainSpec.of(conf);
      List<TrainRecord> records = recordsById();
      long[] ids = new long[records.size()];
      SparseVector[] x = new SparseVector[records.size()];
      int[] cls = new int[records.size()];
      for (int i = 0; i < x.length; i++) {
        ids[i] = records.get(i).getId();
        x[i] = Instances.features(records.get(i).getFeatures());
        cls[i] = (int) records.get(i).getY();
      }
      records.clear();
      int[] folds = LinearKeys.folds(conf, plan, spec.seed(), ids);
      SaddleOptions options = SaddleTrainer.options(spec);
      return new org.sodm.allreduce.TaskPrograms(plan.count(), PROGRESS, (u, rs, gs) -> {
        int task = plan.task(u);
        int heldOut = plan.heldOutFold(u);
        List<SparseVector> tx = new ArrayList<>();
        double[] ty = new double[x.length];
        for (int i = 0; i < x.length; i++) {
          double yi = plan.y(task, cls[i]);
          if (yi == 0 || (heldOut >= 0 && folds[i] == heldOut)) continue;
          ty[tx.size()] = yi;
          tx.add(x[i]);
        }
        return new SaddleRank(tx.toArray(new SparseVector[0]), java.util.Arrays.copyOf(ty, tx.size()), options, rs, gs);
      }, rankState, globalState, org.sodm.jobs.allreduce.ResidentMapper.programThreads(conf, x.length));
    }
  }

  /** A resident Saddle-DSVC client. */
  public static class Task extends org.sodm.jobs.allreduce.RecordsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      List<TrainRecord> records = recordsById();
      SparseVector[] x = new SparseVector[records.size()];
      double[] y = new double[records.size()];
      for (int i = 0; i < x.length; i++) {
        x[i] = Instances.features(records.get(i).getFeatures());
        y[i] = records.get(i).getY();
      }
      records.clear();
      return new SaddleRank(x, y, SaddleTrainer.options(TrainSpec.of(context.getConfiguration())), rankState, globalState);
    }
  }
}
