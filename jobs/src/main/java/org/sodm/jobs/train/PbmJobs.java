package org.sodm.jobs.train;

import org.sodm.jobs.spec.TrainSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapred.AvroValue;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.sodm.avro.PbmBlockStats;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.kernel.Kernel;
import org.sodm.model.KernelExpansion;
import org.sodm.solver.BlockSubproblem;
import org.sodm.solver.DualProblem;
import org.sodm.solver.Loss;
import org.sodm.solver.PbmSolver;

/**
 * The MapReduce jobs of exact mode (PBM, seed 004 Algorithm 1; {@link PbmSolver} is the
 * one-process reference of the same computation):
 *
 * <ul>
 *   <li>{@link #init}: map-only; every task loads the broadcast vectors (support vectors of the
 *       merge tree's last level, or of the refine solve, whose alpha then replaces the record's)
 *       and sets qg_i = (Q gamma)_i = y_i sum_j y_j gamma_j k(x_j, x_i) (step 2 of Algorithm 1).
 *   <li>{@link #direction}: mappers apply the previous iteration's step (alpha += beta d,
 *       qg += beta qd; step 8) and key by block; each reducer solves its block's subproblem (7)
 *       ({@link BlockSubproblem}; step 4) and writes the records with d, the changed instances
 *       (id, y, features, [dgamma]) to a side directory and its {@link PbmBlockStats}.
 *   <li>{@link #qd}: map-only; every task loads the changed instances and sets
 *       qd_i = (Q dgamma)_i for its records (steps 5-6), writing its partial sum of
 *       dgamma_i qd_i to a side file (one per task, rewritten identically by a re-executed attempt).
 * </ul>
 */
final class PbmJobs {
  private PbmJobs() {}

  static final String VECTORS = "sodm.internal.pbm.vectors";
  static final String VECTORS_REPLACE = "sodm.internal.pbm.vectors.replace";
  static final String BETA = "sodm.internal.pbm.beta";
  static final String ROWS = "sodm.internal.pbm.rows";
  static final String ITERATION = "sodm.internal.pbm.iteration";
  static final String SIDE = "sodm.internal.pbm.side";
  static final String INNER_EPS = "sodm.internal.pbm.inner.eps";
  static final String SCALE = "sodm.internal.pbm.scale";
  /** PBM's partition (seed 004 section 4.3): the directory of exact mode's k-means sample, and its cluster count. */
  static final String KMEANS = "sodm.internal.pbm.kmeans";
  static final String KMEANS_CLUSTERS = "sodm.internal.pbm.kmeans.clusters";

  /** gamma of a variable vector (hinge: a[0]; ODM: a[0] - a[1]); 0 when empty. */
  static double gamma(List<Double> a) {
    if (a.isEmpty()) return 0;
    return a.size() == 1 ? a.get(0) : a.get(0) - a.get(1);
  }

  /** The expansion sum_j coef_j k'(x_j, .) of the records of a directory (k' = k or k + 1). */
  static KernelExpansion loadExpansion(Configuration conf, Path dir, boolean fromDelta, Map<Long, List<Double>> alphaById)
      throws IOException {
    List<SparseVector> sv = new ArrayList<>();
    List<Double> coef = new ArrayList<>();
    FileSystem fs = dir.getFileSystem(conf);
    if (fs.exists(dir)) {
      for (Path p : AvroFiles.dataFiles(conf, dir)) {
        if (!p.getName().endsWith(".avro")) continue;
        for (TrainRecord r : AvroFiles.readAll(conf, p, TrainRecord.class)) {
          double g = fromDelta ? gamma(r.getDelta()) : gamma(r.getAlpha());
          if (alphaById != null) alphaById.put(r.getId(), new ArrayList<>(r.getAlpha()));
          if (g == 0) continue;
          sv.add(Instances.features(r.getFeatures()));
          coef.add(r.getY() * g);
        }
      }
    }
    double[] c = new double[coef.size()];
    for (int i = 0; i < c.length; i++) c[i] = coef.get(i);
    return new KernelExpansion(problemKernel(conf), sv.toArray(new SparseVector[0]), c, 0);
  }

  static Kernel problemKernel(Configuration conf) {
    TrainSpec spec = TrainSpec.of(conf);
    return PbmSolver.problemKernel(spec.resolvedKernel().create(), spec.loss());
  }

  // ---------------------------------------------------------------------------------- init

