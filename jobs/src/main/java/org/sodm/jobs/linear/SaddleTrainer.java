package org.sodm.jobs.linear;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.LabelCount;
import org.sodm.jobs.phase.TrainContext;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.SodmException;
import org.sodm.saddle.Hadamard;
import org.sodm.saddle.NotSeparableException;
import org.sodm.saddle.SaddleOptions;
import org.sodm.saddle.SaddleRank;
import org.sodm.saddle.SaddleResult;
import org.sodm.saddle.SaddleSvc;
import org.sodm.solver.Loss;

/**
 * {@code --loss nu | hard-margin --kernel linear}: Saddle-DSVC (seed 002) over the K blocks as one
 * resident AllReduce job ({@link SaddleResident}); with K = 1 it is Saddle-SVC. The model is the
 * kept run's hyperplane in the canonical scaling (f = +-1 on the margin hyperplanes); the report
 * has every beta tried and the rounds and scalars the clients exchanged (Theorem 13). Hard margin
 * on data that are not separable (or nu-SVM with reduced hulls that touch) fails with the measured
 * distance between the hulls, and no model is written. The class sizes and nu are checked right
 * after ingest, before the partition job.
 */
public final class SaddleTrainer extends LinearTrainer {
  @Override
  protected String name() {
    return "saddle";
  }

  /** The Saddle-SVC options of a spec: the variant and nu of its loss, --linear-eps, the iteration limits and the seed. */
  public static SaddleOptions options(TrainSpec spec) {
    Loss loss = spec.loss();
    SaddleOptions o;
    if (loss instanceof Loss.HardMargin) {
      o = SaddleOptions.hardMargin();
    } else if (loss instanceof Loss.Nu n) {
      o = SaddleOptions.nuSvm();
      if (!n.isDefault()) o = o.withNu(n.nu());
    } else {
      throw new IllegalArgumentException("Saddle-SVC solves nu and hard-margin, not " + loss.id());
    }
    return o.withEps(spec.linear().eps()).withMaxIterations(spec.saddle().maxIterations())
        .withCheckInterval(spec.saddle().checkInterval()).withSeed(spec.seed());
  }

  /**
   * The class sizes (+1, -1) of the ingested data, or of a multi-class task ({@code conf} names its positive class and its
   * negative class, "" for the rest).
   */
  private static long[] classSizes(TrainContext ctx, Configuration conf) {
    long[] n = new long[2];
    String pos = conf.get(LinearKeys.TASK_POSITIVE);
    String neg = conf.get(LinearKeys.TASK_NEGATIVE, "");
    for (LabelCount c : ctx.data().stats().getLabels()) {
      String l = c.getLabel().toString();
      if (pos == null) {
        if (l.equals(ctx.data().labelMap().positive())) n[0] += c.getCount();
        else if (l.equals(ctx.data().labelMap().negative())) n[1] += c.getCount();
      } else if (l.equals(pos)) {
        n[0] += c.getCount();
      } else if (neg.isEmpty() || l.equals(neg)) {
        n[1] += c.getCount();
      }
    }
    return n;
  }

  private static SaddleSvc.Problem problem(TrainContext ctx, Configuration conf) {
    long[] n = classSizes(ctx, conf);
    try {
      return SaddleSvc.problem(options(ctx.spec()), n[0], n[1]);
    } catch (IllegalArgumentException e) {
      String task = conf.get(LinearKeys.TASK_POSITIVE) == null ? "" : " (" + task(conf) + ", " + n[0] + " and " + n[1] + " rows)";
      throw new SodmException("bad parameter " + Param.NU.optionName() + " / " + Param.LOSS.optionName() + " for the training data"
          + task + ": " + e.getMessage());
    }
  }

  /** "task 'a' vs 'b'" or "task 'c' vs rest" of a multi-class task's configuration. */
  private static String task(Configuration conf) {
    String pos = conf.get(LinearKeys.TASK_POSITIVE);
    String neg = conf.get(LinearKeys.TASK_NEGATIVE, "");
    return "task '" + (neg.isEmpty() ? pos + "' vs rest" : neg + "' vs '" + pos + "'");
  }

  @Override
  protected void checkData(TrainContext ctx, Configuration taskConf) {
    problem(ctx, taskConf);
  }

