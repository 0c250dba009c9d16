package org.sodm.jobs.train;

import org.sodm.jobs.support.SodmException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.BlockStats;
import org.sodm.avro.PbmBlockStats;
import org.sodm.avro.TrainRecord;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.phase.PhaseRunner;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.solver.PbmStep;
import org.sodm.jobs.support.Jobs;

/**
 * Exact mode, after the merge tree: the whole problem (the single-node optimum) from the last
 * level's solution. Directories under {@code OUTPUT/work} (each atomic, present = complete):
 *
 * <pre>
 * refine/           (default on; hinge types) the problem on the last level's support vectors, one reducer, warm (DC-SVM)
 * level-0/          (when it fits the cache) one more merge round into one block: done
 * pbm/init/         records with qg = Q gamma at the start
 * pbm/iter-NNNN/    data/ (alpha_t, qg_t, d_t, qd_t), stats/ (PbmBlockStats), changed/, curvature/, step.properties
 * pbm/resident/     (--iteration-mode allreduce, the default) every iteration in one resident job: data/, step.properties
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
      double seconds, Path kmeans, int pbmBlocks) {
    Result(Path data, double beta, boolean pbm, double objective, double violation, int iterations, boolean converged, double seconds) {
      this(data, beta, pbm, objective, violation, iterations, converged, seconds, null, 0);
    }

    Result withPartition(Path kmeans, int pbmBlocks) {
      return new Result(data, beta, pbm, objective, violation, iterations, converged, seconds, kmeans, pbmBlocks);
    }
  }

  /**
   * PBM's block count: --exact-blocks, or auto: sodm.train.reducers when set, else the reduce
   * slots (local mode: the local reduce tasks; a cluster: its reduce capacity).
   */
  int exactBlocks() throws IOException {
    int b = spec.exactBlocks();
    if (b > 0) return b;
    int r = conf.getInt(org.sodm.jobs.support.SodmConf.TRAIN_REDUCERS, 0);
    if (r > 0) return r;
    if (Jobs.isLocal(conf)) {
      return Math.max(1, conf.getInt("mapreduce.local.reduce.tasks.maximum", 1));
    }
    try {
      int slots = new org.apache.hadoop.mapreduce.Cluster(conf).getClusterStatus().getReduceSlotCapacity();
      if (slots < 1) throw new IOException("the cluster reports " + slots + " reduce slots");
      return slots;
    } catch (IOException | InterruptedException | RuntimeException e) {
      throw new SodmException("--exact-blocks auto (" + Param.EXACT_BLOCKS.key() + "): cannot read the cluster's reduce capacity ("
          + e.getMessage() + "); give --exact-blocks B");
    }
  }

  private static final java.util.regex.Pattern PBM_ITERATION = java.util.regex.Pattern.compile("pbm(-init|-[0-9]+)?");

  private final Configuration conf;
  private final FileSystem fs;
  private final PhaseRunner runner;
  private final TrainSpec spec;

  /** "" for a binary problem; "-tN" for sub-problem N of a multi-class run solved in turn ({@link #runEach}). */
  private final String suffix;

  ExactPhase(Configuration conf, PhaseRunner runner, TrainSpec spec) {
    this(conf, runner, spec, "");
  }

  private ExactPhase(Configuration conf, PhaseRunner runner, TrainSpec spec, String suffix) {
    this.conf = conf;
    this.fs = runner.fs();
    this.runner = runner;
    this.spec = spec;
    this.suffix = suffix;
  }

  /** Whether {@code name} is one of exact mode's phases: refine, level-0, pbm-init, pbm-N. */
  static boolean isPhaseName(String name) {
    String base = name.replaceFirst("-t[0-9]+$", ""); // a multi-class sub-problem's exact phases end in -tN
    return base.equals("refine") || base.equals("level-0") || PBM_ITERATION.matcher(base).matches();
  }

  /**
   * Whether this run's final one warm block solves with LIBSVM's offset although the tree's blocks did not ({@link
   * TrainKeys#EXACT_OFFSET}: --offset auto with --exact on more rows than sodm.train.exact.below.rows); a binary problem or
   * every sub-problem in one job, not the sub-problems solved in turn ({@link #runEach}).
   */
  boolean offsetInOneBlock() {
    return suffix.isEmpty() && offsetInOneBlock(conf, spec);
  }

  /** {@link #offsetInOneBlock()} for the binary problem (or every sub-problem in one job) of {@code spec}. */
  static boolean offsetInOneBlock(Configuration conf, TrainSpec spec) {
    return conf.getBoolean(TrainKeys.EXACT_OFFSET, false) && !spec.offset();
  }

  /** A one-block solve of the last level's records (every block to parent 0) with the given merge mode. */
  private PhaseRunner.Phase oneBlock(String name, Path last, int lastBlocks, String merge, SummaryOf summary) {
    return oneBlock(name, last, lastBlocks, merge, false, summary);
  }

  /** {@link #oneBlock(String, Path, int, String, SummaryOf)}, with LIBSVM's offset when {@code offset}. */
  private PhaseRunner.Phase oneBlock(String name, Path last, int lastBlocks, String merge, boolean offset, SummaryOf summary) {
    return new PhaseRunner.Phase() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void write(Path temp) throws IOException {
        // every block to parent 0; the partitions explicit, so the huge fanout is not raised to a power
        TrainSpec one = spec.with(Param.PARTITIONS, Integer.toString(spec.tree().partitions()))
            .with(Param.FANOUT, Integer.toString(Integer.MAX_VALUE)).with(Param.MERGE, merge);
        if (offset) one = one.with(Param.OFFSET, "true");
        Configuration c = one.writeTo(new Configuration(conf));
        SolveJob.run(c, last, false, 0, 1, lastBlocks, new Path(temp, "data"), new Path(temp, "stats"));
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        return summary.of(TrainIO.readStats(conf, new Path(dir, "stats")).get(0));
      }
    };
  }

  /**
   * Whether exact mode solves the whole problem in one reducer rather than by PBM: {@code always}, {@code never}, or auto:
   * when the support vectors' kernel columns fit the cache (SV x N x 4 bytes), or when SV x N - the kernel evaluations of
   * the warm start's first gradient - is within {@code evaluations}. A warm one-block solve reaches the tolerance; PBM's
   * block-Jacobi steps reach the objective quickly but its largest violation can stay above 1e-3 for hundreds of
   * iterations (ijcnn1, C = 32, gamma = 2: 4e-2 after 200, objective within 6e-6), so PBM is for the data whose first
   * gradient is too much for one task.
   */
  static boolean single(String rule, long supportVectors, long rows, long cacheBytes, long evaluations) {
    return switch (rule) {
      case "always" -> true;
      case "never" -> false;
      default -> supportVectors * rows * 4 <= cacheBytes || (evaluations > 0 && supportVectors * rows <= evaluations);
    };
  }

  private interface SummaryOf {
    String of(BlockStats s);
  }

  /**
   * @param last the last level's records
   * @param rows N
   * @param blocks the last level's block count (PBM's partition)
   * @param supportVectors support vectors of the last level
   * @param oneBlock forces the one-block merge (small data)
   */
  Result run(Path last, long rows, int blocks, long supportVectors, boolean oneBlock) throws IOException {
    long t0 = System.nanoTime();
    TrainSpec.Exact ex = spec.exact();
    boolean fits = supportVectors * rows * 4 <= spec.solver().cacheBytes();
    boolean single = single(ex.single(), supportVectors, rows, spec.solver().cacheBytes(), spec.exactSingleEvaluations());
    // nu-SVC has no PBM (its dual is not a box): its exact mode is the one-block solve
    // and --offset keeps LIBSVM's equality constraint, which PBM's block steps do not
    if (blocks <= 1 || oneBlock || spec.loss() instanceof org.sodm.solver.Loss.Nu || spec.offset()) single = true;
    if (single) {
      long budget = spec.exactSingleEvaluations();
      String why = fits ? "x 4 B <= cache" : budget > 0 && supportVectors * rows <= budget
          ? String.format(Locale.ROOT, "= %.3g evaluations <= %.3g", (double) supportVectors * rows, (double) budget) : "x 4 B > cache";
      boolean offset = offsetInOneBlock();
      PhaseRunner.Done d = runner.run("exact" + suffix, oneBlock("level-0" + suffix, last, blocks, "warm", offset, s -> String.format(
          Locale.ROOT, "one block (SV %d x N %d %s%s): obj %.10g viol %.2e%s", supportVectors, rows, why, offset ? ", LIBSVM's offset"
              : "", s.getObjective(), s.getMaxViolation(), gap(s.getObjective()))));
      BlockStats s = TrainIO.readStats(conf, new Path(d.dir(), "stats")).get(0);
      return new Result(new Path(d.dir(), "data"), 0, false, s.getObjective(), s.getMaxViolation(), 0, s.getConverged(),
          (System.nanoTime() - t0) / 1e9);
    }

    // refine (DC-SVM): the problem on the last level's support vectors, one reducer
    Path vectors = last;
    boolean replace = false;
    if (ex.refine()) {
      if (spec.loss().sizeDependent()) {
        runner.note("exact        refine skipped: ODM's terms m c_i depend on the problem size, so the SV problem is another problem");
        runner.passed("refine" + suffix, "none");
      } else {
        PhaseRunner.Done d = runner.run("refine" + suffix, oneBlock("refine" + suffix, last, blocks, "cascade", s -> String.format(Locale.ROOT,
            "%d support vectors re-solved: obj %.10g, SV %d", s.getSize(), s.getObjective(), s.getSupportVectors())));
        vectors = new Path(d.dir(), "data");
        replace = true;
      }
    } else {
      runner.passed("refine" + suffix, "none");
    }

    Path vectorsIn = vectors;
    boolean fromRefine = replace;
    int pbmBlocks = exactBlocks(); // PBM's own partition (seed 004 section 4.3), independent of the tree's blocks
    // every PBM block is a resident map task holding its rows and a kernel cache, all of them at once
    BlockMemory.check(conf, (rows + pbmBlocks - 1) / pbmBlocks, pbmBlocks, conf.getFloat(TrainKeys.NONZEROS_PER_ROW, 0f),
        spec.solver().cacheBytes(), String.format(Locale.ROOT, "exact mode (PBM, %d blocks of %,d rows)", pbmBlocks, rows), false, true);
    Path[] kmeansDir = new Path[1];
    PhaseRunner.Done init = runner.run("exact init" + suffix, new PhaseRunner.Phase() {
      @Override
      public String name() {
        return "pbm-init" + suffix;
      }

      @Override
      public String dir() {
        return "pbm" + suffix + "/init";
      }

      @Override
      public void write(Path temp) throws IOException {
        Path km = new Path(temp, "kmeans");
        LevelKMeans.write(conf, km, LevelKMeans.fitExact(conf, last, pbmBlocks));
        Configuration c = new Configuration(conf);
        c.set(PbmJobs.KMEANS, km.toString());
        c.setInt(PbmJobs.KMEANS_CLUSTERS, pbmBlocks);
        PbmJobs.init(c, last, vectorsIn, fromRefine, 1.0 / blocks, new Path(temp, "data"));
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        return (fromRefine ? "alpha of the refine solve" : "alpha / " + blocks + " (the tree's mean model)")
            + ", Q gamma from the broadcast support vectors; " + pbmBlocks + " k-means blocks (--exact-blocks) fitted on "
            + TrainIO.readRecords(conf, new Path(dir, "kmeans")).size() + " sampled rows";
      }
    });

    Path previous = new Path(init.dir(), "data");
    Path km = new Path(init.dir(), "kmeans");
    if (spec.linear().iterationMode() == TrainSpec.IterationMode.ALLREDUCE) return resident(previous, rows, t0).withPartition(km, pbmBlocks);
    double beta = 0;
    for (int t = 0; ; t++) {
      PhaseRunner.Done d = runner.run("exact pbm" + suffix, iteration(t, previous, beta, rows, pbmBlocks));
      Properties p = readStep(d.dir());
      double newBeta = Double.parseDouble(p.getProperty("beta"));
      if (Boolean.parseBoolean(p.getProperty("final"))) {
        return new Result(new Path(d.dir(), "data"), newBeta, true, Double.parseDouble(p.getProperty("objective")),
            Double.parseDouble(p.getProperty("violation")), t + 1, Boolean.parseBoolean(p.getProperty("converged")),
            (System.nanoTime() - t0) / 1e9, km, pbmBlocks);
      }
      previous = new Path(d.dir(), "data");
      beta = newBeta;
    }
  }

  /** Rows (index 0) and support vectors (index 1) of each sub-problem (block / blocksPerSub) in a level's block stats. */
  static long[][] perSubproblem(List<BlockStats> stats, int subproblems, int blocksPerSub) {
    long[][] out = new long[subproblems][2];
    for (BlockStats s : stats) {
      int u = s.getBlock() / blocksPerSub;
      out[u][0] += s.getSize();
      out[u][1] += s.getSupportVectors();
    }
    return out;
  }

  /**
   * Whether every sub-problem of a multi-class run ends exact mode with one warm solve by the rule of {@link #single} (then
   * all of them are solved in one job, each sub-problem one block); else {@link #runEach}.
   */
  boolean everySingle(long[][] counts, int blocksPerSub) {
    if (blocksPerSub <= 1 || spec.offset() || spec.loss() instanceof org.sodm.solver.Loss.Nu) return true;
    for (long[] c : counts) {
      if (!single(spec.exact().single(), c[1], c[0], spec.solver().cacheBytes(), spec.exactSingleEvaluations())) return false;
    }
    return true;
  }

  /**
   * Exact mode of a multi-class run (or --probability's folds) where a sub-problem is beyond one warm solve (or
   * {@code --exact-single never}): every sub-problem's exact mode in turn as the binary problem it is (its phases end in
   * -tN: level-0-tN or refine-tN, pbm-init-tN, pbm-tN; each chooses one warm solve or PBM by the same rule), on its own rows
   * of the last level, which phase exact-split writes once; phase exact-join then puts each sub-problem's final alpha
   * together, block = the sub-problem (as the one-job path leaves them). The split reads the last level's records in the
   * driver, as PBM's resident start does for a binary problem.
   *
   * @param counts each sub-problem's rows and support vectors by the level's stats ({@link #perSubproblem}): the count of
   *     sub-problems (the split records each one's own rows and support vectors)
   */
  Result runEach(Path last, long[][] counts, int blocksPerSub) throws IOException {
    long t0 = System.nanoTime();
    int subs = counts.length;
    PhaseRunner.Done split = runner.run("exact split", new PhaseRunner.Phase() {
      @Override
      public String name() {
        return "exact-split";
      }

      @Override
      public void write(Path temp) throws IOException {
        java.util.Map<Integer, java.util.List<TrainRecord>> bySub = new java.util.TreeMap<>();
        for (TrainRecord r : TrainIO.readRecords(conf, last)) {
          int u = r.getBlock() / blocksPerSub;
          if (u < 0 || u >= subs) throw new IOException("a record of block " + r.getBlock() + " beyond the " + subs + " sub-problems");
          TrainRecord c = TrainRecord.newBuilder(r).setBlock(r.getBlock() % blocksPerSub).build();
          bySub.computeIfAbsent(u, k -> new java.util.ArrayList<>()).add(c);
        }
        Properties sizes = new Properties(); // each sub-problem's rows and support vectors (with --merge cascade the level's
        for (int u = 0; u < subs; u++) {     // stats count only the rows it solved; every row is here)
          java.util.List<TrainRecord> recs = bySub.getOrDefault(u, java.util.List.of());
          if (recs.isEmpty()) throw new IOException("sub-problem " + u + " has no rows in " + last);
          AvroFiles.write(conf, new Path(temp, "sub-" + u + "/part-00000.avro"), TrainRecord.getClassSchema(), recs);
          sizes.setProperty(u + ".rows", Integer.toString(recs.size()));
          sizes.setProperty(u + ".sv", Long.toString(recs.stream().filter(TrainIO::isSupportVector).count()));
        }
        try (OutputStream o = fs.create(new Path(temp, "sizes.properties"), false)) {
          sizes.store(o, "rows and support vectors per sub-problem");
        }
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        Properties p = readProperties(new Path(dir, "sizes.properties"));
        long rows = 0;
        for (int u = 0; u < subs; u++) rows += Long.parseLong(p.getProperty(u + ".rows"));
        return String.format(Locale.ROOT, "%,d rows of %d sub-problems, each solved exactly in turn", rows, subs);
      }
    });
    Properties sizes = readProperties(new Path(split.dir(), "sizes.properties"));
    Configuration binary = new Configuration(conf);
    binary.setInt(org.sodm.jobs.phase.MulticlassKeys.CLASSES + ".count", 0); // each sub-problem is a binary problem (y = +-1)
    binary.unset(org.sodm.jobs.phase.MulticlassKeys.CLASS_WEIGHTS); // each sub-problem's spec carries its task's weights
    org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf);
    Result[] each = new Result[subs];
    TrainSpec[] specs = new TrainSpec[subs];
    for (int u = 0; u < subs; u++) {
      specs[u] = plan == null ? spec : org.sodm.jobs.phase.MulticlassKeys.taskSpec(conf, spec, plan.task(u)); // --class-weights: its task's
      Configuration sub = specs[u] == spec ? binary : specs[u].writeTo(new Configuration(binary));
      each[u] = new ExactPhase(sub, runner, specs[u], "-t" + u).run(new Path(split.dir(), "sub-" + u),
          Long.parseLong(sizes.getProperty(u + ".rows")), blocksPerSub, Long.parseLong(sizes.getProperty(u + ".sv")), false);
    }
    PhaseRunner.Done join = runner.run("exact join", new PhaseRunner.Phase() {
      @Override
      public String name() {
        return "exact-join";
      }

      @Override
      public void write(Path temp) throws IOException {
        for (int u = 0; u < subs; u++) {
          java.util.List<TrainRecord> recs = new java.util.ArrayList<>();
          for (TrainRecord r : TrainIO.readRecords(conf, each[u].data())) {
            TrainRecord c = finalRecord(r, each[u].beta(), specs[u].loss());
            c.setBlock(u);
            recs.add(c);
          }
          AvroFiles.write(conf, new Path(temp, String.format("data/part-%05d.avro", u)), TrainRecord.getClassSchema(), recs);
        }
      }

      @Override
      public String summary(Path dir, boolean resumed) {
        return subs + " sub-problems' final alpha, one block each";
      }
    });
    double objective = 0;
    double violation = 0;
    int iterations = 0;
    boolean converged = true;
    boolean pbm = false;
    for (Result r : each) {
      objective += r.objective();
      violation = Math.max(violation, r.violation());
      iterations += r.iterations();
      converged &= r.converged();
      pbm |= r.pbm();
    }
    return new Result(new Path(join.dir(), "data"), 0, pbm, objective, violation, iterations, converged, (System.nanoTime() - t0) / 1e9);
  }

  /**
   * The PBM iterations as one resident AllReduce job (phase {@code pbm}, directory
   * {@code pbm/resident}; {@link PbmResident}): the same iterates as the job-per-iteration path.
   */
  private Result resident(Path start, long rows, long t0) throws IOException {
    String stop = runner.stopAfter();
    if (stop != null && stop.matches("pbm-[0-9]+(-t[0-9]+)?")) {
      throw new SodmException("--phase " + stop + " names an iteration of the job-per-iteration path; with --iteration-mode allreduce "
          + "(the default) PBM's iterations are one phase: --phase pbm (or use --iteration-mode jobs)");
    }
    PhaseRunner.Done d = runner.run("exact pbm" + suffix, new PhaseRunner.Phase() {
      @Override
      public String name() {
        return "pbm" + suffix;
      }

      @Override
      public String dir() {
        return "pbm" + suffix + "/resident";
      }

      @Override
      public void write(Path temp) throws IOException {
        PbmResident.Outcome o = PbmResident.run(conf, start, rows, temp, (t, v) -> runner.note(String.format(Locale.ROOT,
            "exact pbm    iter %3d  obj %.10g%s  viol %.2e  changed %,d  beta %.4f", t, v[0], gap(v[0]), v[1], (long) v[3], v[2])),
            runner::note);
        fs.delete(new Path(temp, "allreduce"), true);
        Properties step = new Properties();
        step.setProperty("objective", Double.toString(o.objective()));
        step.setProperty("violation", Double.toString(o.violation()));
        step.setProperty("iterations", Integer.toString(o.iterations()));
        step.setProperty("converged", Boolean.toString(o.converged()));
        step.setProperty("ranks", Integer.toString(o.ranks()));
        try (OutputStream out = fs.create(new Path(temp, "step.properties"), true)) {
          step.store(out, "PBM on the AllReduce runtime");
        }
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        Properties p = readStep(dir);
        return String.format(Locale.ROOT, "%s iterations in one resident job of %s tasks: obj %.10g%s viol %.2e%s",
            p.getProperty("iterations"), p.getProperty("ranks"), Double.parseDouble(p.getProperty("objective")),
            gap(Double.parseDouble(p.getProperty("objective"))), Double.parseDouble(p.getProperty("violation")),
            Boolean.parseBoolean(p.getProperty("converged")) ? "" : "  (not converged)");
      }
    });
    Properties p = readStep(d.dir());
    return new Result(new Path(d.dir(), "data"), 0, true, Double.parseDouble(p.getProperty("objective")),
        Double.parseDouble(p.getProperty("violation")), Integer.parseInt(p.getProperty("iterations")),
        Boolean.parseBoolean(p.getProperty("converged")), (System.nanoTime() - t0) / 1e9);
  }

  /**
   * PBM iteration t as a phase ({@code pbm-t}, directory {@code pbm/iter-tttt}): the direction
   * job from alpha_{t-1} + beta d_{t-1}, then (unless it is the last) the Qd job and the step;
   * {@code step.properties} records the objective, violation, step and whether it was the last.
   */
  private PhaseRunner.Phase iteration(int t, Path previous, double beta, long rows, int blocks) {
    TrainSpec.Exact ex = spec.exact();
    return new PhaseRunner.Phase() {
      @Override
      public String name() {
        return "pbm-" + t + suffix;
      }

      @Override
      public String dir() {
        return String.format("pbm%s/iter-%04d", suffix, t);
      }

      @Override
      public void write(Path side) throws IOException {
        Path direction = new Path(side, "direction");
        PbmJobs.direction(conf, previous, beta, t, (int) rows, blocks, ex.tolerance(), direction, side);
        fs.delete(new Path(side, "_failures"), true);
        List<PbmBlockStats> stats = readPbmStats(new Path(side, "stats"));
        double objective = 0;
        double violation = 0;
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
        double relGap = relativeError(objective);
        boolean converged = violation <= ex.tolerance() || (ex.gap() > 0 && relGap <= ex.gap());
        boolean fin = converged || t >= ex.maxIterations();
        double curvature = Double.NaN;
        double newBeta = 0;
        if (fin) {
          fs.rename(direction, new Path(side, "data"));
        } else {
          PbmJobs.qd(conf, direction, side, new Path(side, "data"));
          fs.delete(new Path(side, "_failures"), true);
          fs.delete(direction, true);
          curvature = PbmJobs.curvature(conf, side) + sepQuad;
          newBeta = PbmStep.step(ex.lineSearch(), slope, curvature, 0.01, maxStep);
          if (newBeta == 0) fin = true; // d is no descent direction (numerically optimal)
        }
        Properties step = new Properties();
        step.setProperty("iteration", Integer.toString(t));
        step.setProperty("objective", Double.toString(objective));
        step.setProperty("violation", Double.toString(violation));
        step.setProperty("slope", Double.toString(slope));
        step.setProperty("curvature", Double.toString(curvature));
        step.setProperty("beta", Double.toString(newBeta));
        step.setProperty("changed", Long.toString(changed));
        step.setProperty("steps", Long.toString(steps));
        step.setProperty("final", Boolean.toString(fin));
        step.setProperty("converged", Boolean.toString(converged));
        try (OutputStream o = fs.create(new Path(side, "step.properties"), true)) {
          step.store(o, "PBM iteration " + t);
        }
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        Properties p = readStep(dir);
        double objective = Double.parseDouble(p.getProperty("objective"));
        double relGap = relativeError(objective);
        return String.format(Locale.ROOT, "iter %3d  obj %.10g%s  viol %.2e  changed %,d  steps %,d  beta %.4f", t, objective,
            Double.isNaN(relGap) ? "" : String.format(Locale.ROOT, "  rel.err %.2e", relGap),
            Double.parseDouble(p.getProperty("violation")), Long.parseLong(p.getProperty("changed")),
            Long.parseLong(p.getProperty("steps", "0")), Double.parseDouble(p.getProperty("beta")));
      }
    };
  }

  private double relativeError(double objective) {
    double ref = spec.exact().reference();
    return Double.isNaN(ref) ? Double.NaN : (objective - ref) / Math.abs(ref);
  }

  private String gap(double objective) {
    double e = relativeError(objective);
    return Double.isNaN(e) ? "" : String.format(Locale.ROOT, "  rel.err %.2e", e);
  }

  private Properties readStep(Path dir) throws IOException {
    return readProperties(new Path(dir, "step.properties"));
  }

  private Properties readProperties(Path file) throws IOException {
    Properties p = new Properties();
    try (InputStream in = fs.open(file)) {
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