  /** qg from the broadcast vectors; alpha replaced by theirs when they come from the refine solve. */
  public static class InitMapper extends Mapper<AvroKey<TrainRecord>, NullWritable, AvroKey<TrainRecord>, NullWritable> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "InitMapper", () -> super.run(context));
    }

    private KernelExpansion f;
    private Map<Long, List<Double>> replace;
    private double scale;
    private final AvroKey<TrainRecord> out = new AvroKey<>();

    @Override
    protected void setup(Context context) throws IOException {
      AvroClasses.trust();
      Configuration conf = context.getConfiguration();
      replace = conf.getBoolean(VECTORS_REPLACE, false) ? new HashMap<>() : null;
      scale = conf.getDouble(SCALE, 1);
      f = loadExpansion(conf, new Path(conf.get(VECTORS)), false, replace);
      if (scale != 1) f = f.scaled(scale);
      if (conf.get(KMEANS) != null) {
        kmeans = LevelKMeans.read(conf, new Path(conf.get(KMEANS)), conf.getInt(KMEANS_CLUSTERS, 0),
            org.sodm.jobs.spec.TrainSpec.of(conf).resolvedKernel().create());
      }
    }

    /** PBM's k-means partition: every row to the block of its nearest centre; null: the row keeps the tree's block. */
    private org.sodm.partition.KernelKMeans kmeans;

    @Override
    protected void map(AvroKey<TrainRecord> in, NullWritable nothing, Context context) throws IOException, InterruptedException {
      TrainRecord r = TrainRecord.newBuilder(in.datum()).build();
      if (replace != null && replace.containsKey(r.getId())) {
        r.setAlpha(replace.get(r.getId()));
      } else if (scale != 1) {
        List<Double> a = new ArrayList<>(r.getAlpha().size());
        for (double v : r.getAlpha()) a.add(v * scale);
        r.setAlpha(a);
      }
      SparseVector x = Instances.features(r.getFeatures());
      r.setQg(r.getY() * f.decision(x));
      if (kmeans != null) r.setBlock(kmeans.assign(x));
      r.setDelta(List.of());
      r.setQd(0.0);
      out.datum(r);
      context.write(out, NullWritable.get());
    }
  }

  /**
   * @param scale multiplies the input alpha (1/B for the merge tree's B final blocks: the model
   *     the tree delivers, the mean of its blocks, is the expansion of alpha/B, feasible since the
   *     box holds 0 and alpha); ignored for the records the refine solve replaces
   */
  static void init(Configuration base, Path input, Path vectors, boolean replace, double scale, Path out) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setDouble(SCALE, replace ? 1 : scale);
    conf.set(VECTORS, vectors.toString());
    conf.setBoolean(VECTORS_REPLACE, replace);
    mapOnly(conf, input, out, InitMapper.class, "sodm exact: Q gamma");
  }

  // ----------------------------------------------------------------------------- direction

  /** Applies the previous step and keys by block. */
  public static class ApplyMapper extends Mapper<AvroKey<TrainRecord>, NullWritable, BlockKey, AvroValue<TrainRecord>> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "ApplyMapper", () -> super.run(context));
    }

    private double beta;
    private Loss loss;
    private final BlockKey key = new BlockKey();
    private final AvroValue<TrainRecord> value = new AvroValue<>();

    @Override
    protected void setup(Context context) {
      AvroClasses.trust();
      beta = context.getConfiguration().getDouble(BETA, 0);
      loss = TrainSpec.of(context.getConfiguration()).loss();
    }

    @Override
    protected void map(AvroKey<TrainRecord> in, NullWritable nothing, Context context) throws IOException, InterruptedException {
      TrainRecord r = TrainRecord.newBuilder(in.datum()).build();
      applyStep(r, beta, loss);
      value.datum(r);
      context.write(key.set(r.getBlock(), r.getId()), value);
    }
  }

  /** alpha += beta d (clipped into the box against rounding), qg += beta qd; clears d and qd. */
  static void applyStep(TrainRecord r, double beta, Loss loss) {
    List<Double> d = r.getDelta();
    if (beta != 0 && !d.isEmpty()) {
      double[] a = new double[r.getAlpha().size()];
      for (int k = 0; k < a.length; k++) a[k] = r.getAlpha().get(k) + beta * d.get(k);
      loss.dual(new double[] {r.getY()}, 1).project(a, 0);
      List<Double> na = new ArrayList<>(a.length);
      for (double v : a) na.add(v);
      r.setAlpha(na);
    }
    if (beta != 0) r.setQg(r.getQg() + beta * r.getQd());
    r.setDelta(List.of());
    r.setQd(0.0);
  }

  /** Solves a block's subproblem (7). */
  public static class DirectionReducer extends Reducer<BlockKey, AvroValue<TrainRecord>, AvroKey<TrainRecord>, NullWritable> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "DirectionReducer", () -> super.run(context));
    }

    private Kernel kernel;
    private TrainSpec spec;
    private int rows;
    private int iteration;
    private double innerEps;
    private final AvroKey<TrainRecord> out = new AvroKey<>();

    @Override
    protected void setup(Context context) {
      AvroClasses.trust();
      Configuration conf = context.getConfiguration();
      spec = TrainSpec.of(conf);
      kernel = problemKernel(conf);
      rows = conf.getInt(ROWS, 1);
      iteration = conf.getInt(ITERATION, 0);
      innerEps = conf.getDouble(INNER_EPS, 1e-3);
    }

    @Override
    protected void reduce(BlockKey key, Iterable<AvroValue<TrainRecord>> values, Context context)
        throws IOException, InterruptedException {
      long t0 = System.nanoTime();
      int block = key.block();
      List<TrainRecord> recs = new ArrayList<>();
      for (AvroValue<TrainRecord> v : values) recs.add(TrainRecord.newBuilder(v.datum()).build());
      int n = recs.size();
      SparseVector[] x = new SparseVector[n];
      double[] y = new double[n];
      double[] qg = new double[n];
      DualProblem prob = spec.loss().dual(y, rows);
      int vpi = prob.variablesPerInstance();
      double[] alpha = new double[n * vpi];
      for (int i = 0; i < n; i++) {
        TrainRecord r = recs.get(i);
        x[i] = Instances.features(r.getFeatures());
        y[i] = r.getY();
        qg[i] = r.getQg();
        List<Double> a = r.getAlpha();
        if (a.size() == vpi) for (int v = 0; v < vpi; v++) alpha[i * vpi + v] = a.get(v);
      }
      for (int i = 0; i < n; i++) prob.project(alpha, i);
      BlockSubproblem.Result res;
      try {
        res = BlockSubproblem.solve(kernel, x, y, prob, alpha, qg, innerEps, spec.exact().innerEpochs(), spec.solver().cacheBytes());
      } catch (RuntimeException e) {
        JobFailure.report(context, "PBM subproblem of block " + block + " (" + n + " instances) failed: " + e);
        throw e;
      }
      Configuration conf = context.getConfiguration();
      Path side = new Path(conf.get(SIDE));
      List<TrainRecord> changed = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        TrainRecord r = recs.get(i);
        List<Double> a = new ArrayList<>(vpi);
        List<Double> d = new ArrayList<>(vpi);
        for (int v = 0; v < vpi; v++) {
          a.add(alpha[i * vpi + v]);
          d.add(res.delta()[i * vpi + v]);
        }
        r.setAlpha(a);
        r.setDelta(d);
        out.datum(r);
        context.write(out, NullWritable.get());
        if (res.dgamma()[i] != 0) {
          changed.add(new TrainRecord(r.getId(), r.getY(), r.getFeatures(), r.getStratum(), block, List.of(), 0.0,
              List.of(res.dgamma()[i]), 0.0));
        }
      }
      AvroFiles.write(conf, new Path(side, String.format("changed/block-%06d.avro", block)), TrainRecord.getClassSchema(),
          changed);
      PbmBlockStats s = new PbmBlockStats(iteration, block, n, res.objective(), res.violation(), res.innerViolation(),
          res.qgDgamma(), res.sepLinear(), res.sepQuadratic(), res.steps(), res.changed(), res.kernelEvaluations(),
          (System.nanoTime() - t0) / 1e9, res.maxStep());
      AvroFiles.writeOne(conf, new Path(side, String.format("stats/block-%06d.avro", block)), PbmBlockStats.getClassSchema(), s);
      context.getCounter("sodm.pbm", "kernel evaluations").increment(res.kernelEvaluations());
    }
  }

  static void direction(Configuration base, Path input, double beta, int iteration, int rows, int blocks, double innerEps,
      Path data, Path side) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setDouble(BETA, beta);
    conf.setInt(ITERATION, iteration);
    conf.setInt(ROWS, rows);
    conf.setDouble(INNER_EPS, innerEps);
    conf.set(SIDE, side.toString());
    conf.set(JobFailure.DIR_KEY, new Path(side, "_failures").toString());
    conf.setBoolean("mapreduce.reduce.speculative", false);
    Job job = Jobs.newJob(conf, "sodm exact: PBM iteration " + iteration + " direction");
    job.setJarByClass(PbmJobs.class);
    job.setInputFormatClass(org.sodm.jobs.support.AvroPiecesInputFormat.class);
    AvroJob.setInputKeySchema(job, TrainRecord.getClassSchema());
    FileInputFormat.setInputPaths(job, input);
    job.setMapperClass(ApplyMapper.class);
    job.setMapOutputKeyClass(BlockKey.class);
    AvroJob.setMapOutputValueSchema(job, TrainRecord.getClassSchema());
    job.setPartitionerClass(BlockKey.ByBlock.class);
    job.setSortComparatorClass(BlockKey.Comparator.class);
    job.setGroupingComparatorClass(BlockKey.GroupByBlock.class);
    org.sodm.jobs.support.InProcessJob.distinctMapKeys(job, 1); // (block, id): a row once per block it is in
    job.setReducerClass(DirectionReducer.class);
    job.setNumReduceTasks(blocks);
    job.setOutputFormatClass(org.sodm.jobs.support.UncountedAvroOutputFormat.class);
    AvroJob.setOutputKeySchema(job, TrainRecord.getClassSchema());
    FileOutputFormat.setOutputPath(job, data);
    Jobs.run(job, "PBM iteration " + iteration + " direction");
  }

  // ------------------------------------------------------------------------------------ Qd

  /** qd_i = (Q dgamma)_i from the broadcast changed instances; partial sum of dgamma_i qd_i per task. */
  public static class QdMapper extends Mapper<AvroKey<TrainRecord>, NullWritable, AvroKey<TrainRecord>, NullWritable> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "QdMapper", () -> super.run(context));
    }

    private KernelExpansion f;
    private double partial;
    private final AvroKey<TrainRecord> out = new AvroKey<>();

    @Override
    protected void setup(Context context) throws IOException {
      AvroClasses.trust();
      Configuration conf = context.getConfiguration();
      f = loadExpansion(conf, new Path(conf.get(SIDE), "changed"), true, null);
    }

    @Override
    protected void map(AvroKey<TrainRecord> in, NullWritable nothing, Context context) throws IOException, InterruptedException {
      TrainRecord r = TrainRecord.newBuilder(in.datum()).build();
      double qd = f.size() == 0 ? 0 : r.getY() * f.decision(Instances.features(r.getFeatures()));
      r.setQd(qd);
      partial += gamma(r.getDelta()) * qd;
      out.datum(r);
      context.write(out, NullWritable.get());
    }

    @Override
    protected void cleanup(Context context) throws IOException {
      Configuration conf = context.getConfiguration();
      Path p = new Path(conf.get(SIDE), String.format("curvature/task-%06d.txt", context.getTaskAttemptID().getTaskID().getId()));
      try (OutputStream o = p.getFileSystem(conf).create(p, true)) {
        o.write(Double.toString(partial).getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  static void qd(Configuration base, Path input, Path side, Path out) throws IOException {
    Configuration conf = new Configuration(base);
    conf.set(SIDE, side.toString());
    conf.setBoolean("mapreduce.map.speculative", false);
    mapOnly(conf, input, out, QdMapper.class, "sodm exact: Q d");
  }

  /** Sum of the per-task partial sums of dgamma_i qd_i (in file-name order, so deterministic). */
  static double curvature(Configuration conf, Path side) throws IOException {
    Path dir = new Path(side, "curvature");
    double s = 0;
    FileSystem fs = dir.getFileSystem(conf);
    if (!fs.exists(dir)) return 0;
    for (Path p : AvroFiles.dataFiles(conf, dir)) {
      try (var in = fs.open(p)) {
        s += Double.parseDouble(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
      }
    }
    return s;
  }

  @SuppressWarnings("rawtypes")
  private static void mapOnly(Configuration conf, Path input, Path out, Class<? extends Mapper> mapper, String name)
      throws IOException {
    conf.set(JobFailure.DIR_KEY, new Path(out.getParent(), "_failures").toString());
    Job job = Jobs.newJob(conf, name);
    job.setJarByClass(PbmJobs.class);
    job.setInputFormatClass(org.sodm.jobs.support.AvroPiecesInputFormat.class);
    AvroJob.setInputKeySchema(job, TrainRecord.getClassSchema());
    FileInputFormat.setInputPaths(job, input);
    job.setMapperClass(mapper);
    job.setNumReduceTasks(0);
    job.setOutputFormatClass(org.sodm.jobs.support.UncountedAvroOutputFormat.class);
    AvroJob.setOutputKeySchema(job, TrainRecord.getClassSchema());
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job, name);
  }
}
