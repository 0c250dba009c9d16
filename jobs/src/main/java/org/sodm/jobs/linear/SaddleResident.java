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

  public static SaddleRank.State train(Configuration base, Path blockDir, Path workDir, int maxDoubles, SaddleOptions options,
      Progress progress, Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    long[] since = {System.nanoTime()};
    int[] printed = {-1};
    ResidentJob.Result r = ResidentJob.run(conf, "saddle", Task.class, blockDir, workDir, maxDoubles, (t, v) -> {
      if (t > printed[0]) {
        progress.check(v, since[0]);
        printed[0] = t;
      }
      since[0] = System.nanoTime();
    }, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    return SaddleRank.decode(global, options);
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
