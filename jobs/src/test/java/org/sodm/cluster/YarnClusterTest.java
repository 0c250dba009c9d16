package org.sodm.cluster;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Prediction;
import org.sodm.cli.PredictCommand;
import org.sodm.cli.TrainCommand;
import org.sodm.data.AvroClasses;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.train.BlockSolveReducer;
import org.sodm.testing.LocalConf;

/**
 * Issue 7, real HDFS + YARN: MiniDFSCluster and MiniMRYarnCluster in this JVM, every task in its
 * own container JVM. {@code sodm train} (through ToolRunner, as {@code hadoop jar} runs it) on
 * the sample data in HDFS, with the first attempt of one merge-round solve task failing (the
 * test-only switch) so YARN retries it, then {@code sodm predict}. The model must have exactly
 * the coefficients of the local-mode model of the same seed (which had no failure), and the
 * predictions must be the same. One cluster for the class; small containers (HADOOP-NOTES).
 */
@Tag("cluster")
class YarnClusterTest {
  static final String[] PARAMS = {"--scale", "0,1", "--loss", "hinge", "-c", "2", "-g", "2", "--partitions", "4", "--fanout", "2",
      "--landmarks", "16", "--seed", "7",
      "-D", "sodm.train.exact.below.rows=0"}; // the 2 final blocks of the merge tree, not the small-data exact finish

  @TempDir static Path tmp;
  static MiniDFSCluster dfs;
  static MiniMRYarnCluster yarn;
  static Configuration clusterConf;
  static double startSeconds;

  @BeforeAll
  static void startCluster() throws IOException {
    AvroClasses.trust();
    long t = System.nanoTime();
    Configuration conf = SodmConf.create();
    dfs = startDfs(tmp, conf);
    smallContainers(conf);
    conf.setInt("mapreduce.reduce.maxattempts", 2);
    yarn = new MiniMRYarnCluster("sodm-yarn", 1);
    yarn.init(conf);
    yarn.start();
    clusterConf = new Configuration(yarn.getConfig());
    startSeconds = (System.nanoTime() - t) / 1e9;
    System.out.printf("YarnClusterTest: MiniDFS + MiniMRYarn started in %.1f s%n", startSeconds);
  }

