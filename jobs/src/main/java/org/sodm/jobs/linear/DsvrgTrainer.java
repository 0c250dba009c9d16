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
import org.sodm.linear.Dsvrg;
import org.sodm.linear.DsvrgRank;

/**
 * DSVRG for linear ODM (seed 000, section 3.3, Algorithm 2), one job per epoch: each map task
 * (block) computes its part of the full gradient of the ODM primal at w^(l) and emits its rows
 * in a seeded random order; the single reduce streams the SVRG inner updates round-robin over the
 * blocks. Stops after {@code --epochs} or when |grad p| <= eps |grad p(0)|.
 */
public final class DsvrgTrainer extends LinearTrainer {
  @Override
  protected String name() {
    return "dsvrg";
  }

  /**
   * One block in the resident mode: its task deals it from the ingested data itself (the partition job, a map, sort,
   * shuffle and second write of every row, took 18-24 s of a 41 s run on 1M rows). With more blocks rank 0 reads every
   * block's file for the serial inner loop, so a partition job writes them.
   */
  @Override
  protected boolean dealsInTasks(TrainSpec spec, int k) {
    return spec.linear().iterationMode() == TrainSpec.IterationMode.ALLREDUCE && k == 1;
  }

  /** --linear-partitioner stratified: Algorithm 2's stratified partition (landmarks, strata, dealing). */
  @Override
  protected boolean stratified(TrainSpec spec) {
    return spec.linearStratified();
  }

  @Override
  protected Solution solve(TrainContext ctx, Configuration conf, Path blockDir, int k, Path dir) throws IOException {
    TrainSpec spec = ctx.spec();
    List<Map<String, Object>> history = new ArrayList<>();
    Solution s = spec.linear().iterationMode() == TrainSpec.IterationMode.ALLREDUCE
        ? resident(ctx, conf, blockDir, dir, history) : iterateJobs(ctx, conf, blockDir, k, dir, history);
    return finish(ctx, s, "dsvrg");
  }

  /** Notes how the solve ended; w's bias weight is zeroed without --bias. */
  private static Solution finish(TrainContext ctx, Solution s, String label) {
    ctx.runner().note(String.format(Locale.ROOT, "%-12s %d epochs; primal %.10g, |grad| %.3e (%.2e of |grad p(0)|)", label, s.iterations(),
        s.objective(), s.violation(), s.violation() / s.initialViolation()));
    if (!ctx.spec().loss().bias()) s.w()[ctx.data().stats().getDimension()] = 0;
    return s;
  }

  /**
   * Multi-class on random blocks in the resident mode: every task in one run (one partition job dealing every row with its class
   * index, then one resident job). Stratified blocks depend on the task's rows (its landmarks and strata), so there each task is
   * partitioned and solved in turn.
   */
  @Override
  protected boolean solvesTasksTogether(TrainSpec spec, int k) {
    return spec.linear().iterationMode() == TrainSpec.IterationMode.ALLREDUCE && !(stratified(spec) && k > 1);
  }

  /** Cross-validation and --probability's fold models: every (task, fold) in the same resident run, on the same blocks. */
  @Override
  protected boolean solvesFoldsTogether(TrainSpec spec, int k) {
    return solvesTasksTogether(spec, k);
  }

  @Override
  protected List<Solution> solveTogether(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, Path dir)
      throws IOException {
    Configuration pc = classIndexed(conf);
    Path blocks = dealsInTasks(ctx.spec(), k) ? null : partitionByClass(ctx, pc, dir, k); // one block: dealt by its task
    List<List<Map<String, Object>>> histories = histories(plan);
    double[] first = new double[plan.count()];
    TrainSpec.Linear lin = ctx.spec().linear();
    DsvrgRank.State[] states = DsvrgResident.trainTasks(pc, blocks, dir, ctx.data().stats().getDimension(), (u, e, since) -> {
      if (e.epoch() == 0) first[u] = e.gradientNorm();
      boolean end = e.epoch() == lin.epochs() || e.gradientNorm() <= lin.eps() * first[u];
      double sec = (System.nanoTime() - since) / 1e9;
      ctx.runner().say("dsvrg" + suffix(plan, u) + " " + e.epoch(), line(e.objective(), e.gradientNorm(), e.eta(), end), sec);
      histories.get(u).add(entry("epoch", e.epoch(), "primal", e.objective(), "gradientNorm", e.gradientNorm(), "step", e.eta(), "seconds", sec));
    }, note -> ctx.runner().say("allreduce", note, 0));
    if (blocks != null) dir.getFileSystem(conf).delete(blocks, true);
    List<Solution> out = new ArrayList<>();
    for (int u = 0; u < states.length; u++) out.add(finish(ctx, solution(states[u], histories.get(u)), "dsvrg" + suffix(plan, u)));
    return out;
  }

