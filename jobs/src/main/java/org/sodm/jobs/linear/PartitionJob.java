package org.sodm.jobs.linear;

import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapred.AvroValue;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmConf;

/**
 * The linear solvers' blocks as a job: each ingested instance dealt by {@link Dealer} (scaled,
 * labelled +-1, block hash(id, seed) mod K, or for DSVRG's stratified partition its (stratum,
 * class) pair dealt evenly over the blocks, one stream per ingested part).
 * Reducer k writes block k as {@code block-0000k.avro} TrainRecords with empty alpha (alpha^0 = 0).
 */
final class PartitionJob {
  private PartitionJob() {}

  static void run(Configuration base, Path instances, Path out, int blocks) throws IOException {
    Configuration conf = new Configuration(base);
    conf.setInt(LinearKeys.BLOCKS, blocks);
    conf.set(JobFailure.DIR_KEY, new Path(out.getParent(), "_failures-partition").toString());
    Job job = Jobs.newJob(conf, "sodm linear partition (" + blocks + " blocks)");
    job.setJarByClass(PartitionJob.class);
    // stratified blocks deal per stream: one split per ingested part, so the streams do not depend on the split size
    job.setInputFormatClass(conf.get(LinearKeys.LANDMARKS) != null ? org.sodm.jobs.support.WholeFileAvroInputFormat.class
        : org.sodm.jobs.support.AvroPiecesInputFormat.class);
    AvroJob.setInputKeySchema(job, Instance.getClassSchema());
    FileInputFormat.setInputPaths(job, instances);
    job.setMapperClass(PartitionMapper.class);
    job.setMapOutputKeyClass(IntWritable.class);
    AvroJob.setMapOutputValueSchema(job, TrainRecord.getClassSchema());
    job.setReducerClass(PartitionReducer.class);
    job.setNumReduceTasks(blocks);
    job.setOutputFormatClass(org.sodm.jobs.support.UncountedAvroOutputFormat.class);
    AvroJob.setOutputKeySchema(job, TrainRecord.getClassSchema());
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job, "linear partition");
    FileSystem fs = out.getFileSystem(conf);
    fs.delete(new Path(out.getParent(), "_failures-partition"), true);
    // HashPartitioner sends IntWritable(k) to reducer k: part-r-0000k holds block k
    for (int k = 0; k < blocks; k++) {
      Path from = new Path(out, String.format("part-r-%05d.avro", k));
      if (fs.exists(from) && !fs.rename(from, new Path(out, String.format("block-%05d.avro", k)))) {
        throw new IOException("cannot rename " + from);
      }
    }
  }

  /** Instance to (block, scaled TrainRecord). */
  public static class PartitionMapper extends Mapper<AvroKey<Instance>, NullWritable, IntWritable, AvroValue<TrainRecord>> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "PartitionMapper", () -> super.run(context));
    }

    private Dealer dealer;
    private final IntWritable key = new IntWritable();
    private final AvroValue<TrainRecord> value = new AvroValue<>();

    @Override
    protected void setup(Context context) throws IOException {
      AvroClasses.trust();
      dealer = new Dealer(context.getConfiguration());
      if (dealer.stratified()) {
        org.apache.hadoop.mapreduce.lib.input.FileSplit split = org.sodm.jobs.support.FilePiece.unwrap(context.getInputSplit());
        dealer.stream(split.getPath().getName().hashCode() * 1_000_003L + split.getStart());
      }
    }

    @Override
    protected void map(AvroKey<Instance> in, NullWritable nothing, Context context) throws IOException, InterruptedException {
      TrainRecord r;
      try {
        r = dealer.deal(in.datum());
      } catch (IOException e) {
        JobFailure.report(context, e.getMessage());
        throw e;
      }
      if (r == null) return; // another class pair's row
      value.datum(r);
      key.set(r.getBlock());
      context.write(key, value);
    }
  }

  /** Writes a block's records. */
  public static class PartitionReducer extends Reducer<IntWritable, AvroValue<TrainRecord>, AvroKey<TrainRecord>, NullWritable> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "PartitionReducer", () -> super.run(context));
    }

    private final AvroKey<TrainRecord> out = new AvroKey<>();

    @Override
    protected void setup(Context context) {
      AvroClasses.trust();
    }

    @Override
    protected void reduce(IntWritable block, Iterable<AvroValue<TrainRecord>> values, Context context)
        throws IOException, InterruptedException {
      for (AvroValue<TrainRecord> v : values) {
        out.datum(v.datum());
        context.write(out, NullWritable.get());
      }
    }
  }
}
