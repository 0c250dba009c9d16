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

  @Override
  protected Solution solve(TrainContext ctx, Configuration conf, Path blockDir, int k, Path dir) throws IOException {
    TrainSpec spec = ctx.spec();
    PhaseRunner runner = ctx.runner();
    FileSystem fs = dir.getFileSystem(conf);
    int dim = ctx.data().stats().getDimension();
    double[] wl = new double[dim + 1];
    Path input = new Path(blockDir, LinearKeys.BLOCK_GLOB);
    List<Map<String, Object>> history = new ArrayList<>();
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
      runner.say("dsvrg " + l, String.format(Locale.ROOT, "primal p(w) %14.8g  |grad| %.3e%s", o.objective(), o.gradientNorm(),
          last || small ? "" : String.format(Locale.ROOT, "  step %.3g", o.eta())), sec);
      history.add(entry("epoch", l, "primal", o.objective(), "gradientNorm", o.gradientNorm(), "step", o.eta(), "seconds", sec));
      if (last || small) break;
      wl = o.w();
    }
    runner.note(String.format(Locale.ROOT, "dsvrg        %d epochs; primal %.10g, |grad| %.3e (%.2e of |grad p(0)|)", l, o.objective(),
        o.gradientNorm(), o.gradientNorm() / g0));
    if (!spec.loss().bias()) wl[dim] = 0;
    return new Solution(wl, l, o.objective(), o.gradientNorm(), g0, history);
  }
}
