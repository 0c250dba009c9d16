package org.sodm.oozie;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.util.ToolRunner;
import org.apache.oozie.client.CoordinatorAction;
import org.apache.oozie.client.CoordinatorJob;
import org.apache.oozie.client.OozieClient;
import org.apache.oozie.client.WorkflowAction;
import org.apache.oozie.client.WorkflowJob;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.ModelRecord;
import org.sodm.cli.TrainCommand;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.support.OutputLock;
import org.sodm.jobs.support.SodmConf;

/**
 * Issue 22: the project's Oozie applications, unchanged, on a real Oozie engine (LocalOozie over
 * MiniDFS + MiniYARN, {@link EmbeddedOozie}), deployed as README.md's Oozie section says, their
 * properties files overridden only for the cluster's addresses, the paths (and the coordinator's
 * dates), plus the parameter a case is about. One cluster for the class; to keep within the CI
 * budget on 2 cores, every workflow and coordinator is submitted at once in {@link #start()} and
 * the tests wait for theirs (Oozie runs them side by side, as a server does).
 */
@Tag("cluster")
class WorkflowsOnOozieTest {
  @TempDir static Path tmp;
  static EmbeddedOozie oozie;
  static final Map<String, String> jobs = new LinkedHashMap<>();
  static final Map<String, ModelRecord> localModels = new LinkedHashMap<>();
  static final Map<String, Double> localSeconds = new LinkedHashMap<>();
  static Killer killer;
  static String day;
  static FileSystem fs;

  static String output(String name) throws Exception {
    return oozie.nameNode() + oozie.path("/user/%s/sodm/models/") + name;
  }

  @BeforeAll
  static void start() throws Exception {
    long t0 = System.nanoTime();
    // room for four launchers (2560 MB each, as workflow.xml books them) with their jobs' AMs and tasks
    oozie = EmbeddedOozie.start(tmp, 16384);
    fs = oozie.fs();
    oozie.deploy("train", oozie.path(EmbeddedOozie.TRAIN_APP));
    oozie.deploy("retrain-daily", oozie.path(EmbeddedOozie.RETRAIN_APP), false);
    oozie.putSampleData();
    System.out.printf("WorkflowsOnOozieTest: MiniDFS + MiniYARN + LocalOozie started in %.1f s%n", oozie.startSeconds());

    // the train workflow: job.properties as it is (16 partitions, fanout 4: levels 2 and 1), its train action's launcher
    // killed once level-2 is complete and the workflow rerun (the rerun case below); a bad cost. The other tree, 4/4 (level 1
    // only), is the coordinator's day below: two train workflows fewer on the 2 cores than one per case
    jobs.put("16/4", submit(Map.of("output", output("p16f4"))));
    killer = new Killer(jobs.get("16/4"), output("p16f4"), "level-2", "level-1");
    killer.start();
    jobs.put("bad", submit(Map.of("output", output("bad"), "cost", "-1")));

    // retrain-daily for today: its data complete (done-flag _SUCCESS) in dataRoot, incomplete in another root
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    day = today.format(DateTimeFormatter.BASIC_ISO_DATE);
    Path train = EmbeddedOozie.projectDir().resolve("sample-data/svmguide1");
    oozie.put(train, oozie.path("/user/%s/sodm/daily/") + day + "/svmguide1");
    fs.create(new org.apache.hadoop.fs.Path(oozie.path("/user/%s/sodm/daily/") + day + "/_SUCCESS")).close();
    oozie.put(train, oozie.path("/user/%s/sodm/daily-incomplete/") + day + "/svmguide1");
    Map<String, String> dates = Map.of("start", today + "T00:00Z", "end", today.plusDays(1) + "T00:00Z");
    // the day's workflow trains the 4/4 tree (coordinator.properties' other values as they are): the coordinator's
    // mechanics do not depend on the tree, and job.properties' 16/4 runs above
    Map<String, String> complete = new LinkedHashMap<>(dates);
    complete.put("partitions", "4");
    complete.put("fanout", "4");
    jobs.put("coord", submitCoordinator(complete));
    Map<String, String> incomplete = new LinkedHashMap<>(dates);
    incomplete.put("dataRoot", "${nameNode}/user/${user.name}/sodm/daily-incomplete");
    incomplete.put("modelRoot", "${nameNode}/user/${user.name}/sodm/models/daily-incomplete");
    jobs.put("coord-waiting", submitCoordinator(incomplete));

    // the references: sodm train in local mode with the same parameters, meanwhile
    Properties job = oozie.jobProperties("train", "job.properties", Map.of());
    localModel("16/4", job);
    job.setProperty("partitions", "4");
    job.setProperty("fanout", "4");
    localModel("4/4", job);
    System.out.printf("WorkflowsOnOozieTest: everything submitted and the local references trained in %.1f s%n", (System.nanoTime() - t0) / 1e9);
  }

