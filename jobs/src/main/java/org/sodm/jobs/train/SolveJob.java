package org.sodm.jobs.train;

import java.io.IOException;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmConf;

/**
 * One level of the tree as one MapReduce job: the bottom level (instances in, stratify map,
 * solve reduce) or a merge round (previous level's records in, parent-block map, solve reduce).
 * One reducer per block on a cluster; in local mode, with balanced blocks, one per local core
 * (see {@link #reducers}).
 */
final class SolveJob {
  private SolveJob() {}

  /**
   * Reduce tasks of a solve job: {@code sodm.train.reducers} when set (> 0), else one per block,
   * except in local mode with stratified or random blocks (equal sizes): one per local core, each
   * solving its share of the blocks in turn. Every reduce task of LocalJobRunner costs a job-conf
   * parse, a shuffle set-up and a commit (0.3 s of 2.2 s on ijcnn1's 16 blocks, bench/PROFILE.md);
   * k-means blocks differ in size, so they keep a task each and the runner balances them.
   * The model does not depend on the number of reducers (blocks are solved independently).
   */
  static int reducers(Configuration conf, int blocks) {
    int r = conf.getInt(SodmConf.TRAIN_REDUCERS, 0);
    if (r > 0) return Math.min(r, blocks);
    boolean local = Jobs.isLocal(conf);
    boolean balanced = !"kmeans".equals(conf.getTrimmed(SodmConf.PARTITIONER, "stratified"));
    if (local && balanced) return Math.min(blocks, Math.max(1, conf.getInt("mapreduce.local.reduce.tasks.maximum", 1)));
    return blocks;
  }

  static void run(Configuration base, Path input, boolean bottom, int level, int blocks, Path data, Path stats)
      throws IOException {
    run(base, input, bottom, level, blocks, 0, data, stats);
  }

  /** As above; {@code childBlocks}: a merge round's block count of the level below (0 at the bottom). */
  @SuppressWarnings("rawtypes")
  static void run(Configuration base, Path input, boolean bottom, int level, int blocks, int childBlocks, Path data, Path stats)
      throws IOException {
    if (SubproblemSolveJob.applies(base, input, bottom, blocks)) {
      SubproblemSolveJob.run(base, input, level, data, stats); // no shuffle: each sub-problem's rows from the rows held once
      return;
    }
    Configuration conf = new Configuration(base);
    conf.setInt(TrainKeys.CHILD_BLOCKS, childBlocks);
    conf.setInt(TrainKeys.LEVEL, level);
    conf.setInt(TrainKeys.BLOCKS, blocks);
    conf.set(TrainKeys.STATS_DIR, stats.toString());
    conf.set(org.sodm.jobs.support.JobFailure.DIR_KEY, new Path(data.getParent(), "_failures").toString());
    conf.setBoolean("mapreduce.reduce.speculative", false);
    Job job = Jobs.newJob(conf, "sodm solve level " + level + " (" + blocks + " blocks)");
    job.setJarByClass(SolveJob.class);
    // the bottom level deals rows by their order within a split: one split per ingested part
    job.setInputFormatClass(bottom ? org.sodm.jobs.support.WholeFileAvroInputFormat.class : org.sodm.jobs.support.AvroPiecesInputFormat.class);
    AvroJob.setInputKeySchema(job, bottom ? Instance.getClassSchema() : TrainRecord.getClassSchema());
    FileInputFormat.setInputPaths(job, input);
    Class<? extends Mapper> mapper = bottom ? StratifyMapper.class : MergeMapper.class;
    job.setMapperClass(mapper);
    job.setMapOutputKeyClass(BlockKey.class);
    job.setMapOutputValueClass(TrainRow.class); // packed primitive arrays, not Avro (TrainRow)
    job.setPartitionerClass(BlockKey.ByBlock.class);
    job.setSortComparatorClass(BlockKey.Comparator.class);
    job.setGroupingComparatorClass(BlockKey.GroupByBlock.class);
    // (block, id): a row once per block it is in; at the bottom a row is sent to each sub-problem of its class (ovo: K - 1 of
    // K (K - 1) / 2), above it every record is already one sub-problem's
    org.sodm.model.Subproblems plan = TrainKeys.plan(conf);
    org.sodm.jobs.support.InProcessJob.distinctMapKeys(job, bottom && plan != null ? plan.membershipsPerRow() : 1);
    job.setReducerClass(BlockSolveReducer.class);
    job.setNumReduceTasks(reducers(conf, blocks * TrainKeys.subproblems(conf))); // every sub-problem's blocks in the same job
    job.setOutputFormatClass(org.sodm.jobs.support.UncountedAvroOutputFormat.class);
    AvroJob.setOutputKeySchema(job, TrainRecord.getClassSchema());
    FileOutputFormat.setOutputPath(job, data);
    Jobs.run(job, "solve level " + level);
  }
}
