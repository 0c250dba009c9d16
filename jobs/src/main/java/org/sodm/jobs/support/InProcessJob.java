package org.sodm.jobs.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.io.serializer.SerializationFactory;
import org.apache.hadoop.io.serializer.Serializer;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.OutputCommitter;
import org.apache.hadoop.mapreduce.OutputFormat;
import org.apache.hadoop.mapreduce.Partitioner;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.RecordWriter;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.StatusReporter;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.lib.map.WrappedMapper;
import org.apache.hadoop.mapreduce.lib.reduce.WrappedReducer;
import org.apache.hadoop.mapreduce.task.JobContextImpl;
import org.apache.hadoop.mapreduce.task.MapContextImpl;
import org.apache.hadoop.mapreduce.task.ReduceContextImpl;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.hadoop.util.Progress;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * Local mode, small inputs: a configured job's tasks run in this process, on threads, without LocalJobRunner - Hadoop's
 * "uber" task idea for the embedded default. The same input format, splits (in JobSubmitter's order: largest first),
 * task ids, mappers, partitioner, sort and grouping comparators, reducers, output formats and committers run as under
 * LocalJobRunner, so a job writes the same files; what is left out is what only costs here: the staging directory,
 * job.xml written and parsed back, split files, the 100 MB sort buffer, map outputs spilled to disk and fetched back,
 * the client's status polling (measured: 0.3-0.4 s of a small job's 0.4-0.6 s; bench/PROFILE.md).
 *
 * <p>Which jobs: {@link #accepts}: local framework, {@value #MAX_BYTES} not 0 (0 turns this runner off), no combiner;
 * a map-only job of any size (LocalJobRunner would run the same tasks on threads of this process; on the 1M x 100k set
 * the ingest and the resident solve took 1.2 s less this way); for a job with reducers, its input times the copies of a
 * row its map may send within {@value #MAX_BYTES} (default 64 MB) and map output keys that are all distinct
 * ({@link #distinctMapKeys}): each reducer then sees its records in the sort order alone, as under LocalJobRunner (whose
 * order among equal keys is that of its spills and merges). The map output is held in memory: a job with reducers
 * declares how many copies of a row its map may send, and the bound applies to the input times that.
 */
public final class InProcessJob {
  /** Largest total input (bytes of the job's splits) a local job runs in process; 0: never. */
  public static final String MAX_BYTES = "sodm.local.inprocess.max.bytes";
  public static final long DEFAULT_MAX_BYTES = 64L << 20;
  /** Set by a job whose map output keys are all distinct (see {@link #distinctMapKeys}). */
  static final String DISTINCT_KEYS = "sodm.internal.map.keys.distinct";
  /** How many copies of its input such a job's map output holds at most (see {@link #distinctMapKeys}). */
  static final String COPIES = "sodm.internal.map.output.copies";
  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  /** The name of the threads that run the tasks. */
  public static final String THREAD_NAME = "sodm in-process task";
  private static final String ID = "inprocess" + ProcessHandle.current().pid();

  private InProcessJob() {}

  /**
   * Declares that no two map output records of {@code job} have equal keys (the reducers' input order is then defined) and
   * that its map output is at most about {@code copies} times its input (a row sent to that many blocks): the shuffle
   * is held in memory, so such a job runs in process only when copies x its input is within {@value #MAX_BYTES}.
   */
  public static void distinctMapKeys(Job job, int copies) {
    job.getConfiguration().setBoolean(DISTINCT_KEYS, true);
    job.getConfiguration().setInt(COPIES, Math.max(1, copies));
  }

  /** The splits of a job this runner takes, in task order; null when it does not take it (LocalJobRunner runs it). */
  static List<InputSplit> accepts(Job job) throws IOException {
    Configuration conf = job.getConfiguration();
    if (!Jobs.isLocal(conf)) return null;
    long max = conf.getLong(MAX_BYTES, DEFAULT_MAX_BYTES);
    if (max <= 0) return null;
    try {
      if (job.getCombinerClass() != null) return null;
      if (job.getNumReduceTasks() > 0 && !conf.getBoolean(DISTINCT_KEYS, false)) return null;
      JobContext jc = new JobContextImpl(conf, new JobID(ID, 0));
      InputFormat<?, ?> in = ReflectionUtils.newInstance(jc.getInputFormatClass(), conf);
      List<InputSplit> splits = in.getSplits(jc);
      long total = 0;
      for (InputSplit s : splits) total += s.getLength();
      // A map-only job holds nothing here that LocalJobRunner would not (its tasks are this process's threads either way):
      // any size. A job with reducers holds its shuffle in memory: copies x its input within the bound.
      if (job.getNumReduceTasks() > 0 && (double) total * conf.getInt(COPIES, 1) > max) return null;
      InputSplit[] sorted = splits.toArray(new InputSplit[0]);
      // JobSubmitter's order (largest first, stable): the map task ids and so the part file names
      Arrays.sort(sorted, (a, b) -> {
        try {
          return Long.compare(b.getLength(), a.getLength());
        } catch (IOException | InterruptedException e) {
          throw new IllegalStateException("split length: " + e.getMessage(), e);
        }
      });
      return Arrays.asList(sorted);
    } catch (ClassNotFoundException e) {
      throw new IOException("job " + job.getJobName() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** Runs {@code job} on {@code splits} (from {@link #accepts}); its counters, or the failure of its first failed task. */
  static Counters run(Job job, List<InputSplit> splits) throws Throwable {
    return run(job, splits, ConcurrentHashMap.newKeySet());
  }

  /** {@link #run}, each task thread added to {@code workers} as it starts. */
  private static Counters run(Job job, List<InputSplit> splits, Set<Thread> workers) throws Throwable {
    JobConf conf = new JobConf(job.getConfiguration());
    JobID id = new JobID(ID, SEQUENCE.incrementAndGet());
    conf.set(MRJobConfig.ID, id.toString());
    JobContext jc = new JobContextImpl(conf, id);
    // LocalJobRunner's job committer: map task 0's output format's
    OutputCommitter jobCommitter = task(conf, new TaskAttemptID(new TaskID(id, TaskType.MAP, 0), 0)).committer;
    ReflectionUtils.newInstance(jc.getOutputFormatClass(), conf).checkOutputSpecs(jc);
    jobCommitter.setupJob(jc);
    Counters counters = new Counters();
    try {
      int reduces = jc.getNumReduceTasks();
      MapOutput[] outputs = new MapOutput[splits.size()];
      List<Task> maps = new ArrayList<>();
      for (int i = 0; i < splits.size(); i++) {
        int m = i;
        maps.add(() -> {
          outputs[m] = map(conf, id, m, splits.get(m), reduces);
          return outputs[m].counters;
        });
      }
      runAll(maps, conf.getInt("mapreduce.local.map.tasks.maximum", 1), counters, workers);
      if (reduces > 0) {
        List<Task> reducers = new ArrayList<>();
        for (int r = 0; r < reduces; r++) {
          int p = r;
          reducers.add(() -> reduce(conf, id, p, outputs));
        }
        runAll(reducers, conf.getInt("mapreduce.local.reduce.tasks.maximum", 1), counters, workers);
      }
      jobCommitter.commitJob(jc);
      return counters;
    } catch (Throwable t) {
      try {
        jobCommitter.abortJob(jc, JobStatus.State.FAILED);
      } catch (IOException | RuntimeException e) {
        t.addSuppressed(e);
      }
      throw t;
    }
  }

  /** Starts {@code job} on {@code splits} (from {@link #accepts}) on a thread of its own; the caller polls the handle. */
  static Running start(Job job, List<InputSplit> splits) {
    Running r = new Running(job.getJobName());
    Thread t = new Thread(() -> {
      try {
        r.counters = run(job, splits, r.workers);
      } catch (Throwable e) {
        r.failure = e;
      } finally {
        r.done = true;
      }
    }, THREAD_NAME + " driver");
    t.setDaemon(true);
    r.workers.add(t);
    t.start();
    return r;
  }

  /** A job {@link #start}ed in this process. */
  static final class Running implements Jobs.Submitted {
    private final String name;
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    private volatile boolean done;
    private volatile Counters counters;
    private volatile Throwable failure;

    private Running(String name) {
      this.name = name;
    }

    @Override
    public boolean isComplete() {
      return done;
    }

    @Override
    public boolean isSuccessful() {
      return done && failure == null;
    }

    /** Why it failed ("" while it has not), the first failed task's cause first. */
    @Override
    public String failureInfo() {
      Throwable f = failure;
      return f == null ? "" : Causes.describe(f, name);
    }

    @Override
    public Counters counters() {
      Counters c = counters;
      return c == null ? new Counters() : c;
    }

    /** Interrupts its threads (the tasks end as their code answers an interrupt). */
    @Override
    public void kill() {
      for (Thread t : workers) t.interrupt();
    }
  }

  private interface Task {
    Counters call() throws Exception;
  }

  /** Runs the tasks on up to {@code threads} threads, adding their counters; the first failure (by task order) is thrown. */
  private static void runAll(List<Task> tasks, int threads, Counters counters, Set<Thread> workers) throws Throwable {
    if (tasks.isEmpty()) return;
    int n = Math.max(1, Math.min(threads, tasks.size()));
    if (n == 1) {
      for (Task t : tasks) counters.incrAllCounters(t.call());
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(n, r -> {
      Thread th = new Thread(r, THREAD_NAME);
      th.setDaemon(true);
      workers.add(th);
      return th;
    });
    try {
      List<Future<Counters>> done = new ArrayList<>();
      for (Task t : tasks) done.add(pool.submit(t::call));
      Throwable first = null;
      for (Future<Counters> f : done) {
        try {
          Counters c = f.get();
          counters.incrAllCounters(c);
        } catch (java.util.concurrent.ExecutionException e) {
          if (first == null) first = e.getCause();
        }
      }
      if (first != null) throw first;
    } finally {
      pool.shutdownNow();
    }
  }

  /** A task's configuration, counters, output format instance and committer (FileOutputFormat keeps its first task's committer). */
  private record Output(JobConf conf, Reporter reporter, OutputFormat<?, ?> format, OutputCommitter committer, TaskAttemptContext context) {}

  private static Output task(JobConf job, TaskAttemptID attempt) throws IOException, InterruptedException {
    JobConf conf = taskConf(job, attempt, attempt.getTaskType() == TaskType.MAP);
    Reporter reporter = new Reporter(new Counters());
    TaskAttemptContext tc = new TaskAttemptContextImpl(conf, attempt, reporter);
    try {
      OutputFormat<?, ?> of = ReflectionUtils.newInstance(tc.getOutputFormatClass(), conf);
      return new Output(conf, reporter, of, of.getOutputCommitter(tc), tc);
    } catch (ClassNotFoundException e) {
      throw new IOException(e.toString(), e);
    }
  }

  /** A task's configuration, as Task.localizeConfiguration sets it. */
  private static JobConf taskConf(JobConf job, TaskAttemptID attempt, boolean isMap) {
    JobConf c = new JobConf(job);
    c.set(MRJobConfig.TASK_ID, attempt.getTaskID().toString());
    c.set(MRJobConfig.TASK_ATTEMPT_ID, attempt.toString());
    c.setBoolean(MRJobConfig.TASK_ISMAP, isMap);
    c.setInt(MRJobConfig.TASK_PARTITION, attempt.getTaskID().getId());
    return c;
  }

  /** One map task's records for the reducers: per partition, serialised key and value pairs in the order written. */
  private static final class MapOutput {
    final Counters counters;
    final DataOutputBuffer[] data;
    final int[][] marks; // per partition: key start, value start, end, ...
    final int[] count;

    MapOutput(Counters counters, int partitions) {
      this.counters = counters;
      data = new DataOutputBuffer[partitions];
      marks = new int[partitions][];
      count = new int[partitions];
      for (int p = 0; p < partitions; p++) {
        data[p] = new DataOutputBuffer();
        marks[p] = new int[48];
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static MapOutput map(JobConf job, JobID id, int index, InputSplit split, int reduces) throws Exception {
    Output out = task(job, new TaskAttemptID(new TaskID(id, TaskType.MAP, index), 0));
    JobConf conf = out.conf;
    TaskAttemptContext tc = out.context;
    InputFormat in = ReflectionUtils.newInstance(tc.getInputFormatClass(), conf);
    Mapper mapper = ReflectionUtils.newInstance(tc.getMapperClass(), conf);
    MapOutput result = new MapOutput(out.reporter.counters, reduces);
    RecordWriter writer = reduces == 0 ? null : new Collector(conf, tc, result, reduces);
    out.committer.setupTask(tc);
    RecordReader reader = in.createRecordReader(split, tc);
    try {
      if (writer == null) writer = out.format.getRecordWriter(tc);
      MapContextImpl mc = new MapContextImpl(conf, tc.getTaskAttemptID(), reader, writer, out.committer, out.reporter, split);
      Mapper.Context context = new WrappedMapper().getMapContext(mc);
      reader.initialize(split, context);
      mapper.run(context);
      writer.close(context);
      writer = null;
    } catch (Throwable t) {
      if (writer != null && reduces == 0) closeQuietly(writer, tc, t);
      out.committer.abortTask(tc);
      throw t;
    } finally {
      reader.close();
    }
    if (reduces == 0 && out.committer.needsTaskCommit(tc)) out.committer.commitTask(tc);
    return result;
  }

  private static void closeQuietly(RecordWriter<?, ?> w, TaskAttemptContext tc, Throwable cause) {
    try {
      w.close(tc);
    } catch (IOException | InterruptedException | RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  /** The map side of the shuffle: each record serialised into its partition's buffer as it is written. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final class Collector extends RecordWriter<Object, Object> {
    private final MapOutput out;
    private final Partitioner partitioner;
    private final Class<?> keyClass;
    private final Class<?> valueClass;
    private final Serializer keys;
    private final Serializer values;
    private final DataOutputBuffer[] streams;
    private int current;
    private final int reduces;

    Collector(JobConf conf, TaskAttemptContext tc, MapOutput out, int reduces) throws Exception {
      this.out = out;
      this.reduces = reduces;
      this.partitioner = ReflectionUtils.newInstance(tc.getPartitionerClass(), conf);
      this.keyClass = tc.getMapOutputKeyClass();
      this.valueClass = tc.getMapOutputValueClass();
      SerializationFactory f = new SerializationFactory(conf);
      this.keys = f.getSerializer(keyClass);
      this.values = f.getSerializer(valueClass);
      this.streams = out.data;
      // one stream per serializer, redirected to the partition's buffer before each record
      this.sink = new Redirect();
      keys.open(sink);
      values.open(sink);
    }

    private final Redirect sink;

    /** An output stream that writes to the buffer of the record's partition. */
    private final class Redirect extends java.io.OutputStream {
      @Override
      public void write(int b) throws IOException {
        streams[current].write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        streams[current].write(b, off, len);
      }
    }

    @Override
    public void write(Object key, Object value) throws IOException {
      if (key.getClass() != keyClass) {
        throw new IOException("Type mismatch in key from map: expected " + keyClass.getName() + ", received " + key.getClass().getName());
      }
      if (value.getClass() != valueClass) {
        throw new IOException("Type mismatch in value from map: expected " + valueClass.getName() + ", received " + value.getClass().getName());
      }
      int p = partitioner.getPartition(key, value, reduces);
      if (p < 0 || p >= reduces) throw new IOException("Illegal partition for " + key + " (" + p + ")");
      current = p;
      DataOutputBuffer buf = streams[p];
      int k = out.count[p] * 3;
      int[] m = out.marks[p];
      if (k + 3 > m.length) m = out.marks[p] = Arrays.copyOf(m, m.length * 2);
      m[k] = buf.getLength();
      keys.serialize(key);
      m[k + 1] = buf.getLength();
      values.serialize(value);
      m[k + 2] = buf.getLength();
      out.count[p]++;
    }

    @Override
    public void close(TaskAttemptContext context) throws IOException {
      keys.close();
      values.close();
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Counters reduce(JobConf job, JobID id, int partition, MapOutput[] maps) throws Exception {
    Output out = task(job, new TaskAttemptID(new TaskID(id, TaskType.REDUCE, partition), 0));
    JobConf conf = out.conf;
    TaskAttemptContext tc = out.context;
    RawComparator sort = conf.getOutputKeyComparator();
    RawComparator group = conf.getOutputValueGroupingComparator();
    Sorted input = new Sorted(maps, partition, sort);
    Reducer reducer = ReflectionUtils.newInstance(tc.getReducerClass(), conf);
    out.committer.setupTask(tc);
    RecordWriter writer = out.format.getRecordWriter(tc);
    try {
      Counters counters = out.reporter.counters;
      ReduceContextImpl rc = new ReduceContextImpl(conf, tc.getTaskAttemptID(), input, counters.findCounter("sodm.inprocess", "reduce input groups"),
          counters.findCounter("sodm.inprocess", "reduce input records"), writer, out.committer, out.reporter, group,
          tc.getMapOutputKeyClass(), tc.getMapOutputValueClass());
      Reducer.Context context = new WrappedReducer().getReducerContext(rc);
      reducer.run(context);
      writer.close(context);
      writer = null;
    } catch (Throwable t) {
      if (writer != null) closeQuietly(writer, tc, t);
      out.committer.abortTask(tc);
      throw t;
    }
    if (out.committer.needsTaskCommit(tc)) out.committer.commitTask(tc);
    return out.reporter.counters;
  }

  /** A partition's records from every map task, sorted by the job's sort comparator (stable: map task order among equals). */
  private static final class Sorted implements RawKeyValueIterator {
    private final byte[][] bufs;
    private final int[] ks; // per record: key start
    private final int[] vs; // value start
    private final int[] es; // end
    private final Integer[] order;
    private int at = -1;
    private final DataInputBuffer key = new DataInputBuffer();
    private final DataInputBuffer value = new DataInputBuffer();
    private final int[] source;

    @SuppressWarnings("rawtypes")
    Sorted(MapOutput[] maps, int p, RawComparator cmp) {
      int n = 0;
      for (MapOutput m : maps) n += m.count[p];
      bufs = new byte[maps.length][];
      ks = new int[n];
      vs = new int[n];
      es = new int[n];
      source = new int[n];
      int r = 0;
      for (int t = 0; t < maps.length; t++) {
        bufs[t] = maps[t].data[p].getData();
        int[] mk = maps[t].marks[p];
        for (int i = 0; i < maps[t].count[p]; i++, r++) {
          ks[r] = mk[3 * i];
          vs[r] = mk[3 * i + 1];
          es[r] = mk[3 * i + 2];
          source[r] = t;
        }
      }
      order = new Integer[n];
      for (int i = 0; i < n; i++) order[i] = i;
      @SuppressWarnings("unchecked")
      java.util.Comparator<Integer> c = (a, b) -> cmp.compare(bufs[source[a]], ks[a], vs[a] - ks[a], bufs[source[b]], ks[b], vs[b] - ks[b]);
      Arrays.sort(order, c);
      for (int i = 1; i < n; i++) {
        if (c.compare(order[i - 1], order[i]) == 0) {
          throw new IllegalStateException("two map output records of partition " + p + " have equal keys, though the job declared its"
              + " keys distinct (" + DISTINCT_KEYS + "): their order would be undefined");
        }
      }
    }

    @Override
    public DataInputBuffer getKey() {
      return key;
    }

    @Override
    public DataInputBuffer getValue() {
      return value;
    }

    @Override
    public boolean next() {
      if (++at >= order.length) return false;
      int r = order[at];
      byte[] b = bufs[source[r]];
      key.reset(b, ks[r], vs[r] - ks[r]);
      value.reset(b, vs[r], es[r] - vs[r]);
      return true;
    }

    @Override
    public void close() {}

    @Override
    public Progress getProgress() {
      return new Progress();
    }
  }

  /** A task's counters and status. */
  private static final class Reporter extends StatusReporter {
    final Counters counters;

    Reporter(Counters counters) {
      this.counters = counters;
    }

    @Override
    public Counter getCounter(Enum<?> name) {
      synchronized (counters) {
        return counters.findCounter(name);
      }
    }

    @Override
    public Counter getCounter(String group, String name) {
      synchronized (counters) {
        return counters.findCounter(group, name);
      }
    }

    @Override
    public void progress() {}

    @Override
    public float getProgress() {
      return 0;
    }

    @Override
    public void setStatus(String status) {}
  }
}
