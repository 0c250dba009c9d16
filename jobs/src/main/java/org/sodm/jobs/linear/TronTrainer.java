package org.sodm.jobs.linear;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.phase.PhaseRunner;
import org.sodm.jobs.phase.TrainContext;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.linear.SoftmaxBlock;
import org.sodm.linear.Tron;
import org.sodm.linear.TronRank;

/**
 * {@code --loss logistic}: L2-regularised logistic regression (LIBLINEAR's {@code -s 0}) by a trust-region Newton method whose
 * sums over the rows are AllReduce sums over the blocks ({@link TronResident}); one resident job, whatever the number of
 * iterations. Up to {@value BqoTrainer#DEAL_IN_TASKS} blocks the tasks deal their blocks from the ingested data (no partition
 * job), and a multi-class problem's tasks (one-vs-rest) run together in that one job.
 */
public final class TronTrainer extends LinearTrainer {
  @Override
  protected String name() {
    return "tron";
  }

  @Override
  protected boolean dealsInTasks(TrainSpec spec, int k) {
    return k <= BqoTrainer.DEAL_IN_TASKS;
  }

  /** One-vs-rest tasks together on dealt blocks; a multinomial model's classes always (above 4 blocks on the partition job's). */
  @Override
  protected boolean solvesTasksTogether(TrainSpec spec, int k) {
    return dealsInTasks(spec, k) || spec.multinomial();
  }

  @Override
  protected boolean solvesFoldsTogether(TrainSpec spec, int k) {
    return dealsInTasks(spec, k) || spec.multinomial();
  }

  /** --multiclass multinomial: the classes are one softmax problem, never one-vs-rest tasks solved in turn. */
  @Override
  protected boolean couplesClasses(TrainSpec spec) {
    return spec.multinomial();
  }

  /** A linear grid's C path: every (task, fold) along every C in one resident run ({@link TronResident#trainPath}). */
  @Override
  protected boolean solvesPath(TrainSpec spec, int k) {
    return dealsInTasks(spec, k);
  }

  @Override
  protected List<List<Solution>> solvePath(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, double[] scales,
      Path dir) throws IOException {
    int dim = ctx.data().stats().getDimension();
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    chooseMethod(ctx, conf, k);
    PathReport report = ctx.spec().multinomial() ? new PathReport(ctx, conf, plan.slots(), scales, "softmax-path")
        : new PathReport(ctx, conf, plan, scales, "tron-path");
    if (!ctx.spec().multinomial()) {
      List<List<org.sodm.linear.BqoPath.Solved>> solved = TronResident.trainPath(conf, k, dir, dim, scales, report::iteration,
          note -> ctx.runner().say("allreduce", note, 0));
      return report.finish(solved, dim);
    }
    // multinomial: one path per slot; every task of the slot has its class's weights of each stage's W
    List<List<org.sodm.linear.BqoPath.Solved>> bySlot = TronResident.trainPath(conf, k, dir, dim, scales, report::iteration,
        note -> ctx.runner().say("allreduce", note, 0));
    List<List<org.sodm.linear.BqoPath.Solved>> solved = new ArrayList<>();
    for (int u = 0; u < plan.count(); u++) {
      List<org.sodm.linear.BqoPath.Solved> stages = new ArrayList<>();
      for (org.sodm.linear.BqoPath.Solved s : bySlot.get(u % plan.slots())) {
        stages.add(new org.sodm.linear.BqoPath.Solved(SoftmaxBlock.classWeights(s.w(), plan.classes(), plan.task(u)),
            s.primal() / plan.tasks(), s.iterations(), s.converged(), s.violation(), s.initialViolation()));
      }
      solved.add(stages);
    }
    return report.finish(solved, dim);
  }

  @Override
  protected Solution solve(TrainContext ctx, Configuration conf, Path blockDir, int k, Path dir) throws IOException {
    PhaseRunner runner = ctx.runner();
    int dim = ctx.data().stats().getDimension();
    List<Map<String, Object>> history = new ArrayList<>();
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    chooseMethod(ctx, conf, k);
    TronRank.State st = TronResident.train(conf, blockDir, k, dir, dim, (u, tr, since) -> {
      double sec = (System.nanoTime() - since) / 1e9;
      runner.say("tron " + tr.trial(), line(tr, ctx.spec().l1()), sec);
      history.add(entry(tr, sec));
    }, note -> runner.say("allreduce", note, 0));
    return solution(ctx, conf, st, 1, history, "tron");
  }

