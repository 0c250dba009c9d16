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
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.LossSpec;
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
  }

  static synchronized double reference() throws IOException {
    if (reference == null) {
      LibsvmReader.Data d = LibsvmReader.read(LocalConf.sampleData("svmguide1"));
      StatsAccumulator acc = new StatsAccumulator();
      for (int i = 0; i < d.size(); i++) acc.add(d.labels()[i], d.x()[i], i + 1, "x");
      LibsvmReader.Data s = d.scaled(Scaler.fromStats(acc.toAvro(), 0, 1));
      SolveResult r = new KernelDualSolver(KernelSpec.rbf(2).create(), new SolverOptions(1e-6, 100000, true, 64L << 20, 7))
          .solve(s.x(), s.y(), LossSpec.hinge(2), null);
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
  @Test
  void pbmJobsFollowTheReferenceIterates() throws IOException {
    double ref = reference();
    conf.set(SodmConf.EXACT_REFERENCE, Double.toString(ref));
    conf.set(SodmConf.EXACT_MAX_ITERATIONS, "3");
    TrainPipeline.Result r = train("e", false);
    assertEquals(1, r.model().blockCount());
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("exact pbm") && l.contains("rel.err")), String.join("\n", progress));

    List<TrainRecord> recs = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(tmp.resolve("e/work/level-1/data").toString()));
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
      alpha0[i] = recs.get(i).getAlpha().get(0) / 4;
    }
    PbmSolver.Result mem = PbmSolver.solve(KernelSpec.rbf(2).create(), x, y, LossSpec.hinge(2), block, 4, alpha0,
        new PbmSolver.Options(1e-3, 3, 1e-3, 20, 64L << 20, PbmStep.Rule.EXACT, 0.01));
    assertEquals(4, mem.history().size());
    for (int t = 0; t < 4; t++) {
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
  }

  @Test
  void resumeMidWayGivesTheSameModel() throws IOException {
    conf.set(SodmConf.EXACT_MAX_ITERATIONS, "3");
    TrainPipeline.Result a = train("a", false);
    ModelRecord ra = ModelFiles.readRecord(conf, a.modelPath());
    assertTrue(Files.isDirectory(tmp.resolve("a/work/pbm/iter-0003")), "3 steps then the final direction");
    FileUtil.fullyDelete(tmp.resolve("a/work/pbm/iter-0003").toFile());
    FileUtil.fullyDelete(tmp.resolve("a/work/pbm/iter-0002").toFile());
    Files.delete(tmp.resolve("a/model.avro"));
    progress.clear();
    TrainPipeline.Result b = train("a", true);
    assertTrue(progress.stream().anyMatch(l -> l.contains("resuming after PBM iteration 1")), String.join("\n", progress));
    assertEquals(coefficients(ra), coefficients(ModelFiles.readRecord(conf, b.modelPath())));
  }
}
