package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockModel;
import org.sodm.avro.ModelRecord;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/** Issue 18 item 1: the default tree from the row count and the cache ({@code --levels auto}). */
class TreeShapeTest {
  @TempDir Path tmp;

  private static TrainSpec spec(String... kv) {
    Configuration c = new Configuration(false);
    for (int i = 0; i < kv.length; i += 2) c.set(kv[i], kv[i + 1]);
    return TrainSpec.from(c);
  }

  @Test
  void chosenShapesForATableOfRowCounts() {
    TrainSpec d = spec(); // defaults: --levels auto, fanout 4, 256 MB cache (m = 8,192 rows), exact below 10,000 rows, ODM
    assertTrue(d.tree().auto());
    long[] n = {12, 3_089, 10_000, 10_001, 16_384, 16_385, 32_561, 49_990, 131_072, 131_073, 196_046, 1_000_000, 4_000_000};
    List<List<Integer>> want = List.of(List.of(16, 4), List.of(16, 4), List.of(16, 4), List.of(2), List.of(2), List.of(3), List.of(4),
        List.of(7), List.of(16), List.of(17), List.of(24), List.of(123), List.of(489));
    for (int i = 0; i < n.length; i++) assertEquals(want.get(i), d.tree().shape(n[i]), "n = " + n[i]);
    assertFalse(d.tree().enlarged(49_990));

    TrainSpec small = spec(Param.CACHE_MB.key(), "64"); // m = 4,096
    assertEquals(List.of(13), small.tree().shape(49_990));
    assertEquals(List.of(17), small.tree().shape(65_537));
    TrainSpec p8 = spec(Param.FANOUT.key(), "8");
    assertEquals(List.of(64, 8), p8.tree().shape(3_089), "small data: p^2 -> p");
    assertEquals(List.of(123), p8.tree().shape(1_000_000), "no merge round at any fanout");
    assertEquals(List.of(7), p8.tree().shape(49_990), "7 <= 8^2: one level");
  }

  /** Hinge losses whose blocks of m rows would solve with C B above sodm.train.auto.block.c (32) take blocks of up to 3m rows. */
  @Test
  void largeBlockCTakesLargerFinalBlocks() {
    TrainSpec c32 = spec(Param.LOSS.key(), "hinge", Param.C.key(), "32");
    assertEquals(24_576, c32.tree().autoBlockBound());
    long[] n = {10_001, 12_000, 24_576, 24_577, 49_990, 100_000, 200_000, 393_216, 393_217, 1_000_000};
    List<List<Integer>> want = List.of(List.of(1), List.of(1), List.of(1), List.of(2), List.of(3), List.of(5), List.of(9), List.of(16),
        List.of(17), List.of(41));
    for (int i = 0; i < n.length; i++) assertEquals(want.get(i), c32.tree().shape(n[i]), "C = 32, n = " + n[i]);
    assertTrue(c32.tree().enlarged(49_990));
    assertEquals(224, c32.tree().smallBlocksC(49_990), 1e-12);
    assertTrue(c32.tree().enlarged(1_000_000), "the larger blocks at any n: 41 of 3m rows, not 123 of m");

    // C B = 1 x 7: blocks of m rows; 4 x 13 = 52 > 32: the larger blocks
    assertEquals(List.of(7), spec(Param.LOSS.key(), "hinge", Param.C.key(), "1").tree().shape(49_990));
    assertEquals(List.of(4), spec(Param.LOSS.key(), "hinge", Param.C.key(), "8").tree().shape(32_561), "C B = 32 is not above 32");
    assertEquals(List.of(5), spec(Param.LOSS.key(), "hinge", Param.C.key(), "4").tree().shape(100_000), "C B = 52");
    assertEquals(List.of(3), spec(Param.LOSS.key(), "squared-hinge", Param.C.key(), "32").tree().shape(49_990));
    assertEquals(List.of(3), spec(Param.LOSS.key(), "hinge", Param.C.key(), "8", Param.WEIGHT_POSITIVE.key(), "4").tree().shape(49_990),
        "the larger class weight: 8 x 4 x 7 > 32");
    assertEquals(List.of(3), spec(Param.LOSS.key(), "hinge", Param.C.key(), "8", Param.CLASS_WEIGHTS.key(), "2:4,3:0.5").tree().shape(49_990),
        "the heaviest class weight (--class-weights) as the larger of --weight-positive / --weight-negative");
    assertEquals(List.of(7), spec(Param.LOSS.key(), "hinge", Param.C.key(), "1", Param.CLASS_WEIGHTS.key(), "2:0.5").tree().shape(49_990),
        "weights below 1 do not lower C B");
    assertEquals(List.of(7), spec(Param.LOSS.key(), "hinge", Param.C.key(), "32", Param.BLOCK_C.key(), "same").tree().shape(49_990),
        "--block-c same: blocks keep C");
    assertEquals(List.of(7), spec(Param.LOSS.key(), "hinge", Param.C.key(), "32", Param.AUTO_BLOCK_C.key(), "1000").tree().shape(49_990));
    assertEquals(List.of(3), spec(Param.LOSS.key(), "hinge", Param.C.key(), "1", Param.AUTO_BLOCK_C.key(), "0").tree().shape(49_990),
        "0: always the larger blocks");
    assertEquals(List.of(2), spec(Param.LOSS.key(), "hinge", Param.C.key(), "32", Param.AUTO_BLOCK_ROWS.key(), "30000").tree()
        .shape(49_990));
    assertEquals(List.of(41), spec(Param.LOSS.key(), "hinge", Param.C.key(), "32", Param.FANOUT.key(), "8").tree().shape(1_000_000),
        "the fanout does not change the automatic shape");
  }

