package org.sodm.jobs.train;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.BlockStats;
import org.sodm.avro.PbmBlockStats;
import org.sodm.avro.TrainRecord;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.OutputDir;
import org.sodm.jobs.support.SodmConf;
import org.sodm.solver.PbmStep;

/**
 * Exact mode, after the merge tree: the whole problem (the single-node optimum) from the last
 * level's solution. Directories under {@code OUTPUT/work} (each atomic, present = complete):
 *
 * <pre>
 * refine/           (default on; hinge types) the problem on the last level's support vectors, one reducer, warm (DC-SVM)
 * level-0/          (when it fits the cache) one more merge round into one block: done
 * pbm/init/         records with qg = Q gamma at the start
 * pbm/iter-NNNN/    data/ (alpha_t, qg_t, d_t, qd_t), stats/ (PbmBlockStats), changed/, curvature/, step.properties
 * </pre>
 *
 * Iteration t runs the direction job (apply step t-1, solve the blocks' subproblems) and, unless
 * alpha_t already meets the tolerance, the Qd job; the driver then takes the step from
 * slope = sum_blocks (qgDgamma + sepLinear) and curvature = sum_tasks dgamma'Qd + sum_blocks sepQuadratic.
 * {@code --resume} continues after the last complete iteration (the same parameters give the
 * same iterates, so a resumed run ends where an uninterrupted one does).
 */
final class ExactPhase {
  /** What exact mode produced: the records (apply beta * delta to alpha for the final model). */
  record Result(Path data, double beta, boolean pbm, double objective, double violation, int iterations, boolean converged,
      double seconds) {}

  private final Configuration conf;
  private final FileSystem fs;
  private final Path work;
  private final TrainConfig tc;
  private final Consumer<String> progress;

  ExactPhase(Configuration conf, FileSystem fs, Path work, TrainConfig tc, Consumer<String> progress) {
    this.conf = conf;
    this.fs = fs;
    this.work = work;
    this.tc = tc;
    this.progress = progress;
  }

  private void say(String phase, String what, double seconds) {
    progress.accept(String.format(Locale.ROOT, "%-12s %-70s %7.1f s", phase, what, seconds));
  }

  /**
   * @param last the last level's records
   * @param rows N
   * @param blocks the last level's block count (PBM's partition)
   * @param supportVectors support vectors of the last level
   */
  Result run(Path last, long rows, int blocks, long supportVectors) throws IOException {
    return run(last, rows, blocks, supportVectors, false);
  }

