package org.sodm.jobs.linear;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.LevelStats;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.phase.PhaseRunner;
import org.sodm.jobs.phase.TrainContext;
import org.sodm.jobs.phase.Trainer;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.model.LinearModel;
import org.sodm.model.Model;

/**
 * {@code sodm train --kernel linear}: the primal-dual linear solvers (BQO, DSVRG), which keep w
 * explicitly. Their phases after ingest:
 *
 * <pre>
 * work/partition     the K blocks (TrainRecords, alpha empty), one file per block
 * work/bqo | dsvrg   the solve: w.bin (w and the bias weight) and solution.json (iterations, objective, history)
 * model.avro         a linear model (w, b); train-report.json with one entry per iteration
 * </pre>
 *
 * A subclass runs the iterations ({@link #solve}) inside the solve phase's temporary directory.
 */
public abstract class LinearTrainer implements Trainer {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a solve produced: w (with the bias weight last), the objective, violation (final, first) and the per-iteration history. */
  public record Solution(double[] w, int iterations, double objective, double violation, double initialViolation,
      List<Map<String, Object>> history, Map<String, Object> extra) {
    public Solution(double[] w, int iterations, double objective, double violation, double initialViolation,
        List<Map<String, Object>> history) {
      this(w, iterations, objective, violation, initialViolation, history, Map.of());
    }
  }

  /** Checks the data against the spec once ingest has run, before the partition job (bad input fails before any other job). */
  protected void checkData(TrainContext ctx, Configuration taskConf) {}

  /** {@link #checkData} of every task of a multi-class run, once, before any of its jobs. */
  private void checkTasks(TrainContext ctx, org.sodm.model.Subproblems plan, List<String> classes) {
    for (int t = 0; t < plan.tasks(); t++) checkData(ctx, taskConf(ctx.conf(), plan, classes, t));
  }

  /**
   * A task's configuration: its positive class and its negative class ("" for the rest, ovr) and, with per-class weights,
   * the task's +1 / -1 weights ({@link org.sodm.jobs.phase.MulticlassKeys#taskSpec}) as the loss's, so that the task's
   * solve is that of a binary run with those weights.
   */
  static Configuration taskConf(Configuration conf, org.sodm.model.Subproblems plan, List<String> classes, int t) {
    Configuration c = new Configuration(conf);
    int neg = plan.negativeClass(t);
    c.set(LinearKeys.TASK_POSITIVE, classes.get(plan.positiveClass(t)));
    c.set(LinearKeys.TASK_NEGATIVE, neg < 0 ? "" : classes.get(neg));
    String weights = conf.get(org.sodm.jobs.phase.MulticlassKeys.CLASS_WEIGHTS);
    if (weights != null && !weights.isEmpty()) {
      org.sodm.jobs.phase.MulticlassKeys.taskSpec(conf, TrainSpec.of(conf), t).writeTo(c);
      c.unset(org.sodm.jobs.phase.MulticlassKeys.CLASS_WEIGHTS);
    }
    return c;
  }

  /**
   * True when {@link #solve}'s tasks deal the {@code k} blocks from the ingested data themselves: no partition phase, and
   * {@code solve} gets no block directory (null).
   */
  protected boolean dealsInTasks(TrainSpec spec, int k) {
    return false;
  }

  /** Whether the partition job deals stratified blocks (DSVRG: seed 000 Algorithm 2 lines 1-2, --linear-partitioner). */
  protected boolean stratified(TrainSpec spec) {
    return false;
  }

  /** Only the strata's landmarks ({@link LinearStrata}) are chosen from the ingest's sample. */
  @Override
  public boolean readsIngestSample(TrainSpec spec) {
    return stratified(spec);
  }

  /**
   * True when {@link #solveTogether} solves every task of a multi-class problem on {@code k} blocks in one run (one phase
   * named {@link #name()}, no partition phase) instead of one partition and solve per task.
   */
  protected boolean solvesTasksTogether(TrainSpec spec, int k) {
    return false;
  }

  /**
   * True when {@link #solveTogether} also takes plans with folds (sodm cv, --probability's internal folds): every (task,
   * fold) sub-problem in the one run.
   */
  protected boolean solvesFoldsTogether(TrainSpec spec, int k) {
    return false;
  }

  /**
   * True when the plan's tasks are one problem over every class (multinomial logistic regression): they are never solved one
   * at a time, so a run on blocks the solver cannot take together fails before the solve ({@link #requireTogether}).
   */
  protected boolean couplesClasses(TrainSpec spec) {
    return false;
  }

  /** For {@link #couplesClasses}: true, or a failure naming the blocks when the solver cannot take the plan on {@code k} blocks. */
  private boolean requireTogether(TrainContext ctx, org.sodm.model.Subproblems plan, int k) {
    TrainSpec spec = ctx.spec();
    if (solvesTasksTogether(spec, k) && (plan.folds() == 0 || solvesFoldsTogether(spec, k))) return true;
    throw new org.sodm.jobs.support.SodmException(String.format(Locale.ROOT, "--multiclass multinomial: the classes are one problem, "
        + "and %s cannot solve them together on %d blocks (--linear-blocks); use --multiclass ovr", name(), k));  }

  /** TEST ONLY: false trains the tasks of a multi-class problem one after another even where the solver takes them together. */
  public static final String TASKS_TOGETHER = "sodm.internal.linear.tasks.together";

  /** TEST ONLY: false trains the (task, fold) sub-problems one after another even where the solver takes them together. */
  public static final String FOLDS_TOGETHER = "sodm.internal.linear.folds.together";