  @Override
  protected List<Solution> solveTogether(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, Path dir)
      throws IOException {
    if (ctx.spec().multinomial()) return solveSoftmax(ctx, conf, plan, k, dir);
    PhaseRunner runner = ctx.runner();
    int dim = ctx.data().stats().getDimension();
    List<List<Map<String, Object>>> histories = histories(plan);
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    chooseMethod(ctx, conf, k);
    TronRank.State[] states = TronResident.trainTasks(conf, k, dir, dim, (u, tr, since) -> {
      double sec = (System.nanoTime() - since) / 1e9;
      runner.say("tron" + suffix(plan, u) + " " + tr.trial(), line(tr, ctx.spec().l1()), sec);
      histories.get(u).add(entry(tr, sec));
    }, note -> runner.say("allreduce", note, 0));
    List<Solution> out = new ArrayList<>();
    for (int u = 0; u < states.length; u++) out.add(solution(ctx, conf, states[u], 1, histories.get(u), "tron" + suffix(plan, u)));
    return out;
  }

  /**
   * --multiclass multinomial: one softmax problem per slot (the full problem, each fold held out) in one resident run; task t's
   * solution is class t's weights of its slot's W, with the slot's Newton iterations and history, and f / K as its objective
   * (so the tasks' objectives add up to the softmax problem's f).
   */
  private List<Solution> solveSoftmax(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, Path dir)
      throws IOException {
    PhaseRunner runner = ctx.runner();
    int dim = ctx.data().stats().getDimension();
    int slots = plan.slots();
    List<List<Map<String, Object>>> histories = new ArrayList<>();
    for (int s = 0; s < slots; s++) histories.add(new ArrayList<>());
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    chooseMethod(ctx, conf, k);
    Configuration pc = dealsInTasks(ctx.spec(), k) ? conf : classIndexed(conf);
    Path blocks = dealsInTasks(ctx.spec(), k) ? null : partitionByClass(ctx, pc, dir, k); // the tasks deal at most 4 blocks
    TronRank.State[] states = TronResident.trainTasks(pc, blocks, k, dir, dim, (s, tr, since) -> {
      double sec = (System.nanoTime() - since) / 1e9;
      runner.say("softmax" + slotSuffix(plan, s) + " " + tr.trial(), line(tr, ctx.spec().l1()), sec);
      histories.get(s).add(entry(tr, sec));
    }, note -> runner.say("allreduce", note, 0));
    if (blocks != null) dir.getFileSystem(conf).delete(blocks, true);
    Solution[] bySlot = new Solution[slots];
    for (int s = 0; s < slots; s++) bySlot[s] = solution(ctx, pc, states[s], plan.classes(), histories.get(s), "softmax" + slotSuffix(plan, s));
    List<Solution> out = new ArrayList<>();
    for (int u = 0; u < plan.count(); u++) {
      Solution w = bySlot[u % slots];
      double[] wt = SoftmaxBlock.classWeights(w.w(), plan.classes(), plan.task(u));
      Map<String, Object> extra = new java.util.LinkedHashMap<>(Map.of("converged", w.extra().get("converged"), "softmaxObjective",
          w.objective()));
      if (w.extra().containsKey("dualityGap")) extra.put("softmaxDualityGap", w.extra().get("dualityGap"));
      out.add(new Solution(wt, w.iterations(), w.objective() / plan.tasks(), w.violation(), w.initialViolation(), w.history(), extra));
    }
    return out;
  }

