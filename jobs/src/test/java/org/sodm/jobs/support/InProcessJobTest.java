package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.train.BlockKey;
import org.sodm.testing.LocalConf;

/**
 * {@link InProcessJob}: a small local job's tasks on this process's threads write, file for file and byte for byte, what
 * the same job writes under LocalJobRunner (map-only, and with reducers fed by a secondary sort), with the same counters;
 * a failing task fails the job with its cause and no output; which jobs it takes.
 */
class InProcessJobTest {
  @TempDir Path tmp;

  /** The job ids the tasks ran under (both runners run their tasks in this JVM). */
  static final Set<String> JOB_IDS = ConcurrentHashMap.newKeySet();

  /** Upper-cases each line, keyed by its byte offset; counts lines and characters. */
  public static class Upper extends Mapper<LongWritable, Text, LongWritable, Text> {
    @Override
    protected void map(LongWritable key, Text value, Context context) throws IOException, InterruptedException {
      JOB_IDS.add(context.getJobID().toString());
      context.getCounter("test", "lines").increment(1);
      context.getCounter("test", "chars").increment(value.getLength());
      String line = value.toString();
      if (line.startsWith("fail")) throw new IllegalArgumentException("line at byte " + key.get() + " asks to fail");
      context.write(key, new Text(line.toUpperCase(java.util.Locale.ROOT)));
    }
  }

  /** Each line to block (first number mod 3) with its id (the second number). */
  public static class ToBlocks extends Mapper<LongWritable, Text, BlockKey, Text> {
    @Override
    protected void map(LongWritable key, Text value, Context context) throws IOException, InterruptedException {
      JOB_IDS.add(context.getJobID().toString());
      String[] f = value.toString().split(" ");
      context.write(new BlockKey((int) (Long.parseLong(f[0]) % 3), Long.parseLong(f[1])), new Text(value));
    }
  }

  /** One line per block: the ids and lines in the order the reducer saw them. */
  public static class Concat extends Reducer<BlockKey, Text, Text, Text> {
    @Override
    protected void reduce(BlockKey key, Iterable<Text> values, Context context) throws IOException, InterruptedException {
      StringBuilder b = new StringBuilder();
      for (Text v : values) b.append(key.id()).append('=').append(v).append(';');
      context.getCounter("test", "groups").increment(1);
      context.write(new Text("block " + key.block()), new Text(b.toString()));
    }
  }

  private Path write(String name, List<String> lines) throws IOException {
    Path p = tmp.resolve("in").resolve(name);
    Files.createDirectories(p.getParent());
    Files.write(p, lines, StandardCharsets.UTF_8);
    return p;
  }

  private Job job(Configuration conf, Class<? extends Mapper<?, ?, ?, ?>> mapper, Path out) throws IOException {
    Job job = Jobs.newJob(conf, "in-process test");
    FileInputFormat.setInputPaths(job, new org.apache.hadoop.fs.Path(tmp.resolve("in").toString()));
    FileOutputFormat.setOutputPath(job, new org.apache.hadoop.fs.Path(out.toString()));
    job.setMapperClass(mapper);
    return job;
  }

