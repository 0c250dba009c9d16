package org.sodm.jobs.allreduce;

import org.sodm.jobs.spec.Param;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.avro.TrainRecord;
import org.sodm.jobs.linear.BlockInputFormat;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmException;

/**
 * The driver of a resident AllReduce run: one map-only job whose K tasks ({@link ResidentMapper},
 * one per block file) stay up for every iteration. It starts the {@link Tracker} before
 * submitting, puts a fresh random secret into the job's credentials (never the configuration),
 * runs the K maps concurrently in local mode, turns speculation and task retries off (a retried
 * task would meet peers that moved on), enforces the rendezvous timeout (all K registered, or
 * the job is killed with a message naming K, how many registered and what to change), passes
 * rank 0's iteration reports to a listener, and after a failed attempt resubmits from the last
 * committed checkpoint ({@link FsCheckpoints}), at most {@code sodm.allreduce.max.restarts}
 * times. Returns the final checkpoint (the solver's state when it stopped).
 */
public final class ResidentJob {
  private static final Logger LOG = LoggerFactory.getLogger(ResidentJob.class);

  private ResidentJob() {}

  /** Rank 0's values of iteration t, in arrival order. */
  public interface Listener {
    void iteration(int t, double[] values);
  }

  /** The final checkpoint, how many submissions it took, and the connections the tasks refused. */
  public record Result(Path checkpoint, int submissions, long refusedConnections, int ranks) {}

  /**
   * @param blockDir the block files {@code block-N.avro} (one task each, rank = position by N)
   * @param workDir the run's directory for checkpoints and failure notes
   * @param maxDoubles the largest array one AllReduce carries (frames above it are refused)
   * @param notes driver messages (a restart and why)
   */
  public static Result run(Configuration base, String name, Class<? extends ResidentMapper> mapper, Path blockDir, Path workDir, int maxDoubles,
      Listener listener, Consumer<String> notes) throws IOException {
    FileSystem fs = blockDir.getFileSystem(base);
    List<Integer> blocks = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    for (FileStatus st : fs.globStatus(new Path(blockDir, "block-*.avro"))) files.add(st.getPath());
    files.sort(null);
    for (Path f : files) blocks.add(ResidentMapper.blockOf(f));
    if (blocks.isEmpty()) throw new SodmException(name + ": no block files in " + blockDir);
    return run(base, name, mapper, blocks, job -> {
      job.setInputFormatClass(BlockInputFormat.class);
      AvroJob.setInputKeySchema(job, TrainRecord.getClassSchema());
      FileInputFormat.setInputPaths(job, files.toArray(new Path[0]));
    }, workDir, maxDoubles, listener, notes);
  }

  /** How a resident job's tasks get their blocks: one split per block, each a block file or a {@link BlockSplit}. */
  public interface Input {
    void configure(Job job) throws IOException;
  }

  /**
   * A resident run over {@code blocks} (ids, by rank) whose splits {@code input} makes: one per block, in any order (a
   * task finds its rank from its split's block).
   */
  public static Result run(Configuration base, String name, Class<? extends ResidentMapper> mapper, List<Integer> blocks, Input input,
      Path workDir, int maxDoubles, Listener listener, Consumer<String> notes) throws IOException {
    FileSystem fs = workDir.getFileSystem(base);
    int k = blocks.size();
    if (k == 0) throw new SodmException(name + ": no blocks");
    Path ckptDir = new Path(workDir, "allreduce");
    fs.delete(ckptDir, true);
    byte[] secret = Handshake.newSecret();
    boolean local = Jobs.isLocal(base);
    String host = Param.ALLREDUCE_BIND_HOST.value(base);
    if (host.isEmpty()) host = local ? "127.0.0.1" : InetAddress.getLocalHost().getHostAddress();
    try (Tracker tracker = new Tracker(base, host, secret)) {
      if (local) LocalSecrets.put(tracker.address(), secret);
      try {
        return submissions(base, name, mapper, workDir, maxDoubles, listener, notes, tracker, blocks, input, ckptDir, secret, local);
      } finally {
        LocalSecrets.remove(tracker.address());
        LocalTasks.forget(tracker.address());
      }
    }
  }

