package org.sodm.jobs.train;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.support.Jobs;

/**
 * Issue 18 item 6: a block's solve must fit its task's heap. Before any level's job the driver
 * estimates the heap the largest block of every planned solve needs - its rows (the records, their
 * vectors and the solver's per-row state) plus the kernel cache, which holds at most the block's whole
 * matrix as floats and at most --cache-mb - and fails, naming the options that bound it, when that is
 * more than a reduce task has. A run that passes is not guaranteed to fit (k-means clusters can be
 * unbalanced; the estimate is of the expected block), but a block planned far beyond the heap fails in
 * seconds with what to change instead of an OutOfMemoryError after the jobs before it.
 */
public final class BlockMemory {
  private BlockMemory() {}

  /** Bytes per row besides its stored values: the record, its alpha, the vector's header and the solver's arrays. */
  static final long PER_ROW = 400;
  /**
   * Bytes per stored value: the record's boxed (index, value) pair and the vector's copy (64), and on sparse
   * high-dimensional data the solver's feature index of the rows (an int and a double, {@code org.sodm.data.FeatureIndex}).
   */
  static final long PER_NONZERO = 76;
  /** Share of a task's heap a block may plan to use (the rest: the task's framework, buffers, output). */
  public static final double USABLE = 0.9;

  /** The heap a block of {@code rows} rows of {@code nnzPerRow} stored values needs with a kernel cache bound of {@code cacheBytes}. */
  static long estimate(long rows, double nnzPerRow, long cacheBytes) {
    return rowBytes(rows, nnzPerRow) + cacheBytes(rows, cacheBytes);
  }

  static long rowBytes(long rows, double nnzPerRow) {
    return rows * (PER_ROW + (long) Math.ceil(nnzPerRow * PER_NONZERO));
  }

  /** The kernel cache a block uses: its whole matrix as floats, at most the bound. */
  static long cacheBytes(long rows, long cacheBytes) {
    double full = 4.0 * rows * rows;
    return full < cacheBytes ? (long) full : cacheBytes;
  }

  /** The heap of a reduce task and where the figure comes from. */
  public record Heap(long bytes, String source) {}

  /**
   * Local mode: the JVM's maximum heap shared by the reduce tasks it runs at once (at most {@code blocks}, the job's solve
   * tasks); on a cluster: the -Xmx of
   * mapreduce.reduce.java.opts, else mapreduce.reduce.memory.mb (default 1024) with 20% of it left to the JVM's own use.
   */
  static Heap taskHeap(Configuration conf, int blocks) {
    return taskHeap(conf, blocks, false);
  }

  /**
   * The same for the map tasks of a resident job ({@code resident}: PBM's blocks), all of which run at once: local mode divides
   * the heap by {@code blocks}; a cluster's figure comes from mapreduce.map.java.opts / mapreduce.map.memory.mb.
   */
  public static Heap taskHeap(Configuration conf, int blocks, boolean resident) {
    String kind = resident ? "map" : "reduce";
    if (Jobs.isLocal(conf)) {
      int parallel = Math.max(1, resident ? blocks : Math.min(blocks, conf.getInt(LOCAL_REDUCES, 1)));
      long max = Runtime.getRuntime().maxMemory();
      return new Heap(max / parallel, String.format(Locale.ROOT, "local mode: the JVM's %,d MB heap over %d %s task(s) at once",
          max >> 20, parallel, kind));
    }
    String opts = conf.get("mapreduce." + kind + ".java.opts", "");
    Long xmx = xmx(opts);
    if (xmx != null) return new Heap(xmx, "-Xmx of mapreduce." + kind + ".java.opts");
    long mb = conf.getLong("mapreduce." + kind + ".memory.mb", 1024);
    return new Heap((long) (0.8 * (mb << 20)), "80% of mapreduce." + kind + ".memory.mb = " + mb);
  }

  /** The local job runner's key for the reduce tasks it runs at once ({@link Jobs#localParallelism}: the task slots). */
  static final String LOCAL_REDUCES = "mapreduce.local.reduce.tasks.maximum";

  /**
   * Local mode: how many of a level's {@code tasks} solve tasks run at once. The task slots (sodm.local.parallelism, default
   * every core), except for more tasks than slots but fewer than twice as many: then all of them, when their blocks
   * ({@link #estimate}) take at most {@link #ALL_AT_ONCE} of the JVM's heap together (an estimate, and a speed-up only:
   * under -Xmx1g ijcnn1's 3 blocks of 16,663 rows with 256 MB caches stay 2 at a time). Slots at a time leave cores idle
   * in the last round (3 blocks on 2 cores: two rounds, the second on one core); all at once share the cores to the end
   * (1.5 rounds' time for blocks of equal cost). Which task solves which block, and so the model, is the same either way.
   */
  static int concurrentTasks(Configuration conf, int tasks, long blockRows, double nnzPerRow, long cacheBytes) {
    int slots = Math.max(1, conf.getInt(LOCAL_REDUCES, 1));
    if (!Jobs.isLocal(conf) || tasks <= slots || tasks >= 2 * slots) return slots;
    double together = (double) estimate(blockRows, nnzPerRow, cacheBytes) * tasks;
    return together <= ALL_AT_ONCE * Runtime.getRuntime().maxMemory() ? tasks : slots;
  }

