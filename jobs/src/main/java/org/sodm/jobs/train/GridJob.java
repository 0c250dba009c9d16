package org.sodm.jobs.train;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapred.AvroValue;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.jobs.phase.MulticlassKeys;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.Model;
import org.sodm.model.ModelCodec;
import org.sodm.model.MulticlassModel;
import org.sodm.model.Subproblems;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.Loss;
import org.sodm.solver.OffsetSvcSolver;
import org.sodm.solver.SolveResult;

/**
 * One job of {@code sodm grid}: for the gamma values of the job (one row of the grid by default) and
 * every fold, the sub-problem (gamma, held-out fold) is one reduce group (key block = gamma index *
 * folds + fold, secondary sort by id as in the solve jobs). The reducer solves every task of the
 * multi-class scheme along the C values in the given order, each C warm-started from the previous
 * C's solution rescaled by C'/C (LIBSVM practice; the rescaled alpha stays in the box [0, C'] of the
 * hinge loss and the squared hinge has no upper bound, so the start is feasible and the solver runs
 * to the same tolerance as from zero; LIBSVM's C-SVC, the default, also carries the gradient and G_bar
 * scaled, {@link OffsetSvcSolver#solveScaled}, so that the start costs no kernel column), scores the held-out fold with the models of each C (the
 * kernel of a row and a support vector once for all of them, {@link MulticlassModel.Family}) and writes
 * one line per (gamma, C, fold): rows, correct, epochs, kernel evaluations, dual objective, SVs.
 *
 * <p>Each (C, gamma, fold) sub-problem is solved in one block, exactly as {@code sodm cv} solves a
 * task of at most {@code sodm.train.exact.below.rows} rows (the same solver, options, row order and
 * model), so a cold-started cell equals {@code sodm cv} with that C and gamma. The map side sends a
 * row scaled to the folds that train on it and raw to the one that scores it (the model applies the
 * ingest scaler, as prediction does).
 */
final class GridJob {
  private GridJob() {}

  /** log2 C values in solve order (comma-separated). */
  static final String LOG2C = "sodm.internal.grid.log2c";
  /** log2 gamma values of this job (comma-separated). */
  static final String LOG2G = "sodm.internal.grid.log2g";
  /** Warm start along C. */
  static final String WARM = "sodm.internal.grid.warm";

  static double[] doubles(Configuration conf, String key) {
    String[] s = conf.getTrimmedStrings(key);
    double[] d = new double[s.length];
    for (int i = 0; i < s.length; i++) d[i] = Double.parseDouble(s[i]);
    return d;
  }

  static String join(double[] v) {
    StringBuilder sb = new StringBuilder();
    for (double x : v) sb.append(sb.length() == 0 ? "" : ",").append(x);
    return sb.toString();
  }

  /** 2^e (exact for integer e). */
  static double pow2(double e) {
    return Math.pow(2, e);
  }

  /** The hinge or squared-hinge loss with cost C (the weights and bias kept). */
  static Loss withC(Loss loss, double c) {
    if (loss instanceof Loss.Hinge h) return new Loss.Hinge(c, h.bias(), h.weights());
    if (loss instanceof Loss.SquaredHinge s) return new Loss.SquaredHinge(c, s.bias(), s.weights());
    throw new IllegalArgumentException("the grid searches C of the hinge or squared-hinge loss, not " + loss.id());
  }

  /** The kernel of the spec with gamma replaced. */
  static KernelSpec withGamma(KernelSpec k, double gamma) {
    return new KernelSpec(k.type(), gamma, k.coef0(), k.degree());
  }