  private static Result submissions(Configuration base, String name, Class<? extends ResidentMapper> mapper, Path workDir, int maxDoubles,
      Listener listener, Consumer<String> notes, Tracker tracker, List<Integer> blocks, Input input, Path ckptDir, byte[] secret,
      boolean local) throws IOException {
    FileSystem fs = workDir.getFileSystem(base);
    int k = blocks.size();
    int maxRestarts = (int) Param.ALLREDUCE_MAX_RESTARTS.longValue(base);
    double rendezvous = Param.ALLREDUCE_RENDEZVOUS_TIMEOUT.doubleValue(base);
    int extra = base.getInt(AllReduceKeys.TEST_EXTRA_RANKS, 0);
    long refused = 0;
    {
      for (int s = 0; ; s++) {
        FsCheckpoints.Committed from = FsCheckpoints.latest(base, ckptDir);
        Configuration conf = new Configuration(base);
        conf.set(AllReduceKeys.TRACKER, tracker.address());
        conf.setInt(AllReduceKeys.SIZE, k + extra);
        conf.set(AllReduceKeys.BLOCKS, blocks.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElse(""));
        conf.setInt(AllReduceKeys.SUBMISSION, s);
        conf.set(AllReduceKeys.CHECKPOINT_DIR, ckptDir.toString());
        conf.setInt(AllReduceKeys.MAX_DOUBLES, maxDoubles);
        if (from != null) {
          conf.set(AllReduceKeys.RESUME, from.dir().toString());
          conf.setInt(AllReduceKeys.RESUME_NEXT, from.next());
        }
        if (local) {
          // LocalJobRunner runs at most this many maps at once: fewer than K would deadlock silently
          conf.setInt("mapreduce.local.map.tasks.maximum", k);
        }
        conf.setInt("mapreduce.map.maxattempts", 1);
        conf.setBoolean("mapreduce.map.speculative", false);
        conf.setInt("mapreduce.job.reduces", 0);
        Path failures = new Path(workDir, "_failures-allreduce-" + s);
        conf.set(JobFailure.DIR_KEY, failures.toString());
        Job job = Jobs.newJob(conf, "sodm " + name + " (resident, " + k + " tasks" + (from == null ? "" : ", from iteration " + from.next()) + ")");
        job.setJarByClass(mapper);
        job.getCredentials().addSecretKey(AllReduceKeys.SECRET_ALIAS, secret);
        input.configure(job);
        job.setMapperClass(mapper);
        job.setNumReduceTasks(0);
        job.setOutputFormatClass(NullOutputFormat.class);
        tracker.begin(s, k + extra, conf.getBoolean(AllReduceKeys.TEST_INTRUDE, false));
        String reason;
        List<String> msgs;
        Jobs.Submitted run = null;
        try {
          run = Jobs.submit(job);
          reason = await(run, job, tracker, s, k + extra, rendezvous, listener, local);
          msgs = reason == null ? List.of() : JobFailure.read(conf);
        } finally {
          fs.delete(failures, true);
        }
        refused += counter(run, job.getJobName());
        if (reason == null) {
          FsCheckpoints.Committed last = FsCheckpoints.latest(base, ckptDir);
          if (last == null || !last.done()) throw new SodmException(name + ": the job succeeded but left no final state in " + ckptDir);
          if (refused + tracker.refusedCalls() > 0) {
            notes.accept(String.format(Locale.ROOT, "%d connection(s) to the tasks and %d tracker call(s) refused (no valid HMAC "
                + "of this job's secret); see the task logs", refused, tracker.refusedCalls()));
          }
          return new Result(last.dir(), s + 1, refused, k);
        }
        if (reason.isEmpty()) reason = msgs.isEmpty() ? "the job failed (no task reported a reason)" : msgs.get(0);
        if (s >= maxRestarts) {
          throw new SodmException(String.format(Locale.ROOT, "%s failed after %d restart(s) (%s = %d): %s", name, s,
              AllReduceKeys.MAX_RESTARTS, maxRestarts, reason));
        }
        FsCheckpoints.Committed resume = FsCheckpoints.latest(base, ckptDir);
        notes.accept(String.format(Locale.ROOT, "attempt %d failed: %s; resubmitting %s", s + 1, reason,
            resume == null ? "from the start (no checkpoint yet)" : "from the checkpoint before iteration " + resume.next()));
      }
    }
  }