  @Test
  void explicitChoicesOverrideTheRule() {
    assertFalse(spec(Param.LEVELS.key(), "2").tree().auto());
    assertEquals(List.of(16, 4), spec(Param.LEVELS.key(), "2").tree().shape(1_000_000));
    assertEquals(List.of(8, 2), spec(Param.PARTITIONS.key(), "8").tree().shape(1_000_000));
    assertEquals(List.of(8), spec(Param.LEVELS.key(), "1", Param.FANOUT.key(), "8").tree().shape(1_000_000));
    assertEquals(List.of(16, 4), spec(Param.EXACT_BELOW_ROWS.key(), "2000000").tree().shape(1_000_000),
        "data that ends with the exact block keeps p^2 -> p");
    assertEquals(List.of(492), spec(Param.PARTITIONS.key(), "492", Param.MAX_BLOCK_ROWS.key(), "5000").tree().levelBlocks(1_000_000),
        "--max-block-rows still cuts the merge of a tree given explicitly");
    assertEquals(List.of(123), spec(Param.MAX_BLOCK_ROWS.key(), "5000").tree().levelBlocks(1_000_000), "the automatic level is run");
  }

  /** Each block's index, ids and coefficients: models equal bit for bit in what they predict with. */
  static List<Object> coefficients(ModelRecord r) {
    List<Object> all = new ArrayList<>();
    for (BlockModel b : r.getBlocks()) {
      all.add(b.getBlock());
      all.add(b.getIds());
      all.add(b.getCoef());
    }
    return all;
  }

