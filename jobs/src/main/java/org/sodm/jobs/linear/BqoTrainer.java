package org.sodm.jobs.linear;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.phase.PhaseRunner;
import org.sodm.jobs.phase.TrainContext;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.linear.BqoPath;
import org.sodm.linear.BqoState;
import org.sodm.linear.SvmLoss;

/**
 * BQO (seed 003, Algorithm 1), one MapReduce job per iteration: alpha is kept per instance in
 * the block files with the direction d^t; iteration t+1's map applies alpha^{t+1} = alpha^t +
 * eta^t d^t before solving, so each iteration is exactly one job (its reduce returns the sums
 * the step needs). w is kept by the driver (w^{t+1} = w^t + eta^t Delta w^t, eq. 16); only the
 * last iteration's directory is kept. The result is the pocket model.
 */
public final class BqoTrainer extends LinearTrainer {
  /**
   * The resident run's tasks deal their blocks from the ingested data themselves (no partition job) when there are at most
   * {@value #DEAL_IN_TASKS} blocks: each task reads the whole ingested data once, which for a few blocks costs less than the
   * partition job's map, sort, shuffle and second write.
   */
  static final int DEAL_IN_TASKS = 4;

  @Override
  protected boolean dealsInTasks(TrainSpec spec, int k) {
    return spec.linear().iterationMode() == TrainSpec.IterationMode.ALLREDUCE && k <= DEAL_IN_TASKS;
  }

  /** Multi-class with dealt blocks: every task in one resident run ({@link BqoResident#trainTasks}). */
  @Override
  protected boolean solvesTasksTogether(TrainSpec spec, int k) {
    return dealsInTasks(spec, k);
  }

  @Override
  protected List<Solution> solveTogether(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, Path dir)
      throws IOException {
    TrainSpec spec = ctx.spec();
    PhaseRunner runner = ctx.runner();
    int dim = ctx.data().stats().getDimension();
    List<List<Map<String, Object>>> histories = new ArrayList<>();
    for (int u = 0; u < plan.count(); u++) histories.add(new ArrayList<>());
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    BqoState[] states = BqoResident.trainTasks(conf, k, dir, dim, (u, it, since) -> {
      double sec = (System.nanoTime() - since) / 1e9;
      runner.say("bqo" + suffix(plan, u) + " " + it.t(), line(it), sec);
      histories.get(u).add(entry(it, sec));
    }, note -> runner.say("allreduce", note, 0));
    List<Solution> out = new ArrayList<>();
    for (int u = 0; u < states.length; u++) out.add(solution(spec, states[u], dim, histories.get(u), "bqo" + suffix(plan, u), runner));
    return out;
  }

  /** A linear grid's C path: every (task, fold) along every C in one resident run, as {@link #solvesFoldsTogether}. */
  @Override
  protected boolean solvesPath(TrainSpec spec, int k) {
    return dealsInTasks(spec, k);
  }

  /**
   * The C path ({@link BqoResident#trainPath}): progress is one line per C once every sub-problem has solved it (the per-iteration
   * lines of {@link #solveTogether} for 6 values of C x 5 folds would be thousands).
   */
  @Override
  protected List<List<Solution>> solvePath(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, double[] scales,
      Path dir) throws IOException {
    int dim = ctx.data().stats().getDimension();
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    PathReport report = new PathReport(ctx, conf, plan, scales, "bqo-path");
    List<List<BqoPath.Solved>> solved = BqoResident.trainPath(conf, k, dir, dim, scales,
        (u, stage, it, since) -> report.iteration(u, stage), note -> ctx.runner().say("allreduce", note, 0));
    return report.finish(solved, dim);
  }

  /** Cross-validation and --probability's fold models: every (task, fold) in the same resident run. */
  @Override
  protected boolean solvesFoldsTogether(TrainSpec spec, int k) {
    return dealsInTasks(spec, k);
  }

  @Override
  protected String name() {
    return "bqo";
  }

