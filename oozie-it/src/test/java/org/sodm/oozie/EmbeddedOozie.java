package org.sodm.oozie;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.oozie.client.CoordinatorJob;
import org.apache.oozie.client.OozieClient;
import org.apache.oozie.client.WorkflowAction;
import org.apache.oozie.client.WorkflowJob;
import org.apache.oozie.local.LocalOozie;
import org.apache.oozie.util.ClasspathUtils;
import org.sodm.data.AvroClasses;

/**
 * An Oozie engine in this JVM over real HDFS and YARN: MiniDFSCluster (one DataNode),
 * MiniMRYarnCluster (one NodeManager; every launcher and task a container JVM) and
 * {@link LocalOozie} (the workflow and coordinator engines of oozie-core 5.2.1 on Derby), set up
 * as ../shared/HADOOP-NOTES.md describes: the cluster's configuration as Oozie's hadoop-conf, the
 * share lib "oozie" (the launcher's classes) in HDFS, the proxy user, short service intervals.
 * The project's workflow applications are deployed into HDFS as a user deploys them: the
 * directory's files plus {@code lib/sodm-jobs-VERSION-cluster.jar}.
 */
public final class EmbeddedOozie implements AutoCloseable {
  /** Where the train workflow is deployed: the path in workflows/oozie/train/job.properties. */
  public static final String TRAIN_APP = "/user/%s/sodm/apps/train";
  public static final String RETRAIN_APP = "/user/%s/sodm/apps/retrain-daily";
  public static final String DATA = "/user/%s/sodm/data";
  static final String SHARELIB_STAMP = "lib_20210226000000";

  private final Path dir;
  private final MiniDFSCluster dfs;
  private final MiniMRYarnCluster yarn;
  private final Configuration conf;
  private final YarnClient yarnClient;
  private final String user = System.getProperty("user.name");
  private final double startSeconds;

  private EmbeddedOozie(Path dir, MiniDFSCluster dfs, MiniMRYarnCluster yarn, Configuration conf, double startSeconds) {
    this.dir = dir;
    this.dfs = dfs;
    this.yarn = yarn;
    this.conf = conf;
    this.startSeconds = startSeconds;
    this.yarnClient = YarnClient.createYarnClient();
    yarnClient.init(conf);
    yarnClient.start();
  }

  /** The project root (sodm.project.dir from surefire, else found from the working directory). */
  public static Path projectDir() {
    String p = System.getProperty("sodm.project.dir");
    if (p != null) return Paths.get(p);
    Path d = Paths.get("").toAbsolutePath();
    while (d != null && !Files.isDirectory(d.resolve("workflows/oozie"))) d = d.getParent();
    if (d == null) throw new IllegalStateException("cannot find the project root (no workflows/oozie)");
    return d;
  }

  /** sodm's cluster jar, as built by jobs/ (the reactor builds it before this module's tests). */
  public static Path clusterJar() throws IOException {
    Path target = projectDir().resolve("jobs/target");
    try (var s = Files.list(target)) {
      return s.filter(p -> p.getFileName().toString().matches("sodm-jobs-.*-cluster\\.jar")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no sodm-jobs-*-cluster.jar in " + target + " (mvn -B -DskipTests package)"));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new IllegalStateException("no " + target + " (mvn -B -DskipTests package)", e);
    }
  }

  /** Starts MiniDFS, MiniYARN and LocalOozie with everything under {@code dir}; one per JVM at a time. */
  public static EmbeddedOozie start(Path dir, int nodeManagerMb) throws Exception {
    AvroClasses.trust();
    long t0 = System.nanoTime();
    dir = dir.toAbsolutePath();
    String user = System.getProperty("user.name");
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.resolve("dfs").toString());
    conf.set("hadoop.tmp.dir", dir.resolve("hadoop-tmp").toString());
    // Oozie submits as the job's user through a proxy user
    conf.set("hadoop.proxyuser." + user + ".hosts", "*");
    conf.set("hadoop.proxyuser." + user + ".groups", "*");
    MiniDFSCluster dfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).format(true).build();
    dfs.waitActive();
    conf.set("fs.defaultFS", dfs.getFileSystem().getUri().toString());
    clusterSettings(conf, nodeManagerMb);
    MiniMRYarnCluster yarn = new MiniMRYarnCluster("sodm-oozie", 1);
    yarn.init(conf);
    yarn.start();
    Configuration cluster = new Configuration(yarn.getConfig());