  @AfterAll
  static void stop() throws Exception {
    if (killer != null) killer.interrupt();
    if (oozie != null) oozie.close();
  }

  static String submit(Map<String, String> overrides) throws Exception {
    return oozie.client().run(oozie.jobProperties("train", "job.properties", overrides));
  }

  static String submitCoordinator(Map<String, String> overrides) throws Exception {
    return oozie.coordClient().run(oozie.jobProperties("retrain-daily", "coordinator.properties", overrides));
  }

  static EmbeddedOozie.Run await(String label) throws Exception {
    return await(label, jobs.get(label));
  }

  static EmbeddedOozie.Run await(String label, String id) throws Exception {
    return oozie.await(id, 1200, EmbeddedOozie.printer(System.out, "WorkflowsOnOozieTest[" + label + "] "), null);
  }

  /** `sodm train` in local mode on the sample data with the parameters of {@code job}. */
  static void localModel(String name, Properties job) throws Exception {
    Path root = EmbeddedOozie.projectDir().resolve("sample-data");
    Path out = tmp.resolve("local-" + name.replace('/', '-'));
    Configuration c = SodmConf.create();
    c.set("mapreduce.framework.name", "local");
    c.set("fs.defaultFS", "file:///");
    c.set("hadoop.tmp.dir", tmp.resolve("local-tmp").toString());
    c.set("mapreduce.jobtracker.staging.root.dir", tmp.resolve("local-staging").toString());
    List<String> args = new ArrayList<>(List.of("-i", root.resolve("svmguide1").toString(), "-t", root.resolve("svmguide1.t").toString(),
        "-o", out.toString()));
    for (String k : List.of("scale", "loss", "cost", "kernel", "gamma", "partitions", "fanout", "landmarks", "seed")) {
      args.add("--" + k);
      args.add(job.getProperty(k));
    }
    long t0 = System.nanoTime();
    assertEquals(0, ToolRunner.run(c, new TrainCommand(), args.toArray(String[]::new)));
    localSeconds.put(name, (System.nanoTime() - t0) / 1e9);
    localModels.put(name, ModelFiles.readRecord(c, new org.apache.hadoop.fs.Path(out.resolve("model.avro").toString())));
  }

  /** A model's content: everything but its provenance (creation time, input paths). */
  static List<Object> content(ModelRecord m) {
    return List.of(m.getFormatVersion(), m.getKernel(), m.getLoss(), m.getLabels(), String.valueOf(m.getScaler()), m.getCombine(),
        m.getBlocks(), String.valueOf(m.getLinear()));
  }

  static ModelRecord hdfsModel(String output) throws Exception {
    return ModelFiles.readRecord(oozie.conf(), new org.apache.hadoop.fs.Path(output, "model.avro"));
  }

  static List<String> names(List<EmbeddedOozie.ActionState> as) {
    return as.stream().map(EmbeddedOozie.ActionState::name).toList();
  }

  /** A successful run of the train workflow: every action OK, in order, and the local model. */
  static void assertTrained(String label, EmbeddedOozie.Run r, String output) throws Exception {
    assertEquals(WorkflowJob.Status.SUCCEEDED, r.status(), label + ": " + r);
    assertEquals(List.of("ingest", "validation", "train"), names(r.javaActions()), label);
    r.javaActions().forEach(a -> assertEquals("OK", a.status(), label + ": " + a));
    assertEquals(content(localModels.get(label)), content(hdfsModel(output)),
        label + ": the workflow's model is the local-mode model of the same parameters");
  }