  /**
   * --penalty l1: the method ({@link TrainSpec#logisticSolver}) for the tasks, said once per run with why (auto's rule), as
   * {@link LinearKeys#L1_METHOD}.
   */
  private static void chooseMethod(TrainContext ctx, Configuration conf, int blocks) {
    TrainSpec spec = ctx.spec();
    if (!spec.l1()) return;
    org.sodm.avro.FeatureStats st = ctx.data().stats();
    int classes = spec.multinomial() ? org.sodm.jobs.phase.MulticlassKeys.plan(conf).classes() : 1;
    int weights = (st.getDimension() + 1) * classes;
    double perRow = (st.getRows() == 0 ? 1.0 : (double) st.getNonZeros() / st.getRows() + 1) * classes;
    TronRank.Solver s = spec.logisticSolver(weights, classes, st.getRows(), st.getNonZeros(), blocks);
    String heapNote = "";
    if (s == TronRank.Solver.GLMNET_COLUMNS) {
      org.sodm.model.Subproblems plan = org.sodm.jobs.phase.MulticlassKeys.plan(conf); // null: one binary problem
      String tooLarge = columnsTooLarge(st.getRows(), st.getNonZeros(), classes, plan == null ? 1 : plan.slots(),
          org.sodm.jobs.train.BlockMemory.taskHeap(conf, blocks, true));
      if (tooLarge != null && spec.l1SolverGiven()) {
        throw TrainSpec.bad(Param.L1_SOLVER, "glmnet by column: " + tooLarge + "; use owlqn or auto, or more heap (SODM_JAVA_OPTS=-Xmx... "
            + "in local mode; mapreduce.map.memory.mb and mapreduce.map.java.opts on a cluster)");
      }
      if (tooLarge != null) {
        s = TronRank.Solver.OWLQN;
        heapNote = "; by column " + tooLarge;
      }
    }
    boolean said = conf.get(LinearKeys.L1_METHOD) != null;
    conf.set(LinearKeys.L1_METHOD, s.name());
    if (said) return;
    String why = String.format(Locale.ROOT, "%s: %d weights %s %d, %.1f stored values per row%s %s %.0f%s", spec.l1SolverGiven()
        ? "--l1-solver" : "auto", weights, weights <= org.sodm.linear.GlmNet.AUTO_MAX_WEIGHTS ? "<=" : ">",
        org.sodm.linear.GlmNet.AUTO_MAX_WEIGHTS, perRow, classes > 1 ? " x " + classes + " classes" : "",
        perRow <= org.sodm.linear.GlmNet.AUTO_MAX_ROW_VALUES ? "<=" : ">", org.sodm.linear.GlmNet.AUTO_MAX_ROW_VALUES,
        s == TronRank.Solver.GLMNET_COLUMNS ? ", every row in one block" : "") + heapNote;
    TronRank.Penalty p = spec.penalty();
    String what = p.l2() == 0 ? "" : "elastic net " + plain(p.l1()) + " |w|_1 + " + plain(p.l2()) + "/2 |w|^2, ";
    ctx.runner().say("l1", what + "by " + methodName(s) + " (" + why + ")", 0);
  }

  /**
   * Why newGLMNET's column form would not fit a resident task's heap, or null when it fits: the block's rows ({@code rows} rows,
   * {@code nonZeros} stored values, 12 bytes each, and ~64 bytes per row, 24 more per class of a multinomial model's {@code
   * classes}) once by row and, for each of its {@code slots} sub-problems (the problem and its cross-validation folds), once
   * more by column, within {@link org.sodm.jobs.train.BlockMemory#USABLE} of the heap.
   */
  static String columnsTooLarge(long rows, long nonZeros, int classes, int slots, org.sodm.jobs.train.BlockMemory.Heap heap) {
    long need = (12L * nonZeros + (64L + (classes > 1 ? 24L * classes : 0)) * rows) * (1 + slots);
    if (need <= org.sodm.jobs.train.BlockMemory.USABLE * heap.bytes()) return null;
    return String.format(Locale.ROOT, "the rows by row and by column (%d sub-problem(s)) need ~%,d MB, above a task's ~%,d MB (%s)", slots,
        need >> 20, heap.bytes() >> 20, heap.source());
  }

  /** The L1 method as the run's lines name it. */
  static String methodName(TronRank.Solver s) {
    return switch (s) {
      case GLMNET -> "newGLMNET on the dense Hessian";
      case GLMNET_COLUMNS -> "newGLMNET by column";
      case OWLQN -> "OWL-QN";
      case TRON -> "TRON";
    };
  }

  /** x to 12 decimals without trailing zeros (1 - 0.7 as 0.3). */
  private static String plain(double x) {
    return java.math.BigDecimal.valueOf(x).setScale(12, java.math.RoundingMode.HALF_EVEN).stripTrailingZeros().toPlainString();
  }

  /** A slot's progress suffix: none for the full problem, -fF for fold F held out. */
  private static String slotSuffix(org.sodm.model.Subproblems plan, int slot) {
    int f = plan.heldOutFold(slot);
    return f >= 0 ? "-f" + f : "";
  }

