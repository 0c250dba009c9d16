package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockModel;
import org.sodm.avro.ModelRecord;
import org.sodm.data.LibsvmReader;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelModel;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.Loss;
import org.sodm.solver.SolveResult;
import org.sodm.testing.LocalConf;

/** The training pipeline end to end in Hadoop local mode. */
class TrainPipelineTest {
  @TempDir Path tmp;
  private Configuration conf;
  private final List<String> progress = new ArrayList<>();

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(Param.OFFSET.key(), "false"); // the references are the box-constrained dual without LIBSVM's offset (KernelDualSolver)
    conf.set(Param.LEVELS.key(), "2"); // the tree of 16 -> 4 blocks and then the exact block (the automatic tree is one block here)
  }

  private TrainPipeline.Result train(String out, boolean resume, String... validation) throws IOException {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        validation.length == 0 ? null : List.of(validation), new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), resume),
        progress::add);
  }

  private static List<Object> coefficients(ModelRecord r) {
    List<Object> all = new ArrayList<>();
    for (BlockModel b : r.getBlocks()) {
      all.add(b.getBlock());
      all.add(b.getIds());
      all.add(b.getCoef());
      all.add(b.getBias());
    }
    return all;
  }

  /** svmguide1 scaled, hinge C=2 gamma=2: LIBSVM reaches 96.48%; the merge tree must be within 1 point. */
  @Test
  void accuracyNearLibsvmDeterministicAndPredictAgrees() throws IOException {
    TrainPipeline.Result a = train("m1", false, LocalConf.sampleData("svmguide1.t").toString());
    Double acc = a.levels().get(a.levels().size() - 1).getValidationAccuracy();
    assertNotNull(acc);
    assertTrue(acc >= 0.9548, "accuracy " + acc + " below LIBSVM's 96.48% minus 1 point");
    assertEquals(List.of(2, 1, 0), a.levels().stream().map(l -> l.getLevel()).toList(),
        "16 blocks, then 4, then (3,089 rows <= sodm.train.exact.below.rows) one exact block");
    assertEquals(16, a.levels().get(0).getBlocks());
    assertEquals(4, a.levels().get(1).getBlocks());
    assertEquals(1, a.levels().get(2).getBlocks());
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("exact") && l.contains("(n <= 10000 rows) one block")), String.join("\n", progress));
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 2") && l.contains("acc ")), String.join("\n", progress));

    // same seed, same coefficients; also with one reduce task per block instead of the local default
    conf.setInt(SodmConf.TRAIN_REDUCERS, 16);
    TrainPipeline.Result b = train("m2", false);
    ModelRecord ra = ModelFiles.readRecord(conf, a.modelPath());
    ModelRecord rb = ModelFiles.readRecord(conf, b.modelPath());
    assertEquals(coefficients(ra), coefficients(rb));
    // and through LocalJobRunner: the jobs above ran in this process (small local inputs), the same model either way
    conf.setLong(org.sodm.jobs.support.InProcessJob.MAX_BYTES, 0);
    TrainPipeline.Result c = train("m3", false, LocalConf.sampleData("svmguide1.t").toString());
    assertEquals(coefficients(ra), coefficients(ModelFiles.readRecord(conf, c.modelPath())));
    assertEquals(acc, c.levels().get(c.levels().size() - 1).getValidationAccuracy(), "validation scoring's counters");
    conf.unset(org.sodm.jobs.support.InProcessJob.MAX_BYTES);

    // the predict job gives the accuracy the driver measured, from a re-read model
    PredictJob.Result p = PredictJob.run(conf, a.modelPath(), List.of(LocalConf.sampleData("svmguide1.t").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString()));
    assertEquals(4000, p.rows());
    assertEquals(acc, p.metrics().accuracy(), 1e-12);
    assertTrue(Files.exists(tmp.resolve("pred").resolve(PredictJob.METRICS)));
  }

  /**
   * The model does not depend on the file system's block size (local 32 MB, HDFS 128 MB): ingest
   * cuts its input by sodm.ingest.split.bytes and the dealing reads one ingested part per task.
   * With 16 KB blocks and split.maxsize (11 splits of the input, and of an ingested part, if the
   * file system decided), the tree's averaged blocks are the same as with the defaults.
   */
  @Test
  void theModelIsTheSameWhateverTheFileSystemsBlockSize() throws IOException {
    conf.setLong(SodmConf.EXACT_BELOW_ROWS, 0); // the averaged blocks, which depend on the dealing
    conf.set(SodmConf.LEVELS, "2"); // 16 -> 4 (the automatic shape takes one block for 3,089 rows)
    ModelRecord a = ModelFiles.readRecord(conf, train("fs-default", false).modelPath());
    conf.setLong("fs.local.block.size", 16384);
    conf.setLong("mapreduce.input.fileinputformat.split.maxsize", 16384);
    ModelRecord b = ModelFiles.readRecord(conf, train("fs-16k", false).modelPath());
    assertEquals(4, a.getBlocks().size());
    assertEquals(coefficients(a), coefficients(b));
    // sodm's own split size is a parameter: the parts, and so the dealing, follow it
    conf.setLong(org.sodm.jobs.spec.Param.INGEST_SPLIT_BYTES.key(), 16384);
    ModelRecord c = ModelFiles.readRecord(conf, train("split-16k", false).modelPath());
    assertNotEquals(coefficients(a), coefficients(c));
  }

  /** Data of at most sodm.train.exact.below.rows rows ends with one exact block: the --exact model; one row more, the tree's 4. */
  @Test
  void smallDataEndsWithTheExactModelAndTheThresholdIsInclusive() throws IOException {
    TrainPipeline.Result auto = train("auto", false);
    assertEquals(1, ((KernelModel) auto.model()).blockCount());
    // the report stays valid JSON: the exact level has no initial violation (null, not NaN)
    com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper()
        .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .readTree(Files.readString(tmp.resolve("auto").resolve(TrainPipeline.REPORT)));
    com.fasterxml.jackson.databind.JsonNode reported = report.get("levels");
    assertEquals(3, reported.size());
    assertTrue(reported.get(2).get("maxInitialViolation").isNull());
    assertEquals(1, report.get("blocks").intValue());
    conf.setBoolean(SodmConf.EXACT, true);
    TrainPipeline.Result exact = train("exact", false);
    assertEquals(coefficients(ModelFiles.readRecord(conf, exact.modelPath())), coefficients(ModelFiles.readRecord(conf, auto.modelPath())));
    conf.setBoolean(SodmConf.EXACT, false);
    conf.setLong(SodmConf.EXACT_BELOW_ROWS, 3089); // svmguide1's rows: still exact
    assertEquals(1, ((KernelModel) train("at", false).model()).blockCount());
    // the automatic tree (no --levels) on data this small: the one block of every row, directly, in one job; the same optimum
    conf.set(SodmConf.LEVELS, "auto");
    TrainPipeline.Result direct = train("direct", false);
    assertEquals(List.of(List.of(2, 1)), direct.levels().stream().map(l -> List.of(l.getLevel(), l.getBlocks())).toList());
    double exactObjective = auto.levels().get(2).getObjective();
    assertEquals(exactObjective, direct.levels().get(0).getObjective(), 1e-3 * Math.abs(exactObjective));
    conf.setLong(SodmConf.EXACT_BELOW_ROWS, 3088);
    // above the threshold the automatic tree (issue 18) holds all 3,089 rows in one block: the cache fits their kernel matrix
    TrainPipeline.Result one = train("above-auto", false);
    assertEquals(List.of(List.of(2, 1)), one.levels().stream().map(l -> List.of(l.getLevel(), l.getBlocks())).toList());
    conf.set(SodmConf.LEVELS, "2"); // the fixed tree: the 4 averaged blocks, no exact block
    TrainPipeline.Result tree = train("above", false);
    assertEquals(List.of(2, 1), tree.levels().stream().map(l -> l.getLevel()).toList());
    assertEquals(4, ((KernelModel) tree.model()).blockCount());
    conf.setLong(SodmConf.EXACT_BELOW_ROWS, -1);
    RuntimeException e = assertThrows(org.sodm.jobs.spec.BadParameterException.class, () -> train("bad", false));
    assertTrue(e.getMessage().contains(SodmConf.EXACT_BELOW_ROWS), e.getMessage());
  }

  @Test
  void resumeSkipsCompletePhasesAndRejectsChangedParameters() throws IOException {
    TrainPipeline.Result a = train("r", false);
    ModelRecord before = ModelFiles.readRecord(conf, a.modelPath());
    FileUtil.fullyDelete(tmp.resolve("r/work/level-1").toFile());
    Files.delete(tmp.resolve("r/model.avro"));
    progress.clear();
    TrainPipeline.Result b = train("r", true);
    assertTrue(progress.stream().anyMatch(l -> l.contains("(complete, resumed)")), String.join("\n", progress));
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 2*")), "level 2 was reused: " + progress);
    assertEquals(coefficients(before), coefficients(ModelFiles.readRecord(conf, b.modelPath())));

    conf.set(SodmConf.C, "4");
    SodmException e = assertThrows(SodmException.class, () -> train("r", true));
    assertTrue(e.getMessage().contains("sodm.train.c was 2, now 4"), e.getMessage());
    assertThrows(SodmException.class, () -> train("r", false), "existing output without --overwrite");
  }

  /** K = 1: one global block, which must be the single-node solver's optimum. */
  @Test
  void oneBlockEqualsTheSingleNodeSolver() throws IOException {
    conf.set(SodmConf.PARTITIONS, "1");
    TrainPipeline.Result r = train("k1", false);
    assertEquals(1, r.levels().size());
    assertEquals(0, r.levels().get(0).getLevel());
    double pipelineObjective = r.levels().get(0).getObjective();

    LibsvmReader.Data d = LibsvmReader.read(LocalConf.sampleData("svmguide1"));
    StatsAccumulator acc = new StatsAccumulator();
    for (int i = 0; i < d.size(); i++) acc.add(d.labels()[i], d.x()[i], i + 1, "x");
    Scaler s = Scaler.fromStats(acc.toAvro(), 0, 1);
    LibsvmReader.Data scaled = d.scaled(s);
    // independent reference: a tighter solve of the same problem
    SolveResult ref = new KernelDualSolver(KernelSpec.rbf(2).create(),
        new org.sodm.solver.SolverOptions(1e-6, 100000, true, 64L << 20, 7)).solve(scaled.x(), scaled.y(), Loss.hinge(2), null);
    double rel = Math.abs(pipelineObjective - ref.report().dualObjective()) / Math.abs(ref.report().dualObjective());
    assertTrue(rel <= 1e-3, "relative objective gap " + rel);
    // and tightening the pipeline's eps closes the gap to 1e-6
    conf.set(SodmConf.EPS, "1e-6");
    TrainPipeline.Result tight = train("k1tight", false);
    double rel2 = Math.abs(tight.levels().get(0).getObjective() - ref.report().dualObjective()) / Math.abs(ref.report().dualObjective());
    assertTrue(rel2 <= 1e-6, "relative objective gap at eps 1e-6: " + rel2);
    // model = the expansion of that solve
    KernelModel m = (KernelModel) r.model();
    SparseVector x0 = d.x()[0];
    assertEquals(1, m.blockCount());
    double direct = 0;
    var k = KernelSpec.rbf(2).create();
    SolveResult pr = new KernelDualSolver(k, new org.sodm.solver.SolverOptions(1e-3, 5000, true, 256L << 20, 1))
        .solve(scaled.x(), scaled.y(), Loss.hinge(2), null);
    for (int i = 0; i < scaled.size(); i++) direct += pr.coef()[i] * k.eval(scaled.x()[i], s.apply(x0));
    assertEquals(direct, m.decision(x0), 1e-9);
  }

  @Test
  void badParametersFailBeforeAnyJobNamingThem() {
    String[][] cases = {
        {SodmConf.GAMMA, "-1", "--gamma"}, {SodmConf.C, "0", "-c"}, {SodmConf.THETA, "1", "--theta"},
        {SodmConf.MU, "0", "--mu"}, {SodmConf.FANOUT, "1", "--fanout"}, {SodmConf.LANDMARKS, "0", "--landmarks"},
        {SodmConf.PARTITIONER, "voronoi", "--partitioner"}, {SodmConf.LOSS, "exponential", "--loss"},
        {SodmConf.KERNEL, "laplace", "--kernel"}};
    for (String[] c : cases) {
      Configuration bad = new Configuration(conf);
      bad.set(c[0], c[1]);
      RuntimeException e = assertThrows(org.sodm.jobs.spec.BadParameterException.class, () -> TrainPipeline.run(bad, new TrainPipeline.Request(
          List.of("does-not-matter"), null, new org.apache.hadoop.fs.Path(tmp.resolve("bad").toString()), false), progress::add));
      assertTrue(e.getMessage().contains(c[2]) && e.getMessage().contains(c[0]), e.getMessage());
      assertFalse(Files.exists(tmp.resolve("bad")), "nothing written for " + c[0]);
    }
  }

  @Test
  void degenerateDataWorksOrFailsClearly() throws IOException {
    // 12 rows, 4 duplicates, 8 blocks: some blocks hold one class only; many landmarks coincide
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 12; i++) sb.append(i % 3 == 0 ? "+1" : "-1").append(" 1:").append(i % 4 == 0 ? 0.5 : i / 12.0).append(" 2:1\n");
    Path small = tmp.resolve("small.libsvm");
    Files.writeString(small, sb.toString());
    conf.set(SodmConf.INGEST_SCALE, "none");
    conf.set(SodmConf.PARTITIONS, "8");
    conf.set(SodmConf.FANOUT, "2");
    conf.set(SodmConf.LANDMARKS, "20");
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(small.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("deg").toString()), false), progress::add);
    assertEquals(List.of(3, 2, 1, 0), r.levels().stream().map(l -> l.getLevel()).toList());
    assertTrue(r.model().supportVectors() > 0);

    conf.set(SodmConf.PARTITIONS, "13");
    RuntimeException e = assertThrows(org.sodm.jobs.spec.BadParameterException.class, () -> TrainPipeline.run(conf, new TrainPipeline.Request(
        List.of(small.toString()), null, new org.apache.hadoop.fs.Path(tmp.resolve("deg2").toString()), false), progress::add));
    assertTrue(e.getMessage().contains("--partitions") && e.getMessage().contains("12 training rows"), e.getMessage());

    Path one = tmp.resolve("one.libsvm");
    Files.writeString(one, "1 1:1\n1 1:2\n");
    e = assertThrows(SodmException.class, () -> TrainPipeline.run(conf, new TrainPipeline.Request(
        List.of(one.toString()), null, new org.apache.hadoop.fs.Path(tmp.resolve("deg3").toString()), false), progress::add));
    assertTrue(e.getMessage().contains("at least two labels"), e.getMessage());
  }

  @Test
  void otherPartitionersMergesAndOdmTrain() throws IOException {
    conf.set(SodmConf.LEVELS, "1");
    conf.set(SodmConf.FANOUT, "4");
    for (String[] v : new String[][] {{"kmeans", "warm", "hinge"}, {"random", "cascade", "hinge"}, {"stratified", "warm", "odm"}}) {
      conf.set(SodmConf.PARTITIONER, v[0]);
      conf.set(SodmConf.MERGE, v[1]);
      conf.set(SodmConf.LOSS, v[2]);
      conf.set(SodmConf.LEVELS, "2");
      TrainPipeline.Result r = train("o-" + v[0] + v[2], false, LocalConf.sampleData("svmguide1.t").toString());
      double acc = r.levels().get(r.levels().size() - 1).getValidationAccuracy();
      assertTrue(acc > 0.9, String.join("/", v) + ": accuracy " + acc);
    }
  }
}
