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
      assertTrue(Files.isDirectory(tmp.resolve("hm-" + scheme).resolve("work/saddle-t2")), scheme + ": the tasks in turn");
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
}
