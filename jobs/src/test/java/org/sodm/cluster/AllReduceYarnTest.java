package org.sodm.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.ModelRecord;
import org.sodm.cli.TrainCommand;
import org.sodm.data.AvroClasses;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/**
 * The resident AllReduce job on real HDFS + YARN (issue 14): BQO after ingest (its tasks deal their blocks) is
 * exactly one YARN application, its two tasks in their own container JVMs exchange through the
 * socket AllReduce, and the model is bit for bit the local-mode model (same K, same tree).
 */
@Tag("cluster")
class AllReduceYarnTest {
  static final String[] PARAMS = {"--kernel", "linear", "--loss", "hinge", "-c", "1", "--scale", "0,1", "--linear-blocks", "2",
      "--linear-eps", "0.01", "--iteration-mode", "allreduce"};

  @TempDir static Path tmp;
  static MiniDFSCluster dfs;
  static MiniMRYarnCluster yarn;
  static Configuration clusterConf;

  @BeforeAll
  static void startCluster() throws IOException {
    AvroClasses.trust();
    Configuration conf = SodmConf.create();
    dfs = YarnClusterTest.startDfs(tmp, conf);
    // the AM and both resident tasks at once: 512 + 2 x 384 MB within the NodeManager's 1408 MB
    YarnClusterTest.smallContainers(conf);
    conf.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb", 1408);
    yarn = new MiniMRYarnCluster("sodm-allreduce", 1);
    yarn.init(conf);
    yarn.start();
    clusterConf = new Configuration(yarn.getConfig());
  }

  @AfterAll
  static void stopCluster() {
    if (yarn != null) yarn.stop();
    if (dfs != null) dfs.shutdown();
  }

  private static String[] args(String in, String out) {
    String[] a = new String[PARAMS.length + 4];
    System.arraycopy(PARAMS, 0, a, 0, PARAMS.length);
    System.arraycopy(new String[] {"-i", in, "-o", out}, 0, a, PARAMS.length, 4);
    return a;
  }

  @Test
  void bqoIsOneResidentJobOnYarnAndEqualsLocalMode() throws Exception {
    Configuration local = LocalConf.create(tmp.resolve("local"));
    Path localOut = tmp.resolve("local-model");
    assertEquals(0, ToolRunner.run(new Configuration(local), new TrainCommand(), args(LocalConf.sampleData("svmguide1").toString(),
        localOut.toString())));

    FileSystem fs = dfs.getFileSystem();
    org.apache.hadoop.fs.Path data = new org.apache.hadoop.fs.Path("/user/sodm/data");
    fs.mkdirs(data);
    fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(LocalConf.sampleData("svmguide1").toString()), data);
    String hdfs = fs.getUri().toString();
    java.util.Set<Object> appsBefore = new java.util.HashSet<>(yarn.getResourceManager().getRMContext().getRMApps().keySet());
    long t = System.nanoTime();
    assertEquals(0, ToolRunner.run(new Configuration(clusterConf), new TrainCommand(), args(hdfs + "/user/sodm/data/svmguide1",
        hdfs + "/user/sodm/model")));
    List<String> apps = yarn.getResourceManager().getRMContext().getRMApps().entrySet().stream()
        .filter(e -> !appsBefore.contains(e.getKey())).map(e -> e.getValue().getName()).sorted().toList();
    System.out.printf("AllReduceYarnTest: train on YARN %.1f s, applications %s%n", (System.nanoTime() - t) / 1e9, apps);
    assertEquals(2, apps.size(), "ingest and one resident BQO job whose 2 tasks deal their blocks themselves: " + apps);
    assertEquals(1, apps.stream().filter(n -> n.contains("bqo")).count(), apps.toString());