    FileSystem fs = dfs.getFileSystem();
    // the share lib "oozie": the launcher's classes (LauncherAM, JavaMain), as `oozie-setup sharelib create` lays it out
    Path sharelib = jarOf(org.apache.oozie.action.hadoop.JavaMain.class);
    org.apache.hadoop.fs.Path shareDir = new org.apache.hadoop.fs.Path("/user/" + user + "/share/lib/" + SHARELIB_STAMP + "/oozie");
    fs.mkdirs(shareDir);
    fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(sharelib.toString()), shareDir);

    // Oozie's home: conf/oozie-site.xml, conf/hadoop-conf (the cluster), conf/action-conf, data (Derby)
    Path home = dir.resolve("oozie");
    Path confDir = home.resolve("conf");
    Path hadoopConf = confDir.resolve("hadoop-conf");
    Path actionConf = confDir.resolve("action-conf");
    Path data = home.resolve("data");
    Files.createDirectories(hadoopConf);
    Files.createDirectories(actionConf);
    Files.createDirectories(data);
    try (OutputStream o = Files.newOutputStream(hadoopConf.resolve("core-site.xml"))) {
      cluster.writeXml(o);
    }
    Configuration site = new Configuration(false);
    site.set("oozie.service.JPAService.create.db.schema", "true");
    site.set("oozie.service.JPAService.jdbc.driver", "org.apache.derby.jdbc.EmbeddedDriver");
    site.set("oozie.service.JPAService.jdbc.url", "jdbc:derby:" + data.resolve("oozie-db") + ";create=true");
    site.set("oozie.service.HadoopAccessorService.hadoop.configurations", "*=" + hadoopConf);
    site.set("oozie.service.HadoopAccessorService.action.configurations", "*=" + actionConf);
    site.set("oozie.service.HadoopAccessorService.supported.filesystems", "*");
    site.set("oozie.service.WorkflowAppService.system.libpath", "/user/" + user + "/share/lib");
    site.set("oozie.service.ProxyUserService.proxyuser." + user + ".hosts", "*");
    site.set("oozie.service.ProxyUserService.proxyuser." + user + ".groups", "*");
    // short intervals: the launchers call back, these are the fallbacks and the coordinator's clocks
    site.set("oozie.service.ActionCheckerService.action.check.interval", "5");
    site.set("oozie.service.ActionCheckerService.action.check.delay", "5");
    site.set("oozie.service.CoordMaterializeTriggerService.lookup.interval", "3");
    site.set("oozie.service.CoordMaterializeTriggerService.scheduling.interval", "3");
    site.set("oozie.service.coord.input.check.requeue.interval", "3000");
    site.set("oozie.service.coord.push.check.requeue.interval", "3000");
    site.set("oozie.service.StatusTransitService.statusTransit.interval", "3");
    site.set("oozie.service.PauseTransitService.PauseTransit.interval", "3");
    site.set("oozie.service.RecoveryService.interval", "10");
    site.set("oozie.service.RecoveryService.wf.actions.older.than", "10");
    site.set("oozie.service.RecoveryService.coord.older.than", "1");
    try (OutputStream o = Files.newOutputStream(confDir.resolve("oozie-site.xml"))) {
      site.writeXml(o);
    }
    System.setProperty("oozie.home.dir", home.toString());
    System.setProperty("oozie.config.dir", confDir.toString());
    System.setProperty("oozie.data.dir", data.toString());
    System.setProperty("oozie.log.dir", home.resolve("logs").toString());
    System.setProperty("oozielocal.log", home.resolve("logs/oozielocal.log").toString());
    Files.createDirectories(home.resolve("logs"));
    System.setProperty("derby.stream.error.file", home.resolve("logs/derby.log").toString()); // not ./derby.log
    // the launcher containers get this JVM's classpath (as MiniMRYarnCluster's tasks do)
    ClasspathUtils.setUsingMiniYarnCluster(true);
    LocalOozie.start();
    return new EmbeddedOozie(dir, dfs, yarn, cluster, (System.nanoTime() - t0) / 1e9);
  }

  /**
   * Small containers and fast heartbeats on 2 cores (as the jobs module's YARN tests), room for
   * the train workflow's launchers (memory.mb 2560 in workflow.xml, the memory YARN books, not what
   * the JVM uses) beside the jobs' AMs and tasks, and no cap on the AMs' share (a launcher and the
   * job it starts are both AMs).
   */
  static void clusterSettings(Configuration conf, int nodeManagerMb) {
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb", nodeManagerMb);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, nodeManagerMb);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.set("yarn.scheduler.capacity.maximum-am-resource-percent", "1.0");
    conf.setInt("mapreduce.map.memory.mb", 384);
    conf.setInt("mapreduce.reduce.memory.mb", 384);
    String fast = " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
    conf.set("mapreduce.map.java.opts", "-Xmx256m" + fast);
    conf.set("mapreduce.reduce.java.opts", "-Xmx256m" + fast);
    conf.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    // Oozie prepends this to its launchers' JVM options too (oozie.launcher.prepend.javaopts)
    conf.set("yarn.app.mapreduce.am.admin-command-opts", fast.trim());
    conf.setInt("mapreduce.task.io.sort.mb", 16);
    conf.set("yarn.app.mapreduce.am.command-opts", "-Xmx384m" + fast);
    conf.setInt(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 250);
    conf.setInt("yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms", 250);
    conf.setInt("mapreduce.client.completion.pollinterval", 200);
    conf.setInt("mapreduce.client.progressmonitor.pollinterval", 200);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:0");
    conf.set(YarnConfiguration.NM_WEBAPP_ADDRESS, "127.0.0.1:0");
    conf.set("mapreduce.jobhistory.webapp.address", "127.0.0.1:0");
  }

  static Path jarOf(Class<?> c) throws Exception {
    return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  public FileSystem fs() throws IOException {
    return dfs.getFileSystem();
  }

  public Configuration conf() {
    return conf;
  }

  public String user() {
    return user;
  }

  public double startSeconds() {
    return startSeconds;
  }

  public String nameNode() throws IOException {
    return fs().getUri().toString();
  }

  public String resourceManager() {
    return conf.get(YarnConfiguration.RM_ADDRESS);
  }

  public OozieClient client() {
    return LocalOozie.getClient();
  }

  public OozieClient coordClient() {
    return LocalOozie.getCoordClient();
  }

  public String path(String pattern) {
    return String.format(Locale.ROOT, pattern, user);
  }

  /** Copies a local file or directory to an HDFS path (qualified on the name node). */
  public void put(Path local, String hdfs) throws IOException {
    org.apache.hadoop.fs.Path to = new org.apache.hadoop.fs.Path(hdfs);
    fs().mkdirs(to.getParent());
    fs().copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(local.toString()), to);
  }

  /**
   * Deploys workflows/oozie/NAME (its files, unchanged) to {@code appPath} with sodm's cluster jar
   * in {@code lib/}, as README.md's Oozie section tells a user to.
   */
  public void deploy(String name, String appPath) throws IOException {
    deploy(name, appPath, true);
  }

  /** The same, without the jar when {@code withJar} is false (a coordinator application). */
  public void deploy(String name, String appPath, boolean withJar) throws IOException {
    Path src = projectDir().resolve("workflows/oozie").resolve(name);
    fs().delete(new org.apache.hadoop.fs.Path(appPath), true);
    try (var files = Files.list(src)) {
      for (Path f : files.toList()) {
        if (f.getFileName().toString().endsWith(".xml")) put(f, appPath + "/" + f.getFileName());
      }
    }
    if (!withJar) return;
    Path jar = clusterJar();
    put(jar, appPath + "/lib/" + jar.getFileName());
  }

  /** The sample data (sample-data/svmguide1 and .t) at the paths job.properties names. */
  public void putSampleData() throws IOException {
    for (String f : List.of("svmguide1", "svmguide1.t")) put(projectDir().resolve("sample-data").resolve(f), path(DATA) + "/" + f);
  }

  /**
   * The properties of workflows/oozie/NAME/FILE as a user passes them to `oozie job -config`, with
   * the cluster's addresses and the user put in; {@code overrides} after that.
   */
  public Properties jobProperties(String name, String file, Map<String, String> overrides) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(projectDir().resolve("workflows/oozie").resolve(name).resolve(file), StandardCharsets.UTF_8)) {
      p.load(r);
    }
    p.setProperty("nameNode", nameNode());
    p.setProperty("resourceManager", resourceManager());
    p.setProperty(OozieClient.USER_NAME, user);
    overrides.forEach(p::setProperty);
    return p;
  }

  /** Every application YARN ran so far. */
  public List<ApplicationReport> applications() throws Exception {
    return yarnClient.getApplications();
  }

  /**
   * The YARN applications of a workflow: the launcher of each action (its external id) and the
   * jobs the launchers started (tagged with Oozie's child tag of the action, LauncherHelper.getTag
   * of the action id, which sodm adds to its jobs' mapreduce.job.tags).
   */
  public List<ApplicationReport> applicationsOf(WorkflowJob job) throws Exception {
    Set<String> tags = new java.util.HashSet<>();
    Set<String> launchers = new java.util.HashSet<>();
    for (WorkflowAction a : job.getActions()) {
      tags.add(org.apache.oozie.action.hadoop.LauncherHelper.getTag(a.getId()));
      if (a.getExternalId() != null) launchers.add(a.getExternalId());
    }
    List<ApplicationReport> out = new ArrayList<>();
    for (ApplicationReport r : applications()) {
      if (launchers.contains(r.getApplicationId().toString()) || r.getApplicationTags().stream().anyMatch(tags::contains)) out.add(r);
    }
    return out;
  }

  /** The seconds a workflow ran, from Oozie's start and end times. */
  public static double seconds(WorkflowJob job) {
    return job.getEndTime() == null || job.getStartTime() == null ? Double.NaN
        : (job.getEndTime().getTime() - job.getStartTime().getTime()) / 1e3;
  }

  public void killApplication(String appId) throws Exception {
    yarnClient.killApplication(org.apache.hadoop.yarn.api.records.ApplicationId.fromString(appId));
  }

  /** An action's final state as the watcher saw it. */
  public record ActionState(String name, String type, String status, String externalId, String errorCode, String errorMessage,
      java.util.Date start, java.util.Date end) {
    /** An action node (not start, end or kill). */
    public boolean isAction() {
      return !type.startsWith(":");
    }
  }

  /** The end of a workflow run: its status, the actions in the order they ended, the seconds it took. */
  public record Run(String id, WorkflowJob.Status status, List<ActionState> actions, double seconds) {
    public ActionState action(String name) {
      return actions.stream().filter(a -> a.name().equals(name)).reduce((a, b) -> b).orElse(null);
    }

    /** The action nodes (java actions here) in the order they ended. */
    public List<ActionState> javaActions() {
      return actions.stream().filter(ActionState::isAction).toList();
    }
  }

  static final Set<WorkflowAction.Status> FINAL = Set.of(WorkflowAction.Status.OK, WorkflowAction.Status.ERROR,
      WorkflowAction.Status.KILLED, WorkflowAction.Status.FAILED);

  /**
   * Waits for workflow {@code id} to leave PREP and RUNNING (at most {@code timeoutSeconds}),
   * telling {@code onAction} each action's final state as it is reached and {@code onPoll} the
   * job at every poll.
   */
  public Run await(String id, double timeoutSeconds, Consumer<ActionState> onAction, Consumer<WorkflowJob> onPoll) throws Exception {
    return await(id, timeoutSeconds, null, onAction, onPoll);
  }

  /** The same, for the actions that ended at or after {@code since} (a rerun's), all when null. */
  public Run await(String id, double timeoutSeconds, java.util.Date since, Consumer<ActionState> onAction, Consumer<WorkflowJob> onPoll)
      throws Exception {
    long t0 = System.nanoTime();
    OozieClient oc = client();
    Map<String, String> seen = new LinkedHashMap<>();
    List<ActionState> ended = new ArrayList<>();
    while (true) {
      WorkflowJob job = oc.getJobInfo(id);
      if (onPoll != null) onPoll.accept(job);
      for (WorkflowAction a : job.getActions()) {
        if (a.getType().equals(":START:")) continue;
        String key = a.getId() + "@" + (a.getStartTime() == null ? 0 : a.getStartTime().getTime());
        if (since != null && a.getEndTime() != null && a.getEndTime().before(since)) continue;
        if (FINAL.contains(a.getStatus()) && !seen.containsKey(key)) {
          seen.put(key, a.getStatus().toString());
          ActionState s = new ActionState(a.getName(), a.getType(), a.getStatus().toString(), a.getExternalId(), a.getErrorCode(),
              a.getErrorMessage(), a.getStartTime(), a.getEndTime());
          ended.add(s);
          if (onAction != null) onAction.accept(s);
        }
      }
      WorkflowJob.Status st = job.getStatus();
      if (st != WorkflowJob.Status.PREP && st != WorkflowJob.Status.RUNNING) {
        return new Run(id, st, ended, (System.nanoTime() - t0) / 1e9);
      }
      if ((System.nanoTime() - t0) / 1e9 > timeoutSeconds) {
        throw new AssertionError("workflow " + id + " still " + st + " after " + timeoutSeconds + " s; actions so far: " + ended);
      }
      Thread.sleep(500);
    }
  }

  /** Prints each action's final state as it is reached (run-embedded.sh's lines, and the tests' log). */
  public static Consumer<ActionState> printer(PrintStream out, String prefix) {
    long t0 = System.nanoTime();
    return a -> out.printf(Locale.ROOT, "%s%6.1f s  %-6s %-11s %-7s%s%n", prefix, (System.nanoTime() - t0) / 1e9, a.isAction() ? "action" : "node",
        a.name(), a.status(),
        (a.externalId() == null ? "" : "  " + a.externalId()) + (a.errorMessage() == null ? "" : "  " + a.errorMessage()));
  }

  public CoordinatorJob coordinator(String id) throws Exception {
    return coordClient().getCoordJobInfo(id);
  }

  @Override
  public void close() throws Exception {
    try {
      if (LocalOozie.isStarted()) LocalOozie.stop();
    } finally {
      try {
        yarnClient.stop();
        yarn.stop();
      } finally {
        dfs.shutdown();
      }
    }
  }

  /** The scratch directory. */
  public Path dir() {
    return dir;
  }

  static File file(Path p) {
    return p.toFile();
  }
}
