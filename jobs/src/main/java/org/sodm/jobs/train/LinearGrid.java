package org.sodm.jobs.train;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.linear.LinearTrainer;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.OutputDir;
import org.sodm.jobs.support.OutputGuard;

/**
 * {@code sodm grid --kernel linear --log2g null}: grid.py's search of C alone for the linear kernel, with sodm's linear
 * solvers (LIBLINEAR's problems, as {@code sodm cv --kernel linear}). The data are ingested once into OUTPUT/work/ingest. By
 * default one {@code sodm cv} on that ingest directory takes every C as a warm-started path ({@link #path}: each (task, fold)
 * along the C values in increasing order in one resident run), so each cell is {@code sodm cv --kernel linear -c C} to the
 * solver's tolerance (the smallest C exactly); with --no-warm-start, or where the solver takes no path, every C is its own
 * {@code sodm cv} (the same seeded, stratified folds for every C), each cell that cv exactly. Writes OUTPUT/grid.csv and grid.json as the kernel grid does (log2g NaN,
 * gamma 0: the linear kernel has none; no grid.png, as grid.py draws none with a null axis) and, with --train-best, the
 * model of the best C in OUTPUT/best. The output appears only when complete; --resume is the kernel grid's only.
 */
public final class LinearGrid {
  private LinearGrid() {}

  /** Whether a grid over these options is the linear one: --kernel linear. */
  public static boolean applies(Configuration conf) {
    return "linear".equalsIgnoreCase(conf.get(Param.KERNEL.key(), "").trim());
  }

  /**
   * The warm-started C path: one {@code sodm cv} over every C in increasing order ({@link LinearTrainer#C_PATH}), each (task, fold)
   * starting from its solution at the previous C, in one resident run. False (after a line saying why) when the solver or the
   * memory budget takes no path: then every C is its own cv, as --no-warm-start.
   */
  @SuppressWarnings("unchecked")
  private static boolean path(Configuration conf, GridSearch.Request req, IngestJob.Result data, Path work, FileSystem fs,
      GridSearch.Cell[][] table, Consumer<String> progress, long t0) throws IOException {
    Integer[] order = new Integer[req.log2c().length];
    for (int i = 0; i < order.length; i++) order[i] = i;
    java.util.Arrays.sort(order, java.util.Comparator.comparingDouble(i -> req.log2c()[i]));
    List<String> cs = new ArrayList<>();
    for (int i = 0; i < order.length; i++) {
      if (i > 0 && req.log2c()[order[i]] == req.log2c()[order[i - 1]]) {
        throw new BadParameterException("bad parameter --log2c: the value " + GridSearch.fmt(req.log2c()[order[i]]) + " is given twice");
      }
      cs.add(Double.toString(GridJob.pow2(req.log2c()[order[i]])));
    }
    Configuration cc = new Configuration(conf);
    cc.set(Param.C.key(), cs.get(0));
    cc.setInt(TrainKeys.CV_FOLDS, req.folds());
    cc.setStrings(LinearTrainer.C_PATH, cs.toArray(new String[0]));
    Path out = new Path(work, "cv-path");
    try {
      TrainPipeline.run(cc, new TrainPipeline.Request(List.of(data.dir().toString()), null, out, false), line -> {
        // per C (BQO's or TRON's path); a resubmitted attempt
        if (line.startsWith("bqo-path") || line.startsWith("tron-path") || line.startsWith("softmax-path") || line.startsWith("allreduce")) progress.accept(line);
      });
    } catch (LinearTrainer.PathUnavailable e) {
      progress.accept("warm start   none: " + e.getMessage() + "; every C from zero");
      fs.delete(out, true);
      return false;
    }
    List<Map<String, Object>> cells = (List<Map<String, Object>>) report(fs, out).get("path");
    fs.delete(out, true);
    int kept = 0;
    for (int j = 0; j < order.length; j++) {
      int i = order[j];
      double c = GridJob.pow2(req.log2c()[i]);
      table[0][i] = cell(req.log2c()[i], c, cells.get(j));
      Object its = cells.get(j).get("iterations");
      // a stage whose warm start already meets its stop (relative to the gradient at 0, as LIBLINEAR's, which grows with C)
      String none = its instanceof Number n && n.longValue() == 0 && j > 0 ? ": the previous C's solution meets this C's stop" : "";
      if (!none.isEmpty()) kept++;
      progress.accept(String.format(Locale.ROOT, "log2c %-6s C %-10s %.4f%% (%d folds, %s iterations%s)", GridSearch.fmt(req.log2c()[i]), c,
          100 * table[0][i].accuracy(), table[0][i].perFold().length, its, none));
    }
    progress.accept(String.format(Locale.ROOT, "path         %d values of C warm-started in one run  %.1f s", order.length,
        (System.nanoTime() - t0) / 1e9));
    if (kept > 0) progress.accept(keptHint(kept, TrainSpec.from(cc)));
    return true;
  }

