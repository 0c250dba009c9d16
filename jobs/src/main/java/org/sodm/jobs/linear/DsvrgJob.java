package org.sodm.jobs.linear;

import org.sodm.jobs.spec.TrainSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.sodm.allreduce.ReduceTree;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmConf;
import org.sodm.linear.Dsvrg;
import org.sodm.linear.OdmPrimal;
import org.sodm.linear.SvrgInner;
import org.sodm.linear.Vectors;

/**
 * One DSVRG epoch l (seed 000 Algorithm 2, lines 5-20) as one MapReduce job.
 *
 * <p>Map (one task per block j, {@link BlockInputFormat}): with the broadcast w^(l), the block's
 * part of the full gradient h_j = sum_i g_i(w^(l)) y_i x_i (line 7) with its loss sum, row count
 * and max |x|^2, emitted under key j - K (negative: sorted first); then the block's instances in a
 * seeded random order (sampling without replacement, line 13), the r-th under key r K + j, each
 * with its label and snapshot margin y_i w^(l)'x_i.
 *
 * <p>Reduce (one: the inner loop is serial, as the paper's round robin): the sort delivers first
 * the K gradient partials (h = w^(l) + (1/M) sum_j h_j, line 9; summed in the AllReduce's tree order), then the instances in the order
 * r = 0: blocks 0..K-1, r = 1: blocks 0..K-1, ..., skipping blocks that have run out: exactly the
 * round robin of lines 12-20, streamed (no block is held in the reducer's memory). It applies
 * the inner updates ({@link SvrgInner}) and writes w^(l+1) with p(w^(l)), |grad p(w^(l))|, the
 * step and M. With {@link LinearKeys#EVALUATE_ONLY} only the gradient is computed (the final
 * objective).
 */
final class DsvrgJob {
  private DsvrgJob() {}

  /** Scalars of the output. */
  static final int OBJECTIVE = 0;
  static final int GRAD_NORM = 1;
  static final int ETA = 2;
  static final int ROWS = 3;
  static final int STEPS = 4;

  record Output(double[] w, double objective, double gradientNorm, double eta, long rows) {}