  /** One result line. */
  record Cell(int gammaIndex, int cIndex, int fold, long rows, long correct, long epochs, long kernelEvaluations, double objective,
      long supportVectors, boolean converged) {
    static Cell parse(String line) {
      String[] f = line.split("\t");
      return new Cell(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]),
          Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), Double.parseDouble(f[7]), Long.parseLong(f[8]),
          Boolean.parseBoolean(f[9]));
    }

    String line() {
      return String.format(Locale.ROOT, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%s", gammaIndex, cIndex, fold, rows, correct, epochs,
          kernelEvaluations, Double.toString(objective), supportVectors, converged);
    }
  }

  /** Runs the job over the ingested rows; every line of {@code out} is a {@link Cell}. */
  static void run(Configuration base, Path ingestData, double[] log2g, Path out, String label) throws IOException {
    Configuration conf = new Configuration(base);
    conf.set(LOG2G, join(log2g));
    conf.set(JobFailure.DIR_KEY, new Path(out.getParent(), "_failures").toString());
    conf.setBoolean("mapreduce.reduce.speculative", false);
    int folds = MulticlassKeys.plan(conf).folds();
    Job job = Jobs.newJob(conf, "sodm grid " + label);
    job.setJarByClass(GridJob.class);
    job.setInputFormatClass(org.sodm.jobs.support.AvroPiecesInputFormat.class);
    AvroJob.setInputKeySchema(job, Instance.getClassSchema());
    FileInputFormat.setInputPaths(job, ingestData);
    job.setMapperClass(GridMapper.class);
    job.setMapOutputKeyClass(BlockKey.class);
    AvroJob.setMapOutputValueSchema(job, TrainRecord.getClassSchema());
    job.setPartitionerClass(BlockKey.ByBlock.class);
    job.setSortComparatorClass(BlockKey.Comparator.class);
    job.setGroupingComparatorClass(BlockKey.GroupByBlock.class);
    org.sodm.jobs.support.InProcessJob.distinctMapKeys(job, log2g.length * folds); // (block, id): a row once per block it is in
    job.setReducerClass(GridReducer.class);
    job.setNumReduceTasks(SolveJob.reducers(conf, log2g.length * folds));
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    job.setOutputFormatClass(TextOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job, "grid " + label);
  }

  /** The result lines of a job's output directory. */
  static List<Cell> read(Configuration conf, Path dir) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    List<Cell> out = new ArrayList<>();
    for (FileStatus s : fs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
      try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(fs.open(s.getPath()),
          java.nio.charset.StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) if (!line.isBlank()) out.add(Cell.parse(line.trim()));
      }
    }
    return out;
  }

  /** Sends every row to each (gamma, fold) sub-problem: scaled where it trains, raw where it is scored; y = its class index, stratum = its fold. */
  public static class GridMapper extends Mapper<AvroKey<Instance>, NullWritable, BlockKey, AvroValue<TrainRecord>> {
    private Scaler scaler;
    private CvFolds folds;
    private int k;
    private int gammas;
    private final java.util.Map<String, Integer> classIndex = new java.util.HashMap<>();
    private final BlockKey key = new BlockKey();
    private final AvroValue<TrainRecord> value = new AvroValue<>();

    @Override
    protected void setup(Context context) throws IOException {
      AvroClasses.trust();
      Configuration conf = context.getConfiguration();
      try {
        scaler = TrainKeys.scaler(conf);
        folds = CvFolds.read(conf, new Path(conf.get(TrainKeys.CV_FOLDS_FILE)));
        k = MulticlassKeys.plan(conf).folds();
        gammas = doubles(conf, LOG2G).length;
        List<String> classes = MulticlassKeys.classes(conf);
        for (int c = 0; c < classes.size(); c++) classIndex.put(classes.get(c), c);
      } catch (IOException | RuntimeException e) {
        JobFailure.report(context, "grid map task could not start: " + e);
        throw e;
      }
    }

    @Override
    protected void map(AvroKey<Instance> in, NullWritable nothing, Context context) throws IOException, InterruptedException {
      Instance inst = in.datum();
      Integer c = inst.getLabel() == null ? null : classIndex.get(inst.getLabel().toString());
      if (c == null) {
        String msg = "training row " + inst.getId() + " has label '" + inst.getLabel() + "', not one of the classes " + classIndex.keySet();
        JobFailure.report(context, msg);
        throw new IOException(msg);
      }
      int fold = folds.of(inst.getId());
      SparseVector x = Instances.features(inst.getFeatures());
      org.sodm.avro.Features scaled = Instances.toAvro(scaler == null ? x : scaler.apply(x));
      for (int g = 0; g < gammas; g++) {
        for (int h = 0; h < k; h++) {
          int block = g * k + h;
          value.datum(new TrainRecord(inst.getId(), (double) c, h == fold ? inst.getFeatures() : scaled, fold, block, List.of(), 0.0,
              List.of(), 0.0));
          context.write(key.set(block, inst.getId()), value);
        }
      }
    }
  }

  /** Solves the C chain of one (gamma, held-out fold) for every task and scores the fold. */
  public static class GridReducer extends Reducer<BlockKey, AvroValue<TrainRecord>, Text, NullWritable> {
    private TrainSpec spec;
    private Scaler scaler;
    private List<String> classes;
    private Subproblems tasks;
    private int k;
    private double[] log2c;
    private double[] log2g;
    private boolean warm;
    private final Text line = new Text();

    @Override
    protected void setup(Context context) throws IOException {
      AvroClasses.trust();
      Configuration conf = context.getConfiguration();
      try {
        spec = TrainSpec.of(conf);
        scaler = TrainKeys.scaler(conf);
        classes = MulticlassKeys.classes(conf);
        Subproblems plan = MulticlassKeys.plan(conf);
        tasks = new Subproblems(plan.classes(), plan.scheme());
        k = plan.folds();
        log2c = doubles(conf, LOG2C);
        log2g = doubles(conf, LOG2G);
        warm = conf.getBoolean(WARM, true);
      } catch (IOException | RuntimeException e) {
        JobFailure.report(context, "grid solve task could not start: " + e);
        throw e;
      }
    }

    @Override
    protected void reduce(BlockKey key, Iterable<AvroValue<TrainRecord>> values, Context context) throws IOException, InterruptedException {
      int g = key.block() / k;
      int h = key.block() % k;
      // each row's features once (a task's rows share them): records copied per task (K - 1 per row for ovo) were most of
      // the heap, and of the CPU (garbage collection), on letter's 325 tasks
      List<Long> trainId = new ArrayList<>();
      List<SparseVector> trainX = new ArrayList<>();
      List<Integer> trainClass = new ArrayList<>();
      List<SparseVector> test = new ArrayList<>();
      List<Integer> testClass = new ArrayList<>();
      for (AvroValue<TrainRecord> v : values) {
        TrainRecord r = v.datum();
        if (r.getStratum() == h) {
          test.add(Instances.features(r.getFeatures()));
          testClass.add((int) r.getY());
        } else {
          trainId.add(r.getId());
          trainX.add(Instances.features(r.getFeatures()));
          trainClass.add((int) r.getY());
        }
      }
      KernelSpec kernel = withGamma(spec.resolvedKernel(), pow2(log2g[g]));
      int t = tasks.tasks();
      SparseVector[][] x = new SparseVector[t][];
      double[][] y = new double[t][];
      long[][] ids = new long[t][];
      for (int task = 0; task < t; task++) {
        int m = 0;
        for (int cls : trainClass) if (tasks.y(task, cls) != 0) m++;
        x[task] = new SparseVector[m];
        y[task] = new double[m];
        ids[task] = new long[m];
        int i = 0;
        for (int row = 0; row < trainClass.size(); row++) {
          double yt = tasks.y(task, trainClass.get(row));
          if (yt == 0) continue;
          x[task][i] = trainX.get(row);
          y[task][i] = yt;
          ids[task][i++] = trainId.get(row);
        }
      }
      Loss[] weighted = new Loss[t]; // --class-weights: each task's loss with its two classes' weights, once for every C
      for (int task = 0; task < t; task++) weighted[task] = TrainKeys.taskLoss(context.getConfiguration(), spec.loss(), task);
      double[][] previous = new double[t][];
      OffsetSvcSolver.State[] previousState = new OffsetSvcSolver.State[t];
      double previousC = 0;
      int nc = log2c.length;
      MulticlassModel[] models = new MulticlassModel[nc];
      long[] epochsOf = new long[nc];
      long[] evalsOf = new long[nc];
      long[] svOf = new long[nc];
      double[] objOf = new double[nc];
      boolean[] convergedOf = new boolean[nc];
      for (int ci = 0; ci < nc; ci++) {
        double c = pow2(log2c[ci]);
        Loss loss = withC(spec.loss(), c);
        Model[] sub = new Model[t];
        long epochs = 0;
        long evals = 0;
        long sv = 0;
        double obj = 0;
        boolean converged = true;
        for (int task = 0; task < t; task++) {
          Loss taskLoss = withC(weighted[task], c);
          double[] start = null;
          if (warm && previous[task] != null) {
            start = previous[task].clone();
            double f = c / previousC;
            for (int i = 0; i < start.length; i++) start[i] *= f; // within [0, C'] for the hinge: the solver's clip is a no-op
          }
          double[] alpha;
          Double bias = null;
          try {
            if (spec.offset()) { // LIBSVM's C-SVC with its offset; the C-scaled start stays feasible (sum y alpha = 0 is kept)
              Loss.Hinge hinge = (Loss.Hinge) taskLoss;
              OffsetSvcSolver solver = new OffsetSvcSolver(kernel.create(), spec.solver());
              double cPos = c * hinge.weights().positive();
              double cNeg = c * hinge.weights().negative();
              // warm: the previous C's alpha, gradient and G_bar scaled by C'/C (no kernel column for the start)
              OffsetSvcSolver.Result r = warm && previousState[task] != null
                  ? solver.solveScaled(x[task], y[task], cPos, cNeg, previousState[task])
                  : solver.solve(x[task], y[task], cPos, cNeg, null);
              previousState[task] = r.state();
              alpha = r.alpha();
              bias = r.bias();
              epochs += r.iterations() / Math.max(1, x[task].length);
              evals += r.kernelEvaluations();
              sv += r.supportVectors();
              obj += r.objective();
              converged &= r.converged();
            } else {
              SolveResult res = new KernelDualSolver(kernel.create(), spec.solver()).solve(x[task], y[task], taskLoss, start);
              alpha = res.alpha();
              epochs += res.report().epochs();
              evals += res.report().kernelEvaluations();
              sv += res.report().supportVectors();
              obj += res.report().dualObjective();
              converged &= res.report().converged();
            }
          } catch (RuntimeException e) {
            String msg = String.format(Locale.ROOT, "grid solve (log2c %s, log2g %s, fold %d, task %d, %d rows) failed: %s", log2c[ci],
                log2g[g], h, task, x[task].length, e);
            JobFailure.report(context, msg);
            throw e;
          }
          previous[task] = spec.offset() ? null : alpha;
          ModelBuilder b = new ModelBuilder();
          int vars = alpha.length / Math.max(1, x[task].length);
          for (int i = 0; i < x[task].length; i++) {
            double gi = vars == 1 ? alpha[i * vars] : alpha[i * vars] - alpha[i * vars + 1]; // TrainIO.coef's gamma_i
            b.add(0, ids[task][i], y[task][i] * gi, x[task][i]);
          }
          sub[task] = b.build(kernel, loss, ModelCodec.taskLabels(classes, tasks, task), scaler, null,
              bias == null ? null : java.util.Map.of(0, bias));
        }
        previousC = c;
        models[ci] = new MulticlassModel(kernel, loss, scaler, classes, tasks, sub, null, null);
        epochsOf[ci] = epochs;
        evalsOf[ci] = evals;
        svOf[ci] = sv;
        objOf[ci] = obj;
        convergedOf[ci] = converged;
        context.progress();
      }
      // the held-out rows scored by the models of every C at once: the kernel between a row and each distinct support
      // vector of any of them (rows of this training part) computed once, not once per C
      MulticlassModel.Family family = new MulticlassModel.Family(models);
      long[] correct = new long[nc];
      for (int i = 0; i < test.size(); i++) {
        double[][] f = family.decisionValues(models[0].prepare(test.get(i)));
        for (int ci = 0; ci < nc; ci++) if (models[ci].predictIndex(f[ci]) == testClass.get(i)) correct[ci]++;
        if ((i & 1023) == 1023) context.progress();
      }
      for (int ci = 0; ci < nc; ci++) {
        line.set(new Cell(g, ci, h, test.size(), correct[ci], epochsOf[ci], evalsOf[ci], objOf[ci], svOf[ci], convergedOf[ci]).line());
        context.write(line, NullWritable.get());
        context.getCounter("sodm.grid", "sub-problems").increment(1);
        context.getCounter("sodm.grid", "epochs").increment(epochsOf[ci]);
      }
    }
  }
}
