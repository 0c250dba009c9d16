package org.sodm.jobs.train;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.sodm.avro.TrainRecord;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.InProcessJob;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.Subproblems;

/**
 * The bottom level of a multi-class (or --probability, or cv) run whose every sub-problem is one block, in local mode: a
 * map-only job whose tasks each solve a share of the sub-problems from the ingested rows, held once in the JVM. The
 * shuffle of {@link SolveJob} sends each row to every sub-problem it is in (letter's 26 classes: 25 copies; with
 * --probability's 5 folds, 125), through a spilling sort when that is beyond the in-memory bound; here no row is copied.
 * Each sub-problem gets the rows the stratify map would send it, in id order, with the same y, and {@link BlockSolver}
 * solves and writes it as {@link BlockSolveReducer} would: the same records, statistics and model.
 *
 * <p>Which runs: {@link #applies}. A cluster keeps {@link SolveJob} (its tasks are separate JVMs); so does data beyond
 * {@link InProcessJob#MAX_BYTES} (each JVM holds the rows once) and {@link #KEY} false.
 */
final class SubproblemSolveJob {
  private SubproblemSolveJob() {}

  /** Whether this job may replace the shuffle's (default true; false: always {@link SolveJob}'s shuffle). */
  static final String KEY = "sodm.internal.train.subproblem.job";
  /** The sub-problems of each task, ';' between tasks, ',' between sub-problems. */
  static final String SPLITS = "sodm.internal.train.subproblem.splits";
  /** The estimated cost of each task (its split's length: the in-process runner starts the largest first). */
  static final String COSTS = "sodm.internal.train.subproblem.costs";
  /** The ingested rows' directory. */
  static final String DATA = "sodm.internal.train.subproblem.data";
  /** The key under which this JVM's tasks share the loaded rows ({@link SubproblemSolveMapper}). */
  static final String TOKEN = "sodm.internal.train.subproblem.token";
  /** Tasks per local core: more, smaller tasks even out the sub-problems' unequal costs. */
  static final int TASKS_PER_CORE = 4;

  /** The rows a job's tasks share in this JVM, by {@link #TOKEN}; removed when the job ends. */
  static final ConcurrentHashMap<String, SubproblemSolveMapper.Rows> SHARED = new ConcurrentHashMap<>();

  /** Whether the bottom level of {@code blocks} blocks per sub-problem runs as this job. */
  static boolean applies(Configuration conf, Path input, boolean bottom, int blocks) throws IOException {
    if (!bottom || blocks != 1 || TrainKeys.plan(conf) == null || !conf.getBoolean(KEY, true)) return false;
    if (!Jobs.isLocal(conf)) return false;
    long max = conf.getLong(InProcessJob.MAX_BYTES, InProcessJob.DEFAULT_MAX_BYTES);
    long bytes = 0;
    for (Path p : AvroFiles.dataFiles(conf, input)) bytes += p.getFileSystem(conf).getFileStatus(p).getLen();
    return bytes <= max;
  }

  /** Solves every sub-problem of the run (one block each) from the ingested rows under {@code input}. */
  static void run(Configuration base, Path input, int level, Path data, Path stats) throws IOException {
    Configuration conf = new Configuration(base);
    Jobs.localParallelism(conf);
    conf.setInt(TrainKeys.CHILD_BLOCKS, 0);
    conf.setInt(TrainKeys.LEVEL, level);
    conf.setInt(TrainKeys.BLOCKS, 1);
    conf.set(TrainKeys.STATS_DIR, stats.toString());
    conf.set(org.sodm.jobs.support.JobFailure.DIR_KEY, new Path(data.getParent(), "_failures").toString());
    conf.set(DATA, input.toString());
    Subproblems plan = TrainKeys.plan(conf);
    long[] counts = TrainPipeline.classCounts(AvroFiles.readOne(conf, new Path(input.getParent(), IngestJob.STATS),
        org.sodm.avro.FeatureStats.class), TrainKeys.classes(conf)); // the ingest's statistics beside its data
    int tasks = Math.min(plan.count(), TASKS_PER_CORE * Math.max(1, conf.getInt("mapreduce.local.map.tasks.maximum", 1)));
    assign(conf, plan, counts, tasks);
    String token = UUID.randomUUID().toString();
    conf.set(TOKEN, token);
    Job job = Jobs.newJob(conf, "sodm solve level " + level + " (" + plan.count() + " sub-problems, one block each)");
    job.setJarByClass(SubproblemSolveJob.class);
    job.setInputFormatClass(SubproblemInputFormat.class);
    job.setMapperClass(SubproblemSolveMapper.class);
    job.setNumReduceTasks(0);
    job.setOutputFormatClass(org.sodm.jobs.support.UncountedAvroOutputFormat.class);
    AvroJob.setOutputKeySchema(job, TrainRecord.getClassSchema());
    FileOutputFormat.setOutputPath(job, data);
    try {
      Jobs.run(job, "solve level " + level);
    } finally {
      SHARED.remove(token);
    }
  }

