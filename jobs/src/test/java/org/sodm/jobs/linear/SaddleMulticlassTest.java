package org.sodm.jobs.linear;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.model.LinearModel;
import org.sodm.model.MulticlassModel;
import org.sodm.model.Subproblems;
import org.sodm.saddle.SaddleOptions;
import org.sodm.saddle.SaddleResult;
import org.sodm.saddle.SaddleSvc;
import org.sodm.solver.Loss;
import org.sodm.testing.LocalConf;

/**
 * The saddle solver ({@code --loss hard-margin | nu --kernel linear}) on more than two classes: every task (ovo pair, ovr
 * class against the rest) is the Saddle-SVC of its own rows, computed here in process by {@link SaddleSvc#train} with the
 * same seed; a task whose hulls overlap fails naming the task, before a model is written.
 */
class SaddleMulticlassTest {
  @TempDir Path tmp;

  /** Three blobs around 3 e_c (spread 0.4; every pair and every class against the rest linearly separable), or overlapping. */
  private Path blobs(double centre, String name) throws Exception {
    return org.sodm.testing.Blobs.write(tmp.resolve(name), new int[] {40, 55, 70}, centre, 0.4, 5, false, 6);
  }

  private Configuration conf(String loss, String scheme) {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.LOSS, loss);
    conf.set(SodmConf.LINEAR_BLOCKS, "2");
    conf.set(SodmConf.LINEAR_EPS, "1e-4");
    conf.set(SodmConf.SEED, "7");
    conf.set("sodm.train.multiclass", scheme);
    return conf;
  }

  private TrainPipeline.Result train(Configuration conf, Path input, String name, List<String> lines) throws Exception {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(input.toString()), List.of(),
        new org.apache.hadoop.fs.Path(tmp.resolve(name).toString()), false), lines::add);
  }

  /** Each task's rows and labels as the plan orients them. */
  private static SaddleResult reference(LibsvmReader.Data d, MulticlassModel m, int t, SaddleOptions o) {
    List<SparseVector> x = new ArrayList<>();
    List<Double> y = new ArrayList<>();
    for (int i = 0; i < d.size(); i++) {
      double yi = m.plan().y(t, m.classes().indexOf(d.labels()[i]));
      if (yi == 0) continue;
      x.add(d.x()[i]);
      y.add(yi);
    }
    return SaddleSvc.train(x.toArray(new SparseVector[0]), y.stream().mapToDouble(Double::doubleValue).toArray(), o);
  }

  private static void assertTask(SaddleResult ref, LinearModel sub, double rel, String what) {
    double scale = 0;
    for (double v : ref.weights()) scale = Math.max(scale, Math.abs(v));
    for (int j = 0; j < ref.weights().length; j++) assertEquals(ref.weights()[j], sub.w()[j], rel * scale, what + ": w" + j);
    assertEquals(ref.bias(), sub.bias(), rel * scale, what + ": bias");
  }

  @Test
  void hardMarginTasksAreEachTheSaddleSvcOfTheirRows() throws Exception {
    Path data = blobs(3, "separable.libsvm");
    LibsvmReader.Data d = LibsvmReader.read(data);
    for (String scheme : new String[] {"ovo", "ovr"}) {
      List<String> lines = new ArrayList<>();
      MulticlassModel m = (MulticlassModel) train(conf("hard-margin", scheme), data, "hm-" + scheme, lines).model();
      Subproblems plan = m.plan();
      assertEquals(3, plan.tasks());
      for (int t = 0; t < 3; t++) {
        LinearModel sub = (LinearModel) m.subModel(t);
        assertEquals("saddle", sub.solver());
        assertEquals(Loss.hardMargin(), sub.loss());
        SaddleResult ref = reference(d, m, t, SaddleOptions.hardMargin().withEps(1e-4).withSeed(7));
        assertTrue(ref.best().converged());
        assertTask(ref, sub, 1e-9, scheme + " task " + t);
      }
      for (int i = 0; i < d.size(); i++) assertEquals(d.labels()[i], m.predict(d.x()[i]), scheme + " row " + i + " (separable)");
      assertTrue(lines.stream().anyMatch(l -> l.contains("saddle-t2 ")), scheme + ": task 2's checks " + lines);
      assertFalse(Files.exists(tmp.resolve("hm-" + scheme).resolve("work/saddle-t0")), scheme + ": every task in one run");
      if (!scheme.equals("ovo")) continue;
      // the tasks in turn (a partition and a resident job each): the same model, bit for bit
      Configuration inTurn = conf("hard-margin", scheme);
      inTurn.setBoolean(LinearTrainer.TASKS_TOGETHER, false);
      MulticlassModel t = (MulticlassModel) train(inTurn, data, "hm-turn", new ArrayList<>()).model();
      assertTrue(Files.isDirectory(tmp.resolve("hm-turn").resolve("work/saddle-t2")), "the tasks in turn");
      for (int k = 0; k < 3; k++) {
        assertArrayEquals(((LinearModel) t.subModel(k)).w(), ((LinearModel) m.subModel(k)).w(), 0.0, "task " + k);
        assertEquals(((LinearModel) t.subModel(k)).bias(), ((LinearModel) m.subModel(k)).bias(), 0.0, "task " + k);
      }
    }
  }

  @Test
  void nuTasksUseTheirOwnDefaultNu() throws Exception {
    Path data = blobs(1.2, "overlapping.libsvm");
    LibsvmReader.Data d = LibsvmReader.read(data);
    MulticlassModel m = (MulticlassModel) train(conf("nu", "ovo"), data, "nu-ovo", new ArrayList<>()).model();
    int[] sizes = {40, 55, 70};
    for (int t = 0; t < 3; t++) {
      LinearModel sub = (LinearModel) m.subModel(t);
      long n1 = sizes[m.plan().positiveClass(t)];
      long n2 = sizes[m.plan().negativeClass(t)];
      double nu = 2 * 0.85 * Math.min(n1, n2) / (n1 + n2);
      assertEquals(nu, ((Loss.Nu) sub.loss()).nu(), 1e-15, "task " + t);
      SaddleResult ref = reference(d, m, t, SaddleOptions.nuSvm().withEps(1e-4).withSeed(7));
      // nu-SVM's iterates agree to rounding for thousands of iterations, then to the run's accuracy (SaddleTrainTest)
      assertTask(ref, sub, 1e-3, "task " + t);
    }
  }

  @Test
  void aTaskThatIsNotSeparableFailsNamingIt() throws Exception {
    Path data = blobs(1.2, "overlapping.libsvm");
    SodmException e = assertThrows(SodmException.class, () -> train(conf("hard-margin", "ovr"), data, "hm-bad", new ArrayList<>()));
    assertTrue(e.getMessage().startsWith("task '1' vs rest, hard margin: the convex hulls of the two classes are within "), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("hm-bad").resolve(TrainPipeline.MODEL)));
  }

  @SuppressWarnings("unchecked")
  private java.util.Map<String, Object> cv(Configuration conf, Path data, String name) throws Exception {
    conf.setInt(org.sodm.jobs.train.TrainKeys.CV_FOLDS, 3);
    conf.set(SodmConf.LINEAR_BLOCKS, "1"); // thousands of rounds per sub-problem: one block keeps the test short
    train(conf, data, name, new ArrayList<>());
    java.util.Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper()
        .readValue(tmp.resolve(name).resolve(TrainPipeline.REPORT).toFile(), java.util.Map.class);
    return (java.util.Map<String, Object>) report.get("cv");
  }

  /**
   * sodm cv with the saddle solver: the folds of every task in turn. nu-SVM's cv agrees with the same folds solved by the
   * kernel tree's nu-SVC blocks (a second method: LIBSVM's Solver_NU, linear kernel) to 2 rows of 165; hard margin on
   * separable classes gets every held-out row right.
   */
  @Test
  @SuppressWarnings("unchecked")
  void crossValidationOfTheSaddleTasks() throws Exception {
    Path overlapping = blobs(1.2, "overlapping.libsvm");
    Configuration saddle = conf("nu", "ovo");
    saddle.set(SodmConf.NU, "0.3");
    java.util.Map<String, Object> ours = cv(saddle, overlapping, "cv-nu");
    assertTrue(Files.isDirectory(tmp.resolve("cv-nu").resolve("work/saddle")), "every (task, fold) in one run");
    Configuration tree = conf("nu", "ovo");
    tree.set(SodmConf.NU, "0.3");
    tree.set(SodmConf.LINEAR_SOLVER, "kernel");
    java.util.Map<String, Object> second = cv(tree, overlapping, "cv-nu-tree");
    List<java.util.Map<String, Object>> a = (List<java.util.Map<String, Object>>) ours.get("folds");
    List<java.util.Map<String, Object>> b = (List<java.util.Map<String, Object>>) second.get("folds");
    assertEquals(3, a.size());
    long correctA = 0;
    long correctB = 0;
    for (int f = 0; f < 3; f++) {
      assertEquals(b.get(f).get("rows"), a.get(f).get("rows"), "fold " + f + ": the same rows");
      correctA += ((Number) a.get(f).get("correct")).longValue();
      correctB += ((Number) b.get(f).get("correct")).longValue();
    }
    assertEquals(correctB, correctA, 2, "held-out rows right: saddle " + correctA + ", nu-SVC blocks " + correctB);
    assertTrue(correctA > 0.8 * 165, "cv accuracy " + correctA + " of 165");

    java.util.Map<String, Object> hm = cv(conf("hard-margin", "ovr"), blobs(3, "separable.libsvm"), "cv-hm");
    for (java.util.Map<String, Object> f : (List<java.util.Map<String, Object>>) hm.get("folds")) {
      assertEquals(f.get("rows"), f.get("correct"), "separable: every held-out row right " + f);
    }
  }

  /** --probability with the saddle solver: Platt's sigmoids fitted per task on its fold models; the label is the argmax. */
  @Test
  void nuWithProbabilities() throws Exception {
    Path data = blobs(1.2, "overlapping.libsvm");
    LibsvmReader.Data d = LibsvmReader.read(data);
    Configuration conf = conf("nu", "ovo");
    conf.set(org.sodm.jobs.spec.Param.PROBABILITY.key(), "true");
    conf.set(org.sodm.jobs.spec.Param.PROBABILITY_FOLDS.key(), "3");
    conf.set(SodmConf.LINEAR_BLOCKS, "1");
    MulticlassModel m = (MulticlassModel) train(conf, data, "nu-prob", new ArrayList<>()).model();
    org.sodm.testing.ProbabilityChecks.assertArgmaxLabels(m, d, 0.8);
  }
}