    ModelRecord mLocal = ModelFiles.readRecord(local, new org.apache.hadoop.fs.Path(localOut.resolve("model.avro").toString()));
    ModelRecord mYarn = ModelFiles.readRecord(clusterConf, new org.apache.hadoop.fs.Path(hdfs + "/user/sodm/model/model.avro"));
    assertArrayEquals(mLocal.getLinear().getW().stream().mapToDouble(Double::doubleValue).toArray(),
        mYarn.getLinear().getW().stream().mapToDouble(Double::doubleValue).toArray(), "the same w on YARN as in local mode");
  }

  private static String hdfsData(String name) throws IOException {
    FileSystem fs = dfs.getFileSystem();
    org.apache.hadoop.fs.Path data = new org.apache.hadoop.fs.Path("/user/sodm/" + name);
    if (!fs.exists(new org.apache.hadoop.fs.Path(data, "svmguide1"))) {
      fs.mkdirs(data);
      fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(LocalConf.sampleData("svmguide1").toString()), data);
    }
    return fs.getUri() + "/user/sodm/" + name + "/svmguide1";
  }

  /**
   * A task that fails mid-run (planted before iteration 5, checkpoints every 2 iterations): the
   * driver resubmits the job from the last checkpoint and the model is still bit for bit the
   * local-mode model.
   */
  @Test
  void aTaskFailingMidRunResumesFromTheCheckpointToTheSameModel() throws Exception {
    Configuration local = LocalConf.create(tmp.resolve("local2"));
    Path localOut = tmp.resolve("local-model-2");
    assertEquals(0, ToolRunner.run(new Configuration(local), new TrainCommand(), args(LocalConf.sampleData("svmguide1").toString(),
        localOut.toString())));
    String hdfs = dfs.getFileSystem().getUri().toString();
    Configuration c = new Configuration(clusterConf);
    c.set(org.sodm.jobs.allreduce.AllReduceKeys.TEST_FAIL, "1:5");
    c.setInt(org.sodm.jobs.spec.Param.ALLREDUCE_CHECKPOINT_ITERATIONS.key(), 2);
    assertEquals(0, ToolRunner.run(c, new TrainCommand(), args(hdfsData("data2"), hdfs + "/user/sodm/model-fault")));
    ModelRecord mLocal = ModelFiles.readRecord(local, new org.apache.hadoop.fs.Path(localOut.resolve("model.avro").toString()));
    ModelRecord mYarn = ModelFiles.readRecord(clusterConf, new org.apache.hadoop.fs.Path(hdfs + "/user/sodm/model-fault/model.avro"));
    assertArrayEquals(mLocal.getLinear().getW().stream().mapToDouble(Double::doubleValue).toArray(),
        mYarn.getLinear().getW().stream().mapToDouble(Double::doubleValue).toArray(), "resumed on YARN: the local model");
  }

  /**
   * More blocks than the cluster can run at once (4 tasks; the NodeManager fits the AM and 2): the
   * rendezvous fails within its timeout with a message naming K, how many registered and what to
   * change, and no model or half-written phase is left.
   */
  @Test
  void aRendezvousTheClusterCannotMeetFailsWithinTheTimeout() throws Exception {
    String hdfs = dfs.getFileSystem().getUri().toString();
    String[] a = args(hdfsData("data3"), hdfs + "/user/sodm/model-k4");
    for (int i = 0; i < a.length; i++) if (a[i].equals("--linear-blocks")) a[i + 1] = "4";
    Configuration c = new Configuration(clusterConf);
    c.setInt(org.sodm.jobs.spec.Param.ALLREDUCE_RENDEZVOUS_TIMEOUT.key(), 10);
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream saved = System.err;
    long t = System.nanoTime();
    int exit;
    try {
      System.setErr(new java.io.PrintStream(err, true));
      exit = ToolRunner.run(c, new TrainCommand(), a);
    } finally {
      System.setErr(saved);
    }
    double seconds = (System.nanoTime() - t) / 1e9;
    String msg = err.toString();
    assertEquals(1, exit, msg);
    assertTrue(msg.contains("AllReduce rendezvous failed") && msg.contains("of 4 tasks registered") && msg.contains("--linear-blocks")
        && msg.contains("--iteration-mode jobs"), msg);
    assertTrue(seconds < 10 + 120, "failed after " + seconds + " s");
    FileSystem fs = dfs.getFileSystem();
    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path("/user/sodm/model-k4");
    assertFalse(fs.exists(new org.apache.hadoop.fs.Path(out, "model.avro")));
    if (fs.exists(new org.apache.hadoop.fs.Path(out, "work"))) {
      for (org.apache.hadoop.fs.FileStatus st : fs.listStatus(new org.apache.hadoop.fs.Path(out, "work"))) {
        assertFalse(st.getPath().getName().contains(".tmp"), "half-written: " + st.getPath());
      }
    }
  }
}