  /**
   * w (binary, {@code classes} 1: dim + 1 weights, the bias weight last; multinomial: every class's in {@link SoftmaxBlock}'s
   * layout, the bias feature's K weights last; 0 without --bias), Newton iterations, f, |grad f| now and at 0; a note on how the
   * run ended.
   */
  private static Solution solution(TrainContext ctx, Configuration conf, TronRank.State st, int classes, List<Map<String, Object>> history, String label) {
    int size = classes * (ctx.data().stats().getDimension() + 1);
    TrainSpec spec = ctx.spec();
    Tron.Point p = st.point();
    Tron.Trial last = st.last();
    int newton = p.iterations() - 1;
    int cg = 0;
    for (Tron.Trial t : st.history()) cg += t.cgSteps();
    String how = switch (p.status()) {
      case CONVERGED -> spec.l1Gap() > 0 ? "converged (duality gap <= " + spec.l1Gap() + " f)" : "converged (" + (spec.l1() ? "|pseudo-gradient| <= eps max(" : "|grad f| <= eps max(")
          + (classes > 1 ? "min_k n_k" : "min(n+, n-)") + ", 1) / n " + (spec.l1() ? "|pseudo-gradient at 0|" : "|grad f(0)|") + ", eps "
          + spec.linear().eps() + ")";
      case MAX_ITERATIONS -> "stopped at --max-iterations " + spec.linear().maxIterations();
      default -> "stopped: no further decrease within rounding";
    };
    String method = methodName(TronResident.method(conf));
    String steps = spec.l1() ? "%d iterations of " + method + " (%d evaluations of f); f %.10g, |pseudo-gradient| %.3e (%.2e of its value at 0)"
        : "%d Newton iterations (%d CG steps); f %.10g, |grad f| %.3e (%.2e of |grad f(0)|)";
    if (spec.l1Gap() > 0 && p.status() == Tron.Status.CONVERGED && !(last.gap() <= spec.l1Gap() * last.f())) {
      throw new IllegalStateException(label + ": converged, but its duality gap " + last.gap() + " is above --l1-gap " + spec.l1Gap()
          + " f (f " + last.f() + "): the run did not stop by gap");
    }
    String certificate = Double.isNaN(last.gap()) ? ""
        : String.format(Locale.ROOT, "; duality gap %.3e (%.2e of f: f is at most that above the optimum)", last.gap(), last.gap() / last.f());
    if (spec.l1Gap() > 0 && p.status() != Tron.Status.CONVERGED && !(last.gap() <= spec.l1Gap() * last.f())) {
      certificate += "; --l1-gap " + spec.l1Gap() + " not reached" + (p.status() == Tron.Status.NO_PROGRESS
          ? " (f's rounding ends the descent first: features of very different scales make the certificate loose; --scale 0,1 tightens it)"
          : "");
    }
    ctx.runner().note(String.format(Locale.ROOT, "%-12s %s after " + steps + "%s", label, how, newton, cg, last.f(), last.gradientNorm(),
        last.gradientNorm() / p.gradientNorm0(), certificate));
    double[] w = java.util.Arrays.copyOf(p.w(), size);
    if (!spec.loss().bias()) java.util.Arrays.fill(w, size - classes, size, 0.0);
    Map<String, Object> extra = new java.util.LinkedHashMap<>(Map.of("converged", p.status() == Tron.Status.CONVERGED));
    if (!Double.isNaN(last.gap())) extra.put("dualityGap", last.gap());
    return new Solution(w, newton, last.f(), last.gradientNorm(), p.gradientNorm0(), history, extra);
  }

  /** A trial step's line: TRON's radius and CG steps, or (l1) OWL-QN's or newGLMNET's step length and the line search's evaluations of f. */
  private static String line(Tron.Trial t, boolean l1) {
    if (l1) {
      return String.format(Locale.ROOT, "f %14.8g  |pseudo-gradient| %.3e  step %.3e  evaluations %2d%s%s", t.f(), t.gradientNorm(), t.delta(),
          t.cgSteps(), Double.isNaN(t.gap()) ? "" : String.format(Locale.ROOT, "  gap %.3e", t.gap()),
          t.accepted() ? "" : "  (no step decreases f)");
    }
    return String.format(Locale.ROOT, "f %14.8g  |grad f| %.3e  radius %.3e  CG %3d%s", t.f(), t.gradientNorm(), t.delta(), t.cgSteps(),
        t.accepted() ? "" : "  (step not taken)");
  }

  private static Map<String, Object> entry(Tron.Trial t, double seconds) {
    Map<String, Object> m = LinearTrainer.entry("trial", t.trial(), "iteration", t.iterations() - 1, "f", t.f(), "gradientNorm",
        t.gradientNorm(), "radius", t.delta(), "cgSteps", t.cgSteps(), "accepted", t.accepted());
    if (!Double.isNaN(t.gap())) m.put("dualityGap", t.gap());
    m.put("seconds", seconds);
    return m;
  }
}
