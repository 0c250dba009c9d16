package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.testing.LocalConf;

/**
 * Issue 18 item 6: a block planned beyond a solve task's heap fails before any solve, naming --partitions /
 * --max-block-rows and --cache-mb; the estimate and the task heap it is checked against.
 */
class BlockMemoryTest {
  @TempDir Path tmp;

  @Test
  void estimateIsTheRowsPlusTheCacheTheBlockCanUse() {
    // 1,000 rows of 10 values: the whole matrix (4 MB as floats) is below a 256 MB bound
    assertEquals(1000 * (400 + 760) + 4_000_000L, BlockMemory.estimate(1000, 10, 256L << 20));
    // 100,000 rows: the matrix (40 GB) is above the bound, which then counts whole
    assertEquals(100_000L * (400 + 760) + (256L << 20), BlockMemory.estimate(100_000, 10, 256L << 20));
  }

  /** One block solve's column threads: the cores over the solve tasks running at once, a cluster task's vcores, or as given. */
  @Test
  void solveThreadsFromTheTasksRunningAtOnce() {
    Configuration local = new Configuration(false);
    local.setInt(Jobs.LOCAL_PARALLELISM, 2);
    local.setInt(BlockMemory.LOCAL_REDUCES, 2);
    assertEquals(2, BlockMemory.solveThreads(local, 1, false), "one block alone on 2 cores");
    assertEquals(1, BlockMemory.solveThreads(local, 2, false));
    assertEquals(1, BlockMemory.solveThreads(local, 7, false));
    local.setInt(BlockMemory.LOCAL_REDUCES, 3); // 3 blocks all at once (BlockMemory.concurrentTasks)
    assertEquals(1, BlockMemory.solveThreads(local, 3, false));
    assertEquals(1, BlockMemory.solveThreads(local, 0, true), "a map-side solve: every slot busy");
    local.setInt(Jobs.LOCAL_PARALLELISM, 8);
    local.setInt(BlockMemory.LOCAL_REDUCES, 8);
    assertEquals(4, BlockMemory.solveThreads(local, 2, false));
    local.set(org.sodm.jobs.spec.Param.SOLVER_THREADS.key(), "3");
    assertEquals(3, BlockMemory.solveThreads(local, 2, false), "sodm.solver.threads as given");
    Configuration yarn = new Configuration(false);
    yarn.set("mapreduce.framework.name", "yarn");
    assertEquals(1, BlockMemory.solveThreads(yarn, 1, false), "a container's default vcore");
    yarn.setInt("mapreduce.reduce.cpu.vcores", 4);
    assertEquals(4, BlockMemory.solveThreads(yarn, 1, false));
    assertEquals(1, BlockMemory.solveThreads(yarn, 1, true), "map tasks: mapreduce.map.cpu.vcores");
    // auto: a small block's solve is too short for the threads' warm-up; a given count holds at any size
    assertEquals(1, BlockMemory.blockThreads(2, true, 8_191));
    assertEquals(2, BlockMemory.blockThreads(2, true, 8_192));
    assertEquals(3, BlockMemory.blockThreads(3, false, 500));
  }

  @Test
  void taskHeapFromTheJobsSettings() {
    assertEquals(256L << 20, BlockMemory.xmx("-Djava.net.preferIPv4Stack=true -Xmx256m"));
    assertEquals(2L << 30, BlockMemory.xmx("-Xmx1g -XX:+UseG1GC -Xmx2G"), "the last -Xmx counts, as the JVM's");
    assertNull(BlockMemory.xmx("-XX:+UseG1GC"));
    Configuration yarn = new Configuration(false);
    yarn.set("mapreduce.framework.name", "yarn");
    yarn.set("mapreduce.reduce.java.opts", "-Xmx300m");
    assertEquals(300L << 20, BlockMemory.taskHeap(yarn, 16).bytes());
    yarn.unset("mapreduce.reduce.java.opts");
    yarn.setInt("mapreduce.reduce.memory.mb", 2048);
    assertEquals((long) (0.8 * (2048L << 20)), BlockMemory.taskHeap(yarn, 16).bytes());
    Configuration local = new Configuration(false);
    local.setInt("mapreduce.local.reduce.tasks.maximum", 4);
    assertEquals(Runtime.getRuntime().maxMemory() / 4, BlockMemory.taskHeap(local, 16).bytes(), "4 reduce tasks at once");
    assertEquals(Runtime.getRuntime().maxMemory() / 2, BlockMemory.taskHeap(local, 2).bytes(), "a job of 2 blocks: 2 at once");
  }

