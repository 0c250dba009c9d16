package org.sodm.jobs.linear;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.Instance;
import org.sodm.avro.LevelStats;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Provenance;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.OutputDir;
import org.sodm.jobs.train.TrainConfig;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.kernel.KernelSpec;
import org.sodm.linear.BqoState;
import org.sodm.linear.Dsvrg;
import org.sodm.linear.DsvrgRank;
import org.sodm.linear.SvmLoss;
import org.sodm.model.Model;

/**
 * {@code sodm train --kernel linear}: the primal linear solvers as iterative MapReduce, called by
 * {@link TrainPipeline} right after ingest when the kernel is linear and
 * {@code sodm.train.linear.solver} is not {@code kernel}.
 *
 * <pre>
 * work/linear/blocks        the K blocks (TrainRecords, alpha empty), one file per block
 * work/linear/w-T.bin       w^t broadcast to iteration t's tasks (configuration key + distributed cache)
 * work/linear/iter-T        BQO: the blocks with [alpha^t, d^t] per record, and the reduced sums
 * work/linear/epoch-L       DSVRG: w^(l+1) and p(w^(l))
 * model.avro                a linear model (w, b); train-report.json with one line per iteration
 * </pre>
 *
 * <p>State between BQO iterations: alpha is kept per instance in the block files (Avro), with
 * the direction d^t; iteration t+1's map applies alpha^{t+1} = alpha^t + eta^t d^t before
 * solving, so each iteration is exactly one job (its reduce returns the sums the step needs).
 * w is kept by the driver (w^{t+1} = w^t + eta^t Delta w^t, eq. 16). Only the last iteration's
 * directory is kept. {@code --resume} re-runs the linear phase from the blocks.
 */
public final class LinearTrainer {
  private LinearTrainer() {}

  /** Whether the linear solvers train this configuration (linear kernel, solver not "kernel"). */
  public static boolean selected(Configuration conf, TrainConfig tc) {
    if (tc.kernelType != KernelSpec.Type.LINEAR) return false;
    return LinearOptions.from(conf).resolve(tc.loss.type()) != LinearOptions.Solver.KERNEL;
  }