  /**
   * The threads one block solve computes its kernel columns with (sodm.solver.threads; 0 = auto): in local mode the task slots
   * over the solve tasks that run at once (at most {@code tasks}, the job's; a map-side solve: every slot busy), on a
   * cluster the task's vcores. A level of one block on 2 cores: 2; of 2 or more blocks: 1 each. With 0, BlockSolver solves
   * blocks of fewer than {@link #THREADED_BLOCK_ROWS} rows with one thread.
   */
  static int solveThreads(Configuration conf, int tasks, boolean map) {
    int given = (int) org.sodm.jobs.spec.Param.SOLVER_THREADS.longValue(conf);
    if (given > 0) return given;
    if (Jobs.isLocal(conf)) {
      int slots = Jobs.localSlots(conf);
      int running = map ? slots : Math.max(1, Math.min(tasks, conf.getInt(LOCAL_REDUCES, slots)));
      return Math.max(1, slots / running);
    }
    return Math.max(1, conf.getInt(map ? "mapreduce.map.cpu.vcores" : "mapreduce.reduce.cpu.vcores", 1));
  }

  /**
   * sodm.solver.threads 0: blocks of fewer rows are solved by one thread. Such a solve takes well under a second, and its
   * columns' threads cost more in a short run's JIT warm-up than they save (agaricus, 6,513 rows, one block: whole `train`
   * 1.94 s median of 5 with one thread, 2.05 s with two; the same solve warm in one JVM 0.27 s either way).
   */
  static final int THREADED_BLOCK_ROWS = 8_192;

  /**
   * The threads a block of {@code rows} rows is solved with: {@code threads}, or with sodm.solver.threads 0 ({@code auto}) one
   * below {@link #THREADED_BLOCK_ROWS} rows.
   */
  static int blockThreads(int threads, boolean auto, int rows) {
    return auto && rows < THREADED_BLOCK_ROWS ? 1 : threads;
  }

  /** Share of the heap the blocks of a level may plan to use together when {@link #concurrentTasks} runs them all at once. */
  static final double ALL_AT_ONCE = 0.5;

  private static final Pattern XMX = Pattern.compile("-Xmx(\\d+)([kKmMgGtT]?)");

  /** The last -Xmx of JVM options in bytes, or null. */
  static Long xmx(String opts) {
    Matcher m = XMX.matcher(opts == null ? "" : opts);
    Long out = null;
    while (m.find()) {
      long v = Long.parseLong(m.group(1));
      out = switch (m.group(2).toLowerCase(Locale.ROOT)) {
        case "k" -> v << 10;
        case "m" -> v << 20;
        case "g" -> v << 30;
        case "t" -> v << 40;
        default -> v;
      };
    }
    return out;
  }

  /**
   * Fails when a block of {@code rows} rows ({@code where}: the solve it belongs to; {@code blocks} solve tasks in its job) would
   * not fit a task's heap.
   *
   * @param merged whether the block is a merged one (--max-block-rows bounds it) rather than a bottom block (--partitions)
   */
  static void check(Configuration conf, long rows, int blocks, double nnzPerRow, long cacheBytes, String where, boolean merged) {
    check(conf, rows, blocks, nnzPerRow, cacheBytes, where, merged, false);
  }

  /** The same for a resident job's blocks ({@code resident}: PBM's map tasks) or a solve job's. */
  static void check(Configuration conf, long rows, int blocks, double nnzPerRow, long cacheBytes, String where, boolean merged,
      boolean resident) {
    Heap heap = taskHeap(conf, blocks, resident);
    long need = estimate(rows, nnzPerRow, cacheBytes);
    if (need <= USABLE * heap.bytes()) return;
    throw new SodmException(String.format(Locale.ROOT, "%s: a block of ~%,d rows needs ~%,d MB of heap (its rows ~%,d MB, the kernel "
        + "cache %,d MB: the block's matrix as floats, at most --cache-mb %,d) but a solve task has ~%,d MB (%s); %s, a smaller "
        + "--cache-mb, or more heap (SODM_JAVA_OPTS=-Xmx... in local mode; mapreduce.%s.memory.mb and mapreduce.%s.java.opts on "
        + "a cluster). Nothing was solved.", where, rows, need >> 20, rowBytes(rows, nnzPerRow) >> 20, cacheBytes(rows, cacheBytes) >> 20,
        cacheBytes >> 20, heap.bytes() >> 20, heap.source(), resident ? "use more --exact-blocks (smaller PBM blocks)"
            : merged ? "use a lower --max-block-rows (the tree stops merging before blocks exceed it) or more --partitions"
            : "use more --partitions (smaller bottom blocks) or --max-block-rows", resident ? "map" : "reduce", resident ? "map" : "reduce"));
  }
}