  @Test
  void trainWithJobPropertiesSucceedsWithTheLocalModel() throws Exception {
    EmbeddedOozie.Run r = rerun();
    assertEquals(WorkflowJob.Status.SUCCEEDED, r.status(), r.toString());
    WorkflowJob job = oozie.client().getJobInfo(r.id());
    // every action OK as the workflow records them after the rerun (ingest and validation from the first run, train rerun)
    for (String name : List.of("ingest", "validation", "train")) assertEquals("OK", action(job, name).getStatus().toString(), name);
    assertEquals(content(localModels.get("16/4")), content(hdfsModel(output("p16f4"))),
        "16/4: the workflow's model is the local-mode model of the same parameters");
    List<org.apache.hadoop.yarn.api.records.ApplicationReport> yarnApps = oozie.applicationsOf(job);
    int apps = yarnApps.size();
    long launchers = yarnApps.stream().filter(a -> a.getName().startsWith("oozie:launcher")).count();
    // the actions' launchers as the workflow records them now: the killed train launcher is replaced by the rerun's
    assertEquals(3, launchers, "one launcher per action: " + yarnApps.stream().map(a -> a.getName()).toList());
    assertTrue(apps >= 3 + 2 + 1, "the launchers, the two ingest jobs and at least the rerun's level job: " + apps);
    // every phase of the 16/4 tree was run by sodm inside the train action (level-2 before the kill, level-1 after it)
    for (String phase : List.of("ingest", "validation", "landmarks", "level-2", "level-1")) {
      assertTrue(fs.exists(new org.apache.hadoop.fs.Path(output("p16f4"), "work/" + phase)), phase);
    }
    System.out.printf("WorkflowsOnOozieTest: figure: train workflow (16/4) on the embedded Oozie, side by side with the other runs:"
        + " %.1f s to the kill node (its train action's launcher killed), the rerun %.1f s; %d YARN applications (%d launchers); sodm"
        + " train local %.1f s (same JVM, meanwhile)%n", EmbeddedOozie.seconds(beforeRerun), EmbeddedOozie.seconds(job), apps, launchers,
        localSeconds.get("16/4"));
  }

  /**
   * Another tree than job.properties' 16/4 (levels 2 and 1): 4/4, level 1 only. The 4/4 tree is the one retrain-daily's day
   * trains (the same train workflow, its output the day's model directory).
   */
  @Test
  void otherPartitionsAndFanoutsRunTheirOwnLevels() throws Exception {
    String model = dayModel();
    EmbeddedOozie.Run r = await("retrain-daily " + day, awaitCoordinatorWorkflow(jobs.get("coord"), 600).getExternalId());
    assertTrained("4/4", r, model);
    assertTrue(fs.exists(new org.apache.hadoop.fs.Path(model, "work/level-1")));
    assertFalse(fs.exists(new org.apache.hadoop.fs.Path(model, "work/level-2")), "4 blocks, fanout 4: one level");
  }

  static String dayModel() throws java.io.IOException {
    return oozie.nameNode() + oozie.path("/user/%s/sodm/models/daily/") + day;
  }

  @Test
  void aBadParameterEndsAtTheKillNodeWithSodmsMessageAndWritesNothing() throws Exception {
    EmbeddedOozie.Run r = await("bad");
    assertEquals(WorkflowJob.Status.KILLED, r.status(), r.toString());
    assertEquals(List.of("ingest"), names(r.javaActions()), "the first action fails, nothing after it runs");
    EmbeddedOozie.ActionState ingest = r.action("ingest");
    assertEquals("ERROR", ingest.status());
    String msg = ingest.errorMessage();
    assertNotNull(msg);
    assertTrue(msg.startsWith("sodm train: error: ") && msg.contains("sodm.train.c") && msg.contains("-1"), "sodm's own message: " + msg);
    EmbeddedOozie.ActionState kill = r.action("fail");
    assertNotNull(kill, "the kill node was reached: " + r);
    assertTrue(kill.errorMessage().startsWith("sodm train failed at ingest (error code " + ingest.errorCode() + "): " + msg),
        "the kill node's message: " + kill.errorMessage());
    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(output("bad"));
    assertFalse(fs.exists(out), "nothing written under output");
    assertFalse(fs.exists(OutputLock.fileOf(out)), "no lock left beside it");
  }

