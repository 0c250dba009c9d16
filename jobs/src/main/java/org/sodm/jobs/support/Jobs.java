package org.sodm.jobs.support;

import java.io.IOException;
import java.util.List;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Job;

/** Running a configured job and turning its failure into a message that names the cause. */
public final class Jobs {
  public static final String LOCAL_PARALLELISM = "sodm.local.parallelism";

  private Jobs() {}

  /** Local mode: run up to {@code sodm.local.parallelism} (default: all cores) map and reduce tasks at once. */
  public static void localParallelism(Configuration conf) {
    int p = localSlots(conf);
    conf.setInt("mapreduce.local.map.tasks.maximum", p);
    conf.setInt("mapreduce.local.reduce.tasks.maximum", p);
    if (isLocal(conf)) {
      // the client polls for completion every 5 s by default: a long wait for a local job
      conf.setInt("mapreduce.client.completion.pollinterval", 50);
      conf.setInt("mapreduce.client.progressmonitor.pollinterval", 100);
    }
  }

  /** How many tasks local mode runs at once: {@code sodm.local.parallelism}, or (0, the default) every core. */
  public static int localSlots(Configuration conf) {
    int p = conf.getInt(LOCAL_PARALLELISM, 0);
    return p > 0 ? p : Runtime.getRuntime().availableProcessors();
  }

  /** Whether jobs run in Hadoop's local mode (mapreduce.framework.name local, the default). */
  public static boolean isLocal(Configuration conf) {
    return "local".equals(conf.get("mapreduce.framework.name", "local"));
  }

  /** The staging key of LocalJobRunner, whose built-in default is one directory shared by every local user. */
  static final String STAGING_ROOT = "mapreduce.jobtracker.staging.root.dir";
  /** Where LocalJobRunner keeps a task's spills and shuffle copies (default under hadoop.tmp.dir, world-readable). */
  static final String LOCAL_DIR = "mapreduce.cluster.local.dir";
  /** This process's directory under each hadoop.tmp.dir its local jobs were given (a warm JVM runs commands with others). */
  private static final java.util.Map<java.io.File, java.io.File> processDirs = new java.util.LinkedHashMap<>();

