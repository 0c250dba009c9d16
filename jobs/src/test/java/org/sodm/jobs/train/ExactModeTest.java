package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockModel;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.solver.PbmSolver;
import org.sodm.solver.PbmStep;
import org.sodm.data.LibsvmReader;
import org.sodm.data.Scaler;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.model.KernelModel;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.Loss;
import org.sodm.solver.SolveResult;
import org.sodm.solver.SolverOptions;
import org.sodm.testing.LocalConf;

/** sodm train --exact in Hadoop local mode: PBM jobs reach the single-node optimum; resume mid-way. */
class ExactModeTest {
  @TempDir Path tmp;
  private Configuration conf;
  private final List<String> progress = new ArrayList<>();
  private static Double reference;

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(SodmConf.EXACT, "true");
    conf.set(SodmConf.EXACT_SINGLE, "never");
    conf.set(Param.OFFSET.key(), "false"); // the references are the box-constrained dual without LIBSVM's offset (KernelDualSolver)

    conf.set(SodmConf.EXACT_REFINE, "false");
    conf.set(org.sodm.jobs.spec.Param.EXACT_BLOCKS.key(), "4");
    // these tests stop PBM after a few iterations on purpose (issue 19: an unconverged exact solve fails otherwise)
    conf.set(org.sodm.jobs.spec.Param.EXACT_ALLOW_UNCONVERGED.key(), "true");
  }

  static synchronized double reference() throws IOException {
    if (reference == null) {
      LibsvmReader.Data d = LibsvmReader.read(LocalConf.sampleData("svmguide1"));
      StatsAccumulator acc = new StatsAccumulator();
      for (int i = 0; i < d.size(); i++) acc.add(d.labels()[i], d.x()[i], i + 1, "x");
      LibsvmReader.Data s = d.scaled(Scaler.fromStats(acc.toAvro(), 0, 1));
      SolveResult r = new KernelDualSolver(KernelSpec.rbf(2).create(), new SolverOptions(1e-6, 100000, true, 64L << 20, 7))
          .solve(s.x(), s.y(), Loss.hinge(2), null);
      reference = r.report().dualObjective();
    }
    return reference;
  }

  private TrainPipeline.Result train(String out, boolean resume) throws IOException {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), resume), progress::add);
  }

  private static List<Object> coefficients(ModelRecord r) {
    List<Object> all = new ArrayList<>();
    for (BlockModel b : r.getBlocks()) {
      all.add(b.getIds());
      all.add(b.getCoef());
    }
    return all;
  }

  /**
   * The jobs compute PBM's iterates: the same objectives, iteration by iteration, as the
   * one-process {@link PbmSolver} (whose agreement with the single-node optimum at K = 2, 4, 8
   * PbmSolverTest checks) started from the same point (the last level's alpha / B on its blocks).
   */
  /** Exact mode's choice between one warm reducer solve and PBM (sodm.train.exact.single and .evaluations). */
  @Test
  void singleSolveOrPbm() {
    long cache = 256L << 20;
    assertTrue(ExactPhase.single("always", 50_000, 1_000_000, cache, 0));
    assertFalse(ExactPhase.single("never", 10, 100, cache, 2_000_000_000L));
    assertTrue(ExactPhase.single("auto", 1_000, 3_000, cache, 0), "the SV columns fit the cache");
    // ijcnn1, C = 32, gamma = 2: 2,490 SVs x 49,990 rows x 4 B = 498 MB > 256 MB, but 1.2e8 evaluations <= 2e9
    assertTrue(ExactPhase.single("auto", 2_490, 49_990, cache, 2_000_000_000L));
    assertFalse(ExactPhase.single("auto", 2_490, 49_990, cache, 0), "0: by the cache rule alone");
    assertFalse(ExactPhase.single("auto", 50_000, 1_000_000, cache, 2_000_000_000L), "5e10 evaluations: PBM");
    assertTrue(ExactPhase.single("auto", 40_000, 50_000, cache, 2_000_000_000L), "exactly at the budget");
    assertFalse(ExactPhase.single("auto", 40_001, 50_000, cache, 2_000_000_000L));
  }

  @Test
  void pbmJobsFollowTheReferenceIteratesAndResumeMidWay() throws IOException {
    double ref = reference();
    conf.set(SodmConf.EXACT_REFERENCE, Double.toString(ref));
    conf.set(SodmConf.EXACT_MAX_ITERATIONS, "2");
    conf.set(org.sodm.jobs.spec.Param.ITERATION_MODE.key(), "jobs"); // this test reads the per-iteration directories
    TrainPipeline.Result r = train("e", false);
    assertEquals(1, ((KernelModel) r.model()).blockCount());
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("exact pbm") && l.contains("rel.err")), String.join("\n", progress));

    // PBM's partition: its own k-means blocks (--exact-blocks 4), the start alpha / 4 of the tree's 4 blocks (pbm/init)
    List<TrainRecord> recs = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(tmp.resolve("e/work/pbm/init/data").toString()));
    List<TrainRecord> tree = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(tmp.resolve("e/work/level-1/data").toString()));
    java.util.Map<Long, Double> treeAlpha = new java.util.HashMap<>();
    for (TrainRecord t : tree) treeAlpha.put(t.getId(), t.getAlpha().get(0));
    recs.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    int n = recs.size();
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    int[] block = new int[n];
    double[] alpha0 = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = Instances.features(recs.get(i).getFeatures());
      y[i] = recs.get(i).getY();
      block[i] = recs.get(i).getBlock();
      alpha0[i] = treeAlpha.get(recs.get(i).getId()) / 4;
      assertEquals(alpha0[i], recs.get(i).getAlpha().get(0), 0.0);
    }
    // the blocks are the nearest centres of the k-means sample of pbm/init/kmeans (fitted with the exact rule's seed)
    List<TrainRecord> sample = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(tmp.resolve("e/work/pbm/init/kmeans").toString()));
    sample.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    SparseVector[] sx = new SparseVector[sample.size()];
    for (int i = 0; i < sx.length; i++) sx[i] = Instances.features(sample.get(i).getFeatures());
    org.sodm.partition.KernelKMeans km = org.sodm.partition.KernelKMeans.fit(sx, KernelSpec.rbf(2).create(), 4, 50,
        org.sodm.data.Seeds.exactKMeans(Long.parseLong(conf.get(SodmConf.SEED, "1"))));
    assertArrayEquals(km.assignAll(x), block, "PBM's blocks are the k-means clusters");
    PbmSolver.Result mem = PbmSolver.solve(KernelSpec.rbf(2).create(), x, y, Loss.hinge(2), block, 4, alpha0,
        new PbmSolver.Options(1e-3, 2, 1e-3, 20, 64L << 20, PbmStep.Rule.EXACT, 0.01));
    assertEquals(3, mem.history().size());
    for (int t = 0; t < 3; t++) {
      java.util.Properties p = new java.util.Properties();
      try (var in = Files.newInputStream(tmp.resolve(String.format("e/work/pbm/iter-%04d/step.properties", t)))) {
        p.load(in);
      }
      double jobObj = Double.parseDouble(p.getProperty("objective"));
      assertEquals(mem.history().get(t).objective(), jobObj, 1e-9 * Math.abs(ref), "iteration " + t);
      assertEquals(mem.history().get(t).beta(), Double.parseDouble(p.getProperty("beta")), 1e-7, "beta at " + t);
      if (t > 0) assertTrue(jobObj <= mem.history().get(t - 1).objective() + 1e-9, "objective increased at " + t);
    }
    // the model is the expansion of the final alpha: its objective is the last iterate's
    assertEquals(mem.objective(), r.levels().get(r.levels().size() - 1).getObjective(), 1e-9 * Math.abs(ref));

    // resume mid-way (iterations 1 and 2 lost) gives the same model
    ModelRecord ra = ModelFiles.readRecord(conf, r.modelPath());
    FileUtil.fullyDelete(tmp.resolve("e/work/pbm/iter-0002").toFile());
    FileUtil.fullyDelete(tmp.resolve("e/work/pbm/iter-0001").toFile());
    Files.delete(tmp.resolve("e/model.avro"));
    progress.clear();
    TrainPipeline.Result b = train("e", true);
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("exact pbm*") && l.contains("iter   0")), String.join("\n", progress));
    assertEquals(2, progress.stream().filter(l -> l.startsWith("exact pbm ")).count(), String.join("\n", progress));
    assertEquals(coefficients(ra), coefficients(ModelFiles.readRecord(conf, b.modelPath())));
  }

  /**
   * PBM on the AllReduce runtime (the default): one resident job instead of two jobs per iteration,
   * and the model of the job-per-iteration path (1e-12 relative), with the PbmSolver's objective.
   * With k-means blocks the local routing (alpha_t + d_{S_r}) is the same too.
   */
  @Test
  void residentPbmGivesTheModelOfTheJobPerIterationPath() throws IOException {
    double ref = reference();
    conf.set(SodmConf.EXACT_REFERENCE, Double.toString(ref));
    conf.set(SodmConf.EXACT_MAX_ITERATIONS, "4");
    conf.set(SodmConf.PARTITIONER, "kmeans");
    conf.set(org.sodm.jobs.spec.Param.ITERATION_MODE.key(), "jobs");
    TrainPipeline.Result jobs = train("pj", false);
    conf.set(org.sodm.jobs.spec.Param.ITERATION_MODE.key(), "allreduce");
    progress.clear();
    TrainPipeline.Result ar = train("pa", false);
    assertTrue(Files.isDirectory(tmp.resolve("pa/work/pbm/resident")), "one resident phase");
    assertFalse(Files.exists(tmp.resolve("pa/work/pbm/iter-0000")), "no job per iteration");
    assertEquals(5, progress.stream().filter(l -> l.startsWith("exact pbm    iter")).count(), String.join("\n", progress));
    double oj = jobs.levels().get(jobs.levels().size() - 1).getObjective();
    double oa = ar.levels().get(ar.levels().size() - 1).getObjective();
    assertEquals(oj, oa, 1e-12 * Math.abs(oj));
    KernelModel mj = (KernelModel) ModelFiles.read(conf, jobs.modelPath());
    KernelModel ma = (KernelModel) ModelFiles.read(conf, ar.modelPath());
    assertEquals(mj.block(0).size(), ma.block(0).size());
    // the jobs path sums Q d over its tasks in another order (PbmRank follows PbmSolver's order bit for bit:
    // PbmRankTest); after 5 iterations the coefficients (in [-C, C], C = 2) agree to ~1e-11 (measured 1.6e-11)
    double worst = 0;
    for (int i = 0; i < mj.block(0).size(); i++) {
      assertEquals(mj.supportVectorId(0, i), ma.supportVectorId(0, i));
      worst = Math.max(worst, Math.abs(mj.block(0).coef(i) - ma.block(0).coef(i)));
    }
    System.out.println("resident vs jobs PBM: objective " + oj + " vs " + oa + ", largest coefficient difference " + worst);
    assertTrue(worst <= 1e-9, "largest coefficient difference " + worst);
    LibsvmReader.Data test = LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
    for (int i = 0; i < 200; i++) {
      SparseVector x = ma.prepare(test.x()[i]);
      assertEquals(mj.decisionPrepared(x), ma.decisionPrepared(x), 1e-8);
      assertEquals(mj.decisionLocalPrepared(x), ma.decisionLocalPrepared(x), 1e-8);
    }
  }

  /** When it fits the cache: one more merge round into a single block, the single-node optimum. */
  @Test
  void singleReducerPath() throws IOException {
    double ref = reference();
    conf.set(SodmConf.EXACT_SINGLE, "always");
    conf.set(SodmConf.EPS, "1e-5");
    TrainPipeline.Result r = train("s", false);
    var last = r.levels().get(r.levels().size() - 1);
    assertEquals(0, last.getLevel());
    assertTrue(Math.abs(last.getObjective() - ref) / Math.abs(ref) <= 1e-5, last.getObjective() + " vs " + ref);
    assertEquals(1, ((KernelModel) r.model()).blockCount());
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("exact") && l.contains("one block")), String.join("\n", progress));
  }

  /** DC-SVM's refine (the problem on the last level's support vectors) gives PBM a start close to the optimum. */
  @Test
  void refineStartsPbmNearTheOptimum() throws IOException {
    double ref = reference();
    conf.set(SodmConf.EXACT_REFINE, "true");
    conf.set(SodmConf.EXACT_MAX_ITERATIONS, "0");
    conf.set(SodmConf.EXACT_REFERENCE, Double.toString(ref));
    TrainPipeline.Result r = train("rf", false);
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("refine")), String.join("\n", progress));
    double obj = r.levels().get(r.levels().size() - 1).getObjective();
    System.out.println("refine start: " + obj + " vs optimum " + ref + "\n" + String.join("\n", progress));
    assertTrue((obj - ref) / Math.abs(ref) <= 1e-2, obj + " vs " + ref);
  }

  /** Merge-tree model on k-means clusters: a point is scored by the block of its nearest centre. */
  @Test
  void localPredictionRoutesToTheNearestCentresBlock() throws IOException {
    conf.set(SodmConf.PARTITIONER, "kmeans");
    conf.set(SodmConf.EXACT, "false");
    conf.set(SodmConf.EXACT_BELOW_ROWS, "0"); // keep the 4 final blocks of this small sample
    TrainPipeline.Result r = train("km", false);
    KernelModel m = (KernelModel) ModelFiles.read(conf, r.modelPath()); // through Avro
    assertNotNull(m.routing());
    assertEquals(4, m.blockCount());
    List<TrainRecord> recs = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(tmp.resolve("km/work/level-1/data").toString()));
    int checked = 0;
    for (TrainRecord rec : recs.subList(0, 300)) {
      SparseVector x = Instances.features(rec.getFeatures());
      // the training partition put the instance in the block of its nearest centre (no merge: block = cluster)
      assertEquals(rec.getBlock(), m.routing().kmeans().assign(x));
      int b = -1;
      for (int k = 0; k < m.blockCount(); k++) if (m.blockId(k) == rec.getBlock()) b = k;
      assertEquals(m.block(b).decision(x), m.decisionLocalPrepared(x), 1e-12);
      checked++;
    }
    assertEquals(300, checked);
    conf.set(SodmConf.PREDICT_MODE, "local");
    PredictJob.Result p = PredictJob.run(conf, r.modelPath(), List.of(LocalConf.sampleData("svmguide1.t").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("pl").toString()));
    assertTrue(p.metrics().accuracy() > 0.9, "local accuracy " + p.metrics().accuracy());
    assertEquals("local", PredictJob.mode(conf, new org.apache.hadoop.fs.Path(tmp.resolve("pl").toString())));
  }

  /** Exact mode on k-means blocks: the local model of block r is alpha_t + d_{S_r} (seed 004 section 4.3). */
  @Test
  void exactLocalModelIsAlphaPlusTheBlocksDirection() throws IOException {
    conf.set(SodmConf.PARTITIONER, "kmeans");
    conf.set(SodmConf.EXACT_MAX_ITERATIONS, "1");
    conf.set(org.sodm.jobs.spec.Param.ITERATION_MODE.key(), "jobs"); // this test reads the per-iteration directories
    TrainPipeline.Result r = train("kx", false);
    KernelModel m = (KernelModel) ModelFiles.read(conf, r.modelPath());
    assertNotNull(m.routing());
    java.io.File[] iters = tmp.resolve("kx/work/pbm").toFile().listFiles((d, n) -> n.startsWith("iter-"));
    java.util.Arrays.sort(iters);
    List<TrainRecord> fin = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(new java.io.File(iters[iters.length - 1], "data").toString()));
    java.util.Properties step = new java.util.Properties();
    try (var in = Files.newInputStream(new java.io.File(iters[iters.length - 1], "step.properties").toPath())) {
      step.load(in);
    }
    assertEquals(0.0, Double.parseDouble(step.getProperty("beta")), "the last iteration takes no step");
    var k = KernelSpec.rbf(2).create();
    for (TrainRecord q : fin.subList(0, 15)) {
      SparseVector x = Instances.features(q.getFeatures());
      int block = m.routing().kmeans().assign(x);
      double direct = 0;
      for (TrainRecord rec : fin) {
        double g = rec.getAlpha().get(0) + (rec.getBlock() == block ? rec.getDelta().get(0) : 0);
        if (g != 0) direct += rec.getY() * g * k.eval(Instances.features(rec.getFeatures()), x);
      }
      assertEquals(direct, m.decisionLocalPrepared(x), 1e-9 * (1 + Math.abs(direct)));
    }
  }
}
