package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockStats;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.TrainRecord;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/**
 * The automatic tree's separable-blocks rule: a hinge level of blocks of m rows with fewer than
 * sodm.train.auto.bounded.share of its support vectors at their bound C B is solved again as the larger blocks. 3,000 rows
 * with a 1 MB cache: 6 blocks of 500 rows (m = 512, C B = 6, below sodm.train.auto.block.c), larger blocks of at most 3m =
 * 1,536 rows: 2.
 */
class SeparableBlocksTest {
  @TempDir Path tmp;

  /** Two discs of radius 0.15 around (0.25, 0.25) (+1) and (0.75, 0.75) (-1); {@code flip} of the labels flipped. */
  private Path data(String name, double flip) throws IOException {
    return data(name, flip, 0);
  }

  /**
   * The discs with {@code pad} features 3, 4, ... of value 1 in every row: stored values that weigh on a block's memory
   * estimate but, equal in every row, leave every distance and so the RBF kernel as it is (the data must then not be scaled:
   * svm-scale's rule drops a constant feature).
   */
  private Path data(String name, double flip, int pad) throws IOException {
    Random r = new Random(7);
    Path f = tmp.resolve(name);
    StringBuilder padding = new StringBuilder();
    for (int j = 0; j < pad; j++) padding.append(' ').append(j + 3).append(":1");
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(f))) {
      w.println("+1 1:0 2:0" + padding); // the corners fix the [0,1] scaling of both sets
      w.println("-1 1:1 2:1" + padding);
      for (int i = 0; i < 2_998; i++) {
        boolean positive = i % 2 == 0;
        double angle = 2 * Math.PI * r.nextDouble();
        double radius = 0.15 * Math.sqrt(r.nextDouble());
        double c = positive ? 0.25 : 0.75;
        boolean label = r.nextDouble() < flip ? !positive : positive;
        w.printf(Locale.ROOT, "%s 1:%.6f 2:%.6f%s%n", label ? "+1" : "-1", c + radius * Math.cos(angle), c + radius * Math.sin(angle),
            padding);
      }
    }
    return f;
  }

  private record Run(ModelRecord model, TrainPipeline.Result result, List<String> progress, Path out) {}

  /** Hinge C = 1, gamma = 2 on [0,1]-scaled rows, a 1 MB cache (m = 512 rows), the tree above 1,000 rows; then {@code kv}. */
  private Configuration conf(String... kv) {
    Configuration conf = LocalConf.create(tmp);
    String[] all = {SodmConf.INGEST_SCALE, "0,1", SodmConf.LOSS, "hinge", SodmConf.C, "1", SodmConf.GAMMA, "2", SodmConf.CACHE_MB, "1",
        Param.EXACT_BELOW_ROWS.key(), "1000"};
    for (int i = 0; i < all.length; i += 2) conf.set(all[i], all[i + 1]);
    for (int i = 0; i < kv.length; i += 2) conf.set(kv[i], kv[i + 1]);
    return conf;
  }

  private Run train(Path input, String out, String... kv) throws IOException {
    Configuration conf = conf(kv);
    List<String> progress = new ArrayList<>();
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(input.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), progress::add);
    return new Run(ModelFiles.readRecord(conf, r.modelPath()), r, progress, tmp.resolve(out));
  }

  /**
   * The share of the m-row level's support vectors at the bound C B = 6, counted from its records' alpha (not from the
   * blocks' own count), and that the blocks' count in their stats agrees.
   */
  private static double boundedShareOfTheLevel(Run run) throws IOException {
    Path level;
    try (var dirs = Files.list(run.out().resolve("work"))) {
      level = dirs.filter(p -> p.getFileName().toString().startsWith("level-")).findFirst().orElseThrow();
    }
    Configuration conf = new Configuration();
    List<TrainRecord> records = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(level.resolve("data").toString()));
    List<BlockStats> stats = TrainIO.readStats(conf, new org.apache.hadoop.fs.Path(level.resolve("stats").toString()));
    assertEquals(6, stats.size());
    long sv = 0;
    long bounded = 0;
    for (TrainRecord r : records) {
      double a = r.getAlpha().get(0);
      if (a > 0) sv++;
      if (a >= 6 * (1 - 1e-9)) bounded++;
      assertTrue(a <= 6 * (1 + 1e-12), "alpha " + a + " above C B = 6");
    }
    assertEquals(sv, stats.stream().mapToLong(BlockStats::getSupportVectors).sum());
    assertEquals(bounded, stats.stream().mapToLong(BlockStats::getBoundedSupportVectors).sum(), "the blocks' count of bounded SVs");
    assertTrue(sv > 0);
    return (double) bounded / sv;
  }

  @Test
  void separatedBlocksAreSolvedAgainAsTheLargerBlocks() throws IOException {
    Path separable = data("separable.libsvm", 0);
    Run run = train(separable, "auto");
    assertTrue(boundedShareOfTheLevel(run) < 0.01, "the discs are separable in every block");
    String log = String.join("\n", run.progress());
    assertTrue(log.contains("separable") && log.contains("solved again as 2 blocks of at most 1,500 rows"), log);
    assertEquals(2, run.model().getBlocks().size());
    assertEquals(1, run.result().levels().size(), "the larger level replaces the m-row level in the report");
    assertEquals(2, run.result().levels().get(0).getBlocks());
    // the model is the one of the larger blocks chosen directly (sodm.train.auto.block.c 0: always the larger blocks)
    Run direct = train(separable, "direct", Param.AUTO_BLOCK_C.key(), "0");
    assertFalse(String.join("\n", direct.progress()).contains("separable    "));
    assertEquals(TreeShapeTest.coefficients(direct.model()), TreeShapeTest.coefficients(run.model()));

    Run off = train(separable, "off", Param.AUTO_BOUNDED_SHARE.key(), "0");
    assertEquals(6, off.model().getBlocks().size(), "0 turns the rule off");
  }

  /**
   * sodm cv's fold models are train's: the folds take the shape of the whole data (6 blocks; 3 folds x 6 = 18 in the level),
   * their blocks separate their rows, and every fold takes the 2 larger blocks (the share pooled over the folds' blocks).
   */
  @Test
  void crossValidationFoldsTakeTheLargerBlocksToo() throws IOException {
    Run cv = train(data("separable.libsvm", 0), "cv", TrainKeys.CV_FOLDS, "3");
    String log = String.join("\n", cv.progress());
    assertTrue(log.contains("separable") && log.contains("solved again as 2 blocks of at most 1,500 rows"), log);
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(
        cv.out().resolve(TrainPipeline.REPORT).toFile(), java.util.Map.class);
    assertEquals(java.util.Map.of("blocks", 6, "largerBlocks", 2), java.util.Map.of("blocks", ((java.util.Map<?, ?>) report.get("separable"))
        .get("blocks"), "largerBlocks", ((java.util.Map<?, ?>) report.get("separable")).get("largerBlocks")));
    assertTrue(((Number) ((java.util.Map<?, ?>) report.get("cv")).get("accuracy")).doubleValue() > 0.999, "separable discs");
  }

  /**
   * --phase: a run stopped after the m-row level (--phase level-N) and resumed decides from that level's stats and solves the
   * larger blocks; a run stopped after the larger level (--phase larger) resumed writes the model. Both equal the
   * uninterrupted run's model.
   */
  @Test
  void stoppedAndResumedRunsGiveTheSameModel() throws IOException {
    Path separable = data("separable.libsvm", 0);
    Run whole = train(separable, "whole");
    String level;
    try (var dirs = Files.list(whole.out().resolve("work"))) {
      level = dirs.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("level-")).findFirst().orElseThrow();
    }
    for (String phase : new String[] {level, KernelTreeTrainer.LARGER}) {
      Configuration conf = conf();
      org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(tmp.resolve("stop-" + phase).toString());
      TrainPipeline.Result stopped = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(separable.toString()), null, out, false,
          phase), l -> {});
      assertNull(stopped.modelPath(), "stopped after " + phase);
      assertEquals(phase.equals(KernelTreeTrainer.LARGER), Files.exists(tmp.resolve("stop-" + phase).resolve("work").resolve("larger")));
      TrainPipeline.Result resumed = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(separable.toString()), null, out, true),
          l -> {});
      assertEquals(TreeShapeTest.coefficients(whole.model()), TreeShapeTest.coefficients(ModelFiles.readRecord(conf,
          resumed.modelPath())), "resumed after " + phase);
    }
  }

  /**
   * Larger blocks beyond the task heap are not solved: the run says so in a WARNING line and the report, and the mean of the
   * m-row blocks is the model. A child JVM of -Xmx192m (two solve tasks at once: ~86 MB usable each) trains the separable discs
   * padded to 1,002 stored values a row (~76 KB a row in the memory estimate): the 6 blocks of 500 rows need ~39 MB, the 2
   * larger blocks of 1,500 rows ~116 MB.
   */
  @Test
  void largerBlocksBeyondTheHeapLeaveTheMeanOfTheBlocks() throws Exception {
    Path padded = data("padded.libsvm", 0, 1_000);
    Path out = tmp.resolve("small-heap");
    List<String> cmd = TrainPhasesAndFaultsTest.sodmCommandWithHeap(tmp, "192m", "train", "-i", padded.toString(), "-o",
        out.toString(), "--loss", "hinge", "-c", "1", "-g", "2", "--cache-mb", "1", "-D", Param.EXACT_BELOW_ROWS.key() + "=1000",
        "-D", "sodm.local.parallelism=2", "-D", "mapreduce.task.io.sort.mb=16");
    Path log = tmp.resolve("small-heap.log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "the child run finished");
    String text = Files.readString(log);
    assertEquals(0, p.exitValue(), text);
    assertTrue(text.contains("WARNING: separable") && text.contains("the larger blocks do not fit the task heap, so the mean of the 6 "
        + "blocks is the model") && text.contains("Nothing was solved"), text);
    assertFalse(text.contains("OutOfMemoryError"), text);
    assertFalse(Files.exists(out.resolve("work").resolve(KernelTreeTrainer.LARGER)), "no larger level was written");
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> separable = (java.util.Map<String, Object>) new com.fasterxml.jackson.databind.ObjectMapper()
        .readValue(out.resolve(TrainPipeline.REPORT).toFile(), java.util.Map.class).get("separable");
    assertEquals(6, separable.get("blocks"));
    assertEquals(0, separable.get("largerBlocks"));
    assertTrue(String.valueOf(separable.get("notSolved")).contains("Nothing was solved"), String.valueOf(separable));
    // the model is the 6 blocks' mean: the same model as the rule turned off, trained here in the test's own (large) heap
    Configuration conf = conf();
    ModelRecord child = ModelFiles.readRecord(conf, new org.apache.hadoop.fs.Path(out.resolve(org.sodm.jobs.phase.TrainOutput.MODEL).toString()));
    Run off = train(padded, "padded-off", SodmConf.INGEST_SCALE, "none", Param.AUTO_BOUNDED_SHARE.key(), "0");
    assertEquals(6, off.model().getBlocks().size());
    assertEquals(TreeShapeTest.coefficients(off.model()), TreeShapeTest.coefficients(child));
    Run on = train(padded, "padded-on", SodmConf.INGEST_SCALE, "none");
    assertEquals(2, on.model().getBlocks().size(), "with the heap for them the larger blocks are solved");
  }

  /**
   * sodm.solver.threads: the padded discs' 1,002 values a row make every kernel column ~1.5 million operations, computed in
   * parts by 3 threads; the model is the one-thread model, coefficient for coefficient.
   */
  @Test
  void solveThreadsGiveTheSameModel() throws IOException {
    Path padded = data("padded.libsvm", 0.05, 1_000);
    Run one = train(padded, "threads-1", SodmConf.INGEST_SCALE, "none", Param.SOLVER_THREADS.key(), "1");
    Run three = train(padded, "threads-3", SodmConf.INGEST_SCALE, "none", Param.SOLVER_THREADS.key(), "3");
    assertEquals(TreeShapeTest.coefficients(one.model()), TreeShapeTest.coefficients(three.model()));
    assertTrue(one.model().getBlocks().stream().mapToInt(b -> b.getIds().size()).sum() > 50, "noisy discs: many support vectors");
  }

  @Test
  void blocksWithMarginErrorsKeepTheirMean() throws IOException {
    Run run = train(data("noisy.libsvm", 0.1), "noisy");
    assertTrue(boundedShareOfTheLevel(run) >= 0.01, "a tenth of the labels flipped: errors at the bound in every block");
    assertFalse(String.join("\n", run.progress()).contains("separable    "), String.join("\n", run.progress()));
    assertEquals(6, run.model().getBlocks().size());
  }

  /** A level written before the blocks counted their bounded support vectors (-1) gives no share: the rule does not apply. */
  @Test
  void uncountedBlocksGiveNoShare() {
    BlockStats counted = BlockStats.newBuilder().setLevel(2).setBlock(0).setSize(10).setPositives(5).setObjective(0)
        .setInitialViolation(0).setMaxViolation(0).setEpochs(1).setSupportVectors(8).setKernelEvaluations(0).setCacheHits(0)
        .setSeconds(0).setConverged(true).setBoundedSupportVectors(2).build();
    BlockStats other = BlockStats.newBuilder(counted).setBlock(1).setSupportVectors(12).setBoundedSupportVectors(0).build();
    assertArrayEquals(new double[] {0.1, 20}, KernelTreeTrainer.boundedShare(List.of(counted, other)), 1e-15);
    assertNull(KernelTreeTrainer.boundedShare(List.of(counted, BlockStats.newBuilder(other).setBoundedSupportVectors(-1).build())));
    assertEquals(-1, BlockStats.newBuilder().setLevel(2).setBlock(0).setSize(10).setPositives(5).setObjective(0)
        .setInitialViolation(0).setMaxViolation(0).setEpochs(1).setSupportVectors(8).setKernelEvaluations(0).setCacheHits(0)
        .setSeconds(0).setConverged(true).build().getBoundedSupportVectors(), "the schema's default");
  }
}
