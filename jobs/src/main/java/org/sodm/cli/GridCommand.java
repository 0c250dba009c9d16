package org.sodm.cli;

import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.train.GridSearch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "grid", sortOptions = false,
    header = "Grid search of C and gamma by k-fold cross-validation, as LIBSVM's grid.py.",
    description = {
    "Grid search of C and gamma by k-fold cross-validation, as LIBSVM's grid.py: every (C, gamma, fold) is a",
    "sub-problem of the same jobs (one job per gamma row, in local mode as many rows as fill the cores evenly; its",
    "reducers solve one (gamma, fold) each along the C values, each C warm-started from the previous C's solution",
    "rescaled by C'/C). The folds are sodm cv's",
    "(stratified, seeded), each sub-problem is solved in one block as sodm cv solves it, so every cell equals",
    "sodm cv with that C and gamma. Writes OUTPUT/grid.csv and grid.json (every cell: log2c, log2g, C, gamma,",
    "accuracy pooled over the folds as svm-train -v, mean and sd over the folds, every fold), OUTPUT/grid.png",
    "(contour plot of the accuracy over log2 C x log2 gamma) and prints the best pair (ties as grid.py, in its job",
    "order: equal accuracy keeps the earlier cell unless same gamma and smaller C). --train-best trains the final",
    "model with it into OUTPUT/best (OUTPUT/best/model.avro). The loss is hinge (C-SVC) unless --loss squared-hinge.",
    "Takes sodm train's options (kernel rbf, poly or sigmoid). With --kernel linear: C alone (grid.py's -t 0 -log2g",
    "null) with the linear solvers on data ingested once; with BQO every (task, fold) along the C values in increasing",
    "order in one run, each C warm-started from the previous C's solution rescaled by C'/C (LIBLINEAR's -C) and solved",
    "to its own gap, so a cell is sodm cv --kernel linear with that C to the solver's tolerance (the smallest C exactly);",
    "with --loss logistic (TRON) each C from the previous C's w; --log2c auto takes LIBLINEAR's -C range of C from the",
    "data; --no-warm-start, or a solver without a path, runs sodm cv per C; no plot, no --resume."})
