package org.sodm.jobs.train;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.BlockStats;
import org.sodm.avro.LevelStats;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.phase.PhaseRunner;
import org.sodm.jobs.phase.TrainContext;
import org.sodm.jobs.phase.TrainOutput;
import org.sodm.jobs.phase.Trainer;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelExpansion;
import org.sodm.model.KernelModel;
import org.sodm.model.Routing;
import org.sodm.solver.Loss;

/**
 * SODM's merge tree (seed 000 Algorithm 1) and, with exact mode, PBM (seed 004) or one last
 * block: phases {@code landmarks} (stratified / kmeans), {@code level-L} ... {@code level-1}
 * (or {@code level-0} for one block), then exact mode's {@code refine}, {@code level-0},
 * {@code pbm-init}, {@code pbm-N} ({@link ExactPhase}). The model averages the last level's
 * blocks, or is exact mode's one expansion.
 */
public final class KernelTreeTrainer implements Trainer {

  @Override
  public List<PhaseRunner.Planned> phases(TrainSpec spec) {
    List<PhaseRunner.Planned> out = new ArrayList<>();
    List<Integer> blocks = spec.tree().levelBlocks();
    out.add(PhaseRunner.Planned.of("landmarks", spec.tree().partitioner() != TrainSpec.Partitioner.RANDOM && blocks.get(0) > 1));
    int top = spec.tree().plannedTop();
    for (int l = top; l > top - blocks.size(); l--) out.add(PhaseRunner.Planned.of("level-" + l, true));
    return out;
  }

  @Override
  public boolean conditional(String name) {
    return ExactPhase.isPhaseName(name);
  }