  private static Solution solution(DsvrgRank.State st, List<Map<String, Object>> history) {
    Dsvrg.Epoch e = st.history().get(st.history().size() - 1);
    return new Solution(st.w().clone(), e.epoch(), e.objective(), e.gradientNorm(), st.initialGradientNorm(), history);
  }

  private static String line(double objective, double gradientNorm, double eta, boolean end) {
    return String.format(Locale.ROOT, "primal p(w) %14.8g  |grad| %.3e%s", objective, gradientNorm,
        end ? "" : String.format(Locale.ROOT, "  step %.3g", eta));
  }

  /** The resident AllReduce job: rank 0 reports every epoch. */
  private static Solution resident(TrainContext ctx, Configuration conf, Path blockDir, Path dir, List<Map<String, Object>> history)
      throws IOException {
    TrainSpec.Linear lin = ctx.spec().linear();
    double[] first = {Double.NaN};
    DsvrgRank.State st = DsvrgResident.train(conf, blockDir, dir, ctx.data().stats().getDimension(), (e, since) -> {
      if (e.epoch() == 0) first[0] = e.gradientNorm();
      boolean end = e.epoch() == lin.epochs() || e.gradientNorm() <= lin.eps() * first[0];
      double sec = (System.nanoTime() - since) / 1e9;
      ctx.runner().say("dsvrg " + e.epoch(), line(e.objective(), e.gradientNorm(), e.eta(), end), sec);
      history.add(entry("epoch", e.epoch(), "primal", e.objective(), "gradientNorm", e.gradientNorm(), "step", e.eta(), "seconds", sec));
    }, note -> ctx.runner().say("allreduce", note, 0));
    return solution(st, history);
  }

  /** --iteration-mode jobs: one MapReduce job per epoch. */
  private static Solution iterateJobs(TrainContext ctx, Configuration conf, Path blockDir, int k, Path dir,
      List<Map<String, Object>> history) throws IOException {
    TrainSpec spec = ctx.spec();
    PhaseRunner runner = ctx.runner();
    FileSystem fs = dir.getFileSystem(conf);
    int dim = ctx.data().stats().getDimension();
    double[] wl = new double[dim + 1];
    Path input = new Path(blockDir, LinearKeys.BLOCK_GLOB);
    double g0 = Double.NaN;
    DsvrgJob.Output o;
    int l = 0;
    for (; ; l++) {
      long ti = System.nanoTime();
      Path wFile = new Path(dir, String.format("w-%05d.bin", l));
      LinearKeys.writeW(conf, wFile, wl);
      boolean last = l == spec.linear().epochs();
      Path ep = new Path(dir, String.format("epoch-%05d", l));
      o = DsvrgJob.run(conf, input, ep, l, wFile, dim, k, last);
      fs.delete(wFile, false);
      fs.delete(ep, true);
      if (l == 0) g0 = o.gradientNorm();
      boolean small = o.gradientNorm() <= spec.linear().eps() * g0;
      double sec = (System.nanoTime() - ti) / 1e9;
      runner.say("dsvrg " + l, line(o.objective(), o.gradientNorm(), o.eta(), last || small), sec);
      history.add(entry("epoch", l, "primal", o.objective(), "gradientNorm", o.gradientNorm(), "step", o.eta(), "seconds", sec));
      if (last || small) break;
      wl = o.w();
    }
    return new Solution(wl, l, o.objective(), o.gradientNorm(), g0, history);
  }
}
