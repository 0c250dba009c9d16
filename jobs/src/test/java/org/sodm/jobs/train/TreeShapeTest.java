package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
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
    // defaults: --levels auto, fanout 4, 256 MB cache (m = 8,192 rows, final blocks of up to 3m = 24,576), exact below 10,000 rows
    TrainSpec d = spec();
    assertTrue(d.tree().auto());
    assertEquals(24_576, d.tree().autoBlockBound());
    long[] n = {12, 3_089, 10_000, 10_001, 16_384, 24_576, 24_577, 32_561, 49_990, 131_072, 196_046, 393_216, 393_217, 1_000_000,
        4_000_000};
    List<List<Integer>> want = List.of(List.of(16, 4), List.of(16, 4), List.of(16, 4), List.of(1), List.of(1), List.of(1), List.of(2),
        List.of(2), List.of(3), List.of(6), List.of(8), List.of(16), List.of(196, 49), List.of(492, 123), List.of(1956, 489));
    for (int i = 0; i < n.length; i++) assertEquals(want.get(i), d.tree().shape(n[i]), "n = " + n[i]);

    TrainSpec small = spec(Param.CACHE_MB.key(), "64"); // m = 4,096, final blocks of up to 12,288 rows
    assertEquals(List.of(5), small.tree().shape(49_990));
    assertEquals(List.of(16), small.tree().shape(196_608));
    assertEquals(List.of(196, 49), small.tree().shape(196_609), "more than p^2 blocks of 3m: p B -> B blocks of m rows");
    TrainSpec p8 = spec(Param.FANOUT.key(), "8");
    assertEquals(List.of(64, 8), p8.tree().shape(3_089), "small data: p^2 -> p");
    assertEquals(List.of(41), p8.tree().shape(1_000_000), "41 blocks of 3m <= 8^2: one level");
    assertEquals(List.of(3912, 489), p8.tree().shape(4_000_000), "163 blocks of 3m > 8^2: a bottom level of 8 x 489");
    TrainSpec m = spec(Param.AUTO_BLOCK_ROWS.key(), "8192"); // the rule before: final blocks of m rows
    assertEquals(List.of(7), m.tree().shape(49_990));
    assertEquals(List.of(100, 25), m.tree().shape(200_000));
    assertEquals(List.of(2), spec(Param.AUTO_BLOCK_ROWS.key(), "30000").tree().shape(49_990));
  }

  @Test
  void explicitChoicesOverrideTheRule() {
    assertFalse(spec(Param.LEVELS.key(), "2").tree().auto());
    assertEquals(List.of(16, 4), spec(Param.LEVELS.key(), "2").tree().shape(1_000_000));
    assertEquals(List.of(8, 2), spec(Param.PARTITIONS.key(), "8").tree().shape(1_000_000));
    assertEquals(List.of(8), spec(Param.LEVELS.key(), "1", Param.FANOUT.key(), "8").tree().shape(1_000_000));
    assertEquals(List.of(16, 4), spec(Param.EXACT_BELOW_ROWS.key(), "2000000").tree().shape(1_000_000),
        "data that ends with the exact block keeps p^2 -> p");
    assertEquals(List.of(492), spec(Param.MAX_BLOCK_ROWS.key(), "5000").tree().levelBlocks(1_000_000),
        "--max-block-rows still cuts the merge");
  }

  private static List<Object> coefficients(ModelRecord r) {
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
    conf.set(Param.AUTO_BLOCK_ROWS.key(), "512"); // final blocks of m rows: more than p^2 of them, so the two-level shape
    for (int i = 0; i < kv.length; i += 2) conf.set(kv[i], kv[i + 1]);
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        null, new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), l -> {});
    return ModelFiles.readRecord(conf, r.modelPath());
  }

  /**
   * The automatic tree builds the model of the same shape given explicitly: with final blocks of at most m = 512 rows,
   * ceil(3089 / 512) = 7 > 2^2, so 14 -> 7 blocks.
   */
  @Test
  void modelEqualsTheExplicitShape() throws IOException {
    assertEquals(List.of(14, 7), spec(Param.CACHE_MB.key(), "1", Param.FANOUT.key(), "2", Param.EXACT_BELOW_ROWS.key(), "1000",
        Param.AUTO_BLOCK_ROWS.key(), "512").tree().shape(3_089));
    ModelRecord auto = train("auto");
    ModelRecord explicit = train("explicit", SodmConf.PARTITIONS, "14", SodmConf.MAX_BLOCK_ROWS, "512");
    assertEquals(7, auto.getBlocks().size());
    assertEquals(coefficients(explicit), coefficients(auto));
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
}