  @Override
  protected Solution solve(TrainContext ctx, Configuration conf, Path blockDir, int k, Path dir) throws IOException {
    TrainSpec spec = ctx.spec();
    SaddleOptions o = options(spec);
    SaddleSvc.Problem problem = problem(ctx, conf);
    int dim = ctx.data().stats().getDimension();
    int maxDoubles = SaddleRank.maxDoubles(k, Hadamard.paddedLength(Math.max(1, dim)), problem.cap());
    List<Map<String, Object>> history = new ArrayList<>();
    SaddleRank.State st = SaddleResident.train(conf, blockDir, dir, maxDoubles, o, (v, since) -> {
      double sec = (System.nanoTime() - since) / 1e9;
      ctx.runner().say("saddle " + history.size(), check(v), sec);
      history.add(checkEntry(v, sec));
    }, note -> ctx.runner().say("allreduce", note, 0));
    return solution(ctx, conf, o, st, k, history, "saddle      ");
  }

  /**
   * Up to {@link BqoTrainer#DEAL_IN_TASKS} blocks, the resident tasks deal their blocks from the ingested data themselves (each
   * reads it once; no partition job): each task's client needs its own block only.
   */
  @Override
  protected boolean dealsInTasks(TrainSpec spec, int k) {
    return k <= BqoTrainer.DEAL_IN_TASKS;
  }

  /** Sub-problems train together (tasks, and the folds of cv / --probability), always on the AllReduce runtime. */
  @Override
  protected boolean solvesTasksTogether(TrainSpec spec, int k) {
    return true;
  }

  @Override
  protected boolean solvesFoldsTogether(TrainSpec spec, int k) {
    return true;
  }

  @Override
  protected List<Solution> solveTogether(TrainContext ctx, Configuration conf, org.sodm.model.Subproblems plan, int k, Path dir)
      throws IOException {
    TrainSpec spec = ctx.spec();
    SaddleOptions o = options(spec);
    List<String> classes = org.sodm.jobs.phase.MulticlassKeys.classes(conf);
    int padded = Hadamard.paddedLength(Math.max(1, ctx.data().stats().getDimension()));
    int maxDoubles = 0; // the largest message of any task (a fold's problem has fewer rows, a larger cap, fewer margin points)
    for (int t = 0; t < plan.tasks(); t++) {
      maxDoubles = Math.max(maxDoubles, SaddleRank.maxDoubles(k, padded, problem(ctx, taskConf(conf, plan, classes, t)).cap()));
    }
    Configuration pc = classIndexed(conf);
    Path blocks = partitionByClass(ctx, pc, dir, k);
    List<List<Map<String, Object>>> histories = histories(plan);
    SaddleRank.State[] states = SaddleResident.trainTasks(pc, blocks, dir, maxDoubles, o, (u, v, since) -> {
      double sec = (System.nanoTime() - since) / 1e9;
      ctx.runner().say("saddle" + suffix(plan, u) + " " + histories.get(u).size(), check(v), sec);
      histories.get(u).add(checkEntry(v, sec));
    }, note -> ctx.runner().say("allreduce", note, 0));
    dir.getFileSystem(conf).delete(blocks, true);
    List<Solution> out = new ArrayList<>();
    for (int u = 0; u < states.length; u++) {
      Configuration tc = taskConf(conf, plan, classes, plan.task(u));
      out.add(solution(ctx, tc, o, states[u], k, histories.get(u), String.format(Locale.ROOT, "%-12s", "saddle" + suffix(plan, u))));
    }
    return out;
  }

  private static String check(double[] v) {
    return String.format(Locale.ROOT, "beta %-6s iteration %,d  relative gap %.3e  hull distance in [%.6g, %.6g]", fmt(v[0]), (long) v[1],
        v[2], v[3], v[4]);
  }

  private static Map<String, Object> checkEntry(double[] v, double sec) {
    return entry("beta", v[0], "iterations", (long) v[1], "relativeGap", v[2], "hullDistanceLower", v[3], "hullDistanceUpper", v[4],
        "seconds", sec);
  }