  /**
   * Bytes of per-row state a resident task keeps for each sub-problem it holds (y, the view's row bounds and norm, alpha,
   * d, the inner solver's gradient, diagonal and order: about 9 numbers per row).
   */
  static final long BYTES_PER_ROW_AND_SUBPROBLEM = 64;

  /** Whether the plan's (task, fold) sub-problems run together: the solver takes them and their state fits a task's budget. */
  private boolean foldsTogether(TrainContext ctx, org.sodm.model.Subproblems plan, int k) {
    if (couplesClasses(ctx.spec())) return requireTogether(ctx, plan, k);
    if (!solvesFoldsTogether(ctx.spec(), k) || !ctx.conf().getBoolean(FOLDS_TOGETHER, true)) return false;
    long rowsPerBlock = (ctx.data().stats().getRows() + k - 1) / k;
    long bytes = rowsPerBlock * plan.count() * BYTES_PER_ROW_AND_SUBPROBLEM;
    long budget = budget(ctx);
    if (bytes > budget) {
      ctx.runner().note(String.format(Locale.ROOT, "%s          %d sub-problems x %,d rows per block need ~%,d MB of solver state "
          + "per task, above the block budget (%,d MB): trained one after another", name(), plan.count(), rowsPerBlock, bytes >> 20,
          budget >> 20));
      return false;
    }
    return true;
  }

  /** A resident task's budget for solver state: the bytes of a block's values (sodm.train.linear.block.nonzeros x 16). */
  private static long budget(TrainContext ctx) {
    return ctx.spec().linear().blockNonZeros() * 16;
  }

  /** The phase and progress suffix of sub-problem {@code u}: -tN for a task, -tN-fF for a task without fold F. */
  static String suffix(org.sodm.model.Subproblems plan, int u) {
    int f = plan.heldOutFold(u);
    return "-t" + plan.task(u) + (f >= 0 ? "-f" + f : "");
  }

  /**
   * Every sub-problem of {@code plan} ({@code plan.count()}: tasks, or (task, fold) pairs) in one run on {@code k} blocks,
   * using {@code dir}: one solution per sub-problem, in sub-problem order.
   */
  protected List<Solution> solveTogether(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, Path dir)
      throws IOException {
    throw new UnsupportedOperationException(name() + " solves one task at a time");
  }

  /**
   * sodm grid --kernel linear: the C values of a warm-started path (comma-separated, increasing; the spec's C is the first), each
   * (task, fold) sub-problem solved along them in one run ({@link #solvesPath}); the report's "path" has every C's cv entry.
   */
  public static final String C_PATH = "sodm.internal.linear.cv.c.path";

  /** A C path ({@link #C_PATH}) this run cannot take in one resident run: the reason, before any job of the solve. */
  public static final class PathUnavailable extends org.sodm.jobs.support.SodmException {
    PathUnavailable(String why) {
      super(why);
    }
  }

  /** True when {@link #solvePath} takes the plan's (task, fold) sub-problems along a C path in one run on {@code k} blocks. */
  protected boolean solvesPath(TrainSpec spec, int k) {
    return false;
  }

  /**
   * Every sub-problem of {@code plan} along C_0 * scales in one run on {@code k} blocks: per sub-problem, per stage, a solution.
   */
  protected List<List<Solution>> solvePath(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, double[] scales,
      Path dir) throws IOException {
    throw new UnsupportedOperationException(name() + " solves no C path");
  }

  /**
   * A C path's progress - one line per C once every sub-problem has passed it (the per-iteration lines of 6 values of C x 5
   * folds would be thousands) - and its solutions per C, with a note per C naming the sub-problems that stopped at
   * --max-iterations: what the solvers' paths ({@link BqoTrainer}, {@link TronTrainer}) share.
   */
  static final class PathReport {
    private final TrainContext ctx;
    private final String label;
    private final double c0;
    private final double[] scales;
    private final int[] reached; // per sub-problem: the stages it has finished
    private final long[] iterations;
    private long stageSince = System.nanoTime();
    private int announced;

    PathReport(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, double[] scales, String label) {
      this(ctx, conf, plan.count(), scales, label);
    }

    /** @param programs the runs that report progress (sub-problems; multinomial: one softmax problem per slot) */
    PathReport(TrainContext ctx, Configuration conf, int programs, double[] scales, String label) {
      this.ctx = ctx;
      this.label = label;
      this.c0 = org.sodm.jobs.spec.Param.C.doubleValue(conf);
      this.scales = scales;
      this.reached = new int[programs];
      this.iterations = new long[scales.length];
    }

    /** Sub-problem {@code u} reported an iteration of stage {@code stage} (so it has finished the stages before). */
    void iteration(int u, int stage) {
      iterations[stage]++;
      reached[u] = Math.max(reached[u], stage);
      announceTo(Arrays.stream(reached).min().getAsInt());
    }

    private void announceTo(int all) {
      for (; announced < all; announced++) {
        ctx.runner().say(label, String.format(Locale.ROOT, "C %-10s solved on all %d sub-problems, %d resident iterations", c0 * scales[announced],
            reached.length, iterations[announced]), (System.nanoTime() - stageSince) / 1e9);
        stageSince = System.nanoTime();
      }
    }

