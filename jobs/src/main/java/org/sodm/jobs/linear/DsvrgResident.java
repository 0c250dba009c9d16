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
import org.sodm.jobs.allreduce.FsCheckpoints;
import org.sodm.jobs.allreduce.ResidentJob;
import org.sodm.jobs.allreduce.ResidentMapper;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
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

  public static DsvrgRank.State train(Configuration base, Path blockDir, Path workDir, int dim, Progress progress, Consumer<String> notes)
      throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.DIM, dim);
    long[] since = {System.nanoTime()};
    int[] printed = {-1};
    ResidentJob.Result r = ResidentJob.run(conf, "dsvrg", Task.class, blockDir, workDir, dim + 3, (t, v) -> {
      if (t > printed[0]) {
        progress.epoch(new Dsvrg.Epoch((int) v[0], v[1], v[2], v[3]), since[0]);
        printed[0] = t;
      }
      since[0] = System.nanoTime();
    }, notes);
    byte[] global = FsCheckpoints.read(conf, r.checkpoint(), "global.bin");
    if (global == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no global state");
    return DsvrgRank.decodeState(global);
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
      int dim = conf.getInt(LinearKeys.DIM, 0);
      List<TrainRecord> records = recordsById();
      DsvrgRank.Block own = block(blocks.get(rank), records);
      records.clear();
      List<DsvrgRank.Block> all = null;
      if (rank == 0) {
        all = new ArrayList<>();
        for (int k = 0; k < blocks.size(); k++) {
          all.add(k == rank ? own : block(blocks.get(k), new ArrayList<>(AvroFiles.readAll(conf, files.get(k), TrainRecord.class))));
          context.progress();
        }
      }
      TrainSpec spec = TrainSpec.of(conf);
      return new DsvrgRank(spec.loss().odmPrimal(), own, all, dim, spec.linear().step(), spec.linear().epochs(), spec.linear().eps(),
          spec.seed(), globalState);
    }
  }
}
