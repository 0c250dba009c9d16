package org.sodm.jobs.train;

import org.sodm.jobs.spec.TrainSpec;
import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.sodm.jobs.support.SodmConf;

class TrainConfigAndKeyTest {
  private static Configuration conf(String... kv) {
    Configuration c = new Configuration(false);
    c.addResource(SodmConf.DEFAULT_RESOURCE);
    for (int i = 0; i < kv.length; i += 2) c.set(kv[i], kv[i + 1]);
    return c;
  }

  @Test
  void solveReducersOnePerCoreLocallyWithBalancedBlocksElseOnePerBlock() {
    Configuration c = new Configuration(false);
    c.set("mapreduce.framework.name", "local");
    c.setInt("mapreduce.local.reduce.tasks.maximum", 2);
    assertEquals(2, SolveJob.reducers(c, 16));
    assertEquals(1, SolveJob.reducers(c, 1));
    c.set(SodmConf.PARTITIONER, "random");
    assertEquals(2, SolveJob.reducers(c, 16));
    c.set(SodmConf.PARTITIONER, "kmeans"); // unequal block sizes: the runner balances one task per block
    assertEquals(16, SolveJob.reducers(c, 16));
    c.setInt(SodmConf.TRAIN_REDUCERS, 5);
    assertEquals(5, SolveJob.reducers(c, 16));
    assertEquals(3, SolveJob.reducers(c, 3));
    c.unset(SodmConf.TRAIN_REDUCERS);
    c.set(SodmConf.PARTITIONER, "stratified");
    c.set("mapreduce.framework.name", "yarn");
    assertEquals(16, SolveJob.reducers(c, 16));
  }

  @Test
  void treeShapes() {
    assertEquals(List.of(16, 4), TrainSpec.from(conf()).tree().levelBlocks(), "defaults: p=4, L=2");
    assertEquals(List.of(1), TrainSpec.from(conf(SodmConf.PARTITIONS, "1")).tree().levelBlocks());
    assertEquals(List.of(4), TrainSpec.from(conf(SodmConf.PARTITIONS, "4")).tree().levelBlocks(), "K <= p: one level");
    assertEquals(List.of(10, 3), TrainSpec.from(conf(SodmConf.PARTITIONS, "10")).tree().levelBlocks(), "ceil(10/4) = 3");
    assertEquals(List.of(27, 9, 3), TrainSpec.from(conf(SodmConf.LEVELS, "3", SodmConf.FANOUT, "3")).tree().levelBlocks());
    assertEquals(0.25, TrainSpec.from(conf()).kernel().resolve(4).gamma(), 0.0, "gamma 0 = 1/features");
    TrainSpec.Tree capped = TrainSpec.from(conf(SodmConf.LEVELS, "3", SodmConf.FANOUT, "4", SodmConf.MAX_BLOCK_ROWS, "1000")).tree();
    assertEquals(List.of(64, 16, 4), capped.levelBlocks(3000), "blocks of 750 at the top: within the cap");
    assertEquals(List.of(64, 16), capped.levelBlocks(10000), "4 blocks of 2500 would exceed 1000");
    assertEquals(List.of(64), capped.levelBlocks(100000), "the bottom level always runs");
    assertEquals(2.0, TrainSpec.from(conf(SodmConf.GAMMA, "2")).kernel().resolve(4).gamma(), 0.0);
  }

  /** The children's sizes of a re-clustering merge round (ODM's warm-start scale) survive the configuration. */
  @Test
  void childSizesRoundTrip() {
    Configuration c = new Configuration(false);
    assertNull(TrainKeys.childSizes(c), "unset: the reducer scales by the rows present");
    List<org.sodm.avro.BlockStats> stats = new java.util.ArrayList<>();
    int[][] bs = {{0, 1200}, {3, 17}, {15, 40000}};
    for (int[] b : bs) {
      stats.add(org.sodm.avro.BlockStats.newBuilder().setLevel(2).setBlock(b[0]).setSize(b[1]).setPositives(0).setObjective(0)
          .setInitialViolation(0).setMaxViolation(0).setEpochs(0).setSupportVectors(0).setKernelEvaluations(0).setCacheHits(0)
          .setSeconds(0).setConverged(true).build());
    }
    TrainKeys.setChildSizes(c, stats);
    assertEquals(java.util.Map.of(0, 1200, 3, 17, 15, 40000), TrainKeys.childSizes(c));
  }

  @Test
  void parentOfABlockIsFloorKOverP() {
    // the merge mapper's rule agrees with the level sizes: every child lands in a parent < ceil(K/p)
    for (int k = 1; k <= 50; k++) {
      for (int p = 2; p <= 6; p++) {
        int parents = (k + p - 1) / p;
        for (int b = 0; b < k; b++) assertTrue(b / p < parents);
        assertEquals(parents - 1, (k - 1) / p);
      }
    }
  }

  private static byte[] bytes(BlockKey k) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    k.write(new DataOutputStream(b));
    return b.toByteArray();
  }

  @Test
  void rawComparatorsAgreeWithObjectOrder() throws IOException {
    Random r = new Random(3);
    BlockKey.Comparator sort = new BlockKey.Comparator();
    BlockKey.GroupByBlock group = new BlockKey.GroupByBlock();
    for (int t = 0; t < 2000; t++) {
      BlockKey a = new BlockKey(r.nextInt(5), r.nextLong() >> r.nextInt(60));
      BlockKey b = new BlockKey(r.nextInt(5), r.nextBoolean() ? a.id() : r.nextLong() >> r.nextInt(60));
      byte[] x = bytes(a);
      byte[] y = bytes(b);
      assertEquals(Integer.signum(a.compareTo(b)), Integer.signum(sort.compare(x, 0, x.length, y, 0, y.length)));
      assertEquals(Integer.signum(Integer.compare(a.block(), b.block())), Integer.signum(group.compare(x, 0, x.length, y, 0, y.length)));
    }
    assertEquals(3, new BlockKey.ByBlock<Object>().getPartition(new BlockKey(7, 1), null, 4));
  }
}
