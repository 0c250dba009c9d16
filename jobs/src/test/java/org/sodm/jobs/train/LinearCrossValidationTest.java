package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/** sodm cv with the linear solvers (BQO, DSVRG): every (task, fold) trained without its fold, against liblinear-train -v. */
class LinearCrossValidationTest {
  @TempDir Path tmp;

  @SuppressWarnings("unchecked")
  private Map<String, Object> cv(String data, String loss, String solver, boolean bias, String multiclass) throws Exception {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, loss);
    conf.set(SodmConf.C, "1");
    conf.set("sodm.kernel", "linear");
    conf.set("sodm.train.linear.solver", solver);
    conf.setBoolean("sodm.train.bias", bias);
    if (multiclass != null) conf.set("sodm.train.multiclass", multiclass);
    conf.setInt(TrainKeys.CV_FOLDS, 5);
    Path out = tmp.resolve("cv-" + loss + solver + bias + multiclass);
    TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data), null, new org.apache.hadoop.fs.Path(out.toString()), false), l -> {});
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(out.resolve(TrainPipeline.REPORT).toFile(), Map.class);
    return (Map<String, Object>) report.get("cv");
  }

  private static double liblinear(Path scratch, String data, String... args) throws Exception {
    Path scaled = scratch.resolve("scaled-" + Path.of(data).getFileName());
    if (!Files.exists(scaled)) LibsvmTools.run(scaled, "svm-scale", "-l", "0", "-u", "1", data);
    String[] cmd = new String[args.length + 5];
    cmd[0] = "liblinear-train";
    cmd[1] = "-q";
    cmd[2] = "-v";
    cmd[3] = "5";
    System.arraycopy(args, 0, cmd, 4, args.length);
    cmd[cmd.length - 1] = scaled.toString();
    String out = LibsvmTools.run(null, cmd);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("Cross Validation Accuracy = ([0-9.]+)%").matcher(out);
    assertTrue(m.find(), out);
    return Double.parseDouble(m.group(1)) / 100;
  }

  private static boolean liblinearInstalled() {
    return Files.isExecutable(Path.of("/usr/bin/liblinear-train")) && LibsvmTools.installed();
  }

  /** svmguide1 [0,1], hinge C = 1, 5 folds, BQO without and with bias: within 1 point of liblinear-train -s 3 -v 5 (-B -1 / 1). */
  @Test
  @SuppressWarnings("unchecked")
  void bqoWithinOnePointOfLiblinearV() throws Exception {
    String data = LocalConf.sampleData("svmguide1").toString();
    for (boolean bias : new boolean[] {false, true}) {
      Map<String, Object> cv = cv(data, "hinge", "bqo", bias, null);
      assertEquals(3089, ((Number) cv.get("rows")).intValue());
      List<Map<String, Object>> folds = (List<Map<String, Object>>) cv.get("folds");
      assertEquals(5, folds.size());
      long rows = 0;
      for (Map<String, Object> f : folds) {
        long n = ((Number) f.get("rows")).longValue();
        assertTrue(n == 617 || n == 618, "fold sizes within +-1: " + n);
        rows += n;
      }
      assertEquals(3089, rows);
      double ours = ((Number) cv.get("accuracy")).doubleValue();
      assertTrue(ours > (bias ? 0.93 : 0.88), "cv accuracy " + ours);
      if (!liblinearInstalled()) continue;
      double theirs = liblinear(tmp, data, "-s", "3", "-c", "1", "-B", bias ? "1" : "-1");
      assertEquals(theirs, ours, 0.01, "sodm cv (bqo, bias " + bias + ") " + ours + " vs liblinear-train -v 5 " + theirs);
    }
  }

  /**
   * DSVRG (ODM only, no LIBLINEAR peer) runs its folds too. No accuracy peer here: DSVRG's ODM with the default parameters reaches
   * 52.5% on svmguide1.t in plain training as well (sodm train), so an agreement test would measure that, not the folds; the
   * folds' wiring is {@code DealerHeldOutTest}'s.
   */
  @Test
  @SuppressWarnings("unchecked")
  void dsvrgRunsEveryFold() throws Exception {
    Map<String, Object> cv = cv(LocalConf.sampleData("svmguide1").toString(), "odm", "dsvrg", true, null);
    assertEquals(3089, ((Number) cv.get("rows")).intValue());
    assertEquals(5, ((List<?>) cv.get("folds")).size());
  }

  /** Three Gaussian blobs in 4 dimensions (labels 1, 2, 3), 240 rows, written to the temp directory. */
  private Path blobs() throws Exception {
    Path f = tmp.resolve("blobs3.libsvm");
    java.util.Random r = new java.util.Random(17);
    StringBuilder b = new StringBuilder();
    String[] labels = {"1", "2", "3"};
    for (int i = 0; i < 240; i++) {
      int c = i % 3;
      b.append(labels[c]);
      for (int j = 1; j <= 4; j++) b.append(' ').append(j).append(':').append(String.format(java.util.Locale.ROOT, "%.5f", (j == c + 1 ? 1.5 : 0) + r.nextGaussian()));
      b.append('\n');
    }
    Files.writeString(f, b);
    return f;
  }

  /** A local configuration for BQO, hinge, C = 1 (LinearProbabilityTest's too). */
  static Configuration bqoHinge(Path tmp) {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
    conf.set("sodm.kernel", "linear");
    conf.set("sodm.train.linear.solver", "bqo");
    return conf;
  }

  private Configuration linearConf(String scheme, boolean together) {
    Configuration conf = bqoHinge(tmp);
    conf.set("sodm.train.multiclass", scheme);
    conf.setBoolean(org.sodm.jobs.linear.LinearTrainer.FOLDS_TOGETHER, together);
    return conf;
  }

  /**
   * Every (task, fold) of sodm cv and of --probability's internal folds in one resident BQO run gives exactly the models of
   * training them one after another (each its own dealt run): the same fold accuracies and Platt sigmoids, bit for bit, on
   * ovr and ovo; the one run has no per-(task, fold) phase.
   */
  @Test
  @SuppressWarnings("unchecked")
  void foldsInOneRunEqualFoldsInTurn() throws Exception {
    String data = blobs().toString();
    for (String scheme : new String[] {"ovr", "ovo"}) {
      Map<String, Object>[] cv = new Map[2];
      org.sodm.model.MulticlassModel[] models = new org.sodm.model.MulticlassModel[2];
      for (int k = 0; k < 2; k++) {
        boolean together = k == 0;
        Configuration conf = linearConf(scheme, together);
        conf.setInt(TrainKeys.CV_FOLDS, 4);
        Path out = tmp.resolve("cv-" + scheme + together);
        TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data), null, new org.apache.hadoop.fs.Path(out.toString()), false), l -> {});
        cv[k] = (Map<String, Object>) new com.fasterxml.jackson.databind.ObjectMapper().readValue(out.resolve(TrainPipeline.REPORT).toFile(),
            Map.class).get("cv");
        assertEquals(together, cv[k].get("together"), scheme);
        Configuration pc = linearConf(scheme, together);
        pc.setBoolean("sodm.train.probability", true);
        Path pout = tmp.resolve("prob-" + scheme + together);
        TrainPipeline.Result r = TrainPipeline.run(pc, new TrainPipeline.Request(List.of(data), null,
            new org.apache.hadoop.fs.Path(pout.toString()), false), l -> {});
        models[k] = (org.sodm.model.MulticlassModel) r.model();
        Path work = pout.resolve("work");
        assertEquals(!together, Files.isDirectory(work.resolve("bqo-t0-f0")), scheme + ": per-(task, fold) phases only when trained in turn");
        assertEquals(together, Files.isDirectory(work.resolve("bqo")), scheme + ": one bqo phase for all sub-problems");
      }
      assertEquals(cv[1].get("folds"), cv[0].get("folds"), scheme + ": per-fold rows and correct counts");
      assertEquals(((Number) cv[1].get("accuracy")).doubleValue(), ((Number) cv[0].get("accuracy")).doubleValue(), 0.0);
      assertTrue(((Number) cv[0].get("accuracy")).doubleValue() > 0.6, "the blobs are learnable: " + cv[0].get("accuracy"));
      for (int t = 0; t < models[0].plan().tasks(); t++) {
        assertEquals(models[1].platt(t).a(), models[0].platt(t).a(), 0.0, scheme + " task " + t + ": Platt A");
        assertEquals(models[1].platt(t).b(), models[0].platt(t).b(), 0.0, scheme + " task " + t + ": Platt B");
      }
      for (double[] x : new double[][] {{0.3, -1, 2, 0.1}, {1.5, 0, 0, 0}, {-1, -1, -1, 2}}) {
        org.sodm.data.SparseVector v = org.sodm.data.SparseVector.ofDense(x);
        assertArrayEquals(models[1].decisionValues(v), models[0].decisionValues(v), 0.0, scheme + ": the full tasks' models");
      }
    }
  }

  /**
   * DSVRG (resident, random blocks): every task of a multi-class problem in one run (one partition job dealing class indices, one
   * resident job) gives exactly the models of partitioning and solving the tasks one after another, bit for bit, ovr and ovo; the
   * one run has one dsvrg phase, the other a phase per task. On 3 blocks and on one (dealt by the resident task from the
   * ingested data: with class indices in the one run, with each task's labels in turn).
   */
  @Test
  void dsvrgTasksInOneRunEqualTasksInTurn() throws Exception {
    String data = blobs().toString();
    for (String blocks : new String[] {"3", "1"}) // 3 partitioned blocks; one block, dealt by its task in both runs
    for (String scheme : new String[] {"ovr", "ovo"}) {
      org.sodm.model.MulticlassModel[] models = new org.sodm.model.MulticlassModel[2];
      for (int k = 0; k < 2; k++) {
        boolean together = k == 0;
        Configuration conf = LocalConf.create(tmp);
        conf.set(SodmConf.LOSS, "odm");
        conf.set("sodm.kernel", "linear");
        conf.set("sodm.train.linear.solver", "dsvrg");
        conf.set("sodm.train.linear.blocks", blocks);
        conf.set("sodm.train.multiclass", scheme);
        conf.setBoolean(org.sodm.jobs.linear.LinearTrainer.TASKS_TOGETHER, together);
        Path out = tmp.resolve("dsvrg-" + blocks + scheme + together);
        TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data), null,
            new org.apache.hadoop.fs.Path(out.toString()), false), l -> {});
        models[k] = (org.sodm.model.MulticlassModel) r.model();
        Path work = out.resolve("work");
        assertEquals(together, Files.isDirectory(work.resolve("dsvrg")), scheme + ": one dsvrg phase for every task");
        assertEquals(!together, Files.isDirectory(work.resolve("dsvrg-t0")), scheme + ": a phase per task only when trained in turn");
      }
      assertEquals(3, models[0].plan().tasks(), "3 classes: 3 tasks by ovr and by ovo");
      int correct = 0;
      java.util.Random rnd = new java.util.Random(3);
      for (int i = 0; i < 60; i++) {
        int c = i % 3;
        double[] x = new double[4];
        for (int j = 0; j < 4; j++) x[j] = (j == c ? 1.5 : 0) + rnd.nextGaussian();
        org.sodm.data.SparseVector v = org.sodm.data.SparseVector.ofDense(x);
        assertArrayEquals(models[1].decisionValues(v), models[0].decisionValues(v), 0.0, scheme + ": the tasks' models");
        if (models[0].predict(v).equals(String.valueOf(c + 1))) correct++;
      }
      assertTrue(correct > 36, scheme + ": the blobs are learnable, " + correct + " of 60");
    }
  }

  /**
   * DSVRG's (task, fold) sub-problems of sodm cv in one resident run equal those trained one after another, bit for bit
   * (the same fold accuracies), ovr and ovo; and --probability's internal folds give the same Platt sigmoids.
   */
  @Test
  @SuppressWarnings("unchecked")
  void dsvrgFoldsInOneRunEqualFoldsInTurn() throws Exception {
    String data = blobs().toString();
    for (String scheme : new String[] {"ovr", "ovo"}) {
      Map<String, Object>[] cv = new Map[2];
      org.sodm.model.MulticlassModel[] models = new org.sodm.model.MulticlassModel[2];
      for (int k = 0; k < 2; k++) {
        boolean together = k == 0;
        for (boolean probability : new boolean[] {false, true}) {
          Configuration conf = LocalConf.create(tmp);
          conf.set(SodmConf.LOSS, "odm");
          conf.set("sodm.kernel", "linear");
          conf.set("sodm.train.linear.solver", "dsvrg");
          conf.set("sodm.train.linear.blocks", "2");
          conf.set("sodm.train.multiclass", scheme);
          conf.setBoolean(org.sodm.jobs.linear.LinearTrainer.FOLDS_TOGETHER, together);
          if (probability) conf.setBoolean("sodm.train.probability", true);
          else conf.setInt(TrainKeys.CV_FOLDS, 3);
          Path out = tmp.resolve("dsvrg-folds-" + scheme + together + probability);
          TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data), null,
              new org.apache.hadoop.fs.Path(out.toString()), false), l -> {});
          if (probability) {
            models[k] = (org.sodm.model.MulticlassModel) r.model();
            assertEquals(together, Files.isDirectory(out.resolve("work/dsvrg")), scheme + ": one dsvrg phase for all sub-problems");
          } else {
            cv[k] = (Map<String, Object>) new com.fasterxml.jackson.databind.ObjectMapper().readValue(
                out.resolve(TrainPipeline.REPORT).toFile(), Map.class).get("cv");
            assertEquals(together, cv[k].get("together"), scheme);
          }
        }
      }
      assertEquals(cv[1].get("folds"), cv[0].get("folds"), scheme + ": per-fold rows and correct counts");
      assertTrue(((Number) cv[0].get("accuracy")).doubleValue() > 0.6, "the blobs are learnable: " + cv[0].get("accuracy"));
      for (int t = 0; t < models[0].plan().tasks(); t++) {
        assertEquals(models[1].platt(t).a(), models[0].platt(t).a(), 0.0, scheme + " task " + t + ": Platt A");
        assertEquals(models[1].platt(t).b(), models[0].platt(t).b(), 0.0, scheme + " task " + t + ": Platt B");
      }
    }
  }

  /**
   * sodm grid --kernel linear's warm-started C path ({@link org.sodm.jobs.linear.LinearTrainer#C_PATH}): every (task, fold) along
   * C = 1/8, 1, 8 in one resident run. Its first C starts from zero as sodm cv does, so it is that cv exactly (every fold's rows and
   * correct rows); every later C is within the solver's certified gap (1e-3 relative, each sub-problem) of a cold cv at that C:
   * the sums of the sub-problems' primal objectives within 2e-3, the accuracy within 1 point. Binary (svmguide1), one-vs-rest (blobs, 3 classes) and one-vs-one with
   * the bias feature.
   */
  @Test
  @SuppressWarnings("unchecked")
  void cPathEqualsColdCvAtTheFirstCAndIsWithinTheGapAtTheOthers() throws Exception {
    String[] cs = {"0.125", "1.0", "8.0"};
    String blobs = blobs().toString();
    String[][] runs = {{LocalConf.sampleData("svmguide1").toString(), "ovr", "false"}, {blobs, "ovr", "false"}, {blobs, "ovo", "true"}};
    for (String[] run : runs) {
      String data = run[0];
      Configuration pc = linearConf(run[1], true);
      pc.setBoolean("sodm.train.bias", Boolean.parseBoolean(run[2]));
      pc.set(SodmConf.INGEST_SCALE, "0,1");
      pc.set(SodmConf.C, cs[0]);
      pc.setInt(TrainKeys.CV_FOLDS, 4);
      pc.setStrings(org.sodm.jobs.linear.LinearTrainer.C_PATH, cs);
      Path out = tmp.resolve("path-" + Path.of(data).getFileName() + run[1]);
      TrainPipeline.run(pc, new TrainPipeline.Request(List.of(data), null, new org.apache.hadoop.fs.Path(out.toString()), false), l -> {});
      List<Map<String, Object>> path = (List<Map<String, Object>>) new com.fasterxml.jackson.databind.ObjectMapper()
          .readValue(out.resolve(TrainPipeline.REPORT).toFile(), Map.class).get("path");
      assertEquals(cs.length, path.size());
      if (run == runs[0]) {
        // the task fails before round 3 (a round past the first C's, whose sub-problems take 2 here), checkpoints every 2
        // rounds: resubmitted from the checkpoint at the stage boundary, every C's folds and objective identical
        assertEquals(8L, ((Number) path.get(0).get("iterations")).longValue(), "4 sub-problems x 2 iterations at the first C");
        Configuration fc = new Configuration(pc);
        fc.set(org.sodm.jobs.allreduce.AllReduceKeys.TEST_FAIL, "0:3");
        fc.setInt(org.sodm.jobs.allreduce.AllReduceKeys.CHECKPOINT_ITERATIONS, 2);
        Path fout = tmp.resolve("path-fault");
        List<String> lines = new java.util.ArrayList<>();
        TrainPipeline.run(fc, new TrainPipeline.Request(List.of(data), null, new org.apache.hadoop.fs.Path(fout.toString()), false),
            lines::add);
        assertTrue(lines.stream().anyMatch(l -> l.contains("attempt 1 failed: rank 0") && l.contains("from the checkpoint before iteration 2")),
            lines.toString());
        assertEquals(path, new com.fasterxml.jackson.databind.ObjectMapper().readValue(fout.resolve(TrainPipeline.REPORT).toFile(), Map.class)
            .get("path"));
      }
      for (int c = 0; c < cs.length; c++) {
        Configuration conf = linearConf(run[1], true);
        conf.setBoolean("sodm.train.bias", Boolean.parseBoolean(run[2]));
        conf.set(SodmConf.INGEST_SCALE, "0,1");
        conf.set(SodmConf.C, cs[c]);
        conf.setInt(TrainKeys.CV_FOLDS, 4);
        Path cold = tmp.resolve("cold-" + c + Path.of(data).getFileName() + run[1]);
        TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data), null,
            new org.apache.hadoop.fs.Path(cold.toString()), false), l -> {});
        Map<String, Object> cv = (Map<String, Object>) new com.fasterxml.jackson.databind.ObjectMapper()
            .readValue(cold.resolve(TrainPipeline.REPORT).toFile(), Map.class).get("cv");
        Map<String, Object> warm = path.get(c);
        assertEquals(Double.parseDouble(cs[c]), ((Number) warm.get("c")).doubleValue());
        assertEquals(((Number) cv.get("rows")).longValue(), ((Number) warm.get("rows")).longValue());
        double objective = r.levels().get(0).getObjective();
        double pathObjective = ((Number) warm.get("objective")).doubleValue();
        if (c == 0) {
          assertEquals(cv.get("folds"), warm.get("folds"), "the first C starts from zero: sodm cv's folds exactly");
          assertEquals(objective, pathObjective, 1e-12 * objective);
        } else {
          assertEquals(objective, pathObjective, 2e-3 * objective, "C " + cs[c] + ": cold " + objective + ", warm " + pathObjective);
          assertEquals(((Number) cv.get("accuracy")).doubleValue(), ((Number) warm.get("accuracy")).doubleValue(), 0.01, "C " + cs[c]);
        }
      }
    }
  }
}
