package org.sodm.jobs.train;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
import org.sodm.jobs.support.AvroFiles;
import org.sodm.solver.PbmRank;
import org.sodm.solver.PbmSolver;

/**
 * Exact mode's PBM iterations as one resident AllReduce job ({@link ResidentJob}, the default
 * {@code --iteration-mode allreduce}): each task keeps one block of the start records (rows,
 * alpha, Q gamma) for the whole run and runs {@link PbmRank}; per iteration only the blocks'
 * scalars and the changed rows travel, instead of two MapReduce jobs per iteration. The driver
 * cuts the start records into block files, prints rank 0's iteration reports, and writes the
 * final records (alpha_t, Q gamma, the last direction) from the final checkpoint.
 */
final class PbmResident {
  static final String ROWS = "sodm.internal.pbm.resident.rows";

  private PbmResident() {}

  /** The final records and rank 0's final values. */
  record Outcome(Path data, double objective, double violation, int iterations, boolean converged, int ranks) {}

  /** Called for each iteration as rank 0 reports it: {objective, violation, beta, changed, slope, curvature}. */
  interface Progress {
    void iteration(int t, double[] values);
  }

  static PbmSolver.Options options(TrainSpec spec) {
    TrainSpec.Exact ex = spec.exact();
    return new PbmSolver.Options(ex.tolerance(), ex.maxIterations(), ex.tolerance(), ex.innerEpochs(), spec.solver().cacheBytes(),
        ex.lineSearch(), 0.01, ex.reference(), ex.gap());
  }

  /**
   * @param start the start records (alpha, qg, block) of {@code pbm/init}
   * @param dir the phase's (temporary) directory: blocks/, allreduce/ checkpoints, data/
   */
  static Outcome run(Configuration base, Path start, long rows, Path dir, Progress progress, Consumer<String> notes) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setLong(ROWS, rows);
    // the start records by block, each block by id (the order PbmRank sums in)
    Map<Integer, List<TrainRecord>> byBlock = new TreeMap<>();
    long doubles = 16;
    for (TrainRecord r : TrainIO.readRecords(conf, start)) {
      byBlock.computeIfAbsent(r.getBlock(), b -> new ArrayList<>()).add(r);
      doubles += 3 + 2L * r.getFeatures().getIndices().size();
    }
    Path blocks = new Path(dir, "blocks");
    for (Map.Entry<Integer, List<TrainRecord>> e : byBlock.entrySet()) {
      e.getValue().sort(Comparator.comparingLong(TrainRecord::getId));
      AvroFiles.write(conf, new Path(blocks, String.format("block-%05d.avro", e.getKey())), TrainRecord.getClassSchema(), e.getValue());
    }
    // the largest array: every row changed, gathered with its features
    int maxDoubles = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(doubles, 6L * byBlock.size() + 16));
    ResidentJob.Result r = ResidentJob.run(conf, "pbm", Task.class, blocks, dir, maxDoubles, progress::iteration, notes);
    double[] fin = PbmRank.decodeGlobalState(FsCheckpoints.read(conf, r.checkpoint(), "global.bin"));
    Path data = new Path(dir, "data");
    int rank = 0;
    for (Map.Entry<Integer, List<TrainRecord>> e : byBlock.entrySet()) {
      byte[] st = FsCheckpoints.read(conf, r.checkpoint(), FsCheckpoints.rankFile(rank));
      if (st == null) throw new IOException("the final checkpoint " + r.checkpoint() + " has no state of rank " + rank);
      double[][] s = PbmRank.decodeRankState(st);
      List<TrainRecord> recs = e.getValue();
      int vpi = s[0].length / recs.size();
      for (int i = 0; i < recs.size(); i++) {
        TrainRecord t = recs.get(i);
        t.setAlpha(slice(s[0], i, vpi));
        t.setQg(s[1][i]);
        t.setDelta(s[2] == null ? List.of() : slice(s[2], i, vpi));
        t.setQd(0.0);
      }
      AvroFiles.write(conf, new Path(data, String.format("part-r-%05d.avro", rank)), TrainRecord.getClassSchema(), recs);
      rank++;
    }
    blocks.getFileSystem(conf).delete(blocks, true);
    return new Outcome(data, fin[0], fin[1], (int) fin[2], fin[3] != 0, r.ranks());
  }

  private static List<Double> slice(double[] a, int i, int vpi) {
    List<Double> out = new ArrayList<>(vpi);
    for (int k = 0; k < vpi; k++) out.add(a[i * vpi + k]);
    return out;
  }

  /** A resident PBM task: its block's start records, by id. */
  public static class Task extends org.sodm.jobs.allreduce.RecordsMapper {
    @Override
    protected ResidentLoop.Program program(Context context, int rank, List<Integer> blocks, List<Path> files, byte[] rankState,
        byte[] globalState) throws IOException {
      Configuration conf = context.getConfiguration();
      TrainSpec spec = TrainSpec.of(conf);
      List<TrainRecord> records = recordsById();
      int n = records.size();
      SparseVector[] x = new SparseVector[n];
      double[] y = new double[n];
      long[] ids = new long[n];
      int vpi = spec.loss().dual(new double[] {1}, 1).variablesPerInstance();
      double[] alpha = new double[n * vpi];
      double[] qg = new double[n];
      for (int i = 0; i < n; i++) {
        TrainRecord t = records.get(i);
        x[i] = Instances.features(t.getFeatures());
        y[i] = t.getY();
        ids[i] = t.getId();
        for (int k = 0; k < vpi && k < t.getAlpha().size(); k++) alpha[i * vpi + k] = t.getAlpha().get(k);
        qg[i] = t.getQg();
      }
      records.clear();
      long rows = conf.getLong(ROWS, 0);
      if (rows <= 0 || rows > Integer.MAX_VALUE) throw new IOException("PBM resident task: bad row count " + rows);
      return new PbmRank(PbmJobs.problemKernel(conf), spec.loss(), x, y, ids, (int) rows, options(spec), alpha, qg, rankState);
    }
  }
}