  /**
   * 40,000 rows in 2 blocks with --cache-mb 100000: each block's matrix (20,000 rows: 1.6 GB as floats) is above what each of the
   * two solve tasks has of the test JVM's 2 GB heap. Refused after ingest, before any solve, naming what to change; nothing
   * half-written. The same data in 16 blocks passes the check.
   */
  @Test
  void aBlockBeyondTheTaskHeapFailsBeforeAnySolve() throws Exception {
    Path data = tmp.resolve("rows.libsvm");
    java.util.Random r = new java.util.Random(3);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 40_000; i++) {
      double x = r.nextDouble();
      b.append(x > 0.5 ? "+1" : "-1").append(" 1:").append(String.format(java.util.Locale.ROOT, "%.4f", x)).append('\n');
    }
    Files.writeString(data, b);
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.PARTITIONS, "2");
    conf.set(SodmConf.CACHE_MB, "100000");
    conf.setInt(Jobs.LOCAL_PARALLELISM, 2);
    // the heap this JVM has must be below the blocks' need for the test to mean anything
    assertTrue(Runtime.getRuntime().maxMemory() < 2 * 1_600_000_000L / BlockMemory.USABLE, "test JVM heap above 2 GB");
    List<String> lines = new ArrayList<>();
    Path out = tmp.resolve("too-big");
    SodmException e = assertThrows(SodmException.class, () -> TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data.toString()),
        null, new org.apache.hadoop.fs.Path(out.toString()), false), lines::add));
    String m = e.getMessage();
    assertTrue(m.startsWith("level 1 (2 blocks of 40,000 rows): a block of ~20,000 rows needs ~") && m.contains("--partitions")
        && m.contains("--max-block-rows") && m.contains("--cache-mb 100,000") && m.contains("2 reduce task(s) at once")
        && m.contains("Nothing was solved"), m);
    assertFalse(Files.exists(out.resolve(TrainPipeline.MODEL)));
    assertTrue(lines.stream().noneMatch(l -> l.startsWith("level")), String.join("\n", lines));
    Path work = out.resolve("work");
    if (Files.isDirectory(work)) {
      try (var entries = Files.list(work)) {
        assertTrue(entries.noneMatch(p -> p.getFileName().toString().startsWith("level-")), "no solve job ran");
      }
    }
    // 16 blocks of 2,500 rows: 25 MB matrices, well within a task's heap
    BlockMemory.check(conf, 2_500, 16, 1, 100_000L << 20, "level 1", false);
  }

  /**
   * A level's solve tasks run at once in local mode when they are more than the slots and fewer than twice as many (a last
   * round would leave slots idle), and only when all their blocks fit the heap together; otherwise the slots, and on a
   * cluster always the slots (YARN schedules the tasks).
   */
  @Test
  void concurrentTasksFillTheLastRoundWhenTheHeapHoldsThem() {
    Configuration conf = LocalConf.create(tmp);
    long small = 1L << 20; // 1 MB kernel cache: blocks of 500 rows need ~1.5 MB each
    int[] tasks = {1, 2, 3, 4, 5, 7, 8, 9, 16};
    int[] twoSlots = {2, 2, 3, 2, 2, 2, 2, 2, 2};
    int[] fourSlots = {4, 4, 4, 4, 5, 7, 4, 4, 4};
    for (int i = 0; i < tasks.length; i++) {
      conf.setInt(BlockMemory.LOCAL_REDUCES, 2);
      assertEquals(twoSlots[i], BlockMemory.concurrentTasks(conf, tasks[i], 500, 3, small), "2 slots, " + tasks[i] + " tasks");
      conf.setInt(BlockMemory.LOCAL_REDUCES, 4);
      assertEquals(fourSlots[i], BlockMemory.concurrentTasks(conf, tasks[i], 500, 3, small), "4 slots, " + tasks[i] + " tasks");
    }
    // 3 blocks whose caches fit one at a time but not all three together
    conf.setInt(BlockMemory.LOCAL_REDUCES, 2);
    long heap = Runtime.getRuntime().maxMemory();
    long rows = 1_000_000; // the whole matrix is far above the bound: the cache uses the bound
    long cache = (long) (0.2 * heap) - BlockMemory.rowBytes(rows, 1);
    assertEquals((long) (0.2 * heap), BlockMemory.estimate(rows, 1, cache));
    assertEquals(2, BlockMemory.concurrentTasks(conf, 3, rows, 1, cache), "3 x 20% of the heap > 50%: 2 at a time");
    assertEquals(3, BlockMemory.concurrentTasks(conf, 3, rows, 1, (long) (0.15 * heap) - BlockMemory.rowBytes(rows, 1)),
        "3 x 15%: all at once");
    conf.set("mapreduce.framework.name", "yarn");
    assertEquals(2, BlockMemory.concurrentTasks(conf, 3, 500, 3, small), "a cluster: the slots key is not ours to raise");
  }

  /** PBM's blocks are resident map tasks that all run at once: the heap is shared by all of them, and the fix is --exact-blocks. */
  @Test
  void pbmBlocksShareTheHeapAllAtOnce() {
    Configuration conf = LocalConf.create(tmp);
    conf.setInt("mapreduce.local.reduce.tasks.maximum", 1); // a reduce job would run one block at a time; a resident job runs all
    assertEquals(Runtime.getRuntime().maxMemory() / 8, BlockMemory.taskHeap(conf, 8, true).bytes());
    SodmException e = assertThrows(SodmException.class, () -> BlockMemory.check(conf, 20_000, 2, 1, 100_000L << 20,
        "exact mode (PBM, 2 blocks of 40,000 rows)", false, true));
    assertTrue(e.getMessage().contains("--exact-blocks") && e.getMessage().contains("2 map task(s) at once")
        && e.getMessage().contains("mapreduce.map.memory.mb"), e.getMessage());
    BlockMemory.check(conf, 2_500, 16, 1, 100_000L << 20, "exact mode (PBM, 16 blocks)", false, true);
  }
}