  /** Every file under {@code dir} (relative name -> content), the committer's marker included. */
  private static Map<String, String> files(Path dir) throws IOException {
    Map<String, String> all = new TreeMap<>();
    try (var s = Files.walk(dir)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) all.put(dir.relativize(p).toString(), Files.readString(p, StandardCharsets.ISO_8859_1));
    }
    return all;
  }

  private Configuration conf(boolean inProcess) {
    Configuration c = LocalConf.create(tmp);
    Jobs.localParallelism(c);
    if (!inProcess) c.setLong(InProcessJob.MAX_BYTES, 0);
    return c;
  }

  private static String onlyJobId() {
    assertEquals(1, JOB_IDS.size(), JOB_IDS.toString());
    String id = JOB_IDS.iterator().next();
    JOB_IDS.clear();
    return id;
  }

  @Test
  void aMapOnlyJobWritesWhatLocalJobRunnerWritesWithTheSameCounters() throws Exception {
    List<String> big = new ArrayList<>();
    for (int i = 0; i < 400; i++) big.add("row " + i + " of the larger file");
    write("a-small.txt", List.of("one", "two", "three"));
    write("b-large.txt", big); // the second file is the larger: task 0 under JobSubmitter's order
    JOB_IDS.clear();
    Map<String, Counters> counters = new TreeMap<>();
    for (boolean in : new boolean[] {true, false}) {
      Job j = job(conf(in), Upper.class, tmp.resolve("out-" + in));
      j.setNumReduceTasks(0);
      j.setOutputKeyClass(LongWritable.class);
      j.setOutputValueClass(Text.class);
      counters.put("" + in, Jobs.runCounting(j, "upper"));
      String id = onlyJobId();
      assertEquals(in, id.startsWith("job_inprocess"), id);
    }
    Map<String, String> a = files(tmp.resolve("out-true"));
    assertEquals(files(tmp.resolve("out-false")).keySet().stream().filter(f -> !f.startsWith(".")).toList(),
        a.keySet().stream().filter(f -> !f.startsWith(".")).toList(), "the same part files and _SUCCESS");
    for (String f : List.of("part-m-00000", "part-m-00001", "_SUCCESS")) {
      assertEquals(files(tmp.resolve("out-false")).get(f), a.get(f), f);
    }
    assertTrue(a.get("part-m-00000").contains("ROW 399 OF THE LARGER FILE"), "task 0 read the largest split");
    for (String c : List.of("lines", "chars")) {
      long want = counters.get("false").findCounter("test", c).getValue();
      assertEquals(want, counters.get("true").findCounter("test", c).getValue(), c);
    }
    assertEquals(403, counters.get("true").findCounter("test", "lines").getValue());
  }

  /** Lines to 3 blocks by (block, id), secondary sort, one reducer per block: the solve jobs' shape. */
  private Job blocksJob(Configuration conf, String out) throws IOException {
    Job j = job(conf, ToBlocks.class, tmp.resolve(out));
    j.setMapOutputKeyClass(BlockKey.class);
    j.setMapOutputValueClass(Text.class);
    j.setPartitionerClass(BlockKey.ByBlock.class);
    j.setSortComparatorClass(BlockKey.Comparator.class);
    j.setGroupingComparatorClass(BlockKey.GroupByBlock.class);
    InProcessJob.distinctMapKeys(j, 1);
    j.setReducerClass(Concat.class);
    j.setNumReduceTasks(3);
    j.setOutputKeyClass(Text.class);
    j.setOutputValueClass(Text.class);
    return j;
  }

  @Test
  void reducersSeeTheirBlocksInTheSortOrderAsUnderLocalJobRunner() throws Exception {
    java.util.Random r = new java.util.Random(3);
    List<String> x = new ArrayList<>();
    List<String> y = new ArrayList<>();
    for (int i = 0; i < 300; i++) (r.nextBoolean() ? x : y).add(r.nextInt(1000) + " " + (1_000_000 - 7L * i) + " v" + r.nextInt());
    write("x.txt", x);
    write("y.txt", y);
    JOB_IDS.clear();
    for (boolean in : new boolean[] {true, false}) {
      Job j = blocksJob(conf(in), "out-" + in);
      Counters c = Jobs.runCounting(j, "blocks");
      assertEquals(3, c.findCounter("test", "groups").getValue());
      assertEquals(in, onlyJobId().startsWith("job_inprocess"));
    }
    Map<String, String> a = files(tmp.resolve("out-true"));
    Map<String, String> b = files(tmp.resolve("out-false"));
    for (String f : List.of("part-r-00000", "part-r-00001", "part-r-00002", "_SUCCESS")) assertEquals(b.get(f), a.get(f), f);
    // and the order is the ids' (secondary sort), not the files' or the lines'
    String block0 = a.get("part-r-00000");
    long last = Long.MIN_VALUE;
    for (String rec : block0.substring(block0.indexOf('\t') + 1).split(";")) {
      if (rec.isBlank()) continue;
      long id = Long.parseLong(rec.substring(0, rec.indexOf('=')));
      assertTrue(id > last, block0);
      last = id;
    }
  }

  @Test
  void equalKeysUnderTheDistinctDeclarationFailTheJob() throws Exception {
    write("dup.txt", List.of("3 17 a", "6 17 b")); // both block 0, id 17
    Job j = blocksJob(conf(true), "out");
    SodmException e = assertThrows(SodmException.class, () -> Jobs.runCounting(j, "blocks"));
    assertTrue(e.getMessage().startsWith("blocks failed: ") && e.getMessage().contains("equal keys"), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("out").resolve("_SUCCESS")));
  }

  @Test
  void aFailingTaskFailsTheJobWithItsCauseAndNoOutput() throws Exception {
    write("f.txt", List.of("fine", "fail here", "fine"));
    Job j = job(conf(true), Upper.class, tmp.resolve("out"));
    j.setNumReduceTasks(0);
    j.setOutputKeyClass(LongWritable.class);
    j.setOutputValueClass(Text.class);
    SodmException e = assertThrows(SodmException.class, () -> Jobs.runCounting(j, "upper"));
    assertEquals("upper failed: line at byte 5 asks to fail", e.getMessage());
    Path out = tmp.resolve("out");
    assertTrue(!Files.exists(out) || files(out).isEmpty(), "nothing committed: " + (Files.exists(out) ? files(out) : ""));
  }

  private Job mapOnly(Configuration conf, String out) throws IOException {
    Job j = job(conf, Upper.class, tmp.resolve(out));
    j.setNumReduceTasks(0);
    return j;
  }

  @Test
  void whichJobsRunInProcess() throws Exception {
    write("a.txt", List.of("one line of 19 b"));
    write("b.txt", List.of("two lines", "of 27 bytes with newlines"));
    List<InputSplit> splits = InProcessJob.accepts(mapOnly(conf(true), "o1"));
    assertNotNull(splits, "a small local map-only job");
    assertEquals(List.of(36L, 17L), splits.stream().map(s -> {
      try {
        return s.getLength();
      } catch (IOException | InterruptedException ex) {
        throw new AssertionError(ex);
      }
    }).toList(), "largest split first, as JobSubmitter numbers the map tasks");

    long total = splits.stream().mapToLong(s -> {
      try {
        return s.getLength();
      } catch (IOException | InterruptedException ex) {
        throw new AssertionError(ex);
      }
    }).sum();
    Configuration small = conf(true);
    small.setLong(InProcessJob.MAX_BYTES, 1);
    assertNotNull(InProcessJob.accepts(mapOnly(small, "o2")), "a map-only job above the bound: it holds no shuffle");
    assertNull(InProcessJob.accepts(mapOnly(conf(false), "o3")), "turned off");

    Job reduce = job(conf(true), Upper.class, tmp.resolve("o4"));
    reduce.setNumReduceTasks(2);
    assertNull(InProcessJob.accepts(reduce), "reducers whose keys may repeat: the order among equal keys is LocalJobRunner's");
    InProcessJob.distinctMapKeys(reduce, 1);
    assertNotNull(InProcessJob.accepts(reduce));
    reduce.getConfiguration().setLong(InProcessJob.MAX_BYTES, total - 1);
    assertNull(InProcessJob.accepts(reduce), "a shuffle of 53 bytes above a bound of 52");
    reduce.getConfiguration().setLong(InProcessJob.MAX_BYTES, total);
    assertNotNull(InProcessJob.accepts(reduce), "a shuffle of 53 bytes at the bound");
    reduce.getConfiguration().setLong(InProcessJob.MAX_BYTES, 2 * total);
    InProcessJob.distinctMapKeys(reduce, 2);
    assertNotNull(InProcessJob.accepts(reduce), "two copies of 53 bytes held in memory: within 106");
    InProcessJob.distinctMapKeys(reduce, 3);
    assertNull(InProcessJob.accepts(reduce), "a map that sends each row to 3 blocks: 159 bytes of shuffle above the bound");
    InProcessJob.distinctMapKeys(reduce, 1);
    reduce.setCombinerClass(Reducer.class);
    assertNull(InProcessJob.accepts(reduce), "a combiner");

    Configuration yarn = conf(true);
    yarn.set("mapreduce.framework.name", "yarn");
    assertNull(InProcessJob.accepts(Job.getInstance(yarn)), "a cluster's jobs go to the cluster");
  }
}
