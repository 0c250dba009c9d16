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
import org.sodm.model.CommonOffset;
import org.sodm.model.KernelExpansion;
import org.sodm.model.KernelModel;
import org.sodm.model.Routing;
import org.sodm.solver.Loss;
import org.sodm.solver.WarmStart;

/**
 * SODM's merge tree (seed 000 Algorithm 1) and, with exact mode, PBM (seed 004) or one last
 * block: phases {@code landmarks} (stratified / kmeans), {@code level-L} ... {@code level-1}
 * (or {@code level-0} for one block), then exact mode's {@code refine}, {@code level-0},
 * {@code pbm-init}, {@code pbm-N} ({@link ExactPhase}). The model averages the last level's
 * blocks, or is exact mode's one expansion.
 */
public final class KernelTreeTrainer implements Trainer {
  /** Model provenance entries (results, not parameters): whether exact mode's solve converged, and its final violation. */
  public static final String EXACT_CONVERGED = "sodm.result.exact.converged";
  public static final String EXACT_VIOLATION = "sodm.result.exact.violation";

  @Override
  public List<PhaseRunner.Planned> phases(TrainSpec spec) {
    List<PhaseRunner.Planned> out = new ArrayList<>();
    List<Integer> blocks = spec.tree().levelBlocks();
    out.add(PhaseRunner.Planned.of("landmarks", spec.tree().partitioner() != TrainSpec.Partitioner.RANDOM && blocks.get(0) > 1));
    int top = spec.tree().plannedTop();
    for (int l = top; l > top - blocks.size(); l--) out.add(PhaseRunner.Planned.of("level-" + l, true));
    return out;
  }

  /** The separable-blocks rule's level (a conditional phase). */
  static final String LARGER = "larger";

  @Override
  public boolean conditional(String name) {
    return ExactPhase.isPhaseName(name) || name.equals(LARGER);
  }

  /**
   * Whether the separable-blocks rule looks at the level: the automatic tree's one level of blocks of m rows (not already its
   * larger blocks), hinge without --exact, stratified or random blocks (k-means blocks route local prediction). With
   * sub-problems (multi-class, cv's folds, --probability's) the level's share is pooled over all of them and all take the
   * larger blocks, so that cv's fold models are train's.
   */
  static boolean separableRuleApplies(TrainSpec spec, long rows, List<Integer> levelBlocks, int levelsRun, boolean smallTasks) {
    return !smallTasks && spec.loss() instanceof Loss.Hinge && !spec.exact().on() && spec.tree().auto()
        && rows > spec.tree().autoAboveRows() && !spec.tree().enlarged(rows) && levelBlocks.size() == 1 && levelsRun == 1
        && levelBlocks.get(0) > 1 && spec.tree().partitioner() != TrainSpec.Partitioner.KMEANS;
  }

  /**
   * The share of a level's support vectors at their upper bound (index 0) and the support vectors (index 1), or null when a
   * block did not count them (a level written before the count, or a loss without an upper bound).
   */
  static double[] boundedShare(List<BlockStats> stats) {
    long sv = 0;
    long bounded = 0;
    for (BlockStats b : stats) {
      if (b.getBoundedSupportVectors() < 0) return null;
      sv += b.getSupportVectors();
      bounded += b.getBoundedSupportVectors();
    }
    return sv == 0 ? null : new double[] {(double) bounded / sv, sv};
  }

