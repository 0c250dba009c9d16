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
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelModel;
import org.sodm.model.MulticlassModel;
import org.sodm.model.Subproblems;
import org.sodm.solver.Loss;
import org.sodm.solver.NuSvcSolver;
import org.sodm.solver.SolverOptions;
import org.sodm.testing.LocalConf;

/**
 * {@code --loss nu} on more than two classes with a kernel: every task a nu-SVC with its own nu (the default from the task's
 * class sizes), equal to an in-process {@link NuSvcSolver} solve of the task's rows; a nu infeasible for one task is refused
 * before any job, naming the task.
 */
class MulticlassNuTest {
  @TempDir Path tmp;

  /** Three overlapping Gaussian blobs in 3 dimensions of unequal sizes (labels 1: 60 rows, 2: 90, 3: 120). */
  private Path blobs() throws IOException {
    return org.sodm.testing.Blobs.write(tmp.resolve("blobs.libsvm"), new int[] {60, 90, 120}, 1.2, 0.7, 31, false, 5);
  }

  private Configuration conf(String scheme) {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "nu");
    conf.set(SodmConf.KERNEL, "rbf");
    conf.set(SodmConf.GAMMA, "0.5");
    conf.set("sodm.train.multiclass", scheme);
    return conf;
  }

  private TrainPipeline.Result train(Configuration conf, Path data, String name, List<String> progress) throws Exception {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(name).toString()), false), progress::add);
  }

  @Test
  void everyTaskIsTheNuSvcOfItsRowsWithItsOwnDefaultNu() throws Exception {
    Path data = blobs();
    LibsvmReader.Data d = LibsvmReader.read(data);
    Kernel kernel = KernelSpec.rbf(0.5).create();
    for (String scheme : new String[] {"ovo", "ovr"}) {
      List<String> progress = new ArrayList<>();
      MulticlassModel m = (MulticlassModel) train(conf(scheme), data, "nu-" + scheme, progress).model();
      Subproblems plan = m.plan();
      assertEquals(3, plan.tasks(), scheme);
      for (int t = 0; t < 3; t++) {
        List<SparseVector> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        long n1 = 0;
        for (int i = 0; i < d.size(); i++) {
          double yi = plan.y(t, m.classes().indexOf(d.labels()[i]));
          if (yi == 0) continue;
          x.add(d.x()[i]);
          y.add(yi);
          if (yi > 0) n1++;
        }
        double nu = 2 * 0.85 * Math.min(n1, x.size() - n1) / x.size(); // the task's own default nu (seed 002)
        KernelModel sub = (KernelModel) m.subModel(t);
        assertEquals(nu, ((Loss.Nu) sub.loss()).nu(), 1e-15, scheme + " task " + t + "'s nu");
        SparseVector[] xs = x.toArray(new SparseVector[0]);
        NuSvcSolver.Result ref = new NuSvcSolver(kernel, SolverOptions.defaults())
            .solve(xs, y.stream().mapToDouble(Double::doubleValue).toArray(), nu);
        assertTrue(ref.converged());
        var expansion = ref.expansion(kernel, xs);
        for (int i = 0; i < d.size(); i += 3) {
          double f = expansion.decision(d.x()[i]);
          assertEquals(f, sub.decision(d.x()[i]), 1e-6 * (1 + Math.abs(f)), scheme + " task " + t + " row " + i);
        }
      }
      int correct = 0;
      for (int i = 0; i < d.size(); i++) if (m.predict(d.x()[i]).equals(d.labels()[i])) correct++;
      assertTrue(correct > 0.8 * d.size(), scheme + ": training accuracy " + correct + " of " + d.size());
    }
  }

  @Test
  void theTreeOfNuBlocksTrainsEveryTask() throws Exception {
    Path data = blobs();
    LibsvmReader.Data d = LibsvmReader.read(data);
    Configuration conf = conf("ovo");
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(SodmConf.FANOUT, "2");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    conf.set(SodmConf.NU, "0.3");
    MulticlassModel m = (MulticlassModel) train(conf, data, "nu-tree", new ArrayList<>()).model();
    for (int t = 0; t < 3; t++) {
      KernelModel sub = (KernelModel) m.subModel(t);
      assertEquals(Loss.nu(0.3), sub.loss());
      assertEquals(2, sub.blockCount(), "task " + t + ": 4 blocks merged to 2");
    }
    int correct = 0;
    for (int i = 0; i < d.size(); i++) if (m.predict(d.x()[i]).equals(d.labels()[i])) correct++;
    assertTrue(correct > 0.8 * d.size(), "training accuracy " + correct + " of " + d.size());
  }

  @Test
  void aNuInfeasibleForOneTaskIsRefusedBeforeAnyJob() throws Exception {
    Path data = blobs();
    Configuration conf = conf("ovr");
    // ovr task '1' vs rest: 60 and 210 rows, nu <= 2 * 60 / 270 = 0.444; the other tasks allow 0.67 and 0.89
    conf.set(SodmConf.NU, "0.6");
    BadParameterException e = assertThrows(BadParameterException.class, () -> train(conf, data, "nu-bad", new ArrayList<>()));
    assertTrue(e.getMessage().contains("task '1' vs rest") && e.getMessage().contains("n1 = 60") && e.getMessage().contains("--nu"),
        e.getMessage());
    assertFalse(Files.exists(tmp.resolve("nu-bad").resolve(TrainPipeline.MODEL)));
    Path work = tmp.resolve("nu-bad").resolve("work");
    if (Files.isDirectory(work)) {
      try (var entries = Files.list(work)) {
        assertTrue(entries.noneMatch(p -> p.getFileName().toString().startsWith("level-")), "no solve job ran");
      }
    }
  }

  /** sodm cv with nu-SVC (the folds are sub-problems with the task's nu): within 1 point of svm-train -s 1 -v 5. */
  @Test
  void nuCrossValidationWithinOnePointOfSvmTrain() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "nu");
    conf.set(SodmConf.NU, "0.3");
    conf.set(SodmConf.GAMMA, "2");
    conf.setInt(TrainKeys.CV_FOLDS, 5);
    Path data = LocalConf.sampleData("svmguide1");
    train(conf, data, "nu-cv", new ArrayList<>());
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper()
        .readValue(tmp.resolve("nu-cv").resolve(TrainPipeline.REPORT).toFile(), java.util.Map.class);
    double ours = ((Number) ((java.util.Map<?, ?>) report.get("cv")).get("accuracy")).doubleValue();
    assertTrue(ours > 0.9, "cv accuracy " + ours);
    if (!org.sodm.testing.LibsvmTools.installed()) return;
    Path scaled = tmp.resolve("scaled");
    org.sodm.testing.LibsvmTools.run(scaled, "svm-scale", "-l", "0", "-u", "1", data.toString());
    String out = org.sodm.testing.LibsvmTools.run(null, "svm-train", "-q", "-s", "1", "-n", "0.3", "-v", "5", "-g", "2", scaled.toString());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("Cross Validation Accuracy = ([0-9.]+)%").matcher(out);
    assertTrue(m.find(), out);
    double theirs = Double.parseDouble(m.group(1)) / 100;
    assertEquals(theirs, ours, 0.01, "sodm cv " + ours + " vs svm-train -s 1 -v 5 " + theirs);
  }

  /** --probability with nu-SVC: Platt's sigmoids fitted on the fold models of every task; the label is the argmax. */
  @Test
  void nuWithProbabilities() throws Exception {
    Path data = blobs();
    LibsvmReader.Data d = LibsvmReader.read(data);
    Configuration conf = conf("ovo");
    conf.set(Param.PROBABILITY.key(), "true");
    MulticlassModel m = (MulticlassModel) train(conf, data, "nu-prob", new ArrayList<>()).model();
    org.sodm.testing.ProbabilityChecks.assertArgmaxLabels(m, d, 0.8);
  }
}
