package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.Seeds;
import org.sodm.data.SparseVector;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelModel;
import org.sodm.partition.KernelKMeans;
import org.sodm.testing.LocalConf;

/**
 * DC-SVM's multilevel clustering (seed 001 Algorithm 1, issue 19 item 1) through the jobs: the
 * upper level's blocks are its own two-step kernel k-means clusters, fitted on a sample of the
 * bottom level's support vectors, and the model taken at that level routes to them.
 */
class DcSvmMultilevelTest {
  @TempDir Path tmp;

  private static final long SEED = 5;
  private static final int M = 300;

  private List<TrainRecord> read(String dir) throws IOException {
    List<TrainRecord> l = TrainIO.readRecords(new Configuration(), new org.apache.hadoop.fs.Path(tmp.resolve(dir).toString()));
    l.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    return l;
  }

  /** sum_i ||phi(x_i) - mu_{c(i)}||^2 over all rows (the kernel k-means objective of a partition), from the full Gram matrix. */
  private static double objective(SparseVector[] x, int[] c, Kernel k) {
    Map<Integer, List<Integer>> members = new HashMap<>();
    for (int i = 0; i < c.length; i++) members.computeIfAbsent(c[i], b -> new ArrayList<>()).add(i);
    double obj = 0;
    for (int i = 0; i < x.length; i++) obj += k.eval(x[i], x[i]);
    for (List<Integer> m : members.values()) {
      double s = 0;
      for (int i : m) for (int j : m) s += k.eval(x[i], x[j]);
      obj -= s / m.size();
    }
    return obj;
  }