  /** Rows of sub-problem {@code s}: its task's classes, without its held-out fold (about (F-1)/F of them). */
  static double rows(Subproblems plan, long[] counts, int s) {
    int t = plan.task(s);
    double n = 0;
    for (int c = 0; c < counts.length; c++) if (plan.y(t, c) != 0) n += counts[c];
    return plan.heldOutFold(s) < 0 ? n : n * (plan.folds() - 1) / plan.folds();
  }

  /**
   * Deals the sub-problems to {@code tasks} tasks, largest first to the least loaded (a solve's cost taken as its rows
   * squared), and records them ({@link #SPLITS}, {@link #COSTS}); each task's sub-problems in increasing order.
   */
  static void assign(Configuration conf, Subproblems plan, long[] counts, int tasks) {
    int s = plan.count();
    Integer[] order = new Integer[s];
    double[] cost = new double[s];
    for (int i = 0; i < s; i++) {
      order[i] = i;
      double n = rows(plan, counts, i);
      cost[i] = n * n;
    }
    Arrays.sort(order, (a, b) -> cost[a] != cost[b] ? Double.compare(cost[b], cost[a]) : Integer.compare(a, b));
    double[] load = new double[tasks];
    List<List<Integer>> of = new ArrayList<>();
    for (int t = 0; t < tasks; t++) of.add(new ArrayList<>());
    for (int i : order) {
      int best = 0;
      for (int t = 1; t < tasks; t++) if (load[t] < load[best]) best = t;
      load[best] += cost[i];
      of.get(best).add(i);
    }
    StringBuilder splits = new StringBuilder();
    StringBuilder costs = new StringBuilder();
    for (int t = 0; t < tasks; t++) {
      List<Integer> l = of.get(t);
      l.sort(null);
      if (t > 0) {
        splits.append(';');
        costs.append(';');
      }
      for (int k = 0; k < l.size(); k++) splits.append(k == 0 ? "" : ",").append(l.get(k));
      costs.append(String.format(Locale.ROOT, "%.0f", load[t]));
    }
    conf.set(SPLITS, splits.toString());
    conf.set(COSTS, costs.toString());
  }

  /** A task's sub-problems. */
  public static final class SubproblemSplit extends InputSplit implements Writable {
    private int[] subs = new int[0];
    private long cost;

    public SubproblemSplit() {}

    SubproblemSplit(int[] subs, long cost) {
      this.subs = subs;
      this.cost = cost;
    }

    int[] subs() {
      return subs;
    }

    /** The estimated cost (the in-process runner and JobSubmitter start the largest split first). */
    @Override
    public long getLength() {
      return cost;
    }

    @Override
    public String[] getLocations() {
      return new String[0];
    }

    @Override
    public void write(DataOutput out) throws IOException {
      out.writeLong(cost);
      out.writeInt(subs.length);
      for (int s : subs) out.writeInt(s);
    }

    @Override
    public void readFields(DataInput in) throws IOException {
      cost = in.readLong();
      subs = new int[in.readInt()];
      for (int k = 0; k < subs.length; k++) subs[k] = in.readInt();
    }

    @Override
    public String toString() {
      return "sub-problems " + Arrays.toString(subs);
    }
  }

  /** The splits of {@link #SPLITS}; a record per sub-problem (its index). */
  public static final class SubproblemInputFormat extends InputFormat<IntWritable, NullWritable> {
    @Override
    public List<InputSplit> getSplits(JobContext context) {
      Configuration conf = context.getConfiguration();
      String[] tasks = conf.get(SPLITS, "").split(";", -1);
      String[] costs = conf.get(COSTS, "").split(";", -1);
      List<InputSplit> out = new ArrayList<>();
      for (int t = 0; t < tasks.length; t++) {
        if (tasks[t].isEmpty()) continue;
        out.add(new SubproblemSplit(Arrays.stream(tasks[t].split(",")).mapToInt(Integer::parseInt).toArray(),
            (long) Double.parseDouble(costs[t])));
      }
      return out;
    }

    @Override
    public RecordReader<IntWritable, NullWritable> createRecordReader(InputSplit split, TaskAttemptContext context) {
      return new RecordReader<>() {
        private int[] subs;
        private int next = -1;
        private final IntWritable key = new IntWritable();

        @Override
        public void initialize(InputSplit s, TaskAttemptContext c) {
          subs = ((SubproblemSplit) s).subs();
        }

        @Override
        public boolean nextKeyValue() {
          if (++next >= subs.length) return false;
          key.set(subs[next]);
          return true;
        }

        @Override
        public IntWritable getCurrentKey() {
          return key;
        }

        @Override
        public NullWritable getCurrentValue() {
          return NullWritable.get();
        }

        @Override
        public float getProgress() {
          return subs == null || subs.length == 0 ? 1 : Math.min(1f, (float) Math.max(0, next) / subs.length);
        }

        @Override
        public void close() {}
      };
    }
  }
}
