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
import org.sodm.data.AvroClasses;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.phase.PhaseRunner;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.OutputGuard;
import org.sodm.jobs.support.SodmException;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

/**
 * {@code sodm grid}: cross-validation accuracy over a grid of (log2 C, log2 gamma), as LIBSVM's
 * grid.py. The phases, each in {@code OUTPUT/work} (present means complete, {@code --resume}):
 *
 * <pre>
 * work/ingest        the training data as Instances (skipped for an ingest directory)
 * work/cv-folds.bin  every row's fold, stratified and seeded ({@link CvFolds}, as sodm cv)
 * work/grid-gI       one job per gamma row ({@link GridJob}): every (C, fold) of that gamma; in local mode
 *                    work/grid-gI-J, one job for rows I..J when one row's folds would leave task slots idle ({@link #rowsPerJob})
 * grid.csv, grid.json, grid.png   the table, the best pair and the contour plot (written last, atomically)
 * best/              with --train-best: the sodm train run with the best pair (best/model.avro)
 * </pre>
 *
 * <p>The best pair is chosen as grid.py chooses it, deterministically: the cells in grid.py's job
 * order (its coarse-to-fine permutation of the C and gamma lists), a cell replacing the best when its
 * pooled cross-validation accuracy (svm-train -v's) is higher, or equal with the same gamma and a
 * smaller C. (grid.py updates in the order its workers finish; with one worker that is this order.)
 */
public final class GridSearch {
  private GridSearch() {}

  public static final String CSV = "grid.csv";
  public static final String JSON = "grid.json";
  public static final String PNG = "grid.png";
  public static final String BEST = "best";

  /** What the user asked for. */
  public record Request(List<String> inputs, Path output, double[] log2c, double[] log2g, int folds, boolean warm, boolean trainBest,
      boolean resume) {}

  /** One cell of the table: accuracy pooled over the folds (svm-train -v's figure), mean and sd of the per-fold accuracies. */
  public record Cell(double log2c, double log2g, double c, double gamma, long rows, long correct, double accuracy, double mean,
      double sd, double[] perFold, long epochs, long kernelEvaluations, double objective, boolean converged) {}

  /** The table in (gamma row, C) order, the best cell, and the final model's path (or null). */
  public record Result(List<Cell> cells, Cell best, Path modelPath, double seconds) {}

  /** Draws the contour plot (the cli's java2d renderer) of a finished table. */
  public interface Plotter {
    void write(Result table, String title, OutputStream out) throws IOException;
  }