  /**
   * The 16/4 run's train action loses its launcher (killed on YARN once level-2 is complete, while level-1 runs); the
   * workflow ends at the kill node; a rerun with oozie.wf.rerun.failnodes=true keeps the actions that succeeded and the phases
   * that completed and resumes at level-1.
   */
  @Test
  void aKilledActionRerunWithFailNodesResumesFromItsPhaseAndGivesTheSameModel() throws Exception {
    EmbeddedOozie.Run second = rerun();
    assertEquals(WorkflowJob.Status.SUCCEEDED, second.status(), second.toString());
    assertNull(killer.error, () -> "the killer failed: " + killer.error);
    assertNotNull(killer.killed, "the train action's launcher was killed");
    assertFalse(killer.laterPhaseExisted, "killed while level-1 was running, not after");
    assertEquals(WorkflowJob.Status.KILLED, killedRun.status(), killedRun.toString());
    assertEquals(List.of("OK", "OK"), List.of(killedRun.action("ingest").status(), killedRun.action("validation").status()));
    EmbeddedOozie.ActionState train = killedRun.action("train");
    assertTrue(train == null || !"OK".equals(train.status()), "the train action did not succeed: " + killedRun);
    assertFalse(killedLaterPhase, "no level-1 when the workflow ended at the kill node");
    WorkflowJob after = oozie.client().getJobInfo(second.id());
    for (String name : List.of("ingest", "validation")) {
      assertEquals(external(beforeRerun, name), external(after, name), name + " was not run again");
    }
    assertNotEquals(killer.killed, external(after, "train"), "train ran again, in a new launcher");
    assertEquals("OK", action(after, "train").getStatus().toString());
    String out = output("p16f4");
    assertEquals(keptPhaseTime, fs.getFileStatus(new org.apache.hadoop.fs.Path(out, "work/level-2")).getModificationTime(),
        "level-2 was kept");
    assertTrue(fs.getFileStatus(new org.apache.hadoop.fs.Path(out, "work/level-1")).getModificationTime() >= rerunAt,
        "level-1 was made by the rerun");
    assertEquals(content(localModels.get("16/4")), content(hdfsModel(out)), "the rerun's model is the local-mode model (16/4)");
  }

  static EmbeddedOozie.Run rerunRun;
  static EmbeddedOozie.Run killedRun;
  static WorkflowJob beforeRerun;
  static long keptPhaseTime;
  static boolean killedLaterPhase;
  static long rerunAt;

  /**
   * The 16/4 workflow to its end: its first run (its train action's launcher killed by {@link #killer}) to the kill node,
   * then the rerun with oozie.wf.rerun.failnodes=true to its end; once for the class (both the job.properties case and the
   * rerun case read it), the first run's state kept for the rerun case.
   */
  static synchronized EmbeddedOozie.Run rerun() throws Exception {
    if (rerunRun != null) return rerunRun;
    String id = jobs.get("16/4");
    EmbeddedOozie.Run first = await("16/4", id);
    if (first.status() == WorkflowJob.Status.SUSPENDED) {
      // seen once in 3 CI runs (2026-11-25): Oozie took the killed launcher for a transient start error and suspended the
      // workflow instead of failing the action; end it as the kill node would, so that the rerun below starts from the same state
      oozie.client().kill(id);
      first = await("16/4", id);
    }
    killer.join(10_000);
    killedRun = first;
    String out = output("p16f4");
    keptPhaseTime = fs.getFileStatus(new org.apache.hadoop.fs.Path(out, "work/level-2")).getModificationTime();
    killedLaterPhase = fs.exists(new org.apache.hadoop.fs.Path(out, "work/level-1"));
    beforeRerun = oozie.client().getJobInfo(id);

    Properties p = oozie.jobProperties("train", "job.properties", Map.of("output", out));
    p.setProperty(OozieClient.RERUN_FAIL_NODES, "true");
    rerunAt = System.currentTimeMillis();
    oozie.client().reRun(id, p);
    for (int i = 0; i < 120 && oozie.client().getJobInfo(id).getStatus() == WorkflowJob.Status.KILLED; i++) Thread.sleep(500);
    rerunRun = oozie.await(id, 1200, new java.util.Date(rerunAt - 1000), EmbeddedOozie.printer(System.out,
        "WorkflowsOnOozieTest[16/4 rerun] "), null);
    return rerunRun;
  }