  /** As {@link #run(Path, long, int, long)}; {@code oneBlock} forces the one-block merge (small data). */
  Result run(Path last, long rows, int blocks, long supportVectors, boolean oneBlock) throws IOException {
    long t0 = System.nanoTime();
    boolean single = switch (tc.exactSingle) {
      case "always" -> true;
      case "never" -> false;
      default -> supportVectors * rows * 4 <= tc.solver.cacheBytes();
    };
    if (blocks <= 1 || oneBlock) single = true;
    if (single) {
      Path dir = new Path(work, "level-0");
      if (!fs.exists(dir)) {
        Configuration c = new Configuration(conf);
        c.setInt(SodmConf.FANOUT, Integer.MAX_VALUE); // every block to parent 0
        c.setInt(SodmConf.PARTITIONS, tc.partitions); // explicit, so the huge fanout is not raised to a power
        c.set(SodmConf.MERGE, "warm");
        try (OutputDir od = OutputDir.create(c, dir, false)) {
          SolveJob.run(c, last, false, 0, 1, new Path(od.temp(), "data"), new Path(od.temp(), "stats"));
          fs.delete(new Path(od.temp(), "_failures"), true);
          od.commit();
        }
      }
      BlockStats s = TrainIO.readStats(conf, new Path(dir, "stats")).get(0);
      double secs = (System.nanoTime() - t0) / 1e9;
      say("exact", String.format(Locale.ROOT, "one block (SV %d x N %d x 4 B %s cache): obj %.10g viol %.2e%s", supportVectors, rows,
          supportVectors * rows * 4 <= tc.solver.cacheBytes() ? "<=" : ">", s.getObjective(), s.getMaxViolation(), gap(s.getObjective())),
          secs);
      return new Result(new Path(dir, "data"), 0, false, s.getObjective(), s.getMaxViolation(), 0, s.getConverged(), secs);
    }

    // refine (DC-SVM): the problem on the last level's support vectors, one reducer
    Path vectors = last;
    boolean replace = false;
    if (tc.exactRefine) {
      if (tc.loss.sizeDependent()) {
        progress.accept("exact        refine skipped: ODM's terms m c_i depend on the problem size, so the SV problem is another problem");
      } else {
        Path dir = new Path(work, "refine");
        long t = System.nanoTime();
        if (!fs.exists(dir)) {
          Configuration c = new Configuration(conf);
          c.setInt(SodmConf.FANOUT, Integer.MAX_VALUE);
          c.setInt(SodmConf.PARTITIONS, tc.partitions);
          c.set(SodmConf.MERGE, "cascade");
          try (OutputDir od = OutputDir.create(c, dir, false)) {
            SolveJob.run(c, last, false, 0, 1, new Path(od.temp(), "data"), new Path(od.temp(), "stats"));
            fs.delete(new Path(od.temp(), "_failures"), true);
            od.commit();
          }
        }
        BlockStats s = TrainIO.readStats(conf, new Path(dir, "stats")).get(0);
        say("refine", String.format(Locale.ROOT, "%d support vectors re-solved: obj %.10g, SV %d", s.getSize(), s.getObjective(),
            s.getSupportVectors()), (System.nanoTime() - t) / 1e9);
        vectors = new Path(dir, "data");
        replace = true;
      }
    }

    Path pbm = new Path(work, "pbm");
    Path init = new Path(pbm, "init");
    if (!fs.exists(init)) {
      long t = System.nanoTime();
      try (OutputDir od = OutputDir.create(conf, init, false)) {
        PbmJobs.init(conf, last, vectors, replace, 1.0 / blocks, new Path(od.temp(), "data"));
        fs.delete(new Path(od.temp(), "_failures"), true);
        od.commit();
      }
      say("exact init", (replace ? "alpha of the refine solve" : "alpha / " + blocks + " (the tree's mean model)")
          + ", Q gamma from the broadcast support vectors", (System.nanoTime() - t) / 1e9);
    }

    // resume: the last complete iteration
    int t = 0;
    Path previous = new Path(init, "data");
    double beta = 0;
    if (fs.exists(pbm)) {
      for (FileStatus st : fs.listStatus(pbm)) {
        String n = st.getPath().getName();
        if (n.startsWith("iter-")) t = Math.max(t, Integer.parseInt(n.substring(5)) + 1);
      }
    }
    if (t > 0) {
      Path dir = iterDir(pbm, t - 1);
      Properties p = readStep(dir);
      progress.accept(String.format(Locale.ROOT, "exact        resuming after PBM iteration %d", t - 1));
      if (Boolean.parseBoolean(p.getProperty("final"))) {
        return new Result(new Path(dir, "data"), Double.parseDouble(p.getProperty("beta")), true,
            Double.parseDouble(p.getProperty("objective")), Double.parseDouble(p.getProperty("violation")), t,
            Boolean.parseBoolean(p.getProperty("converged")), (System.nanoTime() - t0) / 1e9);
      }
      previous = new Path(dir, "data");
      beta = Double.parseDouble(p.getProperty("beta"));
    }
    double innerEps = tc.exactTolerance;
    while (true) {
      long ti = System.nanoTime();
      Path dir = iterDir(pbm, t);
      Properties step = new Properties();
      double objective;
      double violation;
      boolean fin;
      boolean converged;
      double newBeta;
      String line;
      try (OutputDir od = OutputDir.create(conf, dir, false)) {
        Path side = od.temp();
        Path direction = new Path(side, "direction");
        PbmJobs.direction(conf, previous, beta, t, (int) rows, blocks, innerEps, direction, side);
        fs.delete(new Path(side, "_failures"), true);
        List<PbmBlockStats> stats = readPbmStats(new Path(side, "stats"));
        objective = 0;
        violation = 0;
        double slope = 0;
        double sepQuad = 0;
        long changed = 0;
        long steps = 0;
        double maxStep = Double.POSITIVE_INFINITY;
        for (PbmBlockStats s : stats) {
          maxStep = Math.min(maxStep, s.getMaxStep());
          objective += s.getObjective();
          violation = Math.max(violation, s.getViolation());
          slope += s.getQgDgamma() + s.getSepLinear();
          sepQuad += s.getSepQuadratic();
          changed += s.getChanged();
          steps += s.getSteps();
        }
        double relGap = Double.isNaN(tc.exactReference) ? Double.NaN
            : (objective - tc.exactReference) / Math.abs(tc.exactReference);
        converged = violation <= tc.exactTolerance || (tc.exactGap > 0 && relGap <= tc.exactGap);
        fin = converged || t >= tc.exactMaxIterations;
        double curvature = Double.NaN;
        newBeta = 0;
        if (fin) {
          fs.rename(direction, new Path(side, "data"));
        } else {
          PbmJobs.qd(conf, direction, side, new Path(side, "data"));
          fs.delete(new Path(side, "_failures"), true);
          fs.delete(direction, true);
          curvature = PbmJobs.curvature(conf, side) + sepQuad;
          newBeta = PbmStep.step(tc.exactLineSearch, slope, curvature, 0.01, maxStep);
          if (newBeta == 0) fin = true; // d is no descent direction (numerically optimal)
        }
        step.setProperty("iteration", Integer.toString(t));
        step.setProperty("objective", Double.toString(objective));
        step.setProperty("violation", Double.toString(violation));
        step.setProperty("slope", Double.toString(slope));
        step.setProperty("curvature", Double.toString(curvature));
        step.setProperty("beta", Double.toString(newBeta));
        step.setProperty("changed", Long.toString(changed));
        step.setProperty("final", Boolean.toString(fin));
        step.setProperty("converged", Boolean.toString(converged));
        try (OutputStream o = fs.create(new Path(side, "step.properties"), true)) {
          step.store(o, "PBM iteration " + t);
        }
        od.commit();
        line = String.format(Locale.ROOT, "iter %3d  obj %.10g%s  viol %.2e  changed %,d  steps %,d  beta %.4f", t, objective,
            Double.isNaN(relGap) ? "" : String.format(Locale.ROOT, "  rel.err %.2e", relGap), violation, changed, steps, newBeta);
      }
      say("exact pbm", line, (System.nanoTime() - ti) / 1e9);
      if (fin) {
        return new Result(new Path(dir, "data"), newBeta, true, objective, violation, t + 1, converged,
            (System.nanoTime() - t0) / 1e9);
      }
      previous = new Path(dir, "data");
      beta = newBeta;
      t++;
    }
  }

