package org.sodm.oozie;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.oozie.client.WorkflowJob;

/**
 * workflows/oozie/run-embedded.sh: the train workflow (workflows/oozie/train, unchanged) on the
 * embedded Oozie with no server: MiniDFS + MiniYARN + LocalOozie under a scratch directory, the
 * application deployed with sodm's cluster jar in lib/, the sample data in HDFS, then
 * `oozie job -run` with job.properties (cluster addresses put in; {@code key=value} arguments
 * override its properties, e.g. partitions=8 fanout=2). Prints each action's name and final state
 * as the run goes, the workflow's final status and where the model is (in HDFS, and the copy it
 * makes on the local disk); exits 0 only when the workflow SUCCEEDED.
 *
 * <pre>RunEmbedded SCRATCH_DIR [key=value ...]</pre>
 */
public final class RunEmbedded {
  private RunEmbedded() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: RunEmbedded SCRATCH_DIR [key=value ...]");
      System.exit(2);
    }
    Path scratch = Paths.get(args[0]).toAbsolutePath();
    Map<String, String> overrides = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq <= 0) {
        System.err.println("run-embedded: " + args[i] + ": expected key=value (a property of workflows/oozie/train/job.properties)");
        System.exit(2);
      }
      overrides.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    if (Files.exists(scratch)) org.apache.commons.io.FileUtils.deleteDirectory(scratch.toFile());
    Files.createDirectories(scratch);
    int code = 1;
    long t0 = System.nanoTime();
    System.out.println("run-embedded: starting MiniDFS + MiniYARN + LocalOozie under " + scratch + " ...");
    try (EmbeddedOozie oozie = EmbeddedOozie.start(scratch, 4608)) {
      String app = oozie.path(EmbeddedOozie.TRAIN_APP);
      oozie.deploy("train", app);
      oozie.putSampleData();
      System.out.printf(Locale.ROOT, "run-embedded: started in %.1f s; deployed workflows/oozie/train to %s%s (lib/%s), sample data in %s%n",
          oozie.startSeconds(), oozie.nameNode(), app, EmbeddedOozie.clusterJar().getFileName(), oozie.path(EmbeddedOozie.DATA));
      var props = oozie.jobProperties("train", "job.properties", overrides);
      String output = oozie.fs().makeQualified(new org.apache.hadoop.fs.Path(resolve(props, "output"))).toString();
      String id = oozie.client().run(props);
      System.out.println("run-embedded: workflow " + id + " submitted (oozie job -run -config workflows/oozie/train/job.properties"
          + (overrides.isEmpty() ? "" : " " + overrides) + ")");
      EmbeddedOozie.Run r = oozie.await(id, 3600, EmbeddedOozie.printer(System.out, "run-embedded: "), null);
      WorkflowJob job = oozie.client().getJobInfo(id);
      int apps = oozie.applicationsOf(job).size();
      System.out.printf(Locale.ROOT, "run-embedded: workflow %s %s in %.1f s (%d YARN applications: the launchers and the jobs sodm started)%n",
          id, r.status(), EmbeddedOozie.seconds(job), apps);
      for (ApplicationReport a : oozie.applicationsOf(job)) {
        System.out.printf(Locale.ROOT, "run-embedded:   %s %-9s %6.1f s  %s%n", a.getApplicationId(), a.getFinalApplicationStatus(),
            (a.getFinishTime() - a.getStartTime()) / 1e3, a.getName());
      }
      if (r.status() == WorkflowJob.Status.SUCCEEDED) {
        Path local = scratch.resolve("model");
        oozie.fs().copyToLocalFile(false, new org.apache.hadoop.fs.Path(output), new org.apache.hadoop.fs.Path(local.toString()), true);
        System.out.println("run-embedded: the model: " + output + "/model.avro in the embedded HDFS, copied to " + local.resolve("model.avro")
            + " (sodm inspect -m " + local + ")");
        code = 0;
      } else {
        r.actions().stream().filter(a -> a.errorMessage() != null).forEach(a -> System.out.println("run-embedded: " + a.name() + ": "
            + a.errorMessage()));
      }
    }
    System.out.printf(Locale.ROOT, "run-embedded: done in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    System.exit(code);
  }

  /** A property with ${...} references to the others and to user.name resolved, as Oozie resolves job.properties. */
  static String resolve(java.util.Properties p, String key) {
    org.apache.hadoop.conf.Configuration c = new org.apache.hadoop.conf.Configuration(false);
    for (String k : p.stringPropertyNames()) c.set(k, p.getProperty(k));
    return c.get(key);
  }
}