    /** The remaining lines, then per C every sub-problem's solution (w with the bias weight 0 without --bias). */
    List<List<Solution>> finish(List<List<org.sodm.linear.BqoPath.Solved>> solved, int dim) {
      announceTo(scales.length);
      TrainSpec spec = ctx.spec();
      List<List<Solution>> out = new ArrayList<>();
      for (int c = 0; c < scales.length; c++) {
        List<Solution> level = new ArrayList<>();
        long unconverged = 0;
        for (List<org.sodm.linear.BqoPath.Solved> path : solved) {
          org.sodm.linear.BqoPath.Solved s = path.get(c);
          double[] w = Arrays.copyOf(s.w(), dim + 1);
          if (!spec.loss().bias()) w[dim] = 0;
          level.add(new Solution(w, s.iterations(), s.primal(), s.violation(), s.initialViolation(), List.of(),
              Map.of("converged", s.converged())));
          if (!s.converged()) unconverged++;
        }
        if (unconverged > 0) {
          ctx.runner().note(String.format(Locale.ROOT, "%-12s C %s: %d of %d sub-problems stopped at --max-iterations %d before the "
              + "stop (--linear-eps %s)", label, c0 * scales[c], unconverged, solved.size(), spec.linear().maxIterations(), spec.linear().eps()));
        }
        out.add(level);
      }
      return out;
    }
  }

  /** A configuration whose partition deals each row with y = its class index ({@link LinearKeys#CLASS_INDEX}). */
  static Configuration classIndexed(Configuration conf) {
    Configuration pc = new Configuration(conf);
    pc.setBoolean(LinearKeys.CLASS_INDEX, true);
    return pc;
  }

  /** The ingested rows dealt to {@code k} blocks under {@code dir/blocks} by {@code pc} (see {@link #classIndexed}) for a run of every task. */
  static Path partitionByClass(TrainContext ctx, Configuration pc, Path dir, int k) throws IOException {
    Path blocks = new Path(dir, "blocks");
    PartitionJob.run(pc, new Path(ctx.data().dir(), org.sodm.jobs.ingest.IngestJob.DATA), blocks, k);
    return blocks;
  }

  /** An empty progress history per sub-problem. */
  static List<List<Map<String, Object>>> histories(org.sodm.model.Subproblems plan) {
    List<List<Map<String, Object>>> h = new ArrayList<>();
    for (int u = 0; u < plan.count(); u++) h.add(new ArrayList<>());
    return h;
  }

  /** The model's bias from a solution (w has dim + 1 entries, the bias weight last). */
  protected double bias(TrainSpec spec, Solution s, int dim) {
    return spec.loss().bias() ? s.w()[dim] : 0;
  }

  /** The loss the model records. */
  protected org.sodm.solver.Loss modelLoss(TrainSpec spec, Solution s) {
    return spec.loss();
  }

  /** The solver's name (the solve phase and the model's solver field). */
  protected abstract String name();

  /**
   * Runs the solver on the blocks of {@code blocks} ({@code k} of them; null when {@link #dealsInTasks}), using {@code dir} for
   * its iterations' files.
   */
  protected abstract Solution solve(TrainContext ctx, Configuration conf, Path blocks, int k, Path dir) throws IOException;

  @Override
  public List<PhaseRunner.Planned> phases(TrainSpec spec) {
    return List.of(PhaseRunner.Planned.of("partition", true), PhaseRunner.Planned.of(name(), true));
  }

  /** Multi-class runs name their per-task phases partition-tN and SOLVER-tN. */
  @Override
  public boolean conditional(String name) {
    return name.matches("(partition|" + name() + ")-t[0-9]+(-f[0-9]+)?");
  }

  @Override
  public Trained train(TrainContext ctx) throws IOException {
    org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(ctx.conf());
    if (plan != null && !plan.full() && ctx.conf().get(C_PATH) != null) return crossValidatePath(ctx, plan);
    if (plan != null && !plan.full()) return crossValidate(ctx, plan);
    if (plan != null) return trainTasks(ctx, plan);
    Task one = trainTask(ctx, ctx.conf(), "", ctx.data().labelMap());
    return finish(ctx, one.model(), one.solution(), one.blocks());
  }

  /** One binary problem's partition and solve: the model, its solution and its block count. */
  private record Task(LinearModel model, Solution solution, int blocks) {}