  private String gap(double objective) {
    if (Double.isNaN(tc.exactReference)) return "";
    return String.format(Locale.ROOT, "  rel.err %.2e", (objective - tc.exactReference) / Math.abs(tc.exactReference));
  }

  static Path iterDir(Path pbm, int t) {
    return new Path(pbm, String.format("iter-%04d", t));
  }

  private Properties readStep(Path dir) throws IOException {
    Properties p = new Properties();
    try (InputStream in = fs.open(new Path(dir, "step.properties"))) {
      p.load(in);
    }
    return p;
  }

  private List<PbmBlockStats> readPbmStats(Path dir) throws IOException {
    List<PbmBlockStats> out = new java.util.ArrayList<>();
    for (Path p : AvroFiles.dataFiles(conf, dir)) out.addAll(AvroFiles.readAll(conf, p, PbmBlockStats.class));
    out.sort((a, b) -> Integer.compare(a.getBlock(), b.getBlock()));
    return out;
  }

  /** The final alpha of a record of {@link Result#data()}: alpha + beta * delta. */
  static TrainRecord finalRecord(TrainRecord r, double beta, org.sodm.solver.Loss loss) {
    TrainRecord c = TrainRecord.newBuilder(r).build();
    PbmJobs.applyStep(c, beta, loss);
    return c;
  }
}
