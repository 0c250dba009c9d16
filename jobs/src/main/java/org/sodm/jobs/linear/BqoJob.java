package org.sodm.jobs.linear;

import org.sodm.jobs.spec.TrainSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.SequenceFile;
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
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmConf;
import org.sodm.linear.Bqo;
import org.sodm.linear.BqoBlock;
import org.sodm.linear.BqoSums;
import org.sodm.linear.BqoRank;
import org.sodm.linear.SvmLoss;

/**
 * One BQO iteration t (seed 003 Algorithm 1) as one MapReduce job.
 *
 * <p>Map (one task per block file, {@link BlockInputFormat}): reads w^t (the broadcast file) and
 * the pending step eta^{t-1}; applies alpha^t = alpha^{t-1} + eta^{t-1} d^{t-1} to each record
 * (the record carries alpha = [alpha, d]); solves the block subproblem (7) ({@link BqoBlock});
 * writes the block back with [alpha^t, d^t] as a side file {@code block-k.avro} of the task (so
 * it is committed with the task, and a re-executed task rewrites it identically: records sorted
 * by id, pass order seeded by (seed, t, k)); emits its Delta w_k and partial sums.
 *
 * <p>Reduce (one): sums Delta w and the scalars of (13)-(19), min lambda of (21), the primal loss
 * and dual terms at (alpha^t, w^t); writes them as one {@link VecWritable} (a SequenceFile) that
 * the driver reads to take the step (20)-(21).
 */
final class BqoJob {
  private BqoJob() {}

  /** The reduced sums and Delta w^t (length dim + 1). */
  record Output(BqoSums sums, double[] dw) {}