  @Override
  public Trained train(TrainContext ctx) throws IOException {
    PhaseRunner runner = ctx.runner();
    TrainSpec spec = ctx.spec();
    Configuration conf = ctx.conf();
    IngestJob.Result data = ctx.data();
    KernelSpec kernel = spec.resolvedKernel();
    conf.set(TrainKeys.INGEST_DIR, data.dir().toString());
    List<Integer> levelBlocks = spec.tree().levelBlocks(data.stats().getRows());
    conf.setInt(TrainKeys.BLOCKS, levelBlocks.get(0));

    // landmarks / k-means centres
    boolean kmeans = spec.tree().partitioner() == TrainSpec.Partitioner.KMEANS;
    if (spec.tree().partitioner() != TrainSpec.Partitioner.RANDOM && levelBlocks.get(0) > 1) {
      PhaseRunner.Done d = runner.run(kmeans ? "kmeans" : "landmarks", new PhaseRunner.Phase() {
        @Override
        public String name() {
          return "landmarks";
        }

        @Override
        public void write(Path temp) throws IOException {
          String mode = kmeans ? "kmeans" : "stratified";
          if (!LandmarkJob.fromSample(conf, data.dir(), new Path(temp, "data"), mode)) {
            LandmarkJob.run(conf, new Path(data.dir(), IngestJob.DATA), new Path(temp, "data"), mode);
          }
        }

        @Override
        public String summary(Path dir, boolean resumed) throws IOException {
          int count = TrainIO.readRecords(conf, new Path(dir, "data")).size();
          return kmeans ? String.format(Locale.ROOT, "%d clusters fitted on a sample of %d", levelBlocks.get(0), count)
              : String.format(Locale.ROOT, "%d landmarks (strata), kernel %s", count, kernel);
        }
      });
      conf.set(TrainKeys.LANDMARKS_DIR, new Path(d.dir(), "data").toString());
    } else {
      runner.passed("landmarks", "none");
    }

    // levels
    int top = spec.tree().plannedTop(); // levels keep their planned numbers when --max-block-rows stops the tree early
    List<LevelStats> levels = new ArrayList<>();
    Path previous = new Path(data.dir(), IngestJob.DATA);
    Path last = null;
    List<String> planned = phases(spec).stream().map(PhaseRunner.Planned::name).filter(n -> n.startsWith("level-")).toList();
    for (int i = 0; i < levelBlocks.size(); i++) {
      int level = top - i;
      int blocks = levelBlocks.get(i);
      boolean bottom = i == 0;
      Path input = previous;
      LevelStats[] ls = new LevelStats[1];
      PhaseRunner.Done d = runner.run("level " + level, new PhaseRunner.Phase() {
        private long started = System.nanoTime();

        @Override
        public String name() {
          return "level-" + level;
        }

        @Override
        public void write(Path temp) throws IOException {
          started = System.nanoTime();
          SolveJob.run(conf, input, bottom, level, blocks, new Path(temp, "data"), new Path(temp, "stats"));
        }

        @Override
        public String summary(Path dir, boolean resumed) throws IOException {
          double wall = (System.nanoTime() - started) / 1e9;
          List<BlockStats> stats = TrainIO.readStats(conf, new Path(dir, "stats"));
          long tv = System.nanoTime();
          Double acc = ctx.validation() == null ? null : ctx.validationAccuracy(buildModel(ctx, new Path(dir, "data"), List.of(), null));
          double validationSeconds = (System.nanoTime() - tv) / 1e9;
          ls[0] = levelStats(level, stats, wall, acc);
          return String.format(Locale.ROOT, "%4d blocks  obj %12.6g  viol %.2e  SV %,7d  mem %4d MB%s", ls[0].getBlocks(),
              ls[0].getObjective(), ls[0].getMaxViolation(), ls[0].getSupportVectors(),
              (ls[0].getMaxBlockMemoryBytes() + (1 << 19)) >> 20, acc == null ? ""
                  : String.format(Locale.ROOT, "  acc %.2f%% (scored in %.1f s)", 100 * acc, validationSeconds));
        }
      });
      levels.add(ls[0]);
      previous = new Path(d.dir(), "data");
      last = previous;
      if (i > 0 && spec.tree().earlyStop() && ls[0].getMaxInitialViolation() <= spec.solver().eps() && i + 1 < levelBlocks.size()) {
        runner.note(String.format(Locale.ROOT, "early stop: every block of level %d was converged at its warm start", level));
        break;
      }
    }
    if (levelBlocks.size() < spec.tree().levelBlocks().size()) {
      runner.note(String.format(Locale.ROOT, "stop: merging %d blocks further would exceed --max-block-rows %d",
          levelBlocks.get(levelBlocks.size() - 1), spec.tree().maxBlockRows()));
    }
    for (String name : planned.subList(levels.size(), planned.size())) runner.passed(name, "none");

    // exact mode (issue 8): the whole problem from the last level's solution
    UnaryOperator<TrainRecord> transform = null;
    int merges = levels.size() - 1;
    ExactPhase.Result exactResult = null;
    boolean bySize = spec.exact().bySize(data.stats().getRows(), levels.get(levels.size() - 1).getBlocks());
    if (spec.exact().on() || bySize) {
      LevelStats top1 = levels.get(levels.size() - 1);
      ExactPhase.Result ex = new ExactPhase(conf, runner, spec).run(last, data.stats().getRows(), top1.getBlocks(),
          top1.getSupportVectors(), bySize);
      last = ex.data();
      exactResult = ex;
      double beta = ex.beta();
      transform = r -> {
        TrainRecord c = ExactPhase.finalRecord(r, beta, spec.loss());
        c.setBlock(0);
        return c;
      };
      KernelModel exModel = buildModel(ctx, last, List.of(), transform);
      Double acc = ctx.validationAccuracy(exModel);
      levels.add(new LevelStats(0, 1, ex.objective(), ex.violation(), Double.NaN, exModel.supportVectors(), 0L, ex.seconds(), 0L,
          acc));
      runner.say("exact", String.format(Locale.ROOT, "%s%s obj %.10g viol %.2e%s%s",
          bySize ? String.format(Locale.ROOT, "(n <= %d rows) ", spec.exact().belowRows()) : "",
          ex.pbm() ? ex.iterations() + " PBM iterations," : "one block,",
          ex.objective(), ex.violation(), ex.converged() ? "" : " (not converged)",
          acc == null ? "" : String.format(Locale.ROOT, "  acc %.2f%%", 100 * acc)), ex.seconds());
    }

    KernelModel model = buildModel(ctx, last, levels, transform);
    if (kmeans && levelBlocks.get(0) > 1) {
      model = model.withRouting(routing(ctx, model, kernel, levelBlocks.get(0), merges, exactResult));
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("levels", TrainOutput.levels(levels));
    report.put("blocks", model.blockCount());
    report.put("supportVectors", model.supportVectors());
    return new Trained(model, levels, report);
  }

  /** {@code transform} (or null) maps each record before it goes into the model (exact mode: final alpha, block 0). */
  private static KernelModel buildModel(TrainContext ctx, Path levelData, List<LevelStats> levels, UnaryOperator<TrainRecord> transform)
      throws IOException {
    ModelBuilder b = new ModelBuilder();
    AvroFiles.forEach(ctx.conf(), levelData, TrainRecord.class, r -> b.add(transform == null ? r : transform.apply(r)));
    IngestJob.Result data = ctx.data();
    Map<Integer, Double> biases = null;
    if (ctx.spec().loss() instanceof Loss.Nu) {
      // nu-SVC blocks keep their offset -rho / r in their stats, beside the level's data
      biases = new HashMap<>();
      for (BlockStats s : TrainIO.readStats(ctx.conf(), new Path(levelData.getParent(), "stats"))) {
        biases.put(transform == null ? s.getBlock() : 0, s.getBias());
      }
    }
    return b.build(ctx.spec().resolvedKernel(), ctx.spec().loss(), data.labelMap(), data.scaler(), ctx.provenance(levels), biases);
  }

  /**
   * nu-SVC in the merge tree: the default nu (2 alpha min(n1, n2) / n, alpha = 0.85, seed 002) resolved from the training data's
   * class sizes, and nu checked against them, before any job.
   */
  public static TrainSpec resolveNu(TrainSpec spec, IngestJob.Result data) {
    if (!(spec.loss() instanceof Loss.Nu nu) || spec.linearSolver() != null) return spec;
    long n1 = 0;
    long n2 = 0;
    for (org.sodm.avro.LabelCount c : data.stats().getLabels()) {
      if (c.getLabel().equals(data.labelMap().positive())) n1 += c.getCount();
      else if (c.getLabel().equals(data.labelMap().negative())) n2 += c.getCount();
    }
    double v = nu.resolve(n1, n2);
    double max = 2.0 * Math.min(n1, n2) / (n1 + n2);
    if (v > max) {
      throw TrainSpec.bad(Param.NU, "nu = " + v + " is infeasible for the class sizes: nu-SVC needs nu <= 2 min(n1, n2) / n = " + max
          + " (n1 = " + n1 + " rows labelled +1, n2 = " + n2 + " labelled -1)");
    }
    return nu.isDefault() ? spec.with(Param.NU, Double.toString(v)) : spec;
  }

  /**
   * Local prediction routing (kmeans partitioner): the k-means sample and memberships of
   * work/landmarks; cluster c was bottom block c and, after {@code merges} rounds, is in final
   * block c / p^merges. Exact mode with PBM adds, per final block r, the correction (1 - beta) d_r
   * of the last iteration (local model alpha_t + d_{S_r}); in exact mode with one block every
   * cluster routes to the one global block.
   */
  private static Routing routing(TrainContext ctx, KernelModel model, KernelSpec kernel, int clusters, int merges,
      ExactPhase.Result ex) throws IOException {
    Configuration conf = ctx.conf();
    List<TrainRecord> sample = TrainIO.readRecords(conf, new Path(new Path(ctx.runner().work(), "landmarks"), "data"));
    SparseVector[] pts = new SparseVector[sample.size()];
    int[] mem = new int[pts.length];
    for (int i = 0; i < pts.length; i++) {
      pts[i] = Instances.features(sample.get(i).getFeatures());
      mem[i] = sample.get(i).getBlock();
    }
    int k = Math.min(clusters, pts.length);
    org.sodm.partition.KernelKMeans km = org.sodm.partition.KernelKMeans.fromState(pts, mem, k, kernel.create(), null);
    int[] finalId = new int[k];
    for (int c = 0; c < k; c++) {
      int b = c;
      for (int m = 0; m < merges; m++) b /= ctx.spec().tree().fanout();
      finalId[c] = b;
    }
    int[] cb = new int[k];
    if (ex == null || !ex.pbm()) {
      Map<Integer, Integer> index = new HashMap<>();
      for (int b = 0; b < model.blockCount(); b++) index.put(model.blockId(b), b);
      for (int c = 0; c < k; c++) cb[c] = ex != null ? 0 : index.getOrDefault(finalId[c], 0);
      return new Routing(km, cb, null, null);
    }
    Map<Integer, List<SparseVector>> vec = new TreeMap<>();
    Map<Integer, List<Double>> coef = new TreeMap<>();
    for (int c = 0; c < k; c++) {
      vec.computeIfAbsent(finalId[c], x -> new ArrayList<>());
      coef.computeIfAbsent(finalId[c], x -> new ArrayList<>());
    }
    for (TrainRecord r : TrainIO.readRecords(conf, ex.data())) {
      double dg = PbmJobs.gamma(r.getDelta());
      vec.computeIfAbsent(r.getBlock(), x -> new ArrayList<>());
      coef.computeIfAbsent(r.getBlock(), x -> new ArrayList<>());
      if (dg == 0) continue;
      vec.get(r.getBlock()).add(Instances.features(r.getFeatures()));
      coef.get(r.getBlock()).add(r.getY() * (1 - ex.beta()) * dg);
    }
    org.sodm.kernel.Kernel base = kernel.create();
    KernelExpansion[] local = new KernelExpansion[vec.size()];
    int[] ids = new int[vec.size()];
    Map<Integer, Integer> index = new HashMap<>();
    int b = 0;
    for (Map.Entry<Integer, List<SparseVector>> e : vec.entrySet()) {
      double[] c = coef.get(e.getKey()).stream().mapToDouble(Double::doubleValue).toArray();
      double bias = 0;
      if (ctx.spec().loss().bias()) for (double v : c) bias += v;
      local[b] = new KernelExpansion(base, e.getValue().toArray(new SparseVector[0]), c, bias);
      ids[b] = e.getKey();
      index.put(e.getKey(), b++);
    }
    for (int c = 0; c < k; c++) cb[c] = index.get(finalId[c]);
    return new Routing(km, cb, local, ids);
  }

  private static LevelStats levelStats(int level, List<BlockStats> stats, double wall, Double acc) {
    double obj = 0;
    double viol = 0;
    double init = 0;
    long sv = 0;
    long evals = 0;
    long mem = 0;
    for (BlockStats s : stats) {
      mem = Math.max(mem, s.getMemoryBytes());
      obj += s.getObjective();
      viol = Math.max(viol, s.getMaxViolation());
      init = Math.max(init, s.getInitialViolation());
      sv += s.getSupportVectors();
      evals += s.getKernelEvaluations();
    }
    return new LevelStats(level, stats.size(), obj, viol, init, sv, evals, wall, mem, acc);
  }
}