  @Override
  public Trained train(TrainContext ctx) throws IOException {
    PhaseRunner runner = ctx.runner();
    TrainSpec spec = ctx.spec();
    Configuration conf = ctx.conf();
    IngestJob.Result data = ctx.data();
    KernelSpec kernel = spec.resolvedKernel();
    if (kernel.type() == KernelSpec.Type.SIGMOID && !spec.offset()) {
      runner.note("WARNING: the sigmoid kernel is not positive semi-definite; without LIBSVM's offset (--offset, hinge) the dual "
          + "can put a whole class at its bound (svmguide1, -g 0.5 --coef0 -1: 50.0% against svm-train's 94.4%; with --offset "
          + "94.4%)");
    }
    conf.set(TrainKeys.INGEST_DIR, data.dir().toString());
    org.sodm.model.Subproblems plan = TrainKeys.plan(conf); // multi-class or --probability: the sub-problems, else null
    long rows = plan == null ? data.stats().getRows() : plan.largestTaskRows(TrainPipeline.classCounts(data.stats(), TrainKeys.classes(conf)));
    boolean small = !spec.exact().on() && spec.exact().belowRows() > 0 && rows <= spec.exact().belowRows();
    // every task small (<= sodm.train.exact.below.rows): the tree would end in one exact block per task anyway; solve that
    // block directly, as one level of one job. Multi-class always; binary with the automatic tree (no --partitions / --levels)
    // and not k-means (DC-SVM's blocks route local prediction): svmguide1, 3,089 rows, 7.2 s -> 3.8 s, the same optimum
    boolean smallTasks = small && (plan != null || (spec.tree().auto() && spec.tree().partitioner() != TrainSpec.Partitioner.KMEANS));
    List<Integer> levelBlocks = smallTasks ? List.of(1) : spec.tree().levelBlocks(rows);
    if (smallTasks) {
      runner.note(String.format(Locale.ROOT, "%s of at most %,d rows (<= sodm.train.exact.below.rows %d): one block%s, solved in one "
          + "job%s", plan != null ? "tasks" : "data", rows, spec.exact().belowRows(), plan != null ? " per task" : "",
          plan != null ? "" : " (--partitions / --levels for a tree)"));
    }
    // --exact on binary data whose tree is one block of every row (the automatic tree up to 3m rows): that block is the whole
    // problem, and exact mode's one warm block would solve it a second time (17,000 rows of ijcnn1: 2.1 s, then 1.7 s); the
    // tree's block is then exact mode's solve, with LIBSVM's offset where that final solve would take it
    boolean exactInTree = spec.exact().on() && plan == null && levelBlocks.equals(List.of(1));
    TrainSpec exactBlockSpec = exactInTree && ExactPhase.offsetInOneBlock(conf, spec) ? spec.with(Param.OFFSET, "true") : spec;
    conf.setInt(TrainKeys.BLOCKS, levelBlocks.get(0));
    conf.setLong(TrainKeys.TREE_ROWS, rows);
    checkMemory(conf, spec, data, rows, levelBlocks, plan == null ? 1 : plan.count());
    if (!smallTasks && spec.tree().auto() && rows > spec.tree().autoAboveRows()) {
      List<Integer> shape = spec.tree().shape(rows);
      runner.note(String.format(Locale.ROOT, "tree         automatic shape for %,d rows and a %d MB cache: %s blocks%s (--levels or "
          + "--partitions to choose)", rows, spec.tree().cacheBytes() >> 20, shape, spec.tree().enlarged(rows)
              ? String.format(Locale.ROOT, " of at most %,d rows (blocks of %,d rows would solve with C B = %.4g > "
                  + "sodm.train.auto.block.c %.4g)", spec.tree().autoBlockBound(), TrainSpec.Tree.cacheRows(spec.tree().cacheBytes()),
                  spec.tree().smallBlocksC(rows), spec.tree().autoBlockC()) : ""));
    }
    boolean hinge = spec.loss() instanceof Loss.Hinge || spec.loss() instanceof Loss.SquaredHinge;
    double bottomFactor = spec.blockCFactor(levelBlocks.get(0), rows);
    if (hinge && spec.blockScaledC() && bottomFactor < levelBlocks.get(0)) {
      runner.note(String.format(Locale.ROOT, "block C      C times %.4g, not times the %d blocks: %,d rows > --block-c-rows %d, so each "
          + "block weighs its errors as a problem of %,d rows (--block-c-rows 0: C B)", bottomFactor,
          levelBlocks.get(0), rows, spec.tree().blockCRows(), spec.tree().blockCRows()));
    }

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
              : String.format(Locale.ROOT, "%d landmarks (strata), kernel %s", count, kernel.strataKernel() == kernel ? kernel
                  : kernel.strataKernel() + " (" + kernel + " is not positive semi-definite: the strata by its inner product)");
        }
      });
      conf.set(TrainKeys.LANDMARKS_DIR, new Path(d.dir(), "data").toString());
    } else {
      runner.passed("landmarks", "none");
    }

    // DC-SVM (seed 001 Algorithm 1): with --partitioner kmeans every merge round clusters anew (binary problems; multi-class
    // merges its per-class-pair blocks by index)
    boolean multilevel = kmeans && plan == null && levelBlocks.get(0) > 1;
    Path[] routeDir = {multilevel ? new Path(conf.get(TrainKeys.LANDMARKS_DIR)) : null};
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
      int childBlocks = bottom ? 0 : levelBlocks.get(i - 1);
      // the model's level (the last, no exact mode after it): only the support vectors are written
      boolean modelOnly = i == levelBlocks.size() - 1 && (exactInTree || !spec.exact().on() && !spec.exact().bySize(rows, blocks));
      LevelStats[] ls = new LevelStats[1];
      conf.setInt(TrainKeys.BLOCKS_BELOW, bottom ? 0 : levelBlocks.get(i - 1));
      PhaseRunner.Done d = runLevel(ctx, new LevelRun("level " + level, "level-" + level, level, blocks, childBlocks, previous, modelOnly,
          multilevel && !bottom, exactInTree ? exactBlockSpec : null), plan, rows, ls);
      levels.add(ls[0]);
      if (multilevel && !bottom) routeDir[0] = new Path(d.dir(), "kmeans");
      previous = new Path(d.dir(), "data");
      last = previous;
      if (i > 0 && spec.tree().earlyStop() && ls[0].getMaxInitialViolation() <= spec.solver().eps() && i + 1 < levelBlocks.size()) {
        runner.note(String.format(Locale.ROOT, "early stop: every block of level %d was converged at its warm start", level));
        break;
      }
    }
    if (!smallTasks && levelBlocks.size() < spec.tree().shape(rows).size()) {
      runner.note(String.format(Locale.ROOT, "stop: merging %d blocks further would exceed --max-block-rows %d",
          levelBlocks.get(levelBlocks.size() - 1), spec.tree().maxBlockRows()));
    }
    for (String name : planned.subList(levels.size(), planned.size())) runner.passed(name, "none");

    // the separable-blocks rule: the automatic tree's blocks of m rows that separated their rows are solved again, larger
    int largerBlocks = 0;
    Map<String, Object> separableReport = null;
    if (separableRuleApplies(spec, rows, levelBlocks, levels.size(), smallTasks)) {
      double[] share = boundedShare(TrainIO.readStats(conf, new Path(last.getParent(), "stats")));
      double threshold = Param.AUTO_BOUNDED_SHARE.doubleValue(conf);
      int to = spec.tree().largerBlocks(rows);
      if (share != null && share[0] < threshold && to < levelBlocks.get(0)) {
        String tooLarge = null; // the larger blocks beyond the task heap: the m-row level stands (said, not silent)
        try {
          BlockMemory.check(conf, (rows + to - 1) / to, to * (plan == null ? 1 : plan.count()), conf.getFloat(TrainKeys.NONZEROS_PER_ROW,
              0f), spec.solver().cacheBytes(), String.format(Locale.ROOT, "the larger blocks (%d of %,d rows)", to, rows), true);
        } catch (org.sodm.jobs.support.SodmException e) {
          tooLarge = e.getMessage();
        }
        String why = String.format(Locale.ROOT, "separable    %.2f%% of the level's %,d support vectors at their bound C B (< "
            + "sodm.train.auto.bounded.share %.2f%%): its blocks separated their rows, where a mean of blocks is least accurate; ",
            100 * share[0], (long) share[1], 100 * threshold);
        runner.note(tooLarge == null ? why + String.format(Locale.ROOT, "solved again as %d blocks of at most %,d rows", to,
            (rows + to - 1) / to) : "WARNING: " + why + "the larger blocks do not fit the task heap, so the mean of the "
            + levelBlocks.get(0) + " blocks is the model (" + tooLarge + ")");
        separableReport = new LinkedHashMap<>();
        separableReport.put("blocks", levelBlocks.get(0));
        separableReport.put("supportVectors", (long) share[1]);
        separableReport.put("boundedShare", share[0]);
        separableReport.put("largerBlocks", tooLarge == null ? to : 0);
        if (tooLarge != null) separableReport.put("notSolved", tooLarge);
        if (tooLarge == null) {
          conf.setInt(TrainKeys.BLOCKS_BELOW, 0);
          LevelStats[] ls = new LevelStats[1];
          PhaseRunner.Done d = runLevel(ctx, new LevelRun("larger", LARGER, top, to, 0, new Path(data.dir(), IngestJob.DATA), true,
              false, null), plan, rows, ls);
          levels.set(levels.size() - 1, ls[0]);
          last = new Path(d.dir(), "data");
          largerBlocks = to;
        }
      }
    }
    if (largerBlocks == 0) runner.passed(LARGER, "none");

    // exact mode (issue 8): the whole problem from the last level's solution
    UnaryOperator<TrainRecord> transform = null;
    int merges = levels.size() - 1;
    ExactPhase.Result exactResult = null;
    TrainContext mctx = ctx; // the model's context (exact mode's final solve may add LIBSVM's offset)
    int lastBlocks = largerBlocks > 0 ? largerBlocks : levelBlocks.get(levels.size() - 1); // per sub-problem
    int lastLevelBlocks = lastBlocks;
    boolean bySize = spec.exact().bySize(rows, lastBlocks);
    if (spec.exact().on() || bySize) {
      LevelStats top1 = levels.get(levels.size() - 1);
      conf.setInt(TrainKeys.BLOCKS_BELOW, lastBlocks);
      ExactPhase exact = new ExactPhase(conf, runner, spec);
      ExactPhase.Result ex;
      long[][] perSub = plan == null || bySize ? null
          : ExactPhase.perSubproblem(TrainIO.readStats(conf, new Path(last.getParent(), "stats")), plan.count(), lastBlocks);
      if (exactInTree) {
        // the tree's one block was the whole problem (above): exact mode's result is that level's
        List<BlockStats> st = TrainIO.readStats(conf, new Path(last.getParent(), "stats"));
        runner.passed("level-0", "the tree's one block is the whole problem");
        ex = new ExactPhase.Result(last, 0, false, top1.getObjective(), top1.getMaxViolation(), 0, st.get(0).getConverged(), 0);
        mctx = ctx.withSpec(exactBlockSpec);
      } else if (perSub != null && !exact.everySingle(perSub, lastBlocks)) {
        // multi-class, a sub-problem beyond one warm solve: each sub-problem's exact mode (one warm solve or PBM) in turn
        ex = exact.runEach(last, perSub, lastBlocks);
      } else {
        // binary; or multi-class with every sub-problem one warm solve: one block per sub-problem, all in one job
        ex = exact.run(last, rows, plan == null ? top1.getBlocks() : lastBlocks, top1.getSupportVectors(), bySize || plan != null);
        // the final one warm block solved with LIBSVM's offset: the model takes its b (and says offset true)
        if (!ex.pbm() && exact.offsetInOneBlock()) mctx = ctx.withSpec(spec.with(Param.OFFSET, "true"));
      }
      last = ex.data();
      exactResult = ex;
      double beta = ex.beta();
      transform = r -> {
        TrainRecord c = ExactPhase.finalRecord(r, beta, spec.loss());
        if (plan == null) c.setBlock(0); // multi-class: block = sub-problem (one block each)
        return c;
      };
      lastBlocks = 1;
      org.sodm.model.Model exModel = buildModel(mctx, last, List.of(), transform, 1).model();
      Double acc = mctx.validationAccuracy(exModel);
      levels.add(new LevelStats(0, 1, ex.objective(), ex.violation(), Double.NaN, exModel.supportVectors(), 0L, ex.seconds(), 0L,
          acc));
      // the one-block phase printed its objective and violation already: say more only with what it did not
      if (ex.pbm() || bySize || acc != null || !ex.converged()) runner.say("exact", String.format(Locale.ROOT, "%s%s obj %.10g viol %.2e%s%s",
          bySize ? String.format(Locale.ROOT, "(n <= %d rows) ", spec.exact().belowRows()) : "",
          ex.pbm() ? ex.iterations() + " PBM iterations," : "one block,",
          ex.objective(), ex.violation(), ex.converged() ? "" : " (not converged)",
          acc == null ? "" : String.format(Locale.ROOT, "  acc %.2f%%", 100 * acc)), ex.seconds());
    }

    Built built = buildModel(mctx, last, levels, transform, lastBlocks);
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("levels", TrainOutput.levels(levels));
    if (separableReport != null) report.put("separable", separableReport);
    Map<String, Object> exactReport = null;
    if (exactResult != null) {
      // issue 19 item 6: the model and the report say whether the exact solve converged, and its final violation
      built.model().provenance().getParameters().put(EXACT_CONVERGED, Boolean.toString(exactResult.converged()));
      built.model().provenance().getParameters().put(EXACT_VIOLATION, Double.toString(exactResult.violation()));
      exactReport = new LinkedHashMap<>();
      exactReport.put("method", exactResult.pbm() ? "pbm" : "one block");
      exactReport.put("converged", exactResult.converged());
      exactReport.put("violation", exactResult.violation());
      exactReport.put("tolerance", exactResult.pbm() ? spec.exact().tolerance() : spec.solver().eps());
      exactReport.put("objective", exactResult.objective());
      exactReport.put("iterations", exactResult.iterations());
      if (!exactResult.converged()) {
        runner.note(String.format(Locale.ROOT, "WARNING: the exact solve did NOT converge: violation %.3e > tolerance %.3e%s; "
            + "the model is not the whole problem's optimum%s", exactResult.violation(), (double) exactReport.get("tolerance"),
            exactResult.pbm() ? " after " + exactResult.iterations() + " PBM iterations (--exact-max-iterations)" : " (--max-epochs)",
            spec.allowUnconverged() ? " (kept: --allow-unconverged)" : "; the run will exit non-zero (--allow-unconverged keeps it)"));
      }
      report.put("exact", exactReport);
    }
    if (plan != null && !plan.full()) return crossValidation(mctx, built, plan, levels, report);
    if (plan != null) {
      org.sodm.model.MulticlassModel mm = built.multi();
      if (plan.folds() > 0) {
        long tp = System.nanoTime();
        org.sodm.model.Platt[] platt = built.subs().platt(conf, new Path(data.dir(), IngestJob.DATA), built.all(), kernel, spec.loss(),
            data.scaler(), spec.seed());
        mm = mm.withPlatt(platt);
        runner.say("probability", String.format(Locale.ROOT, "Platt's sigmoids of %d task(s) on the decision values of %d folds",
            platt.length, plan.folds()), (System.nanoTime() - tp) / 1e9);
      }
      if (kmeans && levelBlocks.get(0) > 1) runner.note("multi-class models have no local routing (--mode local): the blocks are per class pair");
      report.put("classes", mm.classes());
      report.put("scheme", mm.scheme().id());
      report.put("tasks", plan.tasks());
      report.put("supportVectors", mm.supportVectors());
      report.put("distinctSupportVectors", mm.distinctSupportVectors());
      return new Trained(mm, levels, report);
    }
    KernelModel model = (KernelModel) built.model();
    if ((kmeans && levelBlocks.get(0) > 1) || (exactResult != null && exactResult.pbm())) {
      // multilevel: the last level's own clusters are its blocks (early prediction at any level routes to that level's clusters)
      if (exactResult != null && exactResult.pbm()) { // PBM's own k-means blocks (seed 004 section 4.3)
        model = model.withRouting(routing(mctx, model, kernel, exactResult.pbmBlocks(), 0, exactResult, exactResult.kmeans()));
      } else {
        model = model.withRouting(routing(mctx, model, kernel, multilevel ? lastLevelBlocks : levelBlocks.get(0), multilevel ? 0 : merges,
            exactResult, multilevel ? routeDir[0] : new Path(new Path(ctx.runner().work(), "landmarks"), "data")));
      }
    }
    report.put("blocks", model.blockCount());
    report.put("supportVectors", model.supportVectors());
    return new Trained(model, levels, report);
  }

  /**
   * sodm cv: every row scored by its task models trained without its fold; the report gets the
   * accuracy per fold, their mean and standard deviation, and the pooled accuracy (svm-train -v's
   * figure). The model written is fold 0's (for inspection only).
   */
  private static Trained crossValidation(TrainContext ctx, Built built, org.sodm.model.Subproblems plan, List<LevelStats> levels,
      Map<String, Object> report) throws IOException {
    Configuration conf = ctx.conf();
    List<String> classes = TrainKeys.classes(conf);
    CvFolds folds = CvFolds.read(conf, new Path(conf.get(TrainKeys.CV_FOLDS_FILE)));
    org.sodm.model.Subproblems tasks = new org.sodm.model.Subproblems(plan.classes(), plan.scheme());
    KernelSpec kernel = ctx.spec().resolvedKernel();
    org.sodm.data.Scaler scaler = ctx.data().scaler();
    org.sodm.model.MulticlassModel[] byFold = new org.sodm.model.MulticlassModel[plan.folds()];
    for (int f = 0; f < byFold.length; f++) {
      org.sodm.model.Model[] sub = new org.sodm.model.Model[plan.tasks()];
      for (int t = 0; t < sub.length; t++) sub[t] = built.all()[plan.sub(t, f)];
      byFold[f] = new org.sodm.model.MulticlassModel(kernel, ctx.spec().loss(), scaler, classes, tasks, sub, null,
          f == 0 ? ctx.provenance(levels) : null);
    }
    long[] rows = new long[byFold.length];
    long[] correct = new long[byFold.length];
    List<org.sodm.avro.Instance> batch = new ArrayList<>();
    Runnable flush = () -> {
      int n = batch.size();
      int[] fold = new int[n];
      boolean[] ok = new boolean[n];
      java.util.stream.IntStream.range(0, n).parallel().forEach(i -> {
        org.sodm.avro.Instance in = batch.get(i);
        fold[i] = folds.of(in.getId());
        SparseVector x = Instances.features(in.getFeatures());
        ok[i] = byFold[fold[i]].predict(x).equals(in.getLabel().toString());
      });
      for (int i = 0; i < n; i++) {
        rows[fold[i]]++;
        if (ok[i]) correct[fold[i]]++;
      }
      batch.clear();
    };
    AvroFiles.forEach(conf, new Path(ctx.data().dir(), IngestJob.DATA), org.sodm.avro.Instance.class, in -> {
      batch.add(org.sodm.avro.Instance.newBuilder(in).build());
      if (batch.size() == 8192) flush.run();
    });
    flush.run();
    List<Map<String, Object>> perFold = new ArrayList<>();
    double mean = 0;
    long allRows = 0;
    long allCorrect = 0;
    for (int f = 0; f < rows.length; f++) {
      double acc = (double) correct[f] / rows[f];
      mean += acc / rows.length;
      allRows += rows[f];
      allCorrect += correct[f];
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("fold", f);
      m.put("rows", rows[f]);
      m.put("correct", correct[f]);
      m.put("accuracy", acc);
      perFold.add(m);
    }
    double var = 0;
    for (int f = 0; f < rows.length; f++) var += Math.pow((double) correct[f] / rows[f] - mean, 2);
    double sd = rows.length > 1 ? Math.sqrt(var / (rows.length - 1)) : 0;
    Map<String, Object> cv = new LinkedHashMap<>();
    cv.put("folds", perFold);
    cv.put("mean", mean);
    cv.put("sd", sd);
    cv.put("accuracy", (double) allCorrect / allRows);
    cv.put("rows", allRows);
    report.put("cv", cv);
    report.put("classes", classes);
    report.put("scheme", plan.scheme().id());
    for (int f = 0; f < rows.length; f++) {
      ctx.runner().note(String.format(Locale.ROOT, "cv fold %-4d %,9d rows  accuracy %.4f%%", f, rows[f], 100.0 * correct[f] / rows[f]));
    }
    ctx.runner().note(String.format(Locale.ROOT, "cv           %d folds: accuracy %.4f%% (%,d of %,d rows), per fold %.4f%% +- %.4f",
        rows.length, 100.0 * allCorrect / allRows, allCorrect, allRows, 100 * mean, 100 * sd));
    return new Trained(byFold[0], levels, report);
  }

  /**
   * Issue 18 item 6: before any job, every planned block solve's heap against a task's ({@link BlockMemory}): each level's
   * blocks of ceil(rows / blocks) rows (rows: the largest task's), and the one block of every row when exact mode will be the one-block solve (by size,
   * or --exact with --offset, nu-SVC or sodm.train.exact.single=always).
   */
  private static void checkMemory(Configuration conf, TrainSpec spec, IngestJob.Result data, long rows, List<Integer> levelBlocks,
      int subproblems) {
    double nnz = data.stats().getRows() == 0 ? 0 : (double) data.stats().getNonZeros() / data.stats().getRows();
    conf.setFloat(TrainKeys.NONZEROS_PER_ROW, (float) nnz);
    long cache = spec.solver().cacheBytes();
    int top = spec.tree().plannedTop();
    for (int i = 0; i < levelBlocks.size(); i++) {
      int b = levelBlocks.get(i);
      BlockMemory.check(conf, (rows + b - 1) / b, b * subproblems, nnz, cache, String.format(Locale.ROOT, "level %d (%d blocks of %,d rows)", top - i, b,
          rows), i > 0);
    }
    boolean single = spec.exact().bySize(rows, levelBlocks.get(levelBlocks.size() - 1)) || (spec.exact().on()
        && (spec.offset() || spec.loss() instanceof Loss.Nu || "always".equalsIgnoreCase(spec.values().get(Param.EXACT_SINGLE.key()))));
    if (single && levelBlocks.get(levelBlocks.size() - 1) > 1) {
      BlockMemory.check(conf, rows, subproblems, nnz, cache, String.format(Locale.ROOT, "exact mode (one block of all %,d rows)", rows), true);
    }
  }

  /** A level's model: binary ({@code model}), or multi-class ({@code multi}, with every sub-problem's model in {@code all}). */
  private record Built(org.sodm.model.Model model, SubproblemModels subs, KernelModel[] all) {
    org.sodm.model.MulticlassModel multi() {
      return (org.sodm.model.MulticlassModel) model;
    }
  }

  /**
   * {@code transform} (or null) maps each record before it goes into the model (exact mode: final
   * alpha, block 0); {@code blocksPerSub} is the level's blocks per sub-problem (multi-class).
   */
  private static Built buildModel(TrainContext ctx, Path levelData, List<LevelStats> levels, UnaryOperator<TrainRecord> transform,
      int blocksPerSub) throws IOException {
    IngestJob.Result data = ctx.data();
    org.sodm.model.Subproblems plan = TrainKeys.plan(ctx.conf());
    KernelSpec kernel = ctx.spec().resolvedKernel();
    Map<Integer, Double> biases = null;
    if (ctx.spec().loss() instanceof Loss.Nu || ctx.spec().offset()) {
      // nu-SVC and --offset blocks keep their offset (-rho / r, -rho) in their stats, beside the level's data; a binary exact
      // block is block 0, a multi-class one its sub-problem (one block each)
      biases = new HashMap<>();
      for (BlockStats s : TrainIO.readStats(ctx.conf(), new Path(levelData.getParent(), "stats"))) {
        biases.put(transform == null || plan != null ? s.getBlock() : 0, s.getBias());
      }
    }
    if (plan != null) {
      SubproblemModels subs = new SubproblemModels(plan, TrainKeys.classes(ctx.conf()), blocksPerSub);
      AvroFiles.forEach(ctx.conf(), levelData, TrainRecord.class, r -> subs.add(transform == null ? r : transform.apply(r)));
      Loss loss = ctx.spec().loss();
      KernelModel[] all = subs.all(kernel, t -> TrainKeys.taskLoss(ctx.conf(), loss, t), data.scaler(), biases);
      if (commonOffset(ctx, transform, blocksPerSub)) {
        long t0 = System.nanoTime();
        for (int s = 0; s < all.length; s++) {
          all[s] = withCommonOffset(ctx, all[s], blockBounds(ctx, TrainKeys.taskLoss(ctx.conf(), loss, s), blocksPerSub), null);
        }
        if (!levels.isEmpty()) {
          ctx.runner().say("offset", String.format(Locale.ROOT, "one offset per sub-problem for its %d averaged blocks (the primal's best "
              + "for their mean; --no-common-offset keeps the blocks' own)", blocksPerSub), (System.nanoTime() - t0) / 1e9);
        }
      }
      return new Built(subs.model(all, kernel, ctx.spec().loss(), data.scaler(), null, ctx.provenance(levels)), subs, all);
    }
    ModelBuilder b = new ModelBuilder();
    AvroFiles.forEach(ctx.conf(), levelData, TrainRecord.class, r -> b.add(transform == null ? r : transform.apply(r)));
    KernelModel model = b.build(kernel, ctx.spec().loss(), data.labelMap(), data.scaler(), ctx.provenance(levels), biases);
    if (commonOffset(ctx, transform, blocksPerSub)) {
      double[] c = blockBounds(ctx, ctx.spec().loss(), blocksPerSub);
      model = withCommonOffset(ctx, model, c, levels.isEmpty() ? null : "offset");
    }
    return new Built(model, null, null);
  }

  /**
   * Whether a level's model gets {@link CommonOffset}'s one offset: hinge with the offset, several averaged blocks per
   * sub-problem (not exact mode's one block, not k-means blocks, whose local prediction uses each block by itself), and
   * {@link Param#COMMON_OFFSET} on.
   */
  private static boolean commonOffset(TrainContext ctx, UnaryOperator<TrainRecord> transform, int blocksPerSub) {
    TrainSpec spec = ctx.spec();
    return spec.offset() && spec.commonOffset() && spec.loss() instanceof Loss.Hinge && transform == null && blocksPerSub > 1
        && spec.tree().partitioner() != TrainSpec.Partitioner.KMEANS;
  }

  /** The box of the level's blocks of a task of {@code loss}, {C+, C-}, as BlockSolveReducer solved them (C times TrainSpec#blockCFactor). */
  private static double[] blockBounds(TrainContext ctx, Loss loss, int blocksPerSub) {
    TrainSpec spec = ctx.spec();
    Loss.Hinge h = (Loss.Hinge) WarmStart.blockLoss(loss, TrainKeys.blockCFactor(ctx.conf(), spec, blocksPerSub));
    return new double[] {h.c() * h.weights().positive(), h.c() * h.weights().negative()};
  }

  /** {@code m} with {@link CommonOffset}'s offset ({@code c}: the blocks' {C+, C-}); {@code say}: the line to print, or null. */
  private static KernelModel withCommonOffset(TrainContext ctx, KernelModel m, double[] c, String say) {
    long t0 = System.nanoTime();
    CommonOffset.Result r = CommonOffset.of(m, c[0], c[1], CommonOffset.BUDGET, CommonOffset.MIN_USED, ctx.spec().commonOffsetScaled());
    if (say != null && !Double.isNaN(r.offset())) {
      ctx.runner().say(say, String.format(Locale.ROOT, "one offset for the %d averaged blocks: %.6g from %,d SVs%s, "
          + "%,d distinct, fitted at scale %.4g (blocks' mean %.6g)", m.blockCount(), r.offset(), r.supportVectors(),
          r.used() < r.supportVectors() ? String.format(Locale.ROOT, ", %,d used", r.used()) : "", r.scored(), r.scale(),
          r.blockMean()), (System.nanoTime() - t0) / 1e9);
    }
    return Double.isNaN(r.offset()) ? m : m.withBias(r.offset());
  }

  /**
   * nu-SVC in the merge tree: the default nu (2 alpha min(n1, n2) / n, alpha = 0.85, seed 002) resolved from the training data's
   * class sizes, and nu checked against them, before any job.
   */
  public static TrainSpec resolveNu(TrainSpec spec, IngestJob.Result data) {
    return resolveNu(spec, data, null, null, null);
  }

  /**
   * The same for a run with sub-problems ({@code plan} not null): every task is a binary nu-SVC
   * with its own nu, the default from the task's class sizes (ovo: the pair's; ovr: the class
   * against the rest), or the given nu checked against every task (LIBSVM refuses an infeasible
   * nu of any pair the same way); the tasks' nu go to {@link TrainKeys#NU_TASKS} in {@code conf}.
   * A fold sub-problem of --probability / cv uses its task's nu (a fold where it is infeasible is
   * solved with the largest feasible nu, as any block is).
   */
  public static TrainSpec resolveNu(TrainSpec spec, IngestJob.Result data, org.sodm.model.Subproblems plan, List<String> classes,
      Configuration conf) {
    if (!(spec.loss() instanceof Loss.Nu nu) || spec.linearSolver() != null) return spec;
    if (plan == null) {
      long n1 = 0;
      long n2 = 0;
      for (org.sodm.avro.LabelCount c : data.stats().getLabels()) {
        if (c.getLabel().equals(data.labelMap().positive())) n1 += c.getCount();
        else if (c.getLabel().equals(data.labelMap().negative())) n2 += c.getCount();
      }
      double v = feasibleNu(nu, n1, n2, "");
      return nu.isDefault() ? spec.with(Param.NU, Double.toString(v)) : spec;
    }
    long[] counts = TrainPipeline.classCounts(data.stats(), classes);
    long total = 0;
    for (long c : counts) total += c;
    double[] perTask = new double[plan.tasks()];
    for (int t = 0; t < perTask.length; t++) {
      int pos = plan.positiveClass(t);
      int neg = plan.negativeClass(t);
      long n1 = counts[pos];
      long n2 = neg < 0 ? total - n1 : counts[neg];
      perTask[t] = feasibleNu(nu, n1, n2, neg < 0 ? " of task '" + classes.get(pos) + "' vs rest"
          : " of task '" + classes.get(neg) + "' vs '" + classes.get(pos) + "'");
    }
    TrainKeys.setNuTasks(conf, perTask);
    return spec;
  }

  private static double feasibleNu(Loss.Nu nu, long n1, long n2, String task) {
    double v = nu.resolve(n1, n2);
    double max = 2.0 * Math.min(n1, n2) / (n1 + n2);
    if (v > max) {
      throw TrainSpec.bad(Param.NU, "nu = " + v + " is infeasible for the class sizes" + task + ": nu-SVC needs nu <= 2 min(n1, n2) / n = "
          + max + " (n1 = " + n1 + " rows labelled +1, n2 = " + n2 + " labelled -1)");
    }
    return v;
  }


  /**
   * Local prediction routing (kmeans partitioner): the k-means sample and memberships of
   * {@code sampleDir} (the last level's clusters, DC-SVM's multilevel clustering: {@code merges} = 0,
   * cluster c is block c; multi-class: work/landmarks, cluster c was bottom block c and, after
   * {@code merges} rounds, is in final block c / p^merges). Exact mode with PBM adds, per final block r, the correction (1 - beta) d_r
   * of the last iteration (local model alpha_t + d_{S_r}); in exact mode with one block every
   * cluster routes to the one global block.
   */
  private static Routing routing(TrainContext ctx, KernelModel model, KernelSpec kernel, int clusters, int merges,
      ExactPhase.Result ex, Path sampleDir) throws IOException {
    Configuration conf = ctx.conf();
    List<TrainRecord> sample = TrainIO.readRecords(conf, sampleDir);
    sample.sort((a, b) -> Long.compare(a.getId(), b.getId()));
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

  /**
   * One level's solve as a phase: a level of the tree, or the separable-blocks rule's larger blocks.
   *
   * @param blockSpec the spec the blocks solve with when it is not the run's (--exact's one block with LIBSVM's offset), or null
   * @param clustered DC-SVM's merge round: the level clusters its input anew
   */
  private record LevelRun(String label, String name, int level, int blocks, int childBlocks, Path input, boolean modelOnly,
      boolean clustered, TrainSpec blockSpec) {}

  private static PhaseRunner.Done runLevel(TrainContext ctx, LevelRun lr, org.sodm.model.Subproblems plan, long rows, LevelStats[] ls)
      throws IOException {
    Configuration conf = ctx.conf();
    TrainSpec spec = ctx.spec();
    TrainContext solveCtx = lr.blockSpec() == null ? ctx : ctx.withSpec(lr.blockSpec());
    return ctx.runner().run(lr.label(), new PhaseRunner.Phase() {
      private long started = System.nanoTime();

      @Override
      public String name() {
        return lr.name();
      }

      @Override
      public void write(Path temp) throws IOException {
        started = System.nanoTime();
        Configuration c = lr.blockSpec() != null ? lr.blockSpec().writeTo(new Configuration(conf)) : new Configuration(conf);
        c.setBoolean(TrainKeys.CASCADE_CARRY, true); // every level keeps every row (exact mode solves the whole problem)
        c.setBoolean(TrainKeys.SUPPORT_ONLY, lr.modelOnly());
        if (lr.clustered()) {
          Path km = new Path(temp, "kmeans");
          LevelKMeans.write(c, km, LevelKMeans.fit(c, lr.input(), lr.level(), lr.blocks()));
          c.set(LevelKMeans.DIR, km.toString());
          // parents hold parts of children: the warm start's ODM scale needs each child's own size
          TrainKeys.setChildSizes(c, TrainIO.readStats(c, new Path(lr.input().getParent(), "stats")));
        }
        int tasks = lr.blocks() * (plan == null ? 1 : plan.count());
        c.setInt(BlockMemory.LOCAL_REDUCES, BlockMemory.concurrentTasks(c, tasks, (rows + lr.blocks() - 1) / lr.blocks(),
            c.getFloat(TrainKeys.NONZEROS_PER_ROW, 0f), spec.solver().cacheBytes()));
        SolveJob.run(c, lr.input(), lr.childBlocks() == 0, lr.level(), lr.blocks(), lr.childBlocks(), new Path(temp, "data"),
            new Path(temp, "stats"));
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        double wall = (System.nanoTime() - started) / 1e9;
        List<BlockStats> stats = TrainIO.readStats(conf, new Path(dir, "stats"));
        long tv = System.nanoTime();
        Double acc = ctx.validation() == null ? null
            : ctx.validationAccuracy(buildModel(solveCtx, new Path(dir, "data"), List.of(), null, lr.blocks()).model());
        double validationSeconds = (System.nanoTime() - tv) / 1e9;
        ls[0] = levelStats(lr.level(), stats, wall, acc);
        return String.format(Locale.ROOT, "%4d blocks  obj %12.6g  viol %.2e  SV %,7d  mem %4d MB%s", ls[0].getBlocks(),
            ls[0].getObjective(), ls[0].getMaxViolation(), ls[0].getSupportVectors(),
            (ls[0].getMaxBlockMemoryBytes() + (1 << 19)) >> 20, acc == null ? ""
                : String.format(Locale.ROOT, "  acc %.2f%% (scored in %.1f s)", 100 * acc, validationSeconds));
      }
    });
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