  /** Waits for the submitted {@code run} of {@code job}: null when it succeeded, else why it failed ("" when nobody said). A rendezvous timeout throws. */
  private static String await(Jobs.Submitted run, Job job, Tracker tracker, int s, int k, double rendezvous, Listener listener,
      boolean local) throws IOException {
    long t0 = System.nanoTime();
    try {
      long abortedAt = -1;
      long checked = System.nanoTime();
      while (!run.isComplete()) {
        deliver(tracker, s, listener);
        if (System.nanoTime() - checked > 1_000_000_000L && tracker.failure() == null) {
          // a task that failed before it could reach the tracker left a note: stop the others (LocalJobRunner
          // would otherwise wait for them, and they for the missing rank, until the rendezvous timeout)
          checked = System.nanoTime();
          List<String> notes = JobFailure.read(job.getConfiguration());
          if (!notes.isEmpty()) tracker.abort(notes.get(0));
        }
        int reg = tracker.registered();
        double waited = (System.nanoTime() - t0) / 1e9;
        if (reg < k && waited > rendezvous) {
          String msg = String.format(Locale.ROOT,
              "AllReduce rendezvous failed: %d of %d tasks registered within %.0f s (%s; missing ranks %s); the cluster could not run "
                  + "all %d map tasks at once. Use fewer blocks (--linear-blocks, sodm.train.linear.blocks), a longer timeout, or the "
                  + "job-per-iteration mode (--iteration-mode jobs, sodm.iteration.mode=jobs)",
              reg, k, rendezvous, AllReduceKeys.RENDEZVOUS_TIMEOUT, tracker.missing(), k);
          List<String> notes = JobFailure.read(job.getConfiguration());
          if (!notes.isEmpty()) msg += "; a task reported: " + notes.get(0);
          logLocalTasks();
          tracker.abort(msg);
          run.kill();
          awaitEnd(run, tracker, local, 30);
          throw new SodmException(msg);
        }
        if (tracker.failure() != null) {
          if (abortedAt < 0) abortedAt = System.nanoTime();
          else if ((System.nanoTime() - abortedAt) / 1e9 > 30) run.kill(); // a task hangs after the abort
        }
        Thread.sleep(20);
      }
      if (local && !LocalTasks.awaitNone(tracker.address(), 30, run.isSuccessful() ? 0 : 100)) {
        LOG.warn("{}: {} local map task(s) still running 30 s after the job ended", job.getJobName(), LocalTasks.active(tracker.address()));
      }
      deliver(tracker, s, listener);
      if (run.isSuccessful()) return null;
      String why = tracker.failure();
      if (why != null) return why;
      return run.failureInfo();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + job.getJobName(), e);
    }
  }

  /** Local mode: where the map task threads are (a rendezvous that does not complete there is a bug to diagnose). */
  private static void logLocalTasks() {
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      String thread = e.getKey().getName();
      if (!thread.contains("LocalJobRunner Map Task") && !thread.startsWith(org.sodm.jobs.support.InProcessJob.THREAD_NAME)) continue;
      StringBuilder sb = new StringBuilder();
      for (StackTraceElement f : e.getValue()) sb.append("\n    at ").append(f);
      LOG.warn("rendezvous failed; local map task thread {}:{}", e.getKey().getName(), sb);
    }
  }

  private static void deliver(Tracker tracker, int s, Listener listener) {
    for (Tracker.Report r : tracker.drain()) {
      if (r.submission() == s) listener.iteration(r.iteration(), r.values());
    }
  }

  private static long counter(Jobs.Submitted run, String name) {
    if (run == null) return 0;
    try {
      return run.counters().findCounter("sodm.allreduce", "refused connections").getValue();
    } catch (IOException | RuntimeException e) {
      LOG.debug("no counters for {}", name, e);
      return 0;
    }
  }

  /**
   * Waits (at most {@code seconds}) for a killed job's tasks to end, so none writes into the work directory after we
   * return: the job's completion, and in local mode the map threads themselves (LocalJobRunner does not wait for them).
   */
  private static void awaitEnd(Jobs.Submitted run, Tracker tracker, boolean local, double seconds) throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    while (!run.isComplete() && (System.nanoTime() - t0) / 1e9 < seconds) Thread.sleep(50);
    double left = Math.max(1, seconds - (System.nanoTime() - t0) / 1e9);
    if (local && !LocalTasks.awaitNone(tracker.address(), left, 100)) {
      LOG.warn("{}: {} local map task(s) still running after the kill", tracker.address(), LocalTasks.active(tracker.address()));
    }
  }
}