  @Override
  protected Solution solve(TrainContext ctx, Configuration conf, Path blockDir, int k, Path dir) throws IOException {
    TrainSpec spec = ctx.spec();
    PhaseRunner runner = ctx.runner();
    int dim = ctx.data().stats().getDimension();
    List<Map<String, Object>> history = new ArrayList<>();
    LinearKeys.hintBlocks(conf, ctx.data().stats(), k);
    BqoState state = spec.linear().iterationMode() == TrainSpec.IterationMode.ALLREDUCE
        ? BqoResident.train(conf, blockDir, k, dir, dim, (it, since) -> {
          double sec = (System.nanoTime() - since) / 1e9;
          runner.say("bqo " + it.t(), line(it), sec);
          history.add(entry(it, sec));
        }, note -> runner.say("allreduce", note, 0))
        : iterateJobs(ctx, conf, blockDir, dir, history);
    return solution(spec, state, dim, history, "bqo", runner);
  }

  /** The pocket model of a finished state, with the note on how it stopped. */
  private static Solution solution(TrainSpec spec, BqoState state, int dim, List<Map<String, Object>> history, String label,
      PhaseRunner runner) {
    int iterations = state.history().size();
    runner.note(String.format(Locale.ROOT, "%-12s %s after %d iterations; pocket model from iteration %d (primal %.8g)", label,
        state.converged() ? "converged (relative gap <= " + spec.linear().eps() + ")"
            : "stopped at --max-iterations " + spec.linear().maxIterations(),
        iterations, state.pocketIteration(), state.pocketPrimal()));
    double[] pocket = state.pocket();
    double[] w = java.util.Arrays.copyOf(pocket, dim + 1);
    if (!spec.loss().svmPrimal().bias()) w[dim] = 0;
    return new Solution(w, iterations, state.pocketPrimal(), state.history().get(iterations - 1).violation(),
        state.history().get(0).violation(), history);
  }

  private static String line(BqoState.Iteration it) {
    return String.format(Locale.ROOT, "primal %12.6g  dual %12.6g  gap %.2e  viol %.2e  step %.4g%s", it.primal(), -it.dual(),
        it.relativeGap(), it.violation(), it.eta(), it.pocket() ? "  *" : "");
  }

  private static Map<String, Object> entry(BqoState.Iteration it, double seconds) {
    return LinearTrainer.entry("t", it.t(), "primal", it.primal(), "dual", -it.dual(), "relativeGap", it.relativeGap(), "violation",
        it.violation(), "step", it.eta(), "seconds", seconds);
  }

  /** --iteration-mode jobs: one MapReduce job per iteration. */
  private static BqoState iterateJobs(TrainContext ctx, Configuration conf, Path blockDir, Path dir, List<Map<String, Object>> history)
      throws IOException {
    TrainSpec spec = TrainSpec.of(conf); // the task's (its class weights' loss)
    PhaseRunner runner = ctx.runner();
    FileSystem fs = dir.getFileSystem(conf);
    int dim = ctx.data().stats().getDimension();
    BqoState state = new BqoState(dim, spec.loss().svmPrimal(), spec.linear().outer(), spec.linear().tau());
    Path input = new Path(blockDir, LinearKeys.BLOCK_GLOB);
    double eta = 0;
    Path previous = null;
    for (int t = 0; ; t++) {
      long ti = System.nanoTime();
      Path wFile = new Path(dir, String.format("w-%05d.bin", t));
      LinearKeys.writeW(conf, wFile, state.w());
      Path iter = new Path(dir, String.format("iter-%05d", t));
      BqoJob.Output o = BqoJob.run(conf, input, iter, t, eta, wFile, dim);
      BqoState.Step step = state.next(o.sums(), o.dw());
      BqoState.Iteration it = step.info();
      double sec = (System.nanoTime() - ti) / 1e9;
      runner.say("bqo " + t, line(it), sec);
      history.add(entry(it, sec));
      fs.delete(wFile, false);
      if (previous != null) fs.delete(previous, true);
      previous = iter;
      if (step.stop()) break;
      input = new Path(iter, LinearKeys.BLOCK_GLOB);
      eta = step.eta();
    }
    if (previous != null) fs.delete(previous, true);
    return state;
  }
}