  /**
   * grid.py's notation for one axis: "begin,end,step" (begin, begin + step, ... while not past end)
   * or one value, or "null" (not searched: null is returned; the caller uses the configured value). Fails naming the
   * option for a malformed text, a zero step, or a step that does not lead from begin towards end (grid.py would silently
   * search nothing).
   */
  public static double[] range(String option, String text) {
    if (text == null || text.isBlank()) throw new BadParameterException("bad parameter " + option + ": empty (give begin,end,step or one value)");
    if (text.trim().equalsIgnoreCase("null")) return null; // grid.py's "null": this parameter is not searched
    String[] p = text.trim().split(",", -1);
    double[] v = new double[p.length];
    for (int i = 0; i < p.length; i++) {
      try {
        v[i] = Double.parseDouble(p[i].trim());
      } catch (NumberFormatException e) {
        throw new BadParameterException("bad parameter " + option + " '" + text + "': '" + p[i].trim() + "' is not a number (give "
            + "begin,end,step or one value)");
      }
      if (!Double.isFinite(v[i])) throw new BadParameterException("bad parameter " + option + " '" + text + "': '" + p[i].trim() + "' is not finite");
    }
    if (p.length == 1) return v;
    if (p.length != 3) {
      throw new BadParameterException("bad parameter " + option + " '" + text + "': give begin,end,step (3 numbers) or one value, got "
          + p.length + " numbers");
    }
    double begin = v[0];
    double end = v[1];
    double step = v[2];
    if (step == 0) throw new BadParameterException("bad parameter " + option + " '" + text + "': the step is 0");
    if (begin != end && (end - begin) * step < 0) {
      throw new BadParameterException("bad parameter " + option + " '" + text + "': the step " + step + " leads away from " + begin
          + " to " + end + " (use " + (-step) + ")");
    }
    List<Double> out = new ArrayList<>();
    for (int i = 0; ; i++) {
      double x = begin + i * step;
      if (step > 0 ? x > end + 1e-9 * Math.abs(step) : x < end - 1e-9 * Math.abs(step)) break;
      out.add(x);
      if (out.size() > 10_000) throw new BadParameterException("bad parameter " + option + " '" + text + "': more than 10,000 values");
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** grid.py's permute_sequence: the middle, then alternately the permuted left and right halves. */
  static List<Integer> permute(List<Integer> seq) {
    int n = seq.size();
    if (n <= 1) return new ArrayList<>(seq);
    int mid = n / 2;
    List<Integer> left = permute(seq.subList(0, mid));
    List<Integer> right = permute(seq.subList(mid + 1, n));
    List<Integer> ret = new ArrayList<>();
    ret.add(seq.get(mid));
    while (!left.isEmpty() || !right.isEmpty()) {
      if (!left.isEmpty()) ret.add(left.remove(0));
      if (!right.isEmpty()) ret.add(right.remove(0));
    }
    return ret;
  }

  /** grid.py's calculate_jobs order of the cells, as (C index, gamma index) pairs. */
  static List<int[]> gridPyOrder(int nc, int ng) {
    List<Integer> cs = permute(java.util.stream.IntStream.range(0, nc).boxed().toList());
    List<Integer> gs = permute(java.util.stream.IntStream.range(0, ng).boxed().toList());
    List<int[]> jobs = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < nc || j < ng) {
      if ((double) i / nc < (double) j / ng) {
        for (int k = 0; k < j; k++) jobs.add(new int[] {cs.get(i), gs.get(k)});
        i++;
      } else {
        for (int k = 0; k < i; k++) jobs.add(new int[] {cs.get(k), gs.get(j)});
        j++;
      }
    }
    return jobs;
  }

  /** The best cell by grid.py's rule over its job order ({@code table[gi][ci]}); cells not yet known (null) are skipped. */
  static Cell best(Cell[][] table) {
    int ng = table.length;
    int nc = table[0].length;
    Cell best = null;
    for (int[] job : gridPyOrder(nc, ng)) {
      Cell c = table[job[1]][job[0]];
      if (c == null) continue;
      if (best == null || c.correct() > best.correct() || (c.correct() == best.correct() && c.log2g() == best.log2g() && c.log2c() < best.log2c())) {
        best = c;
      }
    }
    return best;
  }

  /** Checks the spec for a grid: a kernel with gamma and a loss with C. */
  static void check(TrainSpec spec) {
    if (!(spec.loss() instanceof Loss.Hinge) && !(spec.loss() instanceof Loss.SquaredHinge)) {
      throw TrainSpec.bad(Param.LOSS, "sodm grid searches C of the hinge or squared-hinge loss (C-SVC, as grid.py), not " + spec.loss().id());
    }
    if (spec.withDimension(1).resolvedKernel().type() == KernelSpec.Type.LINEAR) {
      throw TrainSpec.bad(Param.KERNEL, "the kernel grid searches gamma, which the linear kernel does not have (rbf, poly or sigmoid; "
          + "or --log2g null to search C alone with the linear solvers)");
    }
  }

  /** Runs the grid; {@code plot} draws grid.png (may be null: no plot). */
  public static Result run(Configuration base, Request req, Plotter plot, Consumer<String> progress) throws IOException {
    long t0 = System.nanoTime();
    AvroClasses.trust();
    Configuration conf = new Configuration(base);
    Jobs.localParallelism(conf);
    if (req.folds() < 2 || req.folds() > 127) throw new BadParameterException("bad parameter --folds: must be in [2, 127], got " + req.folds());
    TrainSpec spec = TrainSpec.from(conf);
    ClassWeights.check(spec); // a malformed entry, or a loss without class weights, fails before any job
    check(spec);
    if (spec.linearSolver() != null) throw TrainSpec.bad(Param.LINEAR_SOLVER, "sodm grid trains kernel machines");
    if (spec.probability()) throw TrainSpec.bad(Param.PROBABILITY, "sodm grid measures accuracy; it does not fit probabilities");
    OutputGuard.checkDisjoint(conf, req.output(), req.inputs(), "input");
    PhaseRunner runner = new PhaseRunner(conf, req.output(), null, progress, t0);
    List<PhaseRunner.Planned> planned = new ArrayList<>();
    planned.add(PhaseRunner.Planned.of("ingest", true));
    for (int g = 0; g < req.log2g().length; g++) planned.add(PhaseRunner.Planned.of("grid-g" + g, true));
    runner.plan(planned, n -> false);
    Map<String, String> params = new java.util.TreeMap<>(spec.values());
    params.put("sodm.internal.inputs", String.join(",", req.inputs()));
    params.put(GridJob.LOG2C, GridJob.join(req.log2c()));
    params.put(GridJob.LOG2G + ".all", GridJob.join(req.log2g()));
    params.put(GridJob.WARM, Boolean.toString(req.warm()));
    params.put(TrainKeys.CV_FOLDS, Integer.toString(req.folds()));
    params.putAll(org.sodm.jobs.support.Fingerprints.of(conf, req.inputs()));
    boolean overwrite = Param.OVERWRITE.booleanValue(conf);
    FileSystem fs = runner.fs();
    try (runner) {
      runner.prepare(params, req.resume(), overwrite);
      IngestJob.Result data = TrainPipeline.ingest(conf, runner, req.inputs(), "ingest", true); // the kernel's landmarks read the sample
      List<String> classes = TrainPipeline.classes(data.stats());
      if (classes.size() < 2) throw new SodmException("training needs at least two labels; " + req.inputs() + " has " + classes.size() + ": " + classes);
      org.sodm.model.Subproblems plan = TrainPipeline.plan(spec, data, classes, req.folds());
      TrainKeys.setPlan(conf, plan, classes);
      spec = ClassWeights.apply(conf, spec, classes);
      Path foldsFile = new Path(runner.work(), "cv-folds.bin");
      if (!fs.exists(foldsFile)) { // written before the first grid row; deterministic (seed, ids), so a resumed run may rewrite it
        Path tmp = new Path(runner.work(), ".cv-folds.bin.tmp");
        CvFolds.write(conf, new Path(data.dir(), IngestJob.DATA), classes, req.folds(), spec.seed(), tmp);
        if (!fs.rename(tmp, foldsFile)) throw new IOException("cannot rename " + tmp + " to " + foldsFile);
      }
      conf.set(TrainKeys.CV_FOLDS_FILE, foldsFile.toString());
      conf.set(TrainKeys.INGEST_DIR, data.dir().toString());
      TrainSpec resolved = TrainPipeline.resolveOffset(spec.withDimension(data.stats().getDimension()), data, runner);
      resolved.writeTo(conf);
      if (req.log2g().length == 1 && Double.isNaN(req.log2g()[0])) { // --log2g null: the configured gamma (1/d by default)
        double gamma = resolved.resolvedKernel().gamma();
        req = new Request(req.inputs(), req.output(), req.log2c(), new double[] {Math.log(gamma) / Math.log(2)}, req.folds(), req.warm(),
            req.trainBest(), req.resume());
      }
      Request grid = req;
      conf.set(GridJob.LOG2C, GridJob.join(grid.log2c()));
      conf.setBoolean(GridJob.WARM, grid.warm());
      int ng = grid.log2g().length;
      int nc = grid.log2c().length;
      int k = grid.folds();
      Cell[][] table = new Cell[ng][nc];
      long total = (long) ng * nc * k;
      int per = rowsPerJob(conf, k, ng);
      for (int g0 = 0; g0 < ng; g0 += per) {
        int first = g0;
        double[] lgs = java.util.Arrays.copyOfRange(grid.log2g(), first, Math.min(ng, first + per));
        String rows = String.join(", ", java.util.Arrays.stream(lgs).mapToObj(GridSearch::fmt).toList());
        PhaseRunner.Done d = runner.run("log2g " + rows, new PhaseRunner.Phase() {
          @Override
          public String name() {
            return "grid-g" + first + (lgs.length == 1 ? "" : "-" + (first + lgs.length - 1));
          }

          @Override
          public void write(Path temp) throws IOException {
            GridJob.run(conf, new Path(data.dir(), IngestJob.DATA), lgs, new Path(temp, "data"),
                String.format(Locale.ROOT, "log2g %s (%d C x %d folds)", rows, nc, k));
          }

          @Override
          public String summary(Path dir, boolean resumed) throws IOException {
            List<GridJob.Cell> lines = GridJob.read(conf, new Path(dir, "data"));
            Cell rowBest = null;
            long epochs = 0;
            for (int j = 0; j < lgs.length; j++) {
              table[first + j] = row(lines, j, grid.log2c(), lgs[j], k);
              for (Cell c : table[first + j]) {
                if (rowBest == null || c.correct() > rowBest.correct()) rowBest = c;
                epochs += c.epochs();
              }
            }
            Cell sofar = best(table);
            long done = (long) (first + lgs.length) * nc * k;
            return String.format(Locale.ROOT, "sub-problems %d/%d  row%s best (log2c %s, log2g %s) %.4f%%  best so far (log2c %s, log2g %s) %.4f%%  epochs %,d",
                done, total, lgs.length == 1 ? "" : "s", fmt(rowBest.log2c()), fmt(rowBest.log2g()), 100 * rowBest.accuracy(),
                fmt(sofar.log2c()), fmt(sofar.log2g()), 100 * sofar.accuracy(), epochs);
          }
        });
        if (table[first][0] == null) {
          List<GridJob.Cell> lines = GridJob.read(conf, new Path(d.dir(), "data"));
          for (int j = 0; j < lgs.length; j++) table[first + j] = row(lines, j, grid.log2c(), lgs[j], k);
        }
      }
      List<Cell> cells = new ArrayList<>();
      for (Cell[] row : table) cells.addAll(List.of(row));
      Cell best = best(table);
      Result result = new Result(cells, best, null, runner.elapsed());
      // the three files are written to hidden temporary names first and renamed only when all are complete
      List<Path[]> renames = new ArrayList<>();
      try {
        renames.add(writeTemp(fs, new Path(runner.out(), CSV), o -> o.write(csv(cells, k).getBytes(StandardCharsets.UTF_8))));
        renames.add(writeTemp(fs, new Path(runner.out(), JSON), o -> o.write(new com.fasterxml.jackson.databind.ObjectMapper()
            .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(json(result, grid, resolved)))));
        if (plot != null) {
          String title = String.format(Locale.ROOT, "%s: %d-fold CV accuracy, best log2c %s log2g %s = %.4f%%",
              String.join(",", grid.inputs().stream().map(s -> new Path(s).getName()).toList()), k, fmt(best.log2c()),
              fmt(best.log2g()), 100 * best.accuracy());
          renames.add(writeTemp(fs, new Path(runner.out(), PNG), o -> plot.write(result, title, o)));
        }
      } catch (IOException | RuntimeException e) {
        for (Path[] r : renames) fs.delete(r[0], false);
        throw e;
      }
      for (Path[] r : renames) {
        fs.delete(r[1], false);
        if (!fs.rename(r[0], r[1])) throw new IOException("cannot rename " + r[0] + " to " + r[1]);
      }
      runner.ended();
      runner.note(String.format(Locale.ROOT, "best         log2c %s log2g %s (C %s, gamma %s): %.4f%% (%d folds, mean %.4f%% +- %.4f)",
          fmt(best.log2c()), fmt(best.log2g()), best.c(), best.gamma(), 100 * best.accuracy(), k, 100 * best.mean(), 100 * best.sd()));
      Path modelPath = null;
      if (grid.trainBest()) {
        Configuration tc = new Configuration(base);
        tc.set(Param.C.key(), Double.toString(best.c()));
        tc.set(Param.GAMMA.key(), Double.toString(best.gamma()));
        TrainPipeline.Result tr = TrainPipeline.run(tc, new TrainPipeline.Request(List.of(data.dir().toString()), null,
            new Path(runner.out(), BEST), false), line -> progress.accept("train-best: " + line));
        modelPath = tr.modelPath();
      }
      return new Result(cells, best, modelPath, runner.elapsed());
    }
  }

  static String fmt(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  /**
   * Gamma rows per grid job: 1 on a cluster; in local mode the fewest whose (gamma, fold) sub-problems fill the task
   * slots evenly, slots / gcd(slots, folds) (2 cores, 5 folds: 2 rows, 10 sub-problems in 5 rounds of 2, where one row's 5
   * took 3 rounds, the last with a core idle), at most the grid's rows. The cells do not depend on it.
   */
  static int rowsPerJob(Configuration conf, int folds, int rows) {
    if (!Jobs.isLocal(conf)) return 1;
    int slots = Jobs.localSlots(conf);
    return Math.max(1, Math.min(rows, slots / java.math.BigInteger.valueOf(slots).gcd(java.math.BigInteger.valueOf(folds)).intValue()));
  }

  /** Gamma row {@code gammaIndex} (of the job's rows) of cells from a job's lines. */
  private static Cell[] row(List<GridJob.Cell> all, int gammaIndex, double[] log2c, double log2g, int folds) {
    // in fold order: the sums over the folds (objective) must not depend on which reduce task wrote which line
    List<GridJob.Cell> lines = all.stream().filter(l -> l.gammaIndex() == gammaIndex)
        .sorted(java.util.Comparator.comparingInt(GridJob.Cell::cIndex).thenComparingInt(GridJob.Cell::fold)).toList();
    long[][] rows = new long[log2c.length][folds];
    long[][] correct = new long[log2c.length][folds];
    long[] epochs = new long[log2c.length];
    long[] evals = new long[log2c.length];
    double[] obj = new double[log2c.length];
    boolean[] conv = new boolean[log2c.length];
    java.util.Arrays.fill(conv, true);
    int[] seen = new int[log2c.length];
    for (GridJob.Cell l : lines) {
      rows[l.cIndex()][l.fold()] = l.rows();
      correct[l.cIndex()][l.fold()] = l.correct();
      epochs[l.cIndex()] += l.epochs();
      evals[l.cIndex()] += l.kernelEvaluations();
      obj[l.cIndex()] += l.objective();
      conv[l.cIndex()] &= l.converged();
      seen[l.cIndex()]++;
    }
    Cell[] out = new Cell[log2c.length];
    for (int ci = 0; ci < log2c.length; ci++) {
      if (seen[ci] != folds) throw new SodmException("grid row log2g " + log2g + ": log2c " + log2c[ci] + " has " + seen[ci] + " of " + folds + " folds");
      long n = 0;
      long ok = 0;
      double mean = 0;
      double[] per = new double[folds];
      for (int f = 0; f < folds; f++) {
        n += rows[ci][f];
        ok += correct[ci][f];
        per[f] = rows[ci][f] == 0 ? 0 : (double) correct[ci][f] / rows[ci][f];
        mean += per[f] / folds;
      }
      double var = 0;
      for (double a : per) var += (a - mean) * (a - mean);
      double sd = Math.sqrt(var / (folds - 1));
      out[ci] = new Cell(log2c[ci], log2g, GridJob.pow2(log2c[ci]), GridJob.pow2(log2g), n, ok, (double) ok / n, mean, sd, per,
          epochs[ci], evals[ci], obj[ci], conv[ci]);
    }
    return out;
  }

  static String csv(List<Cell> cells, int folds) {
    StringBuilder sb = new StringBuilder("log2c,log2g,c,gamma,accuracy,mean,sd");
    for (int f = 0; f < folds; f++) sb.append(",fold").append(f);
    sb.append(",rows,correct,epochs,kernel_evaluations\n");
    for (Cell c : cells) {
      sb.append(String.format(Locale.ROOT, "%s,%s,%s,%s,%.6f,%.6f,%.6f", fmt(c.log2c()), fmt(c.log2g()), c.c(), c.gamma(), c.accuracy(),
          c.mean(), c.sd()));
      for (double a : c.perFold()) sb.append(String.format(Locale.ROOT, ",%.6f", a));
      sb.append(',').append(c.rows()).append(',').append(c.correct()).append(',').append(c.epochs()).append(',')
          .append(c.kernelEvaluations()).append('\n');
    }
    return sb.toString();
  }

  private static Map<String, Object> json(Result r, Request req, TrainSpec spec) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("inputs", req.inputs());
    m.put("folds", req.folds());
    m.put("log2c", req.log2c());
    m.put("log2g", req.log2g());
    m.put("loss", spec.loss().id());
    m.put("kernel", spec.resolvedKernel().type().id());
    m.put("warmStart", req.warm());
    m.put("accuracy", "pooled over the folds (svm-train -v's Cross Validation Accuracy); mean and sd over the per-fold accuracies");
    m.put("tieRule", "grid.py's job order; a cell replaces the best when more accurate, or equal with the same gamma and a smaller C");
    m.put("best", cell(r.best()));
    List<Map<String, Object>> cells = new ArrayList<>();
    for (Cell c : r.cells()) cells.add(cell(c));
    m.put("cells", cells);
    m.put("seconds", r.seconds());
    return m;
  }

  private static Map<String, Object> cell(Cell c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("log2c", c.log2c());
    m.put("log2g", c.log2g());
    m.put("c", c.c());
    m.put("gamma", c.gamma());
    m.put("accuracy", c.accuracy());
    m.put("mean", c.mean());
    m.put("sd", c.sd());
    m.put("perFold", c.perFold());
    m.put("rows", c.rows());
    m.put("correct", c.correct());
    m.put("epochs", c.epochs());
    m.put("kernelEvaluations", c.kernelEvaluations());
    m.put("objective", c.objective());
    m.put("converged", c.converged());
    return m;
  }

  private interface Writer {
    void write(OutputStream o) throws IOException;
  }

  /** Writes {@code file}'s content to a hidden temporary sibling; returns {temporary, file} (the temporary is removed on failure). */
  private static Path[] writeTemp(FileSystem fs, Path file, Writer w) throws IOException {
    Path tmp = new Path(file.getParent(), "." + file.getName() + ".tmp");
    try (OutputStream o = fs.create(tmp, true)) {
      w.write(o);
    } catch (IOException | RuntimeException e) {
      fs.delete(tmp, false);
      throw e;
    }
    return new Path[] {tmp, file};
  }
}