  public static TrainPipeline.Result train(Configuration conf, TrainConfig tc, IngestJob.Result data, List<String> inputs,
      List<Instance> validation, Path out, Consumer<String> progress) throws IOException {
    long t0 = System.nanoTime();
    LinearOptions lo = LinearOptions.from(conf);
    LinearOptions.Solver solver = lo.resolve(tc.loss.type());
    FileSystem fs = out.getFileSystem(conf);
    Path dir = new Path(new Path(out, TrainPipeline.WORK), "linear");
    fs.delete(dir, true);
    fs.mkdirs(dir);
    int dim = data.stats().getDimension();
    int blocks = (int) Math.min(lo.blocks(), Math.max(1, data.stats().getRows()));
    conf = new Configuration(conf);
    conf.set(LinearKeys.INGEST_DIR, data.dir().toString());

    long tp = System.nanoTime();
    Path blockDir = new Path(dir, "blocks");
    PartitionJob.run(conf, new Path(data.dir(), IngestJob.DATA), blockDir, blocks);
    say(progress, "blocks", String.format(Locale.ROOT, "%,d rows dealt to %d blocks (random, seed %d)", data.stats().getRows(),
        blocks, tc.seed), tp, t0);

    double[] w;
    double bias;
    List<String> iterationsJson = new ArrayList<>();
    double objective;
    double violation;
    double initial;
    int iterations;
    if (solver == LinearOptions.Solver.BQO) {
      SvmLoss loss = SvmLoss.of(tc.loss);
      BqoState state;
      if (IterationMode.from(conf) == IterationMode.ALLREDUCE) {
        state = BqoResident.train(conf, blockDir, dir, dim, (it, ti) -> {
          say(progress, "bqo " + it.t(), bqoLine(it), ti, t0);
          iterationsJson.add(bqoJson(it, (System.nanoTime() - ti) / 1e9));
        }, note -> say(progress, "allreduce", note, System.nanoTime(), t0));
      } else {
      state = new BqoState(dim, loss, lo.outer(), lo.tau());
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
        say(progress, "bqo " + t, bqoLine(it), ti, t0);
        iterationsJson.add(bqoJson(it, sec));
        fs.delete(wFile, false);
        if (previous != null) fs.delete(previous, true);
        previous = iter;
        if (step.stop()) break;
        input = new Path(iter, LinearKeys.BLOCK_GLOB);
        eta = step.eta();
      }
      }
      double[] pocket = state.pocket();
      w = java.util.Arrays.copyOf(pocket, dim);
      bias = loss.bias() ? pocket[dim] : 0;
      objective = state.pocketPrimal();
      iterations = state.history().size();
      violation = state.history().get(iterations - 1).violation();
      initial = state.history().get(0).violation();
      progress.accept(String.format(Locale.ROOT, "bqo          %s after %d iterations; pocket model from iteration %d (primal %.8g)",
          state.converged() ? "converged (relative gap <= " + lo.eps() + ")" : "stopped at --max-iterations " + lo.maxIterations(),
          iterations, state.pocketIteration(), objective));
    } else {
      double[] wl = new double[dim + 1];
      double g0 = Double.NaN;
      double lastObjective;
      double lastGradient;
      int l = 0;
      if (IterationMode.from(conf) == IterationMode.ALLREDUCE) {
        double[] first = {Double.NaN};
        DsvrgRank.State st = DsvrgResident.train(conf, blockDir, dir, dim, (e, ti) -> {
          if (e.epoch() == 0) first[0] = e.gradientNorm();
          boolean end = e.epoch() == lo.epochs() || e.gradientNorm() <= lo.eps() * first[0];
          say(progress, "dsvrg " + e.epoch(), dsvrgLine(e.objective(), e.gradientNorm(), e.eta(), end), ti, t0);
          iterationsJson.add(dsvrgJson(e.epoch(), e.objective(), e.gradientNorm(), e.eta(), (System.nanoTime() - ti) / 1e9));
        }, note -> say(progress, "allreduce", note, System.nanoTime(), t0));
        Dsvrg.Epoch e = st.history().get(st.history().size() - 1);
        wl = st.w();
        g0 = st.initialGradientNorm();
        lastObjective = e.objective();
        lastGradient = e.gradientNorm();
        l = e.epoch();
      } else {
      Path input = new Path(blockDir, LinearKeys.BLOCK_GLOB);
      DsvrgJob.Output o = null;
      for (; ; l++) {
        long ti = System.nanoTime();
        Path wFile = new Path(dir, String.format("w-%05d.bin", l));
        LinearKeys.writeW(conf, wFile, wl);
        boolean last = l == lo.epochs();
        Path ep = new Path(dir, String.format("epoch-%05d", l));
        o = DsvrgJob.run(conf, input, ep, l, wFile, dim, blocks, last);
        fs.delete(wFile, false);
        fs.delete(ep, true);
        if (l == 0) g0 = o.gradientNorm();
        boolean small = o.gradientNorm() <= lo.eps() * g0;
        say(progress, "dsvrg " + l, dsvrgLine(o.objective(), o.gradientNorm(), o.eta(), last || small), ti, t0);
        iterationsJson.add(dsvrgJson(l, o.objective(), o.gradientNorm(), o.eta(), (System.nanoTime() - ti) / 1e9));
        if (last || small) break;
        wl = o.w();
      }
      lastObjective = o.objective();
      lastGradient = o.gradientNorm();
      }
      w = java.util.Arrays.copyOf(wl, dim);
      bias = tc.loss.bias() ? wl[dim] : 0;
      objective = lastObjective;
      violation = lastGradient;
      initial = g0;
      iterations = l;
      progress.accept(String.format(Locale.ROOT, "dsvrg        %d epochs; primal %.10g, |grad| %.3e (%.2e of |grad p(0)|)", l, objective,
          violation, violation / g0));
    }

