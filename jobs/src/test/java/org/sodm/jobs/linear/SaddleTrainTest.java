package org.sodm.jobs.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.SparseVector;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.model.LinearModel;
import org.sodm.saddle.SaddleOptions;
import org.sodm.saddle.SaddleResult;
import org.sodm.saddle.SaddleSvc;
import org.sodm.solver.Loss;
import org.sodm.testing.LocalConf;

/**
 * {@code --loss nu | hard-margin --kernel linear}: Saddle-DSVC as one resident AllReduce job
 * (local mode) with K = 1, 2, 4 blocks against single-node Saddle-SVC ({@link SaddleSvc#train}) on
 * the same rows with the same seed; the not-separable failure and the bad-input checks.
 */
class SaddleTrainTest {
  @TempDir Path tmp;

  /** Separable points (the hulls at least 0.2 apart along a random direction), written as LIBSVM with labels +1 / -1. */
  private record Data(Path file, SparseVector[] x, double[] y) {}

  private Data separable(int n, int d, long seed) throws Exception {
    Random r = new Random(seed);
    double[] u = new double[d];
    double s = 0;
    for (int j = 0; j < d; j++) {
      u[j] = r.nextGaussian();
      s += u[j] * u[j];
    }
    for (int j = 0; j < d; j++) u[j] /= Math.sqrt(s);
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; ) {
      double[] p = new double[d];
      double t = 0;
      for (int j = 0; j < d; j++) {
        p[j] = 2 * r.nextDouble() - 1;
        t += u[j] * p[j];
      }
      if (Math.abs(t) < 0.1) continue;
      y[i] = t > 0 ? 1 : -1;
      x[i] = SparseVector.ofDense(p);
      sb.append(y[i] > 0 ? "+1" : "-1");
      for (int j = 0; j < d; j++) sb.append(' ').append(j + 1).append(':').append(String.format(Locale.ROOT, "%.17g", p[j]));
      sb.append('\n');
      i++;
    }
    Path f = tmp.resolve("separable-" + seed + ".libsvm");
    Files.writeString(f, sb);
    return new Data(f, x, y);
  }

  private TrainPipeline.Result train(Configuration conf, Path input, String name, List<String> lines) throws Exception {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(input.toString()), List.of(),
        new org.apache.hadoop.fs.Path(tmp.resolve(name).toString()), false), lines::add);
  }

  private Configuration conf(String loss, int blocks) {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.LOSS, loss);
    conf.set(SodmConf.LINEAR_BLOCKS, Integer.toString(blocks));
    conf.set(SodmConf.LINEAR_EPS, "1e-4");
    conf.set(SodmConf.SEED, "7");
    return conf;
  }

  private static void assertModel(SaddleResult ref, LinearModel m, double rel, String what) {
    double scale = 0;
    for (double v : ref.weights()) scale = Math.max(scale, Math.abs(v));
    assertEquals(ref.weights().length, m.w().length, what);
    for (int j = 0; j < ref.weights().length; j++) assertEquals(ref.weights()[j], m.w()[j], rel * scale, what + ": w" + j);
    assertEquals(ref.bias(), m.bias(), rel * scale, what + ": bias");
  }

  @Test
  void hardMarginWithOneTwoAndFourTasksIsSaddleSvc() throws Exception {
    Data d = separable(300, 5, 1);
    SaddleResult ref = SaddleSvc.train(d.x(), d.y(), SaddleOptions.hardMargin().withEps(1e-4).withSeed(7));
    assertTrue(ref.best().converged());
    for (int k : new int[] {1, 2, 4}) {
      List<String> lines = new ArrayList<>();
      TrainPipeline.Result r = train(conf("hard-margin", k), d.file(), "hm-" + k, lines);
      LinearModel m = (LinearModel) r.model();
      assertEquals("saddle", m.solver());
      assertEquals(Loss.hardMargin(), m.loss());
      assertEquals(1, m.labels().signed("1"), "+1 is the positive class");
      // the same seed: the same transform and coordinates; the rows' order within and across tasks only changes rounding
      assertModel(ref, m, 1e-9, k + " tasks");
      assertTrue(lines.stream().anyMatch(l -> l.contains("saddle       " + k + " clients: ") && l.contains("AllReduce rounds")),
          lines.toString());
      String report = Files.readString(tmp.resolve("hm-" + k).resolve(TrainPipeline.REPORT));
      assertTrue(report.contains("\"allreduceRounds\"") && report.contains("\"scalarsSent\"") && report.contains("\"trials\""), report);
      // every training point on its side of the margin: y f(x) >= 1 up to the run's gap
      for (int i = 0; i < d.x().length; i++) {
        double f = m.bias();
        for (int k2 = 0; k2 < d.x()[i].nnz(); k2++) f += m.w()[d.x()[i].index(k2) - 1] * d.x()[i].value(k2);
        assertTrue(d.y()[i] * f >= 1 - 1e-2, "row " + i + ": y f = " + d.y()[i] * f);
      }
    }
  }

  @Test
  void nuSvmOnTwoTasksIsSaddleSvc() throws Exception {
    Data d = separable(400, 4, 2);
    // labels flipped on 10% of the rows: not separable, nu-SVM's reduced hulls are
    List<String> text = Files.readAllLines(d.file());
    double[] y = d.y().clone();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < text.size(); i++) {
      String line = text.get(i);
      if (i % 10 == 3) {
        y[i] = -y[i];
        line = (y[i] > 0 ? "+1" : "-1") + line.substring(2);
      }
      sb.append(line).append('\n');
    }
    Path f = tmp.resolve("noisy.libsvm");
    Files.writeString(f, sb);
    SaddleResult ref = SaddleSvc.train(d.x(), y, SaddleOptions.nuSvm().withNu(0.4).withEps(1e-4).withSeed(7));
    Configuration conf = conf("nu", 2);
    conf.set(SodmConf.NU, "0.4");
    TrainPipeline.Result r = train(conf, f, "nu", new ArrayList<>());
    LinearModel m = (LinearModel) r.model();
    assertEquals(Loss.nu(0.4), m.loss());
    // nu-SVM's iterates agree to rounding for thousands of iterations, then to the run's accuracy (SaddleDistributedTest)
    assertModel(ref, m, 1e-3, "nu, 2 tasks");

    // the default nu: 2 * 0.85 * min(n1, n2) / n, recorded in the model
    long n1 = java.util.Arrays.stream(y).filter(v -> v > 0).count();
    // (what is checked is the nu the run chose, not its solution: a few thousand iterations are enough)
    Configuration defaults = conf("nu", 1);
    defaults.set(org.sodm.jobs.spec.Param.SADDLE_MAX_ITERATIONS.key(), "2000");
    TrainPipeline.Result def = train(defaults, f, "nu-default", new ArrayList<>());
    assertEquals(2 * 0.85 * Math.min(n1, y.length - n1) / y.length, ((Loss.Nu) def.model().loss()).nu(), 1e-15);
  }

  @Test
  void hardMarginOnOverlappingDataFailsWithTheHullDistanceAndWritesNoModel() throws Exception {
    List<String> lines = new ArrayList<>();
    Configuration conf = conf("hard-margin", 2);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    SodmException e = assertThrows(SodmException.class, () -> train(conf, LocalConf.sampleData("svmguide1"), "hm-bad", lines));
    assertTrue(e.getMessage().contains("hard margin: the convex hulls of the two classes are within ")
        && e.getMessage().contains("the data are not linearly separable") && e.getMessage().contains("no model written"), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("hm-bad").resolve(TrainPipeline.MODEL)));
  }

  @Test
  void badInputFailsBeforeAnyJobAfterIngest() throws Exception {
    Path data = LocalConf.sampleData("svmguide1"); // 1089 + 2000 rows: nu <= 2 * 1089 / 3089 = 0.705
    List<String> lines = new ArrayList<>();
    Configuration infeasible = conf("nu", 2);
    infeasible.set(SodmConf.NU, "0.8");
    SodmException e = assertThrows(SodmException.class, () -> train(infeasible, data, "nu-bad", lines));
    assertTrue(e.getMessage().contains("--nu") && e.getMessage().contains("nu = 0.8 is infeasible for the class sizes")
        && e.getMessage().contains("n2 = 1089 labelled -1"), e.getMessage());
    assertFalse(lines.stream().anyMatch(l -> l.contains("blocks ")), "no partition job: " + lines);

    for (String[] bad : new String[][] {{SodmConf.NU, "1.5", "--nu"}, {SodmConf.NU, "0", "--nu"},
        {SodmConf.LINEAR_SOLVER, "bqo", "--linear-solver"},
        {SodmConf.ITERATION_MODE, "jobs", "--iteration-mode"}}) {
      Configuration c = conf("nu", 2);
      c.set(bad[0], bad[1]);
      List<String> l = new ArrayList<>();
      Exception ex = assertThrows(Exception.class, () -> train(c, data, "bad-" + bad[0] + bad[1], l));
      assertTrue(ex instanceof BadParameterException || ex.getCause() instanceof BadParameterException, ex.toString());
      assertTrue(ex.getMessage().contains(bad[2]), ex.getMessage());
      assertTrue(l.isEmpty(), "nothing ran: " + l);
    }
    Configuration hardRbf = conf("hard-margin", 2);
    hardRbf.set(SodmConf.KERNEL, "rbf");
    assertTrue(assertThrows(Exception.class, () -> train(hardRbf, data, "hard-rbf", new ArrayList<>())).getMessage()
        .contains("hard-margin needs --kernel linear"));
    Configuration nuForHinge = conf("hinge", 2);
    nuForHinge.set(SodmConf.NU, "0.3");
    Exception ex = assertThrows(Exception.class, () -> train(nuForHinge, data, "nu-hinge", new ArrayList<>()));
    assertTrue(ex.getMessage().contains("nu applies to --loss nu only"), ex.getMessage());
  }
}