  @Test
  void upperLevelBlocksAreItsOwnClustersOfTheSupportVectorsAndTheModelRoutesToThem() throws IOException {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(Param.PARTITIONER.key(), "kmeans");
    conf.set(SodmConf.PARTITIONS, "16");
    conf.set(SodmConf.FANOUT, "4");
    conf.set(SodmConf.SEED, Long.toString(SEED));
    conf.set(Param.KMEANS_SAMPLE.key(), Integer.toString(M));
    conf.set(Param.EARLY_STOP.key(), "false");
    conf.set(SodmConf.EXACT, "false");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("t").toString()), false), s -> {});
    Kernel k = KernelSpec.rbf(2).create();

    // bottom level: 16 clusters fitted on a sample of at most M rows
    List<TrainRecord> bottomSample = read("t/work/landmarks/data");
    assertTrue(bottomSample.size() <= M, "bottom sample " + bottomSample.size());
    List<TrainRecord> bottom = read("t/work/level-2/data");
    List<TrainRecord> upper = read("t/work/level-1/data");
    List<TrainRecord> sample = read("t/work/level-1/kmeans");
    int n = bottom.size();
    // level 1 is the model's level: it keeps only its support vectors (the model needs nothing else)
    assertTrue(upper.size() < n && !upper.isEmpty(), "level 1 keeps its support vectors: " + upper.size() + " of " + n);
    for (TrainRecord u : upper) assertNotEquals(0.0, u.getAlpha().get(0), "level-1 row " + u.getId() + " is no support vector");

    // the adaptive sample: only support vectors of the level below, and exactly the M of smallest rank among them
    Map<Long, TrainRecord> byId = new HashMap<>();
    for (TrainRecord b : bottom) byId.put(b.getId(), b);
    List<TrainRecord> svs = new ArrayList<>();
    for (TrainRecord b : bottom) if (b.getAlpha().get(0) != 0) svs.add(b);
    assertTrue(svs.size() > M, "more support vectors than the sample: " + svs.size());
    for (TrainRecord s : sample) assertNotEquals(0.0, byId.get(s.getId()).getAlpha().get(0), "sample row " + s.getId() + " is no SV");
    svs.sort((a, b) -> Long.compare(Seeds.levelSampleRank(SEED, 1, a.getId()), Seeds.levelSampleRank(SEED, 1, b.getId())));
    Set<Long> expected = new HashSet<>();
    for (TrainRecord s : svs.subList(0, M)) expected.add(s.getId());
    Set<Long> got = new HashSet<>();
    for (TrainRecord s : sample) got.add(s.getId());
    assertEquals(expected, got);

    // the level's blocks are a direct two-step kernel k-means run with the level's seed on that sample
    SparseVector[] pts = new SparseVector[sample.size()];
    for (int i = 0; i < pts.length; i++) pts[i] = Instances.features(sample.get(i).getFeatures());
    KernelKMeans direct = KernelKMeans.fit(pts, k, 4, 50, Seeds.levelKMeans(SEED, 1));
    int[] mem = direct.memberships();
    for (int i = 0; i < pts.length; i++) assertEquals(mem[i], sample.get(i).getBlock());
    SparseVector[] x = new SparseVector[n];
    int[] level1 = new int[n];
    int[] union = new int[n];
    Map<Long, Integer> index = new HashMap<>();
    for (int i = 0; i < n; i++) {
      index.put(bottom.get(i).getId(), i);
      x[i] = Instances.features(bottom.get(i).getFeatures());
      union[i] = bottom.get(i).getBlock() / 4; // the old rule: parent floor(b/p)
    }
    int[] assigned = direct.assignAll(x);
    System.arraycopy(assigned, 0, level1, 0, n); // every row's level-1 block: its nearest level-1 centre
    for (TrainRecord u : upper) {
      assertEquals(level1[index.get(u.getId())], u.getBlock(), "row " + u.getId() + " is in the block of its nearest level-1 centre");
    }
    Set<Integer> distinct = new HashSet<>();
    for (int b : level1) distinct.add(b);
    assertEquals(4, distinct.size());
    // the clusters' kernel k-means objective (over every row) is no worse than the index union's
    double o1 = objective(x, level1, k);
    double ou = objective(x, union, k);
    System.out.printf("kernel k-means objective: level-1 clusters %.4f, index union of level-2 clusters %.4f%n", o1, ou);
    assertTrue(o1 <= ou, "level-1 clusters " + o1 + " > index union " + ou);

    // early prediction (eq. 6) with the model taken at level 1 routes to level 1's clusters
    KernelModel model = (KernelModel) ModelFiles.read(conf, r.modelPath());
    assertNotNull(model.routing());
    assertEquals(4, model.blockCount());
    for (int i = 0; i < n; i += 7) {
      assertEquals(level1[i], model.routing().kmeans().assign(x[i]));
      int b = -1;
      for (int j = 0; j < model.blockCount(); j++) if (model.blockId(j) == level1[i]) b = j;
      assertEquals(model.block(b).decision(x[i]), model.decisionLocalPrepared(x[i]), 1e-12);
    }
  }

  /** A tree of 64 -> 16 -> 4 blocks stopped after the middle level (--max-block-rows): the model routes to level 2's clusters. */
  @Test
  void aModelTakenAtTheMiddleLevelRoutesToThatLevelsClusters() throws IOException {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(Param.PARTITIONER.key(), "kmeans");
    conf.set(SodmConf.PARTITIONS, "64");
    conf.set(SodmConf.FANOUT, "4");
    conf.set(SodmConf.SEED, Long.toString(SEED));
    conf.set(Param.KMEANS_SAMPLE.key(), "200");
    conf.set(Param.MAX_BLOCK_ROWS.key(), "400"); // 3,089 / 16 = 194 rows per block at level 2; 773 at level 1: stop
    conf.set(Param.EARLY_STOP.key(), "false");
    conf.set(SodmConf.EXACT, "false");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("m").toString()), false), s -> {});
    assertFalse(java.nio.file.Files.exists(tmp.resolve("m/work/level-1/data")), "level 1 not run");
    List<TrainRecord> level2 = read("m/work/level-2/data");
    List<TrainRecord> sample = read("m/work/level-2/kmeans");
    SparseVector[] pts = new SparseVector[sample.size()];
    for (int i = 0; i < pts.length; i++) pts[i] = Instances.features(sample.get(i).getFeatures());
    KernelKMeans direct = KernelKMeans.fit(pts, KernelSpec.rbf(2).create(), 16, 50, Seeds.levelKMeans(SEED, 2));
    KernelModel model = (KernelModel) ModelFiles.read(conf, r.modelPath());
    assertEquals(16, model.blockCount());
    Set<Integer> blocks = new HashSet<>();
    for (int i = 0; i < level2.size(); i += 5) {
      SparseVector x = Instances.features(level2.get(i).getFeatures());
      int c = direct.assign(x);
      assertEquals(level2.get(i).getBlock(), c);
      assertEquals(c, model.routing().kmeans().assign(x));
      int b = -1;
      for (int j = 0; j < model.blockCount(); j++) if (model.blockId(j) == c) b = j;
      assertEquals(model.block(b).decision(x), model.decisionLocalPrepared(x), 1e-12);
      blocks.add(c);
    }
    assertTrue(blocks.size() >= 12, "rows route to " + blocks.size() + " of 16 clusters");
  }
}
