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
 * to the same tolerance as from zero), scores the held-out fold with the models of each C and writes
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
      List<TrainRecord> train = new ArrayList<>();
      List<SparseVector> test = new ArrayList<>();
      List<Integer> testClass = new ArrayList<>();
      for (AvroValue<TrainRecord> v : values) {
        TrainRecord r = v.datum();
        if (r.getStratum() == h) {
          test.add(Instances.features(r.getFeatures()));
          testClass.add((int) r.getY());
        } else {
          train.add(TrainRecord.newBuilder(r).build());
        }
      }
      KernelSpec kernel = withGamma(spec.resolvedKernel(), pow2(log2g[g]));
      int t = tasks.tasks();
      SparseVector[][] x = new SparseVector[t][];
      double[][] y = new double[t][];
      TrainRecord[][] recs = new TrainRecord[t][];
      for (int task = 0; task < t; task++) {
        List<TrainRecord> in = new ArrayList<>();
        for (TrainRecord r : train) {
          double yt = tasks.y(task, (int) r.getY());
          if (yt == 0) continue;
          TrainRecord c = TrainRecord.newBuilder(r).build();
          c.setY(yt);
          c.setBlock(0);
          c.setStratum(-1);
          in.add(c);
        }
        recs[task] = in.toArray(new TrainRecord[0]);
        x[task] = new SparseVector[in.size()];
        y[task] = new double[in.size()];
        for (int i = 0; i < in.size(); i++) {
          x[task][i] = Instances.features(in.get(i).getFeatures());
          y[task][i] = in.get(i).getY();
        }
      }
      double[][] previous = new double[t][];
      double previousC = 0;
      for (int ci = 0; ci < log2c.length; ci++) {
        double c = pow2(log2c[ci]);
        Loss loss = withC(spec.loss(), c);
        Model[] sub = new Model[t];
        long epochs = 0;
        long evals = 0;
        long sv = 0;
        double obj = 0;
        boolean converged = true;
        for (int task = 0; task < t; task++) {
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
              Loss.Hinge hinge = (Loss.Hinge) loss;
              OffsetSvcSolver.Result r = new OffsetSvcSolver(kernel.create(), spec.solver()).solve(x[task], y[task],
                  c * hinge.weights().positive(), c * hinge.weights().negative(), start);
              alpha = r.alpha();
              bias = r.bias();
              epochs += r.iterations() / Math.max(1, x[task].length);
              evals += r.kernelEvaluations();
              sv += r.supportVectors();
              obj += r.objective();
              converged &= r.converged();
            } else {
              SolveResult res = new KernelDualSolver(kernel.create(), spec.solver()).solve(x[task], y[task], loss, start);
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
          previous[task] = alpha;
          ModelBuilder b = new ModelBuilder();
          int vars = alpha.length / Math.max(1, x[task].length);
          for (int i = 0; i < recs[task].length; i++) {
            List<Double> a = new ArrayList<>(vars);
            for (int j = 0; j < vars; j++) a.add(alpha[i * vars + j]);
            recs[task][i].setAlpha(a);
            b.add(recs[task][i]);
          }
          sub[task] = b.build(kernel, loss, ModelCodec.taskLabels(classes, tasks, task), scaler, null,
              bias == null ? null : java.util.Map.of(0, bias));
        }
        previousC = c;
        MulticlassModel mm = new MulticlassModel(kernel, loss, scaler, classes, tasks, sub, null, null);
        long correct = 0;
        for (int i = 0; i < test.size(); i++) if (mm.predict(test.get(i)).equals(classes.get(testClass.get(i)))) correct++;
        line.set(new Cell(g, ci, h, test.size(), correct, epochs, evals, obj, sv, converged).line());
        context.write(line, NullWritable.get());
        context.getCounter("sodm.grid", "sub-problems").increment(1);
        context.getCounter("sodm.grid", "epochs").increment(epochs);
        context.progress();
      }
    }
  }
}