  /**
   * What to do when {@code kept} values of C kept the previous C's model: the stop, relative to the gradient at 0 as LIBLINEAR's,
   * held there (on unscaled data, where that gradient is large, at every C), so those cells are the previous C's model.
   */
  static String keptHint(int kept, TrainSpec spec) {
    String cure = spec.l1() && spec.l1Gap() == 0 ? "--l1-gap G (a stop by duality gap: f within G f of each C's optimum), --scale 0,1 or a lower -e"
        : "--scale 0,1 or a lower -e";
    return "note         " + kept + " value(s) of C kept the previous C's model (its stop, relative to the gradient at 0, held there); "
        + cure + " solves each C to its own optimum";
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> report(FileSystem fs, Path out) throws IOException {
    try (java.io.InputStream in = fs.open(new Path(out, TrainPipeline.REPORT))) {
      return new com.fasterxml.jackson.databind.ObjectMapper().readValue(in, Map.class);
    }
  }

  /** A cell from a cv entry of the report (per fold rows and correct; mean, sd). */
  @SuppressWarnings("unchecked")
  private static GridSearch.Cell cell(double log2c, double c, Map<String, Object> cv) {
    List<Map<String, Object>> folds = (List<Map<String, Object>>) cv.get("folds");
    double[] per = new double[folds.size()];
    long rows = 0;
    long correct = 0;
    for (int f = 0; f < per.length; f++) {
      per[f] = ((Number) folds.get(f).get("accuracy")).doubleValue();
      rows += ((Number) folds.get(f).get("rows")).longValue();
      correct += ((Number) folds.get(f).get("correct")).longValue();
    }
    return new GridSearch.Cell(log2c, Double.NaN, c, 0, rows, correct, (double) correct / rows, ((Number) cv.get("mean")).doubleValue(),
        ((Number) cv.get("sd")).doubleValue(), per, 0, 0, Double.NaN, true);
  }

  /** The largest value of C of --log2c auto: LIBLINEAR's -C goes up to 1024. */
  static final int AUTO_MAX_LOG2C = 10;

  /**
   * --log2c auto: LIBLINEAR's -C range of C (its calc_start_C): from 2^floor(log2(C_min)), C_min = 1 / (l max|x|^2) for
   * logistic regression and 1 / (2 l max|x|^2) for the SVM losses (l the training rows, |x| a row's norm as the solver sees it:
   * scaled, with the bias feature), up to 2^10, doubling. Below C_min the models hardly depend on C.
   */
  static double[] autoLog2c(Configuration conf, TrainSpec spec, IngestJob.Result data, Consumer<String> progress) throws IOException {
    org.sodm.solver.Loss loss = spec.loss();
    boolean logistic = loss instanceof org.sodm.solver.Loss.Logistic;
    if (!logistic && !(loss instanceof org.sodm.solver.Loss.Hinge) && !(loss instanceof org.sodm.solver.Loss.SquaredHinge)) {
      throw new BadParameterException("bad parameter --log2c auto: LIBLINEAR's range of C is for the hinge, squared-hinge and logistic "
          + "losses, not " + loss.id() + " (give --log2c B,E,S)");
    }
    org.sodm.data.Scaler scaler = data.scaler();
    double[] max = {0};
    org.sodm.jobs.support.AvroFiles.forEach(conf, new Path(data.dir(), IngestJob.DATA), org.sodm.avro.Instance.class, in -> {
      org.sodm.data.SparseVector x = org.sodm.data.Instances.features(in.getFeatures());
      max[0] = Math.max(max[0], (scaler == null ? x : scaler.apply(x)).squaredNorm());
    });
    double sq = max[0] + (loss.bias() ? 1 : 0);
    long l = data.stats().getRows();
    if (!(sq > 0)) throw new BadParameterException("bad parameter --log2c auto: every training row is zero (no feature and no --bias)");
    double cMin = (logistic ? 1.0 : 0.5) / (l * sq);
    int begin = (int) Math.min(Math.floor(Math.log(cMin) / Math.log(2)), AUTO_MAX_LOG2C);
    double[] v = new double[AUTO_MAX_LOG2C - begin + 1];
    for (int i = 0; i < v.length; i++) v[i] = begin + i;
    progress.accept(String.format(Locale.ROOT, "log2c auto   LIBLINEAR's -C range: C from 2^%d (%s / (l max|x|^2) = %.4g, l = %,d, max|x|^2 = "
        + "%.6g) to 2^%d, doubling: %d values", begin, logistic ? "1" : "1/2", cMin, l, sq, AUTO_MAX_LOG2C, v.length));
    return v;
  }

  @SuppressWarnings("unchecked")
  public static GridSearch.Result run(Configuration base, GridSearch.Request req, Consumer<String> progress) throws IOException {
    long t0 = System.nanoTime();
    if (!(req.log2g().length == 1 && Double.isNaN(req.log2g()[0]))) {
      throw new BadParameterException("bad parameter --log2g: the linear kernel has no gamma; give --log2g null (grid.py's -log2g null "
          + "with -t 0) to search C alone");
    }
    if (req.resume()) throw new BadParameterException("bad parameter --resume: a linear grid (--kernel linear) starts over; drop --resume");
    if (req.folds() < 2 || req.folds() > 127) throw new BadParameterException("bad parameter --folds: must be in [2, 127], got " + req.folds());
    Configuration conf = new Configuration(base);
    TrainSpec spec = TrainSpec.from(conf);
    if (spec.linearSolver() == null) throw TrainSpec.bad(Param.LINEAR_SOLVER, "a linear grid trains with the linear solvers");
    if (spec.probability()) throw TrainSpec.bad(Param.PROBABILITY, "sodm grid measures accuracy; it does not fit probabilities");
    OutputGuard.checkDisjoint(conf, req.output(), req.inputs(), "input");
    try (OutputDir od = OutputDir.create(conf, req.output(), Param.OVERWRITE.booleanValue(conf))) {
      FileSystem fs = od.temp().getFileSystem(conf);
      Path work = new Path(od.temp(), "work");
      IngestJob.Result data = IngestJob.run(conf, req.inputs(), new Path(work, "ingest"));
      if (req.log2c().length == 0) { // --log2c auto
        req = new GridSearch.Request(req.inputs(), req.output(), autoLog2c(conf, spec, data, progress), req.log2g(), req.folds(), req.warm(),
            req.trainBest(), req.resume());
      }
      progress.accept(String.format(Locale.ROOT, "ingest       %,d rows, %d features: %d values of C x %d folds, linear (%s)",
          data.stats().getRows(), data.stats().getDimension(), req.log2c().length, req.folds(), spec.loss().id()));
      GridSearch.Cell[][] table = new GridSearch.Cell[1][req.log2c().length];
      boolean path = req.warm() && req.log2c().length > 1 && path(conf, req, data, work, fs, table, progress, t0);
      for (int i = 0; i < req.log2c().length && !path; i++) {
        double log2c = req.log2c()[i];
        double c = GridJob.pow2(log2c);
        Configuration cc = new Configuration(conf);
        cc.set(Param.C.key(), Double.toString(c));
        cc.setInt(TrainKeys.CV_FOLDS, req.folds());
        Path out = new Path(work, "cv-" + i);
        TrainPipeline.run(cc, new TrainPipeline.Request(List.of(data.dir().toString()), null, out, false), line -> {});
        Map<String, Object> cv = (Map<String, Object>) report(fs, out).get("cv");
        fs.delete(out, true);
        table[0][i] = cell(log2c, c, cv);
        progress.accept(String.format(Locale.ROOT, "log2c %-6s C %-10s %.4f%% (%d folds)  %.1f s", GridSearch.fmt(log2c), c,
            100 * table[0][i].accuracy(), table[0][i].perFold().length, (System.nanoTime() - t0) / 1e9));
      }
      GridSearch.Cell best = null; // grid.py's order and rule, gamma being null: equal accuracy and a smaller C replaces the best
      for (int[] job : GridSearch.gridPyOrder(table[0].length, 1)) {
        GridSearch.Cell c = table[0][job[0]];
        if (best == null || c.correct() > best.correct() || (c.correct() == best.correct() && c.log2c() < best.log2c())) best = c;
      }
      List<GridSearch.Cell> cells = List.of(table[0]);
      try (OutputStream o = fs.create(new Path(od.temp(), GridSearch.CSV), false)) {
        o.write(GridSearch.csv(cells, req.folds()).getBytes(StandardCharsets.UTF_8));
      }
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("inputs", req.inputs());
      json.put("folds", req.folds());
      json.put("log2c", req.log2c());
      json.put("log2g", "null");
      json.put("loss", spec.loss().id());
      json.put("kernel", "linear");
      json.put("linearSolver", spec.linearSolver().name().toLowerCase(Locale.ROOT));
      json.put("warmStart", !path ? "none: every C from zero (sodm cv per C)" : spec.linearSolver() == TrainSpec.LinearSolver.TRON
          ? "a C path: every (task, fold) along the C values in increasing order in one run, each C from the previous C's w, "
          + "solved to its own stop" : "a C path: every (task, fold) along the C values in increasing order in one run, each C from "
          + "the previous C's solution rescaled by C'/C, solved to its own gap");
      json.put("accuracy", "pooled over the folds (svm-train -v's Cross Validation Accuracy); mean and sd over the per-fold accuracies");
      json.put("tieRule", "grid.py's job order; a cell replaces the best when more accurate, or equal with a smaller C");
      List<Map<String, Object>> list = new ArrayList<>();
      for (GridSearch.Cell c : cells) list.add(Map.of("log2c", c.log2c(), "c", c.c(), "accuracy", c.accuracy(), "mean", c.mean(),
          "sd", c.sd(), "perFold", c.perFold(), "rows", c.rows(), "correct", c.correct()));
      json.put("cells", list);
      json.put("best", Map.of("log2c", best.log2c(), "c", best.c(), "accuracy", best.accuracy()));
      json.put("seconds", (System.nanoTime() - t0) / 1e9);
      try (OutputStream o = fs.create(new Path(od.temp(), GridSearch.JSON), false)) {
        o.write(new com.fasterxml.jackson.databind.ObjectMapper().enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
            .writeValueAsBytes(json));
      }
      progress.accept(String.format(Locale.ROOT, "best         log2c %s (C %s): %.4f%% (%d folds, mean %.4f%% +- %.4f)",
          GridSearch.fmt(best.log2c()), best.c(), 100 * best.accuracy(), req.folds(), 100 * best.mean(), 100 * best.sd()));
      Path modelPath = null;
      if (req.trainBest()) {
        Configuration tc = new Configuration(base);
        tc.set(Param.C.key(), Double.toString(best.c()));
        TrainPipeline.Result tr = TrainPipeline.run(tc, new TrainPipeline.Request(List.of(data.dir().toString()), null,
            new Path(od.temp(), GridSearch.BEST), false), line -> progress.accept("train-best: " + line));
        modelPath = new Path(new Path(od.target(), GridSearch.BEST), tr.modelPath().getName());
      }
      fs.delete(work, true);
      od.commit();
      return new GridSearch.Result(cells, best, modelPath, (System.nanoTime() - t0) / 1e9);
    }
  }
}