  private ModelRecord train(String out, String... kv) throws IOException {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(SodmConf.CACHE_MB, "1"); // m = 512 rows
    conf.set(SodmConf.FANOUT, "2");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "1000"); // svmguide1's 3,089 rows then take the automatic shape
    for (int i = 0; i < kv.length; i += 2) conf.set(kv[i], kv[i + 1]);
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        null, new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), l -> {});
    return ModelFiles.readRecord(conf, r.modelPath());
  }

  /** The automatic tree builds the model of the same shape given explicitly: ceil(3089 / 512) = 7 blocks, one level. */
  @Test
  void modelEqualsTheExplicitShape() throws IOException {
    assertEquals(List.of(7), spec(Param.CACHE_MB.key(), "1", Param.FANOUT.key(), "2", Param.EXACT_BELOW_ROWS.key(), "1000",
        Param.LOSS.key(), "hinge", Param.C.key(), "2").tree().shape(3_089), "C B = 14 <= 32: blocks of m rows");
    ModelRecord auto = train("auto");
    ModelRecord explicit = train("explicit", SodmConf.PARTITIONS, "7", SodmConf.MAX_BLOCK_ROWS, "512");
    assertEquals(7, auto.getBlocks().size());
    assertEquals(coefficients(explicit), coefficients(auto));
  }

  /**
   * Local mode runs all of a level's 7 blocks at once on 4 task slots (two rounds of 4 would leave 3 slots idle in the
   * second) and 3 at a time on 3 slots (7 >= 2 x 3: rounds of 3); the level's reduce tasks show it (one output part
   * each), and the model is that of one block at a time.
   */
  @Test
  void aLastRoundWithIdleSlotsRunsWithTheOthers() throws IOException {
    ModelRecord one = train("p1", Jobs.LOCAL_PARALLELISM, "1");
    ModelRecord three = train("p3", Jobs.LOCAL_PARALLELISM, "3");
    ModelRecord four = train("p4", Jobs.LOCAL_PARALLELISM, "4");
    assertEquals(7, one.getBlocks().size());
    assertEquals(coefficients(one), coefficients(three));
    assertEquals(coefficients(one), coefficients(four));
    assertEquals(1, solveTasks("p1"));
    assertEquals(3, solveTasks("p3"));
    assertEquals(7, solveTasks("p4"));
  }

  /** The reduce tasks of the run's level job: its output parts. */
  private long solveTasks(String out) throws IOException {
    try (var levels = Files.list(tmp.resolve(out).resolve("work"))) {
      Path level = levels.filter(p -> p.getFileName().toString().startsWith("level-")).findFirst().orElseThrow();
      try (var parts = Files.list(level.resolve("data"))) {
        return parts.filter(p -> p.getFileName().toString().startsWith("part-r-")).count();
      }
    }
  }

  /**
   * Binary data of at most sodm.train.exact.below.rows rows with the automatic tree: one block of every row in one job (the
   * tree would only have warm-started that one exact block): one level, no landmarks, and the same optimum as the tree of
   * 4 blocks ending in the exact block (dual objective within the solver's tolerance, the same support vectors' labels on the
   * test set). Given --partitions, the tree is kept.
   */
  @Test
  void smallBinaryDataIsOneBlockInOneJob() throws IOException {
    List<String> progress = new ArrayList<>();
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    TrainPipeline.Result one = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        null, new org.apache.hadoop.fs.Path(tmp.resolve("one").toString()), false), progress::add);
    assertTrue(progress.stream().anyMatch(l -> l.contains("one block, solved in one job")), String.join("\n", progress));
    assertEquals(1, one.levels().size(), "one level");
    assertEquals(1, one.levels().get(0).getBlocks());
    assertTrue(progress.stream().noneMatch(l -> l.contains("landmarks  ") && !l.contains("none")), String.join("\n", progress));
    conf.set(SodmConf.PARTITIONS, "4");
    TrainPipeline.Result tree = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        null, new org.apache.hadoop.fs.Path(tmp.resolve("tree").toString()), false), l -> {});
    assertTrue(tree.levels().size() >= 2, "the tree then the exact block: " + tree.levels().size() + " levels");
    double a = one.levels().get(0).getObjective();
    double b = tree.levels().get(tree.levels().size() - 1).getObjective();
    assertEquals(b, a, 1e-3 * Math.abs(b), "the same optimum: " + a + " vs " + b);
    org.sodm.data.LibsvmReader.Data test = org.sodm.data.LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
    int same = 0;
    for (int i = 0; i < test.size(); i++) if (one.model().predict(test.x()[i]).equals(tree.model().predict(test.x()[i]))) same++;
    assertTrue(same >= test.size() - 3, same + " of " + test.size() + " test labels equal");
  }

  /**
   * --block-c-rows R below n: the blocks solve with C B R / n. The model equals the one whose blocks are given that C with
   * --block-c same (bit for bit: the same solves, the same common offset's box), and differs from C B's.
   */
  @Test
  void blockCRowsGivesTheBlocksCTimesBRoverN() throws IOException {
    double factor = org.sodm.solver.WarmStart.cFactor(7, 3_089, 1_000);
    assertEquals(7 * 1000 / 3089.0, factor, 1e-15);
    TrainSpec s = spec(Param.CACHE_MB.key(), "1", Param.EXACT_BELOW_ROWS.key(), "1000", Param.LOSS.key(), "hinge", Param.C.key(), "2",
        Param.BLOCK_C_ROWS.key(), "1000");
    assertEquals(List.of(7), s.tree().shape(3_089));
    assertEquals(factor, s.blockCFactor(7, 3_089), 0);
    assertEquals(7.0, s.blockCFactor(7, 1_000), 0, "n <= R: C B");
    assertEquals(1.0, spec(Param.BLOCK_C.key(), "same", Param.BLOCK_C_ROWS.key(), "1000").blockCFactor(7, 3_089), 0);
    ModelRecord capped = train("capped", Param.BLOCK_C_ROWS.key(), "1000");
    ModelRecord same = train("same", SodmConf.PARTITIONS, "7", SodmConf.MAX_BLOCK_ROWS, "512", Param.BLOCK_C.key(), "same",
        SodmConf.C, Double.toString(2 * factor));
    ModelRecord scaled = train("scaled");
    assertEquals(7, capped.getBlocks().size());
    assertEquals(coefficients(same), coefficients(capped));
    assertNotEquals(coefficients(scaled), coefficients(capped));
  }

  /** The bound enters the automatic tree's test for larger blocks: C times the bounded factor of blocks of m rows. */
  @Test
  void blockCRowsEntersTheAutomaticTreesRule() {
    // C = 1, 1M rows: 123 blocks of m rows solve with C B = 123 unbounded (larger blocks: 41), 123 R / n = 16.1 with R = 131,072
    assertEquals(List.of(41), spec(Param.LOSS.key(), "hinge", Param.C.key(), "1", Param.BLOCK_C_ROWS.key(), "0").tree().shape(1_000_000));
    assertEquals(List.of(123), spec(Param.LOSS.key(), "hinge", Param.C.key(), "1").tree().shape(1_000_000));
    assertEquals(List.of(41), spec(Param.LOSS.key(), "hinge", Param.C.key(), "4").tree().shape(1_000_000), "4 x 16.1 > 32");
    assertEquals(123 * 131_072 / 1e6, spec(Param.LOSS.key(), "hinge", Param.C.key(), "1").tree().smallBlocksC(1_000_000), 1e-12);
  }
}