  /**
   * Multi-class: one binary problem per task (ovr: class c against the rest; ovo: the pair's
   * rows), assembled into a {@link org.sodm.model.MulticlassModel}. A solver that takes them
   * together (BQO with dealt blocks) solves every task - and with --probability every (task,
   * fold) - in one resident run (phase SOLVER); otherwise each is partitioned and solved in turn
   * (phases partition-tN, SOLVER-tN).
   */
  private Trained trainTasks(TrainContext ctx, org.sodm.model.Subproblems plan) throws IOException {
    List<String> classes = org.sodm.jobs.phase.MulticlassKeys.classes(ctx.conf());
    checkTasks(ctx, plan, classes);
    int together = ctx.spec().linear().blocksFor(ctx.data().stats().getRows(), ctx.data().stats().getNonZeros());
    boolean inOneRun = couplesClasses(ctx.spec()) ? requireTogether(ctx, plan, together)
        : plan.folds() == 0 ? solvesTasksTogether(ctx.spec(), together) && ctx.conf().getBoolean(TASKS_TOGETHER, true)
        : foldsTogether(ctx, plan, together);
    List<Task> solved = inOneRun ? trainTogether(ctx, plan, classes, together) : null;
    ctx.runner().passed("partition", "none");
    if (solved == null) ctx.runner().passed(name(), "none");
    Model[] sub = new Model[plan.tasks()];
    double objective = 0;
    double violation = 0;
    double initial = 0;
    int blocks = 0;
    List<Map<String, Object>> tasks = new ArrayList<>();
    for (int t = 0; t < plan.tasks(); t++) {
      int neg = plan.negativeClass(t);
      String pos = classes.get(plan.positiveClass(t));
      Task task;
      if (solved != null) {
        task = solved.get(plan.sub(t, -1));
      } else {
        task = trainTask(ctx, taskConf(ctx.conf(), plan, classes, t), "-t" + t, org.sodm.model.ModelCodec.taskLabels(classes, plan, t));
      }
      sub[t] = task.model();
      objective += task.solution().objective();
      violation = Math.max(violation, task.solution().violation());
      initial = Math.max(initial, task.solution().initialViolation());
      blocks += task.blocks();
      Map<String, Object> e = entry("task", t, "positive", pos, "negative", neg < 0 ? "rest" : classes.get(neg), "iterations",
          task.solution().iterations(), "objective", task.solution().objective());
      Object gap = task.solution().extra().get("dualityGap"); // an L1 run's certificate (TronTrainer)
      if (gap != null) e.put("dualityGap", gap);
      tasks.add(e);
    }
    TrainSpec spec = ctx.spec();
    IngestJob.Result data = ctx.data();
    org.sodm.model.Subproblems tasksOnly = new org.sodm.model.Subproblems(plan.classes(), plan.scheme());
    Model probe = new org.sodm.model.MulticlassModel(org.sodm.kernel.KernelSpec.linear(), spec.loss(), data.scaler(), classes, tasksOnly,
        sub, null, null);
    Double acc = ctx.validationAccuracy(probe);
    LevelStats ls = new LevelStats(0, blocks, objective, violation, initial, 0L, 0L, ctx.runner().elapsed(), 0L, acc);
    if (acc != null) {
      ctx.runner().note(String.format(Locale.ROOT, "validation   accuracy %.2f%% on %,d rows", 100 * acc, ctx.validation().size()));
    }
    org.sodm.model.Platt[] platt = plan.folds() > 0 ? platt(ctx, plan, classes, tasksOnly, solved) : null;
    if (spec.loss() instanceof org.sodm.solver.Loss.Logistic) { // f is the log-odds: P(+1 | f) = 1 / (1 + exp(-f)), no fit
      platt = new org.sodm.model.Platt[plan.tasks()];
      java.util.Arrays.fill(platt, new org.sodm.model.Platt(-1, 0));
    }
    Model model = new org.sodm.model.MulticlassModel(org.sodm.kernel.KernelSpec.linear(), spec.loss(), data.scaler(), classes, tasksOnly,
        sub, platt, ctx.provenance(List.of(ls)));
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("solver", name());
    report.put("classes", classes);
    report.put("scheme", plan.scheme().id());
    report.put("validationAccuracy", acc);
    report.put("tasks", tasks);
    return new Trained(model, List.of(ls), report);
  }

  /** Every task in one phase ({@link #name()}): the resident tasks deal their blocks (rows keep their class index). */
  private List<Task> trainTogether(TrainContext ctx, org.sodm.model.Subproblems plan, List<String> classes, int k) throws IOException {
    return together(ctx, plan, classes, k, 0, (conf, temp) -> List.of(solveTogether(ctx, conf, plan, k, temp))).get(0);
  }

  /** How a phase of sub-problems solved together gets its solutions: per stage (one without a C path), per sub-problem. */
  private interface Together {
    List<List<Solution>> solve(Configuration conf, Path temp) throws IOException;
  }

  /** The files of sub-problem u at stage {@code stage} of a C path of {@code stages} (0: no path). */
  private static String suffix(org.sodm.model.Subproblems plan, int u, int stage, int stages) {
    return suffix(plan, u) + (stages > 0 ? "-c" + stage : "");
  }

  /**
   * Every sub-problem in one phase ({@link #name()}), along a C path of {@code stages} values (0: no path): per stage, per
   * sub-problem, the task.
   */
  private List<List<Task>> together(TrainContext ctx, org.sodm.model.Subproblems plan, List<String> classes, int k, int stages,
      Together how) throws IOException {
    TrainSpec spec = ctx.spec();
    IngestJob.Result data = ctx.data();
    int dim = data.stats().getDimension();
    Configuration conf = new Configuration(ctx.conf());
    conf.set(LinearKeys.INGEST_DIR, data.dir().toString());
    conf.setInt(LinearKeys.BLOCKS, k);
    int levels = Math.max(1, stages);
    PhaseRunner.Done solved = ctx.runner().run(name(), new PhaseRunner.Phase() {
      @Override
      public String name() {
        return LinearTrainer.this.name();
      }

      @Override
      public void write(Path temp) throws IOException {
        List<List<Solution>> all = how.solve(conf, temp);
        for (int c = 0; c < levels; c++) {
          for (int u = 0; u < all.get(c).size(); u++) writeSolution(conf, temp, suffix(plan, u, c, stages), all.get(c).get(u));
        }
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        long iterations = 0;
        boolean softmax = couplesClasses(spec); // one problem per slot: task 0's sub-problems hold its iterations
        for (int c = 0; c < levels; c++) {
          for (int u = 0; u < (softmax ? plan.slots() : plan.count()); u++) iterations += read(conf, dir, suffix(plan, u, c, stages)).iterations();
        }
        String what = softmax ? (plan.folds() == 0 ? "one softmax problem over " + plan.classes() + " classes"
            : String.format(Locale.ROOT, "%d softmax problems over %d classes (%s%d folds)", plan.slots(), plan.classes(),
                plan.full() ? "all rows + " : "", plan.folds()))
            : plan.folds() == 0 ? plan.tasks() + " tasks"
            : String.format(Locale.ROOT, "%d sub-problems (%d task(s) x %s%d folds)", plan.count(), plan.tasks(), plan.full() ? "all rows + " : "",
                plan.folds());
        return String.format(Locale.ROOT, "%s%s on %d block(s) in one run, %d iterations in all", what,
            stages > 0 ? " x " + stages + " values of C" : "", k, iterations);
      }
    });
    List<List<Task>> out = new ArrayList<>();
    for (int c = 0; c < levels; c++) {
      List<Task> level = new ArrayList<>();
      for (int u = 0; u < plan.count(); u++) {
        Solution s = read(conf, solved.dir(), suffix(plan, u, c, stages));
        double[] w = Arrays.copyOf(s.w(), dim);
        level.add(new Task(new LinearModel(modelLoss(spec, s), org.sodm.model.ModelCodec.taskLabels(classes, plan, plan.task(u)),
            data.scaler(), w, bias(spec, s, dim), name(), null), s, k));
      }
      out.add(level);
    }
    return out;
  }