  /**
   * Local mode: this process's own directory under {@code hadoop.tmp.dir} (per user), readable by
   * its owner only, removed when the process ends (also after a failure), holding the jobs'
   * staging directories ({@code job.xml}, the job's jar and splits) and the tasks' local
   * directories (spills and shuffle copies of the training data), unless the user chose either.
   * LocalJobRunner's defaults share {@code /tmp/hadoop/mapred/staging} among every local user (the
   * first to create it owns it), keep one empty directory per job forever, and leave a failed
   * job's files and world-readable shuffle copies behind.
   */
  static synchronized void localStaging(Configuration conf) {
    if (!isLocal(conf)) return;
    boolean staging = conf.get(STAGING_ROOT) == null;
    boolean local = isDefault(conf, LOCAL_DIR);
    if (!staging && !local) return;
    java.io.File base = new java.io.File(conf.get("hadoop.tmp.dir", System.getProperty("java.io.tmpdir"))).getAbsoluteFile();
    if (processDirs.isEmpty()) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        synchronized (Jobs.class) {
          for (java.io.File d : processDirs.values()) org.apache.hadoop.fs.FileUtil.fullyDelete(d);
        }
      }, "sodm-local-cleanup"));
    }
    // under this command's hadoop.tmp.dir: a warm JVM's earlier command may have named another, since removed (a test's
    // temporary directory), which the first command's directory would have brought back
    java.io.File processDir = processDirs.computeIfAbsent(base, b -> new java.io.File(b, "sodm-" + ProcessHandle.current().pid()));
    // (again) owner-only: someone may have removed it since (a long-lived JVM's temporary directories)
    if (!processDir.isDirectory()) ownerOnly(processDir);
    if (staging) conf.set(STAGING_ROOT, new java.io.File(processDir, "staging").getAbsolutePath());
    if (local) conf.set(LOCAL_DIR, new java.io.File(processDir, "local").getAbsolutePath());
  }

  /** True when {@code key} has no value but mapred-default.xml's (or none). */
  private static boolean isDefault(Configuration conf, String key) {
    String[] sources = conf.getPropertySources(key);
    if (sources == null) return true;
    for (String s : sources) if (!s.endsWith("-default.xml")) return false;
    return true;
  }

  private static void ownerOnly(java.io.File dir) {
    try {
      java.nio.file.Files.createDirectories(dir.toPath(),
          java.nio.file.attribute.PosixFilePermissions.asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
      java.nio.file.Files.setPosixFilePermissions(dir.toPath(), java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: its default permissions apply
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot create the local job directory " + dir + ": " + e.getMessage(), e);
    }
  }

  /**
   * A new job on {@code conf} whose Avro shuffle, input and output use the specific data model:
   * every record sodm moves is a generated class, and avro-mapred's default (reflect) model
   * looks up a custom encoding per array element and field (about 5% of a training run's task
   * time on ijcnn1, measured with JFR); its {@link org.sodm.data.SodmAvroData} reads and writes the ingested rows
   * without boxing each feature.
   */
  public static Job newJob(Configuration conf, String name) throws IOException {
    localStaging(conf);
    if (isLocal(conf)) LocalFailures.install();
    Job job = Job.getInstance(conf, name);
    AvroJob.setDataModelClass(job, org.sodm.data.SodmAvroData.class);
    return job;
  }

  /**
   * Local mode: no job jar. JobSubmitter copies the job's jar into the staging directory of every job
   * ({@code setJarByClass} names the whole self-contained jar, 75 MB: 0.12-0.14 s per job, measured), and
   * LocalJobRunner never reads that copy: its tasks run on this process's class path. On YARN the jar stays.
   */
  public static void noJarCopyInLocalMode(Job job) {
    Configuration c = job.getConfiguration();
    if (isLocal(c)) c.unset(org.apache.hadoop.mapreduce.MRJobConfig.JAR);
  }

  /** The first line of the first failed task attempt's diagnostics (YARN; none in local mode), or null. */
  private static String firstTaskDiagnostic(Job job) {
    try {
      for (org.apache.hadoop.mapreduce.TaskCompletionEvent e : job.getTaskCompletionEvents(0, 1000)) {
        if (e.getStatus() != org.apache.hadoop.mapreduce.TaskCompletionEvent.Status.FAILED) continue;
        for (String d : job.getTaskDiagnostics(e.getTaskAttemptId())) {
          if (d != null && !d.isBlank()) return d.strip().lines().findFirst().orElse(d);
        }
      }
    } catch (IOException | RuntimeException e) {
      // no diagnostics to be had
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return null;
  }

  /**
   * Runs the job to completion; on failure throws a {@link SodmException} carrying the first
   * message a task reported through {@link JobFailure}, else the job's own failure info.
   */
  public static void run(Job job, String what) throws IOException {
    runCounting(job, what);
  }

  /**
   * {@link #run}, returning the job's counters. A small local job runs in this process ({@link InProcessJob}: the same
   * tasks and files without LocalJobRunner's set-up), any other through Hadoop.
   */
  public static org.apache.hadoop.mapreduce.Counters runCounting(Job job, String what) throws IOException {
    List<org.apache.hadoop.mapreduce.InputSplit> splits = InProcessJob.accepts(job);
    if (splits != null) return runInProcess(job, what, splits);
    boolean ok;
    try {
      noJarCopyInLocalMode(job);
      ok = job.waitForCompletion(false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(what + " interrupted", e);
    } catch (ClassNotFoundException e) {
      throw new IOException(what + ": " + e, e);
    }
    if (ok) return job.getCounters();
    List<String> msgs = JobFailure.read(job.getConfiguration());
    if (!msgs.isEmpty()) throw new SodmException(msgs.get(0));
    Throwable local = LocalFailures.take(job.getJobID() == null ? "" : job.getJobID().toString());
    if (local != null) throw new SodmException(what + " failed: " + Causes.describe(local, what), local);
    String diagnostic = firstTaskDiagnostic(job);
    if (diagnostic != null) throw new SodmException(what + " failed: " + diagnostic);
    String info = null;
    try {
      info = job.getStatus().getFailureInfo();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // no status available
    }
    throw new SodmException(what + " failed" + (info == null || info.isBlank() ? "" : ": " + info));
  }

  private static org.apache.hadoop.mapreduce.Counters runInProcess(Job job, String what, List<org.apache.hadoop.mapreduce.InputSplit> splits)
      throws IOException {
    try {
      return InProcessJob.run(job, splits);
    } catch (Throwable t) {
      if (t instanceof InterruptedException) Thread.currentThread().interrupt();
      List<String> msgs = JobFailure.read(job.getConfiguration());
      if (!msgs.isEmpty()) { // the task's own message, as through Hadoop; not the cause's (printed "Failure: ... (in sodm train)")
        SodmException e = new SodmException(msgs.get(0));
        e.addSuppressed(t); // --debug's stack trace
        throw e;
      }
      throw new SodmException(what + " failed: " + Causes.describe(t, what), t);
    }
  }

  /** A job running in the background: through Hadoop, or (a small local job) in this process. */
  public interface Submitted {
    boolean isComplete() throws IOException;

    boolean isSuccessful() throws IOException;

    void kill() throws IOException;

    /** Why it failed ("" when nobody said or it has not). */
    String failureInfo() throws IOException;

    org.apache.hadoop.mapreduce.Counters counters() throws IOException;
  }

  /** Starts {@code job} without waiting: in this process when {@link InProcessJob#accepts} it, else through Hadoop. */
  public static Submitted submit(Job job) throws IOException {
    List<org.apache.hadoop.mapreduce.InputSplit> splits = InProcessJob.accepts(job);
    if (splits != null) {
      return InProcessJob.start(job, splits);
    }
    noJarCopyInLocalMode(job);
    try {
      job.submit();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while submitting " + job.getJobName(), e);
    } catch (ClassNotFoundException e) {
      throw new IOException(job.getJobName() + ": " + e, e);
    }
    return new Submitted() {
      public boolean isComplete() throws IOException {
        return job.isComplete();
      }

      public boolean isSuccessful() throws IOException {
        return job.isSuccessful();
      }

      public void kill() throws IOException {
        job.killJob();
      }

      public String failureInfo() throws IOException {
        try {
          String info = job.getStatus().getFailureInfo();
          return info == null || info.isBlank() || "NA".equals(info) ? "" : info;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }

      public org.apache.hadoop.mapreduce.Counters counters() throws IOException {
        return job.getCounters();
      }
    };
  }
}
