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
import org.sodm.jobs.spec.TrainSpec;
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

  @Override
  protected boolean solvesTasksTogether(TrainSpec spec, int k) {
    return dealsInTasks(spec, k);
  }

  @Override
  protected boolean solvesFoldsTogether(TrainSpec spec, int k) {
    return dealsInTasks(spec, k);
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
    PathReport report = new PathReport(ctx, conf, plan, scales, "tron-path");
    List<List<org.sodm.linear.BqoPath.Solved>> solved = TronResident.trainPath(conf, k, dir, dim, scales, report::iteration,
        note -> ctx.runner().say("allreduce", note, 0));
    return report.finish(solved, dim);
  }

  @Override
  protected Solution solve(TrainContext ctx, Configuration conf, Path blockDir, int k, Path dir) throws IOException {
    PhaseRunner runner = ctx.runner();
    int dim = ctx.data().stats().getDimension();
    List<Map<String, Object>> history = new ArrayList<>();
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    TronRank.State st = TronResident.train(conf, blockDir, k, dir, dim, (u, tr, since) -> {
      double sec = (System.nanoTime() - since) / 1e9;
      runner.say("tron " + tr.trial(), line(tr), sec);
      history.add(entry(tr, sec));
    }, note -> runner.say("allreduce", note, 0));
    return solution(ctx, st, dim, history, "tron");
  }

  @Override
  protected List<Solution> solveTogether(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, Path dir)
      throws IOException {
    PhaseRunner runner = ctx.runner();
    int dim = ctx.data().stats().getDimension();
    List<List<Map<String, Object>>> histories = histories(plan);
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    TronRank.State[] states = TronResident.trainTasks(conf, k, dir, dim, (u, tr, since) -> {
      double sec = (System.nanoTime() - since) / 1e9;
      runner.say("tron" + suffix(plan, u) + " " + tr.trial(), line(tr), sec);
      histories.get(u).add(entry(tr, sec));
    }, note -> runner.say("allreduce", note, 0));
    List<Solution> out = new ArrayList<>();
    for (int u = 0; u < states.length; u++) out.add(solution(ctx, states[u], dim, histories.get(u), "tron" + suffix(plan, u)));
    return out;
  }

  /** w (the bias weight last, 0 without --bias), Newton iterations, f, |grad f| now and at 0; a note on how the run ended. */
  private static Solution solution(TrainContext ctx, TronRank.State st, int dim, List<Map<String, Object>> history, String label) {
    TrainSpec spec = ctx.spec();
    Tron.Point p = st.point();
    Tron.Trial last = st.last();
    int newton = p.iterations() - 1;
    int cg = 0;
    for (Tron.Trial t : st.history()) cg += t.cgSteps();
    String how = switch (p.status()) {
      case CONVERGED -> "converged (|grad f| <= eps max(min(n+, n-), 1) / n |grad f(0)|, eps " + spec.linear().eps() + ")";
      case MAX_ITERATIONS -> "stopped at --max-iterations " + spec.linear().maxIterations();
      default -> "stopped: no further decrease within rounding";
    };
    ctx.runner().note(String.format(Locale.ROOT, "%-12s %s after %d Newton iterations (%d CG steps); f %.10g, |grad f| %.3e (%.2e of |grad f(0)|)",
        label, how, newton, cg, last.f(), last.gradientNorm(), last.gradientNorm() / p.gradientNorm0()));
    double[] w = java.util.Arrays.copyOf(p.w(), dim + 1);
    if (!spec.loss().bias()) w[dim] = 0;
    return new Solution(w, newton, last.f(), last.gradientNorm(), p.gradientNorm0(), history,
        Map.of("converged", p.status() == Tron.Status.CONVERGED));
  }

  private static String line(Tron.Trial t) {
    return String.format(Locale.ROOT, "f %14.8g  |grad f| %.3e  radius %.3e  CG %3d%s", t.f(), t.gradientNorm(), t.delta(), t.cgSteps(),
        t.accepted() ? "" : "  (step not taken)");
  }

  private static Map<String, Object> entry(Tron.Trial t, double seconds) {
    return LinearTrainer.entry("trial", t.trial(), "iteration", t.iterations() - 1, "f", t.f(), "gradientNorm", t.gradientNorm(),
        "radius", t.delta(), "cgSteps", t.cgSteps(), "accepted", t.accepted(), "seconds", seconds);
  }
}