  static WorkflowAction action(WorkflowJob j, String name) {
    return j.getActions().stream().filter(a -> a.getName().equals(name)).findFirst().orElseThrow();
  }

  static String external(WorkflowJob j, String name) {
    return action(j, name).getExternalId();
  }

  @Test
  void retrainDailyRunsTheDayWithItsDoneFlagAndWaitsForTheDayWithout() throws Exception {
    String coord = jobs.get("coord");
    CoordinatorAction a = awaitCoordinatorWorkflow(coord, 600);
    EmbeddedOozie.Run r = await("retrain-daily " + day, a.getExternalId());
    assertTrained("4/4", r, dayModel());
    CoordinatorJob c = oozie.coordinator(coord);
    assertEquals(1, c.getActions().size(), "one day, one action: " + c.getActions());

    // the day without its done-flag: materialised, still WAITING, no workflow, nothing written
    CoordinatorJob w = oozie.coordinator(jobs.get("coord-waiting"));
    assertEquals(1, w.getActions().size(), "the action is materialised: " + w.getActions());
    CoordinatorAction wa = w.getActions().get(0);
    assertEquals(CoordinatorAction.Status.WAITING, wa.getStatus(), wa.getMissingDependencies());
    assertNull(wa.getExternalId(), "no workflow started");
    assertTrue(String.valueOf(wa.getMissingDependencies()).contains("daily-incomplete/" + day), wa.getMissingDependencies());
    assertFalse(fs.exists(new org.apache.hadoop.fs.Path(oozie.path("/user/%s/sodm/models/daily-incomplete"))));
  }

  /** Waits until the coordinator's first action has started its workflow. */
  static CoordinatorAction awaitCoordinatorWorkflow(String id, double timeoutSeconds) throws Exception {
    long t0 = System.nanoTime();
    while (true) {
      CoordinatorJob c = oozie.coordinator(id);
      if (!c.getActions().isEmpty() && c.getActions().get(0).getExternalId() != null) return c.getActions().get(0);
      if ((System.nanoTime() - t0) / 1e9 > timeoutSeconds) {
        fail("coordinator " + id + " (" + c.getStatus() + ") started no workflow in " + timeoutSeconds + " s: " + c.getActions().stream()
            .map(x -> x.getStatus() + " missing " + x.getMissingDependencies()).toList());
      }
      Thread.sleep(1000);
    }
  }

  /**
   * Kills the launcher of a workflow's train action on YARN once {@code phase} is complete in its
   * output ({@code next} then runs in a job the launcher started): the fault of the rerun case.
   */
  static final class Killer extends Thread {
    final String id;
    final String output;
    final String phase;
    final String next;
    volatile String killed;
    volatile boolean laterPhaseExisted;
    volatile Throwable error;

    Killer(String id, String output, String phase, String next) {
      super("launcher-killer");
      setDaemon(true);
      this.id = id;
      this.output = output;
      this.phase = phase;
      this.next = next;
    }

    @Override
    public void run() {
      try {
        org.apache.hadoop.fs.Path done = new org.apache.hadoop.fs.Path(output, "work/" + phase);
        org.apache.hadoop.fs.Path later = new org.apache.hadoop.fs.Path(output, "work/" + next);
        while (!isInterrupted()) {
          WorkflowJob j = oozie.client().getJobInfo(id);
          if (j.getStatus() != WorkflowJob.Status.RUNNING && j.getStatus() != WorkflowJob.Status.PREP) return;
          WorkflowAction train = j.getActions().stream().filter(a -> a.getName().equals("train")).findFirst().orElse(null);
          if (train != null && train.getExternalId() != null && fs.exists(done)) {
            laterPhaseExisted = fs.exists(later);
            oozie.killApplication(train.getExternalId());
            killed = train.getExternalId();
            System.out.printf("WorkflowsOnOozieTest[16/4] killed the train action's launcher %s once %s was complete%n", killed, phase);
            return;
          }
          Thread.sleep(200);
        }
      } catch (InterruptedException e) {
        // the class is done
      } catch (Throwable t) {
        error = t;
      }
    }
  }
}
