package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.TrainRecord;
import org.sodm.data.LibsvmReader;
import org.sodm.data.Scaler;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.testing.LocalConf;

/**
 * Issue 19 item 6: the exact round solves the whole problem whatever the merge mode, and says
 * whether it converged. The reference optimum is independent of the solver under test: accelerated
 * projected gradient on the dense kernel matrix of a 420-row sample of svmguide1.
 */
class ExactMeansExactTest {
  @TempDir Path tmp;
  private Configuration conf;
  private Path sample;

  @BeforeEach
  void setUp() throws IOException {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(Param.OFFSET.key(), "false"); // the references are the box-constrained dual without LIBSVM's offset (KernelDualSolver)
    sample = tmp.resolve("svmguide1-420");
    List<String> all = Files.readAllLines(LocalConf.sampleData("svmguide1"));
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < all.size() && rows.size() < 420; i += 7) rows.add(all.get(i)); // both classes, spread over the file
    Files.write(sample, rows);
  }

  private TrainPipeline.Result train(String out) throws IOException {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(sample.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), l -> {});
  }

  /** min 1/2 a'Qa - e'a, 0 <= a <= C, Q_ij = y_i y_j k(x_i, x_j): FISTA with projection, to a KKT violation below 1e-9. */
  static double referenceObjective(LibsvmReader.Data d, Kernel k, double c) {
    int n = d.size();
    double[][] q = new double[n][n];
    double lip = 0;
    for (int i = 0; i < n; i++) {
      double row = 0;
      for (int j = 0; j < n; j++) {
        q[i][j] = d.y()[i] * d.y()[j] * k.eval(d.x()[i], d.x()[j]);
        row += Math.abs(q[i][j]);
      }
      lip = Math.max(lip, row); // ||Q||_2 <= max row sum
    }
    double[] a = new double[n];
    double[] z = new double[n];
    double t = 1;
    double[] g = new double[n];
    for (int it = 0; it < 200_000; it++) {
      for (int i = 0; i < n; i++) {
        double s = -1;
        for (int j = 0; j < n; j++) s += q[i][j] * z[j];
        g[i] = s;
      }
      double[] next = new double[n];
      for (int i = 0; i < n; i++) next[i] = Math.min(c, Math.max(0, z[i] - g[i] / lip));
      double tn = (1 + Math.sqrt(1 + 4 * t * t)) / 2;
      for (int i = 0; i < n; i++) z[i] = next[i] + (t - 1) / tn * (next[i] - a[i]);
      a = next;
      t = tn;
      if (it % 200 == 199 && violation(q, a, c) < 1e-9) break;
    }
    assertTrue(violation(q, a, c) < 1e-6, "reference not converged: " + violation(q, a, c));
    double obj = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) s += q[i][j] * a[j];
      obj += 0.5 * a[i] * s - a[i];
    }
    return obj;
  }

  private static double violation(double[][] q, double[] a, double c) {
    double v = 0;
    for (int i = 0; i < a.length; i++) {
      double g = -1;
      for (int j = 0; j < a.length; j++) g += q[i][j] * a[j];
      double pg = a[i] <= 0 ? Math.min(g, 0) : a[i] >= c ? Math.max(g, 0) : g;
      v = Math.max(v, Math.abs(pg));
    }
    return v;
  }

  private double reference() throws IOException {
    LibsvmReader.Data d = LibsvmReader.read(sample);
    StatsAccumulator acc = new StatsAccumulator();
    for (int i = 0; i < d.size(); i++) acc.add(d.labels()[i], d.x()[i], i + 1, "x");
    return referenceObjective(d.scaled(Scaler.fromStats(acc.toAvro(), 0, 1)), KernelSpec.rbf(2).create(), 2);
  }

  /**
   * --merge cascade drops non-support vectors from the merge rounds; the exact one-block round
   * still gets every row (alpha 0 for those) and reaches the whole problem's optimum (before
   * issue 19 it solved the last level's support vectors only: on the whole svmguide1 -759.4646
   * against -762.9651).
   */
  @Test
  void cascadeExactSolvesTheWholeProblem() throws IOException {
    conf.set(SodmConf.MERGE, "cascade");
    conf.set(SodmConf.PARTITIONS, "16");
    conf.set(SodmConf.FANOUT, "4");
    conf.set(SodmConf.EXACT, "true");
    conf.set(SodmConf.EPS, "1e-6");
    TrainPipeline.Result r = train("cascade");
    double ref = reference();
    double obj = r.levels().get(r.levels().size() - 1).getObjective();
    assertEquals(ref, obj, 1e-6 * Math.abs(ref), "exact round " + obj + " vs the whole problem's optimum " + ref);

    List<TrainRecord> level0 = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(tmp.resolve("cascade/work/level-0/data").toString()));
    assertEquals(420, level0.size(), "every row enters the exact round");
    List<TrainRecord> level1 = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(tmp.resolve("cascade/work/level-1/data").toString()));
    long solved = TrainIO.readStats(conf, new org.apache.hadoop.fs.Path(tmp.resolve("cascade/work/level-1/stats").toString()))
        .stream().mapToLong(s -> s.getSize()).sum();
    assertEquals(420, level1.size(), "the cascade level carries every row");
    assertTrue(solved < 420, "the cascade level solved only the support vectors of level 2: " + solved);

    ModelRecord m = ModelFiles.readRecord(conf, r.modelPath());
    assertEquals("true", m.getProvenance().getParameters().get(KernelTreeTrainer.EXACT_CONVERGED));
    assertTrue(Double.parseDouble(m.getProvenance().getParameters().get(KernelTreeTrainer.EXACT_VIOLATION)) <= 1e-6);
  }

  /** PBM stopped by its iteration cap: the model says converged=false, the run fails unless --allow-unconverged. */
  @Test
  void unconvergedExactFailsUnlessAllowed() throws IOException {
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(SodmConf.EXACT, "true");
    conf.set(SodmConf.EXACT_SINGLE, "never");
    conf.set(SodmConf.EXACT_REFINE, "false");
    conf.set(SodmConf.EXACT_MAX_ITERATIONS, "1");
    SodmException e = assertThrows(SodmException.class, () -> train("capped"));
    assertTrue(e.getMessage().contains("did not converge") && e.getMessage().contains("--allow-unconverged"), e.getMessage());
    org.apache.hadoop.fs.Path model = new org.apache.hadoop.fs.Path(tmp.resolve("capped/model.avro").toString());
    ModelRecord m = ModelFiles.readRecord(conf, model);
    assertEquals("false", m.getProvenance().getParameters().get(KernelTreeTrainer.EXACT_CONVERGED));
    double viol = Double.parseDouble(m.getProvenance().getParameters().get(KernelTreeTrainer.EXACT_VIOLATION));
    assertTrue(viol > 1e-3, "final violation " + viol);

    conf.set(Param.EXACT_ALLOW_UNCONVERGED.key(), "true");
    TrainPipeline.Result r = train("allowed");
    assertNotNull(r.modelPath());
    @SuppressWarnings("unchecked")
    Map<String, Object> report = new ObjectMapper().readValue(tmp.resolve("allowed/train-report.json").toFile(), Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> ex = (Map<String, Object>) report.get("exact");
    assertEquals(Boolean.FALSE, ex.get("converged"));
    assertEquals("pbm", ex.get("method"));
    assertEquals(viol, ((Number) ex.get("violation")).doubleValue(), 1e-12);
  }
}
