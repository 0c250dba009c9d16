package org.sodm.jobs.support;

import java.io.IOException;
import java.util.List;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.specific.SpecificData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Job;

/** Running a configured job and turning its failure into a message that names the cause. */
public final class Jobs {
  public static final String LOCAL_PARALLELISM = "sodm.local.parallelism";

  private Jobs() {}

  /** Local mode: run up to {@code sodm.local.parallelism} (default: all cores) map and reduce tasks at once. */
  public static void localParallelism(Configuration conf) {
    int p = conf.getInt(LOCAL_PARALLELISM, 0);
    if (p <= 0) p = Runtime.getRuntime().availableProcessors();
    conf.setInt("mapreduce.local.map.tasks.maximum", p);
    conf.setInt("mapreduce.local.reduce.tasks.maximum", p);
    if ("local".equals(conf.get("mapreduce.framework.name", "local"))) {
      // the client polls for completion every 5 s by default: a long wait for a local job
      conf.setInt("mapreduce.client.completion.pollinterval", 50);
      conf.setInt("mapreduce.client.progressmonitor.pollinterval", 100);
    }
  }

  /** The staging key of LocalJobRunner, whose built-in default is one directory shared by every local user. */
  static final String STAGING_ROOT = "mapreduce.jobtracker.staging.root.dir";
  private static java.io.File processStaging;

  /**
   * Local mode, unless the user chose a staging root: this process's own staging directory under
   * {@code hadoop.tmp.dir} (per user), removed when the process ends. LocalJobRunner's default
   * ({@code /tmp/hadoop/mapred/staging}) is shared by every local user (the first one to create it
   * owns it) and keeps one empty directory per job forever.
   */
  static synchronized void localStaging(Configuration conf) {
    if (!"local".equals(conf.get("mapreduce.framework.name", "local")) || conf.get(STAGING_ROOT) != null) return;
    if (processStaging == null) {
      processStaging = new java.io.File(conf.get("hadoop.tmp.dir", System.getProperty("java.io.tmpdir")),
          "sodm-staging-" + ProcessHandle.current().pid());
      java.io.File dir = processStaging;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> org.apache.hadoop.fs.FileUtil.fullyDelete(dir), "sodm-staging-cleanup"));
    }
    conf.set(STAGING_ROOT, processStaging.getAbsolutePath());
  }

  /**
   * A new job on {@code conf} whose Avro shuffle, input and output use the specific data model:
   * every record sodm moves is a generated class, and avro-mapred's default (reflect) model
   * looks up a custom encoding per array element and field (about 5% of a training run's task
   * time on ijcnn1, measured with JFR).
   */
  public static Job newJob(Configuration conf, String name) throws IOException {
    localStaging(conf);
    Job job = Job.getInstance(conf, name);
    AvroJob.setDataModelClass(job, SpecificData.class);
    return job;
  }

  /**
   * Runs the job to completion; on failure throws a {@link SodmException} carrying the first
   * message a task reported through {@link JobFailure}, else the job's own failure info.
   */
  public static void run(Job job, String what) throws IOException {
    boolean ok;
    try {
      ok = job.waitForCompletion(false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(what + " interrupted", e);
    } catch (ClassNotFoundException e) {
      throw new IOException(what + ": " + e, e);
    }
    if (ok) return;
    List<String> msgs = JobFailure.read(job.getConfiguration());
    if (!msgs.isEmpty()) throw new SodmException(msgs.get(0));
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
}