public final class GridCommand extends SodmCommand {
  @Option(names = {"-i", "--input"}, required = true, split = ",", paramLabel = "PATH",
      description = "Training data: LIBSVM/CSV/Avro files, directories, globs, or an ingest directory.")
  List<String> inputs;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR",
      description = "Output directory: grid.csv, grid.json, grid.png, work/ (resumable per job of gamma rows), best/ with --train-best.")
  String output;

  @Option(names = "--log2c", paramLabel = "B,E,S", defaultValue = "-5,15,2",
      description = "log2 C values as grid.py: begin,end,step, one value, or null (not searched: -c, default 1) (default -5,15,2); "
          + "with --kernel linear also auto: LIBLINEAR's -C range, from 2^floor(log2(1 / (l max|x|^2))) (half that for the SVM "
          + "losses) to 2^10, doubling.")
  String log2c;

  @Option(names = "--log2g", paramLabel = "B,E,S",
      description = "log2 gamma values as grid.py: begin,end,step, one value, or null (not searched: -g, default "
          + "1/features) (default 3,-15,-2; with --kernel linear null: C alone, with the linear solvers).")
  String log2g;

  @Option(names = {"--folds", "-v"}, paramLabel = "K", defaultValue = "5", description = "Folds (default 5, at most 127); -v K as grid.py's -v K.")
  int folds;

  @Option(names = "--no-warm-start", description = "Solve every C from zero instead of from the previous C's solution (with --kernel "
      + "linear: one sodm cv per C).")
  boolean cold;

  @Option(names = "--train-best", description = "Train the final model with the best pair into OUTPUT/best.")
  boolean trainBest;

  @Option(names = "--resume", description = "Continue the grid in OUTPUT from its last complete gamma row (same parameters).")
  boolean resume;

  private double[] cs;
  private double[] gs;

  @Override
  protected List<Param> params() {
    return TrainCommand.PARAMS;
  }

  @Override
  protected String quietSays() {
    return " but the best pair's line";
  }

  @Override
  protected void applyOptions(Configuration conf) {
    if (log2c.trim().equalsIgnoreCase("auto")) {
      if (!org.sodm.jobs.train.LinearGrid.applies(conf)) {
        throw new org.sodm.jobs.spec.BadParameterException("bad parameter --log2c auto: LIBLINEAR's range of C is for --kernel linear; "
            + "give --log2c B,E,S");
      }
      cs = new double[0]; // from the data, once ingested (LinearGrid)
    } else {
      cs = GridSearch.range("--log2c", log2c);
    }
    String g = log2g != null ? log2g : org.sodm.jobs.train.LinearGrid.applies(conf) ? "null" : "3,-15,-2";
    gs = GridSearch.range("--log2g", g);
    if (cs == null) cs = new double[] {Math.log(Param.C.doubleValue(conf)) / Math.log(2)}; // grid.py's null: -c (default 1)
    if (gs == null) gs = new double[] {Double.NaN}; // grid.py's null: -g, resolved from the data (1/d by default)
    if (cs.length == 1 && gs.length == 1 && log2c.trim().equalsIgnoreCase("null") && g.trim().equalsIgnoreCase("null")) {
      throw new org.sodm.jobs.spec.BadParameterException("bad parameter --log2c / --log2g: both are null, nothing to search (use sodm cv)");
    }
    if (folds < 2 || folds > 127) {
      throw new org.sodm.jobs.spec.BadParameterException("bad parameter --folds: must be in [2, 127], got " + folds);
    }
    String[] from = conf.getPropertySources(Param.LOSS.key()); // null or sodm-default.xml: not chosen by the user
    boolean chosen = from != null && java.util.Arrays.stream(from).anyMatch(s -> !s.contains(org.sodm.jobs.support.SodmConf.DEFAULT_RESOURCE));
    if (!chosen) conf.set(Param.LOSS.key(), "hinge"); // C-SVC, as grid.py
    String loss = org.sodm.solver.Loss.canonicalId(conf.get(Param.LOSS.key()));
    if (cs.length == 0 && !java.util.Set.of("hinge", "squared-hinge", "logistic").contains(loss)) { // before any job
      throw new org.sodm.jobs.spec.BadParameterException("bad parameter --log2c auto: LIBLINEAR's range of C is for the hinge, "
          + "squared-hinge and logistic losses, not " + loss + " (give --log2c B,E,S)");
    }
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    if (org.sodm.jobs.train.LinearGrid.applies(conf)) {
      GridSearch.Result r = org.sodm.jobs.train.LinearGrid.run(conf, new GridSearch.Request(inputs, new Path(output), cs, gs, folds, !cold,
          trainBest, resume), line -> out().println("sodm grid: " + line));
      GridSearch.Cell b = r.best();
      result().printf(Locale.ROOT, "best log2c %s (C %s): Cross Validation Accuracy = %.4f%% (%d values of C x %d folds) in %.1f s%n",
          fmt(b.log2c()), b.c(), 100 * b.accuracy(), r.cells().size(), folds, r.seconds());
      out().printf("sodm grid: table %s, %s%s%n", new Path(output, GridSearch.CSV), new Path(output, GridSearch.JSON),
          r.modelPath() == null ? "" : ", model " + r.modelPath());
      return 0;
    }
    GridSearch.Result r = GridSearch.run(conf, new GridSearch.Request(inputs, new Path(output), cs, gs, folds, !cold, trainBest, resume),
        GridPng::write, line -> out().println("sodm grid: " + line));
    GridSearch.Cell b = r.best();
    result().printf(Locale.ROOT, "best log2c %s log2g %s (C %s, gamma %s): Cross Validation Accuracy = %.4f%% (%d cells x %d folds) in %.1f s%n",
        fmt(b.log2c()), fmt(b.log2g()), b.c(), b.gamma(), 100 * b.accuracy(), r.cells().size(), folds, r.seconds());
    out().printf("sodm grid: table %s, %s, plot %s%s%n", new Path(output, GridSearch.CSV), new Path(output, GridSearch.JSON),
        new Path(output, GridSearch.PNG), r.modelPath() == null ? "" : ", model " + r.modelPath());
    return 0;
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