  static Output run(Configuration base, Path input, Path out, int t, double eta, Path wFile, int dim) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.ITERATION, t);
    conf.setDouble(LinearKeys.ETA, eta);
    conf.set(LinearKeys.W_FILE, wFile.toString());
    conf.setInt(LinearKeys.DIM, dim);
    conf.setBoolean("mapreduce.map.speculative", false);
    conf.set(JobFailure.DIR_KEY, new Path(out.getParent(), "_failures-" + out.getName()).toString());
    Job job = Jobs.newJob(conf, "sodm bqo iteration " + t);
    job.setJarByClass(BqoJob.class);
    job.addCacheFile(wFile.toUri());
    job.setInputFormatClass(BlockInputFormat.class);
    AvroJob.setInputKeySchema(job, TrainRecord.getClassSchema());
    FileInputFormat.setInputPaths(job, input);
    job.setMapperClass(BqoMapper.class);
    job.setMapOutputKeyClass(IntWritable.class);
    job.setMapOutputValueClass(VecWritable.class);
    job.setReducerClass(SumReducer.class);
    job.setNumReduceTasks(1);
    job.setOutputKeyClass(IntWritable.class);
    job.setOutputValueClass(VecWritable.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job, "bqo iteration " + t);
    out.getFileSystem(conf).delete(new Path(out.getParent(), "_failures-" + out.getName()), true);
    VecWritable v = readOne(conf, new Path(out, "part-r-00000"));
    double[] dw = new double[dim + 1];
    v.addTo(dw);
    return new Output(BqoSums.fromArray(v.scalars()), dw);
  }

  static VecWritable readOne(Configuration conf, Path p) throws IOException {
    try (SequenceFile.Reader r = new SequenceFile.Reader(conf, SequenceFile.Reader.file(p))) {
      IntWritable k = new IntWritable();
      VecWritable v = new VecWritable();
      if (!r.next(k, v)) throw new IOException(p + " is empty");
      return v;
    }
  }

  private record Row(long id, double y, SparseVector x, double alpha) {}

  /** A block: apply the pending step, solve (7), write the block back, emit Delta w_k and the sums. */
  public static class BqoMapper extends Mapper<AvroKey<TrainRecord>, NullWritable, IntWritable, VecWritable> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "BqoMapper", () -> super.run(context));
    }

    private final List<Row> rows = new ArrayList<>();
    private SvmLoss loss;
    private BqoBlock.Options inner;
    private double eta;
    private int t;
    private long seed;
    private int block = -1;

    @Override
    protected void setup(Context context) {
      AvroClasses.trust();
      Configuration conf = context.getConfiguration();
      TrainSpec spec = TrainSpec.of(conf);
      loss = spec.loss().svmPrimal();
      inner = spec.linear().inner(conf.getInt(LinearKeys.BLOCKS, 1));
      eta = conf.getDouble(LinearKeys.ETA, 0);
      t = conf.getInt(LinearKeys.ITERATION, 0);
      seed = spec.seed();
    }

    @Override
    protected void map(AvroKey<TrainRecord> in, NullWritable nothing, Context context) {
      TrainRecord r = in.datum();
      double y = r.getY();
      double a = 0;
      List<Double> al = r.getAlpha();
      if (al.size() >= 2) a = BqoBlock.apply(al.get(0), al.get(1), eta, loss.upper(y));
      else if (al.size() == 1) a = al.get(0);
      block = r.getBlock();
      rows.add(new Row(r.getId(), y, Instances.features(r.getFeatures()), a));
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      Configuration conf = context.getConfiguration();
      double[] w = LinearKeys.readW(conf);
      rows.sort(Comparator.comparingLong(Row::id));
      int n = rows.size();
      SparseVector[] x = new SparseVector[n];
      double[] y = new double[n];
      double[] alpha = new double[n];
      for (int i = 0; i < n; i++) {
        Row r = rows.get(i);
        x[i] = r.x();
        y[i] = r.y();
        alpha[i] = r.alpha();
        if (x[i].maxIndex() >= w.length) {
          String msg = "row " + r.id() + " has feature " + x[i].maxIndex() + " beyond the training dimension " + (w.length - 1);
          JobFailure.report(context, msg);
          throw new IOException(msg);
        }
      }
      BqoBlock.Result res = BqoBlock.solve(x, y, alpha, w, loss, inner.at(t), Bqo.passSeed(seed, t, Math.max(block, 0)));
      if (n > 0) {
        Path dir = FileOutputFormat.getWorkOutputPath(context);
        Path f = new Path(dir, String.format("block-%05d.avro", block));
        FileSystem fs = f.getFileSystem(conf);
        try (DataFileWriter<TrainRecord> wr = new DataFileWriter<>(new SpecificDatumWriter<>(TrainRecord.class))) {
          wr.setCodec(AvroFiles.codec(conf));
          wr.create(TrainRecord.getClassSchema(), fs.create(f, true));
          for (int i = 0; i < n; i++) {
            wr.append(TrainRecord.newBuilder().setId(rows.get(i).id()).setY(y[i]).setFeatures(Instances.toAvro(x[i]))
                .setStratum(-1).setBlock(block).setAlpha(List.of(alpha[i], res.d()[i])).build());
          }
        }
      }
      context.getCounter("sodm.bqo", "rows").increment(n);
      context.getCounter("sodm.bqo", "inner passes").increment(res.passes());
      context.write(new IntWritable(Math.max(block, 0)), VecWritable.ofDense(res.sums().toArray(), res.dw()));
      rows.clear();
    }
  }

  /**
   * Combines the blocks' Delta w and scalars (sums; min for min lambda; max for the violation)
   * exactly as the resident AllReduce does: the blocks in id order are the ranks, packed by
   * {@link BqoRank#pack} and combined in {@link ReduceTree}'s order, so the job-per-iteration
   * and the AllReduce mode take bit-identical steps.
   */
  public static class SumReducer extends Reducer<IntWritable, VecWritable, IntWritable, VecWritable> {
    private final List<double[]> sums = new ArrayList<>();
    private final List<double[]> maxes = new ArrayList<>();

    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "SumReducer", () -> super.run(context));
    }

    @Override
    protected void reduce(IntWritable block, Iterable<VecWritable> values, Context context) {
      for (VecWritable v : values) {
        double[] dw = new double[context.getConfiguration().getInt(LinearKeys.DIM, 0) + 1];
        v.addTo(dw);
        double[][] p = BqoRank.pack(dw, v.scalars());
        sums.add(p[0]);
        maxes.add(p[1]);
      }
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      int dim = context.getConfiguration().getInt(LinearKeys.DIM, 0);
      if (sums.isEmpty()) throw new IOException("no block reported to the BQO reduce");
      double[][] g = BqoRank.unpack(ReduceTree.reduce(ReduceTree.Op.SUM, sums.toArray(new double[0][])),
          ReduceTree.reduce(ReduceTree.Op.MAX, maxes.toArray(new double[0][])), dim);
      context.write(new IntWritable(0), VecWritable.ofDense(g[1], g[0]));
    }
  }
}