  /** A solution as the solve phase keeps it: {@code w<suffix>.bin} and {@code solution<suffix>.json}. */
  private static void writeSolution(Configuration conf, Path dir, String suffix, Solution s) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    LinearKeys.writeW(conf, new Path(dir, "w" + suffix + ".bin"), s.w());
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("iterations", s.iterations());
    m.put("objective", s.objective());
    m.put("violation", s.violation());
    m.put("initialViolation", s.initialViolation());
    m.put("history", s.history());
    m.put("extra", s.extra());
    try (OutputStream o = fs.create(new Path(dir, "solution" + suffix + ".json"), false)) {
      o.write(JSON.writeValueAsBytes(m));
    }
  }

  /**
   * --probability with a linear solver: every task trained once more per internal fold without it
   * (in the run of the full tasks when {@code solved} holds them; else phases partition-tN-fF,
   * SOLVER-tN-fF, one after another; a row's fold is the kernel tree's
   * {@code Seeds.fold(seed, id, folds)}), and Platt's sigmoid of each task fitted on the decision
   * values of its rows by the model that did not see them (LIBSVM's internal cross-validation).
   */
  private org.sodm.model.Platt[] platt(TrainContext ctx, org.sodm.model.Subproblems plan, List<String> classes,
      org.sodm.model.Subproblems tasksOnly, List<Task> solved) throws IOException {
    long t0 = System.nanoTime();
    Configuration conf = ctx.conf();
    TrainSpec spec = ctx.spec();
    IngestJob.Result data = ctx.data();
    int folds = plan.folds();
    org.sodm.model.MulticlassModel[] byFold = new org.sodm.model.MulticlassModel[folds];
    for (int f = 0; f < folds; f++) {
      Model[] sub = new Model[plan.tasks()];
      for (int t = 0; t < plan.tasks(); t++) {
        if (solved != null) { // trained in the one run with the full tasks
          sub[t] = solved.get(plan.sub(t, f)).model();
          continue;
        }
        Configuration c = taskConf(conf, plan, classes, t);
        c.setInt(LinearKeys.HELD_OUT_FOLD, f);
        c.setInt(LinearKeys.HASH_FOLDS, folds);
        sub[t] = trainTask(ctx, c, "-t" + t + "-f" + f, org.sodm.model.ModelCodec.taskLabels(classes, plan, t)).model();
      }
      byFold[f] = new org.sodm.model.MulticlassModel(org.sodm.kernel.KernelSpec.linear(), spec.loss(), data.scaler(), classes, tasksOnly,
          sub, null, null);
    }
    Map<String, Integer> classIndex = new java.util.HashMap<>();
    for (int c = 0; c < classes.size(); c++) classIndex.put(classes.get(c), c);
    List<List<double[]>> pairs = new ArrayList<>(); // per task: {decision value, y}
    for (int t = 0; t < plan.tasks(); t++) pairs.add(new ArrayList<>());
    org.sodm.data.Scaler scaler = data.scaler();
    org.sodm.jobs.support.AvroFiles.forEach(conf, new Path(data.dir(), IngestJob.DATA), org.sodm.avro.Instance.class, in -> {
      int cls = classIndex.get(in.getLabel().toString());
      int fold = org.sodm.data.Seeds.fold(spec.seed(), in.getId(), folds);
      org.sodm.data.SparseVector x = org.sodm.data.Instances.features(in.getFeatures());
      double[] f = byFold[fold].decisionValues(scaler == null ? x : scaler.apply(x));
      for (int t = 0; t < plan.tasks(); t++) {
        double y = plan.y(t, cls);
        if (y != 0) pairs.get(t).add(new double[] {f[t], y});
      }
    });
    org.sodm.model.Platt[] out = new org.sodm.model.Platt[plan.tasks()];
    for (int t = 0; t < out.length; t++) {
      double[] dec = pairs.get(t).stream().mapToDouble(p -> p[0]).toArray();
      double[] lab = pairs.get(t).stream().mapToDouble(p -> p[1]).toArray();
      out[t] = org.sodm.model.Platt.fit(dec, lab);
      if (!Double.isFinite(out[t].a()) || !Double.isFinite(out[t].b())) {
        throw new org.sodm.jobs.support.SodmException(String.format(Locale.ROOT, "Platt's fit of task %d gave A = %s, B = %s", t, out[t].a(),
            out[t].b()));
      }
    }
    ctx.runner().say("probability", String.format(Locale.ROOT, "Platt's sigmoids of %d task(s) on the decision values of %d folds",
        out.length, folds), (System.nanoTime() - t0) / 1e9);
    return out;
  }

  /**
   * sodm cv with a linear solver: every (task, fold) trained without its fold - in one resident
   * run (phase SOLVER) when the solver takes them together (BQO with dealt blocks, as the kernel
   * tree's jobs do), else one after another (phases partition-tN-fF, SOLVER-tN-fF); every row is
   * scored by its fold's models. The report's "cv" entry is the
   * kernel tree's (per fold rows, correct and accuracy; mean, sd, pooled accuracy); the model
   * written is fold 0's.
   */
  private Trained crossValidate(TrainContext ctx, org.sodm.model.Subproblems plan) throws IOException {
    Configuration conf = ctx.conf();
    List<String> classes = org.sodm.jobs.phase.MulticlassKeys.classes(conf);
    checkTasks(ctx, plan, classes);
    org.sodm.jobs.phase.FoldFile folds = org.sodm.jobs.phase.FoldFile.read(conf,
        new Path(conf.get(org.sodm.jobs.phase.MulticlassKeys.CV_FOLDS_FILE)));
    int together = ctx.spec().linear().blocksFor(ctx.data().stats().getRows(), ctx.data().stats().getNonZeros());
    List<Task> solved = foldsTogether(ctx, plan, together) ? trainTogether(ctx, plan, classes, together) : null;
    ctx.runner().passed("partition", "none");
    if (solved == null) ctx.runner().passed(name(), "none");
    TrainSpec spec = ctx.spec();
    IngestJob.Result data = ctx.data();
    org.sodm.model.Subproblems tasksOnly = new org.sodm.model.Subproblems(plan.classes(), plan.scheme());
    org.sodm.model.MulticlassModel[] byFold = new org.sodm.model.MulticlassModel[plan.folds()];
    Model[] fold0 = null;
    double objective = 0;
    int blocks = 0;
    for (int f = 0; f < byFold.length; f++) {
      Model[] sub = new Model[plan.tasks()];
      for (int t = 0; t < plan.tasks(); t++) {
        Task task;
        if (solved != null) {
          task = solved.get(plan.sub(t, f));
        } else {
          Configuration c = taskConf(conf, plan, classes, t);
          c.setInt(LinearKeys.HELD_OUT_FOLD, f);
          task = trainTask(ctx, c, "-t" + t + "-f" + f, org.sodm.model.ModelCodec.taskLabels(classes, plan, t));
        }
        sub[t] = task.model();
        objective += task.solution().objective();
        blocks += task.blocks();
      }
      if (f == 0) fold0 = sub;
      byFold[f] = new org.sodm.model.MulticlassModel(org.sodm.kernel.KernelSpec.linear(), spec.loss(), data.scaler(), classes, tasksOnly,
          sub, null, null);
    }
    long[] rows = new long[byFold.length];
    long[] correct = new long[byFold.length];
    org.sodm.jobs.support.AvroFiles.forEach(conf, new Path(data.dir(), IngestJob.DATA), org.sodm.avro.Instance.class, in -> {
      int f = folds.of(in.getId());
      rows[f]++;
      if (byFold[f].predict(org.sodm.data.Instances.features(in.getFeatures())).equals(in.getLabel().toString())) correct[f]++;
    });
    for (int f = 0; f < rows.length; f++) {
      ctx.runner().note(String.format(Locale.ROOT, "cv fold %-4d %,9d rows  accuracy %.4f%%", f, rows[f], 100.0 * correct[f] / rows[f]));
    }
    Map<String, Object> cv = cvEntry(rows, correct);
    ctx.runner().note("cv           " + cvLine(cv));
    cv.put("together", solved != null);
    return cvTrained(ctx, plan, classes, blocks, objective, fold0, cv, null);
  }

  /**
   * A cross-validation's result: the model of {@code models} (fold 0's tasks) with the sub-problems' objective, and the report's
   * solver, classes, scheme, "cv" and (a C path's) "path".
   */
  private Trained cvTrained(TrainContext ctx, org.sodm.model.Subproblems plan, List<String> classes, int blocks, double objective,
      Model[] models, Map<String, Object> cv, List<Map<String, Object>> path) {
    LevelStats ls = new LevelStats(0, blocks, objective, 0.0, 0.0, 0L, 0L, ctx.runner().elapsed(), 0L, null);
    Model model = new org.sodm.model.MulticlassModel(org.sodm.kernel.KernelSpec.linear(), ctx.spec().loss(), ctx.data().scaler(), classes,
        new org.sodm.model.Subproblems(plan.classes(), plan.scheme()), models, null, ctx.provenance(List.of(ls)));
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("solver", name());
    report.put("classes", classes);
    report.put("scheme", plan.scheme().id());
    report.put("cv", cv);
    if (path != null) report.put("path", path);
    return new Trained(model, List.of(ls), report);
  }

  /** The report's cv entry (the kernel tree's): per fold rows, correct and accuracy; mean, sd, pooled accuracy, rows. */
  private static Map<String, Object> cvEntry(long[] rows, long[] correct) {
    List<Map<String, Object>> perFold = new ArrayList<>();
    double mean = 0;
    long allRows = 0;
    long allCorrect = 0;
    for (int f = 0; f < rows.length; f++) {
      double acc = (double) correct[f] / rows[f];
      mean += acc / rows.length;
      allRows += rows[f];
      allCorrect += correct[f];
      perFold.add(entry("fold", f, "rows", rows[f], "correct", correct[f], "accuracy", acc));
    }
    double var = 0;
    for (int f = 0; f < rows.length; f++) var += Math.pow((double) correct[f] / rows[f] - mean, 2);
    double sd = Math.sqrt(var / (rows.length - 1));
    return entry("folds", perFold, "mean", mean, "sd", sd, "accuracy", (double) allCorrect / allRows, "rows", allRows,
        "correct", allCorrect);
  }

  private static String cvLine(Map<String, Object> cv) {
    return String.format(Locale.ROOT, "%d folds: accuracy %.4f%% (%,d of %,d rows), per fold %.4f%% +- %.4f",
        ((List<?>) cv.get("folds")).size(), 100 * (double) cv.get("accuracy"), (long) cv.get("correct"), (long) cv.get("rows"),
        100 * (double) cv.get("mean"), 100 * (double) cv.get("sd"));
  }

  /** The increasing C values of {@link #C_PATH}. */
  static double[] cPath(Configuration conf) {
    String[] p = conf.getTrimmedStrings(C_PATH);
    double[] cs = new double[p.length];
    for (int i = 0; i < p.length; i++) {
      cs[i] = Double.parseDouble(p[i]);
      if (!(cs[i] > 0) || (i > 0 && !(cs[i] > cs[i - 1]))) throw new IllegalArgumentException("C path " + conf.get(C_PATH) + ": not increasing");
    }
    if (cs.length == 0) throw new IllegalArgumentException("an empty C path");
    return cs;
  }

  /**
   * sodm grid --kernel linear ({@link #C_PATH}): every (task, fold) sub-problem solved along the C values, each C warm-started
   * from the previous C's solution ({@link #solvePath}), in one resident run; every row scored by its fold's model at every C.
   * The report's "path" has each C's cv entry (as {@link #crossValidate}'s) with its iterations; "cv" is the first C's; the
   * model written is the first C's fold 0's. Throws {@link PathUnavailable} before any job when the solver or the memory budget
   * does not take the path in one run.
   */
  private Trained crossValidatePath(TrainContext ctx, org.sodm.model.Subproblems plan) throws IOException {
    Configuration conf = ctx.conf();
    List<String> classes = org.sodm.jobs.phase.MulticlassKeys.classes(conf);
    checkTasks(ctx, plan, classes);
    double[] cs = cPath(conf);
    TrainSpec spec = ctx.spec();
    IngestJob.Result data = ctx.data();
    int k = spec.linear().blocksFor(data.stats().getRows(), data.stats().getNonZeros());
    if (!solvesPath(spec, k)) {
      throw new PathUnavailable(String.format(Locale.ROOT, "%s on %d block(s) in --iteration-mode %s takes no warm-started C path (BQO "
          + "and TRON, on at most %d blocks in allreduce mode, do)", name(), k, spec.linear().iterationMode().name().toLowerCase(Locale.ROOT),
          BqoTrainer.DEAL_IN_TASKS));
    }
    if (!foldsTogether(ctx, plan, k)) throw new PathUnavailable("the sub-problems' solver state is above a task's block budget");
    // every rank keeps each sub-problem's model at every C it has passed, and rank 0 encodes them once more in its checkpoints
    long pathBytes = (long) plan.count() * cs.length * (data.stats().getDimension() + 1L) * Double.BYTES * (k + 1);
    if (pathBytes > budget(ctx)) {
      throw new PathUnavailable(String.format(Locale.ROOT, "the path keeps %d sub-problems' models at %d values of C over %,d features: "
          + "~%,d MB, above a task's block budget (%,d MB, sodm.train.linear.block.nonzeros x 16 bytes)", plan.count(), cs.length,
          data.stats().getDimension(), pathBytes >> 20, budget(ctx) >> 20));
    }
    org.sodm.jobs.phase.FoldFile folds = org.sodm.jobs.phase.FoldFile.read(conf,
        new Path(conf.get(org.sodm.jobs.phase.MulticlassKeys.CV_FOLDS_FILE)));
    double[] scales = new double[cs.length];
    for (int c = 0; c < cs.length; c++) scales[c] = cs[c] / cs[0];
    List<List<Task>> solved = together(ctx, plan, classes, k, cs.length, (c, temp) -> solvePath(ctx, c, plan, k, scales, temp));
    ctx.runner().passed("partition", "none");
    org.sodm.model.Subproblems tasksOnly = new org.sodm.model.Subproblems(plan.classes(), plan.scheme());
    org.sodm.model.MulticlassModel[][] byPath = new org.sodm.model.MulticlassModel[cs.length][plan.folds()];
    Model[] first = null;
    for (int c = 0; c < cs.length; c++) {
      for (int f = 0; f < plan.folds(); f++) {
        Model[] sub = new Model[plan.tasks()];
        for (int t = 0; t < plan.tasks(); t++) sub[t] = solved.get(c).get(plan.sub(t, f)).model();
        if (c == 0 && f == 0) first = sub;
        byPath[c][f] = new org.sodm.model.MulticlassModel(org.sodm.kernel.KernelSpec.linear(), spec.loss(), data.scaler(), classes,
            tasksOnly, sub, null, null);
      }
    }
    long[] rows = new long[plan.folds()];
    long[][] correct = new long[cs.length][plan.folds()];
    org.sodm.jobs.support.AvroFiles.forEach(conf, new Path(data.dir(), IngestJob.DATA), org.sodm.avro.Instance.class, in -> {
      int f = folds.of(in.getId());
      rows[f]++;
      org.sodm.data.SparseVector x = org.sodm.data.Instances.features(in.getFeatures());
      String label = in.getLabel().toString();
      for (int c = 0; c < cs.length; c++) if (byPath[c][f].predict(x).equals(label)) correct[c][f]++;
    });
    List<Map<String, Object>> path = new ArrayList<>();
    double objective = 0;
    for (int c = 0; c < cs.length; c++) {
      Map<String, Object> cv = cvEntry(rows, correct[c]);
      long iterations = 0;
      double primal = 0;
      List<Task> level = solved.get(c);
      for (int u = 0; u < level.size(); u++) {
        if (!couplesClasses(spec) || plan.task(u) == 0) iterations += level.get(u).solution().iterations(); // softmax: one per slot
        primal += level.get(u).solution().objective();
      }
      if (c == 0) objective = primal;
      cv.put("c", cs[c]);
      cv.put("iterations", iterations);
      cv.put("objective", primal);
      ctx.runner().note(String.format(Locale.ROOT, "cv C %-10s %s, %d iterations", cs[c], cvLine(cv), iterations));
      path.add(cv);
    }
    return cvTrained(ctx, plan, classes, k, objective, first, path.get(0), path);
  }

  private Task trainTask(TrainContext ctx, Configuration taskConf, String suffix, org.sodm.data.LabelMap labels) throws IOException {
    PhaseRunner runner = ctx.runner();
    TrainSpec spec = ctx.spec();
    IngestJob.Result data = ctx.data();
    int dim = data.stats().getDimension();
    int k = spec.linear().blocksFor(data.stats().getRows(), data.stats().getNonZeros());
    checkData(ctx, taskConf);
    Configuration conf = new Configuration(taskConf);
    conf.set(LinearKeys.INGEST_DIR, data.dir().toString());
    conf.setInt(LinearKeys.BLOCKS, k);

    boolean dealt = dealsInTasks(spec, k);
    if (dealt) runner.passed("partition" + suffix, "the solve's " + k + " task(s) deal their blocks from the ingested data");
    PhaseRunner.Done part = dealt ? null : runner.run("blocks" + suffix, new PhaseRunner.Phase() {
      @Override
      public String name() {
        return "partition" + suffix;
      }

      @Override
      public void write(Path temp) throws IOException {
        Configuration pc = conf;
        if (stratified(spec) && k > 1) {
          pc = new Configuration(conf);
          Path lm = new Path(temp, LinearStrata.FILE);
          LinearStrata.select(pc, data.dir(), lm);
          pc.set(LinearKeys.LANDMARKS, lm.toString());
        }
        PartitionJob.run(pc, new Path(data.dir(), IngestJob.DATA), new Path(temp, "blocks"), k);
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        if (stratified(spec) && k > 1) {
          int s = org.sodm.jobs.support.AvroFiles.readAll(conf, new Path(dir, LinearStrata.FILE), org.sodm.avro.TrainRecord.class).size();
          return String.format(Locale.ROOT, "%,d rows dealt to %d blocks (stratified: %d landmarks x 2 classes, seed %d)",
              data.stats().getRows(), k, s, spec.seed());
        }
        return String.format(Locale.ROOT, "%,d rows dealt to %d blocks (random, seed %d)", data.stats().getRows(), k, spec.seed());
      }
    });

    PhaseRunner.Done solved = runner.run(name() + suffix, new PhaseRunner.Phase() {
      @Override
      public String name() {
        return LinearTrainer.this.name() + suffix;
      }

      @Override
      public void write(Path temp) throws IOException {
        writeSolution(conf, temp, "", solve(ctx, conf, dealt ? null : new Path(part.dir(), "blocks"), k, temp));
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        Solution s = read(conf, dir);
        return String.format(Locale.ROOT, "%d iterations, primal %.10g", s.iterations(), s.objective());
      }
    });

    Solution s = read(conf, solved.dir());
    double[] w = Arrays.copyOf(s.w(), dim);
    double bias = bias(spec, s, dim);
    org.sodm.solver.Loss modelLoss = modelLoss(spec, s);
    return new Task(new LinearModel(modelLoss, labels, data.scaler(), w, bias, name(), null), s, k);
  }

  /** The binary run's model, report and level statistics. */
  private Trained finish(TrainContext ctx, LinearModel probe, Solution s, int k) {
    PhaseRunner runner = ctx.runner();
    IngestJob.Result data = ctx.data();
    double[] w = probe.w();
    double bias = probe.bias();
    org.sodm.solver.Loss loss = probe.loss();
    Double acc = ctx.validationAccuracy(probe);
    LevelStats ls = new LevelStats(0, k, s.objective(), s.violation(), s.initialViolation(), 0L, 0L, runner.elapsed(), 0L, acc);
    if (acc != null) {
      runner.note(String.format(Locale.ROOT, "validation   accuracy %.2f%% on %,d rows", 100 * acc, ctx.validation().size()));
    }
    Model model = new LinearModel(loss, data.labelMap(), data.scaler(), w, bias, name(), ctx.provenance(List.of(ls)));
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("solver", name());
    report.put("blocks", k);
    report.put("iterations", s.iterations());
    report.put("objective", s.objective());
    report.put("validationAccuracy", acc);
    report.putAll(s.extra());
    report.put("history", s.history());
    return new Trained(model, List.of(ls), report);
  }

  private static Solution read(Configuration conf, Path dir) throws IOException {
    return read(conf, dir, "");
  }

  @SuppressWarnings("unchecked")
  private static Solution read(Configuration conf, Path dir, String suffix) throws IOException {
    double[] w = LinearKeys.readW(conf, new Path(dir, "w" + suffix + ".bin"));
    Map<String, Object> m;
    try (InputStream in = dir.getFileSystem(conf).open(new Path(dir, "solution" + suffix + ".json"))) {
      m = JSON.readValue(in, Map.class);
    }
    return new Solution(w, ((Number) m.get("iterations")).intValue(), ((Number) m.get("objective")).doubleValue(),
        ((Number) m.get("violation")).doubleValue(), ((Number) m.get("initialViolation")).doubleValue(),
        new ArrayList<>((List<Map<String, Object>>) m.get("history")),
        m.get("extra") == null ? Map.of() : new LinkedHashMap<>((Map<String, Object>) m.get("extra")));
  }

  /** One iteration's entry of the history (insertion-ordered). */
  protected static Map<String, Object> entry(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return m;
  }
}
