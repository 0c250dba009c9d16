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

  private record Row(long id, double y, SparseVector x) {}

  /** A resident BQO task: its block's rows sorted by id (as {@link BqoJob} sorts them). */
  public static class Task extends ResidentMapper {
    private final List<Row> rows = new ArrayList<>();

    @Override
    protected void load(TrainRecord r) {
      rows.add(new Row(r.getId(), r.getY(), Instances.features(r.getFeatures())));
    }

    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      int dim = conf.getInt(LinearKeys.DIM, 0);
      rows.sort(Comparator.comparingLong(Row::id));
      SparseVector[] x = new SparseVector[rows.size()];
      double[] y = new double[rows.size()];
      for (int i = 0; i < x.length; i++) {
        Row row = rows.get(i);
        if (row.x().maxIndex() > dim) {
          throw new IOException("row " + row.id() + " has feature " + row.x().maxIndex() + " beyond the training dimension " + dim);
        }
        x[i] = row.x();
        y[i] = row.y();
      }
      rows.clear();
      TrainSpec spec = TrainSpec.of(conf);
      return new BqoRank(x, y, blocks.get(rank), dim, spec.loss().svmPrimal(), spec.linear().inner(blocks.size()), spec.linear().outer(),
          spec.seed(), rankState, globalState);
    }
  }
}