    Model probe = Model.linear(tc.loss, data.labelMap(), data.scaler(), w, bias, solver.name().toLowerCase(Locale.ROOT), null);
    Double acc = validation == null ? null : TrainPipeline.accuracy(probe, validation);
    double wall = (System.nanoTime() - t0) / 1e9;
    LevelStats ls = new LevelStats(0, blocks, objective, violation, initial, 0L, 0L, wall, 0L, acc);
    if (acc != null) progress.accept(String.format(Locale.ROOT, "validation   accuracy %.2f%% on %,d rows", 100 * acc, validation.size()));
    Map<String, String> params = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith("sodm.") && !e.getKey().startsWith("sodm.internal.")) params.put(e.getKey(), conf.get(e.getKey()));
    }
    Provenance prov = new Provenance(org.sodm.cli.SodmMain.version(), Instant.now().toString(), String.join(",", inputs),
        String.format(Locale.ROOT, "rows=%d features=%d nnz=%d", data.stats().getRows(), dim, data.stats().getNonZeros()),
        new HashMap<>(params), new ArrayList<>(List.of(ls)));
    Model model = Model.linear(tc.loss, data.labelMap(), data.scaler(), w, bias, solver.name().toLowerCase(Locale.ROOT), prov);
    Path modelPath = new Path(out, TrainPipeline.MODEL);
    Path tmp = new Path(out, "." + TrainPipeline.MODEL + ".tmp");
    AvroFiles.writeOne(conf, tmp, ModelRecord.getClassSchema(), model.toAvro());
    fs.delete(modelPath, false);
    if (!fs.rename(tmp, modelPath)) throw new IOException("cannot rename " + tmp + " to " + modelPath);
    String json = String.format(Locale.ROOT,
        "{\n  \"solver\": \"%s\",\n  \"blocks\": %d,\n  \"iterations\": %d,\n  \"objective\": %.12g,\n  \"validationAccuracy\": %s,\n"
            + "  \"seconds\": %.3f,\n  \"history\": [\n    %s\n  ]\n}\n",
        solver.name().toLowerCase(Locale.ROOT), blocks, iterations, objective, acc == null ? "null" : String.format(Locale.ROOT, "%.6f", acc),
        (System.nanoTime() - t0) / 1e9, String.join(",\n    ", iterationsJson));
    try (OutputStream o = fs.create(new Path(out, TrainPipeline.REPORT), true)) {
      o.write(json.getBytes(StandardCharsets.UTF_8));
    }
    say(progress, "model", String.format(Locale.ROOT, "linear (%s), %d weights -> %s", solver.name().toLowerCase(Locale.ROOT), dim,
        modelPath), System.nanoTime(), t0);
    return new TrainPipeline.Result(model, modelPath, List.of(ls), (System.nanoTime() - t0) / 1e9);
  }

  static String bqoLine(BqoState.Iteration it) {
    return String.format(Locale.ROOT, "primal %12.6g  dual %12.6g  gap %.2e  viol %.2e  step %.4g%s", it.primal(), -it.dual(),
        it.relativeGap(), it.violation(), it.eta(), it.pocket() ? "  *" : "");
  }

  static String bqoJson(BqoState.Iteration it, double seconds) {
    return String.format(Locale.ROOT,
        "{\"t\": %d, \"primal\": %.12g, \"dual\": %.12g, \"relativeGap\": %.6g, \"violation\": %.6g, \"step\": %.6g, \"seconds\": %.3f}",
        it.t(), it.primal(), -it.dual(), it.relativeGap(), it.violation(), it.eta(), seconds);
  }

  static String dsvrgLine(double objective, double gradientNorm, double eta, boolean end) {
    return String.format(Locale.ROOT, "primal p(w) %14.8g  |grad| %.3e%s", objective, gradientNorm,
        end ? "" : String.format(Locale.ROOT, "  step %.3g", eta));
  }

  static String dsvrgJson(int epoch, double objective, double gradientNorm, double eta, double seconds) {
    return String.format(Locale.ROOT, "{\"epoch\": %d, \"primal\": %.12g, \"gradientNorm\": %.6g, \"step\": %.6g, \"seconds\": %.3f}",
        epoch, objective, gradientNorm, eta, seconds);
  }

  private static void say(Consumer<String> progress, String phase, String what, long since, long t0) {
    long now = System.nanoTime();
    progress.accept(TrainPipeline.progressLine(phase, what, (now - since) / 1e9, (now - t0) / 1e9));
  }

}