  static Output run(Configuration base, Path input, Path out, int epoch, Path wFile, int dim, int blocks, boolean evaluateOnly)
      throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.ITERATION, epoch);
    conf.set(LinearKeys.W_FILE, wFile.toString());
    conf.setInt(LinearKeys.DIM, dim);
    conf.setInt(LinearKeys.BLOCKS, blocks);
    conf.setBoolean(LinearKeys.EVALUATE_ONLY, evaluateOnly);
    conf.set(JobFailure.DIR_KEY, new Path(out.getParent(), "_failures-" + out.getName()).toString());
    Job job = Jobs.newJob(conf, "sodm dsvrg epoch " + epoch + (evaluateOnly ? " (objective)" : ""));
    job.setJarByClass(DsvrgJob.class);
    job.addCacheFile(wFile.toUri());
    job.setInputFormatClass(BlockInputFormat.class);
    AvroJob.setInputKeySchema(job, TrainRecord.getClassSchema());
    FileInputFormat.setInputPaths(job, input);
    job.setMapperClass(DsvrgMapper.class);
    job.setMapOutputKeyClass(LongWritable.class);
    job.setMapOutputValueClass(VecWritable.class);
    job.setReducerClass(DsvrgReducer.class);
    job.setNumReduceTasks(1);
    job.setOutputKeyClass(IntWritable.class);
    job.setOutputValueClass(VecWritable.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job, "dsvrg epoch " + epoch);
    out.getFileSystem(conf).delete(new Path(out.getParent(), "_failures-" + out.getName()), true);
    VecWritable v = BqoJob.readOne(conf, new Path(out, "part-r-00000"));
    double[] w = new double[dim + 1];
    v.addTo(w);
    double[] s = v.scalars();
    return new Output(w, s[OBJECTIVE], s[GRAD_NORM], s[ETA], (long) s[ROWS]);
  }

  private record Row(long id, double y, SparseVector x) {}

  public static class DsvrgMapper extends Mapper<AvroKey<TrainRecord>, NullWritable, LongWritable, VecWritable> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "DsvrgMapper", () -> super.run(context));
    }

    private final List<Row> rows = new ArrayList<>();
    private int block = -1;

    @Override
    protected void setup(Context context) {
      AvroClasses.trust();
    }

    @Override
    protected void map(AvroKey<TrainRecord> in, NullWritable nothing, Context context) {
      TrainRecord r = in.datum();
      block = r.getBlock();
      rows.add(new Row(r.getId(), r.getY(), Instances.features(r.getFeatures())));
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      if (rows.isEmpty()) return;
      Configuration conf = context.getConfiguration();
      TrainSpec spec = TrainSpec.of(conf);
      OdmPrimal odm = spec.loss().odmPrimal();
      double bf = odm.biasFeature();
      double[] w = LinearKeys.readW(conf);
      int k = conf.getInt(LinearKeys.BLOCKS, 1);
      int epoch = conf.getInt(LinearKeys.ITERATION, 0);
      long seed = spec.seed();
      rows.sort(Comparator.comparingLong(Row::id));
      int n = rows.size();
      double[] margin = new double[n];
      double[] h = new double[w.length];
      double loss = 0;
      double maxSq = 0;
      for (int i = 0; i < n; i++) {
        Row r = rows.get(i);
        if (r.x().maxIndex() >= w.length) {
          String msg = "row " + r.id() + " has feature " + r.x().maxIndex() + " beyond the training dimension " + (w.length - 1);
          JobFailure.report(context, msg);
          throw new IOException(msg);
        }
        margin[i] = r.y() * Vectors.dot(r.x(), w, bf);
        loss += odm.loss(r.y(), margin[i]);
        double g = odm.coef(r.y(), margin[i]);
        if (g != 0) Vectors.axpy(g * r.y(), r.x(), h, bf);
        maxSq = Math.max(maxSq, Vectors.squaredNorm(r.x(), bf));
      }
      context.write(new LongWritable(block - k), VecWritable.ofDense(new double[] {loss, n, maxSq}, h));
      if (!conf.getBoolean(LinearKeys.EVALUATE_ONLY, false)) {
        int[] order = Dsvrg.order(n, seed, epoch, block);
        LongWritable key = new LongWritable();
        for (int r = 0; r < n; r++) {
          Row row = rows.get(order[r]);
          key.set((long) r * k + block);
          context.write(key, VecWritable.ofFeatures(new double[] {row.y(), margin[order[r]]}, row.x()));
        }
      }
      context.getCounter("sodm.dsvrg", "rows").increment(n);
      rows.clear();
    }
  }

  public static class DsvrgReducer extends Reducer<LongWritable, VecWritable, IntWritable, VecWritable> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "DsvrgReducer", () -> super.run(context));
    }

    private OdmPrimal odm;
    private double[] wl;
    private double[] hsum;
    private final List<double[]> parts = new ArrayList<>();
    private double loss;
    private long m;
    private double maxSq;
    private SvrgInner inner;
    private double eta;
    private double[] gbar;
    private TrainSpec spec;

    @Override
    protected void setup(Context context) throws IOException {
      AvroClasses.trust();
      Configuration conf = context.getConfiguration();
      spec = TrainSpec.of(conf);
      odm = spec.loss().odmPrimal();
      wl = LinearKeys.readW(conf);
      hsum = new double[wl.length];
    }

    @Override
    protected void reduce(LongWritable key, Iterable<VecWritable> values, Context context) {
      for (VecWritable v : values) {
        if (key.get() < 0) {
          double[] s = v.scalars();
          double[] part = new double[wl.length + 2];
          v.addTo(part);
          part[wl.length] = s[0];
          part[wl.length + 1] = s[1];
          parts.add(part);
          maxSq = Math.max(maxSq, s[2]);
          continue;
        }
        if (inner == null) start(context.getConfiguration());
        inner.step(v.toFeatures(), v.scalars()[0], v.scalars()[1]);
      }
    }

    /**
     * The blocks' gradient parts, loss sums and row counts, combined in {@link ReduceTree}'s order
     * over the blocks in id order (the resident AllReduce's ranks): both modes then step
     * bit-identically ({@code DsvrgRank} packs [h, loss, n] the same way).
     */
    private void combine() {
      if (parts.isEmpty()) return;
      double[] s = ReduceTree.reduce(ReduceTree.Op.SUM, parts.toArray(new double[0][]));
      System.arraycopy(s, 0, hsum, 0, wl.length);
      loss = s[wl.length];
      m = (long) s[wl.length + 1];
      parts.clear();
    }

    private void start(Configuration conf) {
      combine();
      gbar = new double[wl.length];
      for (int f = 0; f < wl.length; f++) gbar[f] = hsum[f] / Math.max(1, m);
      eta = Dsvrg.stepSize(spec.linear().step(), Dsvrg.DEFAULT_STEP_FACTOR, odm, maxSq);
      inner = new SvrgInner(odm, eta, wl, gbar);
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      if (gbar == null) {
        combine();
        gbar = new double[wl.length];
        for (int f = 0; f < wl.length; f++) gbar[f] = hsum[f] / Math.max(1, m);
        eta = Dsvrg.stepSize(spec.linear().step(), Dsvrg.DEFAULT_STEP_FACTOR, odm, maxSq);
      }
      double gn = 0;
      for (int f = 0; f < wl.length; f++) gn += (wl[f] + gbar[f]) * (wl[f] + gbar[f]);
      double obj = OdmPrimal.objective(Vectors.squaredNorm(wl), loss, m);
      double[] next = inner == null ? wl : inner.w();
      long steps = inner == null ? 0 : inner.steps();
      context.getCounter("sodm.dsvrg", "inner steps").increment(steps);
      context.write(new IntWritable(0), VecWritable.ofDense(new double[] {obj, Math.sqrt(gn), eta, m, steps}, next));
    }
  }
}