  /**
   * The solution of a run's final state: the kept run's hyperplane (w, then the bias), its certified objective and gap, and the
   * report's trials and communication; a failure (hulls that touch) names the task of {@code conf}, if any.
   */
  private static Solution solution(TrainContext ctx, Configuration conf, SaddleOptions o, SaddleRank.State st, int k,
      List<Map<String, Object>> history, String label) {
    TrainSpec spec = ctx.spec();
    int dim = ctx.data().stats().getDimension();
    SaddleResult r;
    try {
      r = st.result(spec.seed());
    } catch (NotSeparableException e) {
      throw new SodmException((conf.get(LinearKeys.TASK_POSITIVE) == null ? "" : task(conf) + ", ")
          + (o.variant() == SaddleOptions.Variant.HARD_MARGIN ? "hard margin: " : "nu-SVM: ") + e.getMessage()
          + "; no model written");
    }
    SaddleResult.Trial best = r.best();
    ctx.runner().note(String.format(Locale.ROOT, label + " beta %s, %,d iterations, relative gap %.3e%s; margin %.6g (hull distance in "
        + "[%.6g, %.6g])", fmt(best.beta()), best.iterations(), best.relativeGap(), best.converged() ? "" : " (NOT converged to --linear-eps)",
        2 / norm(r.weights()), best.hullDistanceLower(), best.hullDistanceUpper()));
    long rounds = 0;
    long scalars = 0;
    for (SaddleResult.Trial t : r.trials()) {
      SaddleResult.Communication c = t.communication();
      rounds += c.iterationRounds() + c.checkRounds();
      scalars += c.iterationScalars() + c.checkScalars();
    }
    ctx.runner().note(String.format(Locale.ROOT, label + " %d clients: %,d AllReduce rounds, %,d scalars in all betas (%,d rounds of the "
        + "kept run's iterations, %.1f scalars per round)", k, rounds, scalars, best.communication().iterationRounds(),
        best.communication().iterationRounds() == 0 ? 0.0 : (double) best.communication().iterationScalars() / best.communication().iterationRounds()));
    double[] w = new double[dim + 1];
    System.arraycopy(r.weights(), 0, w, 0, Math.min(dim, r.weights().length));
    w[dim] = r.bias();
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("variant", o.variant().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    extra.put("nu", Double.isNaN(r.nu()) ? null : r.nu());
    extra.put("cap", r.cap());
    extra.put("clients", k);
    extra.put("converged", best.converged());
    extra.put("relativeGap", best.relativeGap());
    extra.put("hullDistanceLower", best.hullDistanceLower());
    extra.put("hullDistanceUpper", best.hullDistanceUpper());
    extra.put("allreduceRounds", rounds);
    extra.put("scalarsSent", scalars);
    List<Map<String, Object>> trials = new ArrayList<>();
    for (SaddleResult.Trial t : r.trials()) {
      SaddleResult.Communication c = t.communication();
      trials.add(entry("beta", t.beta(), "iterations", t.iterations(), "converged", t.converged(), "relativeGap", t.relativeGap(),
          "hullDistanceLower", t.hullDistanceLower(), "hullDistanceUpper", t.hullDistanceUpper(), "seconds", t.seconds(),
          "iterationRounds", c.iterationRounds(), "iterationScalars", c.iterationScalars(), "checkRounds", c.checkRounds(),
          "checkScalars", c.checkScalars()));
    }
    extra.put("trials", trials);
    // objective: the certified half squared distance between the (reduced) hulls, OPT of (2)/(6) >= lower^2 / 2
    double lower = best.hullDistanceLower();
    double upper = best.hullDistanceUpper();
    return new Solution(w, (int) Math.min(Integer.MAX_VALUE, best.iterations()), lower * lower / 2, upper * upper / 2 - lower * lower / 2,
        upper * upper / 2, history, extra);
  }

  private static String fmt(double beta) {
    return String.format(Locale.ROOT, "%.3g", beta).replaceAll("\\.?0+$", "");
  }

  private static double norm(double[] w) {
    double s = 0;
    for (double v : w) s += v * v;
    return Math.sqrt(s);
  }

  @Override
  protected double bias(TrainSpec spec, Solution s, int dim) {
    return s.w()[dim];
  }

  @Override
  protected Loss modelLoss(TrainSpec spec, Solution s) {
    if (spec.loss() instanceof Loss.Nu) return Loss.nu(((Number) s.extra().get("nu")).doubleValue());
    return spec.loss();
  }
}
