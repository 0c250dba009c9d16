package org.sodm.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * The resident AllReduce job on real HDFS + YARN (issue 14): BQO after ingest and partition is
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
    int appsBefore = yarn.getResourceManager().getRMContext().getRMApps().size();
    long t = System.nanoTime();
    assertEquals(0, ToolRunner.run(new Configuration(clusterConf), new TrainCommand(), args(hdfs + "/user/sodm/data/svmguide1",
        hdfs + "/user/sodm/model")));
    List<String> apps = yarn.getResourceManager().getRMContext().getRMApps().values().stream().map(a -> a.getName()).sorted().toList();
    System.out.printf("AllReduceYarnTest: train on YARN %.1f s, applications %s%n", (System.nanoTime() - t) / 1e9, apps);
    assertEquals(3, apps.size() - appsBefore, "ingest, partition and one resident BQO job: " + apps);
    assertEquals(1, apps.stream().filter(n -> n.contains("bqo")).count(), apps.toString());

    ModelRecord mLocal = ModelFiles.readRecord(local, new org.apache.hadoop.fs.Path(localOut.resolve("model.avro").toString()));
    ModelRecord mYarn = ModelFiles.readRecord(clusterConf, new org.apache.hadoop.fs.Path(hdfs + "/user/sodm/model/model.avro"));
    assertArrayEquals(mLocal.getLinear().getW().stream().mapToDouble(Double::doubleValue).toArray(),
        mYarn.getLinear().getW().stream().mapToDouble(Double::doubleValue).toArray(), "the same w on YARN as in local mode");
  }
}