  /** A one-DataNode MiniDFS under {@code tmp}, made {@code conf}'s default file system. */
  static MiniDFSCluster startDfs(Path tmp, Configuration conf) throws IOException {
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, tmp.resolve("dfs").toString());
    conf.set("hadoop.tmp.dir", tmp.resolve("hadoop-tmp").toString());
    MiniDFSCluster dfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).format(true).build();
    dfs.waitActive();
    conf.set("fs.defaultFS", dfs.getFileSystem().getUri().toString());
    return dfs;
  }

  /** Small containers, fast heartbeats and loopback web UIs on these 2 cores (also AllReduceYarnTest's). */
  static void smallContainers(Configuration conf) {
    // small containers: AM 512 MB + two 384 MB tasks at a time on these 2 cores
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 1408);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setInt("mapreduce.map.memory.mb", 384);
    conf.setInt("mapreduce.reduce.memory.mb", 384);
    // short-lived JVMs on 2 busy cores: C1 only and the serial collector start much faster
    String fast = " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
    conf.set("mapreduce.map.java.opts", "-Xmx256m" + fast);
    conf.set("mapreduce.reduce.java.opts", "-Xmx256m" + fast);
    conf.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    conf.set("yarn.app.mapreduce.am.command-opts", "-Xmx384m" + fast);
    // less waiting: allocation on faster heartbeats, the client polls for completion often
    conf.setInt(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 250);
    conf.setInt("yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms", 250);
    conf.setInt("mapreduce.client.completion.pollinterval", 200);
    conf.setInt("mapreduce.client.progressmonitor.pollinterval", 200);
    // web UIs on loopback, any free port
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:0");
    conf.set(YarnConfiguration.NM_WEBAPP_ADDRESS, "127.0.0.1:0");
    conf.set("mapreduce.jobhistory.webapp.address", "127.0.0.1:0");
  }

  @AfterAll
  static void stopCluster() {
    if (yarn != null) yarn.stop();
    if (dfs != null) dfs.shutdown();
  }

  private static String[] args(String in, String out, String... extra) {
    List<String> a = new ArrayList<>(List.of(extra));
    a.addAll(List.of("-i", in, "-o", out));
    a.addAll(List.of(PARAMS));
    return a.toArray(String[]::new);
  }

  private static List<String> predictions(Configuration conf, org.apache.hadoop.fs.Path dir) throws IOException {
    List<Prediction> all = new ArrayList<>();
    for (org.apache.hadoop.fs.Path p : AvroFiles.dataFiles(conf, dir)) {
      if (p.getName().endsWith(".avro")) all.addAll(AvroFiles.readAll(conf, p, Prediction.class));
    }
    all.sort(Comparator.comparingLong(Prediction::getId));
    return all.stream().map(p -> p.getId() + " " + p.getLabel() + " " + p.getDecision() + " " + p.getPredicted()).toList();
  }

  static List<Object> coefficients(ModelRecord r) {
    List<Object> all = new ArrayList<>();
    for (org.sodm.avro.BlockModel b : r.getBlocks()) {
      all.add(b.getBlock());
      all.add(b.getIds());
      all.add(b.getCoef());
      all.add(b.getBias());
    }
    return all;
  }

  @Test
  void trainAndPredictOnYarnEqualLocalModeEvenWithARetriedTask() throws Exception {
    // local mode, the reference
    Configuration local = LocalConf.create(tmp.resolve("local"));
    Path localOut = tmp.resolve("local-model");
    long t0 = System.nanoTime();
    assertEquals(0, ToolRunner.run(new Configuration(local), new TrainCommand(), args(LocalConf.sampleData("svmguide1").toString(),
        localOut.toString())));
    double localSeconds = (System.nanoTime() - t0) / 1e9;
    assertEquals(0, ToolRunner.run(new Configuration(local), new PredictCommand(), new String[] {"-m", localOut.toString(), "-i",
        LocalConf.sampleData("svmguide1.t").toString(), "-o", tmp.resolve("local-pred").toString(), "--text"}));

    // the same on HDFS + YARN
    FileSystem fs = dfs.getFileSystem();
    org.apache.hadoop.fs.Path data = new org.apache.hadoop.fs.Path("/user/sodm/data");
    fs.mkdirs(data);
    fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(LocalConf.sampleData("svmguide1").toString()), data);
    fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(LocalConf.sampleData("svmguide1.t").toString()), data);
    String hdfs = fs.getUri().toString();
    String markers = hdfs + "/tmp/fail-once";
    long t1 = System.nanoTime();
    assertEquals(0, ToolRunner.run(new Configuration(clusterConf), new TrainCommand(), args(hdfs + "/user/sodm/data/svmguide1",
        hdfs + "/user/sodm/model",
        "-D", BlockSolveReducer.FAIL_ONCE_DIR + "=" + markers, "-D", BlockSolveReducer.FAIL_ONCE_LEVEL + "=1",
        "-D", BlockSolveReducer.FAIL_ONCE_BLOCK + "=1")));
    double yarnSeconds = (System.nanoTime() - t1) / 1e9;
    assertTrue(fs.exists(new org.apache.hadoop.fs.Path(markers, "level-1-block-1")), "the injected failure happened");
    assertEquals(0, ToolRunner.run(new Configuration(clusterConf), new PredictCommand(), new String[] {"-m", hdfs + "/user/sodm/model",
        "-i", hdfs + "/user/sodm/data/svmguide1.t", "-o", hdfs + "/user/sodm/pred", "--text"}));
    System.out.printf("YarnClusterTest: train local %.1f s, on YARN %.1f s (one reduce attempt failed and was retried)%n",
        localSeconds, yarnSeconds);

    ModelRecord mLocal = ModelFiles.readRecord(local, new org.apache.hadoop.fs.Path(localOut.resolve("model.avro").toString()));
    ModelRecord mYarn = ModelFiles.readRecord(clusterConf, new org.apache.hadoop.fs.Path(hdfs + "/user/sodm/model/model.avro"));
    assertEquals(coefficients(mLocal), coefficients(mYarn), "same coefficients on YARN as in local mode");
    assertEquals(2, mYarn.getBlocks().size());

    List<String> pLocal = predictions(local, new org.apache.hadoop.fs.Path(tmp.resolve("local-pred").toString()));
    List<String> pYarn = predictions(clusterConf, new org.apache.hadoop.fs.Path(hdfs + "/user/sodm/pred"));
    assertEquals(4000, pYarn.size());
    assertEquals(pLocal, pYarn, "same predictions, decision values included");
    // --text: the map tasks' text parts, committed by YARN's tasks, merged in input order (none left beside the file)
    List<String> textLocal = java.nio.file.Files.readAllLines(tmp.resolve("local-pred").resolve("predictions.txt"));
    List<String> textYarn = new ArrayList<>();
    try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(fs.open(new org.apache.hadoop.fs.Path(hdfs + "/user/sodm/pred/predictions.txt")),
        java.nio.charset.StandardCharsets.UTF_8))) {
      for (String l; (l = in.readLine()) != null; ) textYarn.add(l);
    }
    assertEquals(4000, textYarn.size());
    assertEquals(textLocal, textYarn, "predictions.txt on YARN as in local mode");
    for (org.apache.hadoop.fs.FileStatus st : fs.listStatus(new org.apache.hadoop.fs.Path(hdfs + "/user/sodm/pred"))) {
      assertFalse(st.getPath().getName().startsWith("_text-"), st.getPath().toString());
    }
  }
}
