package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Prediction;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.linear.LinearTrainer;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.model.LinearModel;
import org.sodm.model.MulticlassModel;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * {@code --loss logistic} end to end (TRON on the resident runtime): the model is the optimum (the gradient recomputed from the
 * rows), over 1, 3 and 5 blocks (5: the partition job's files); its probabilities are the sigmoids of its decision values, as
 * liblinear-predict -b 1 computes them; one-vs-rest tasks in one run equal the tasks trained in turn; where it does not apply it is
 * refused.
 */
class LogisticTrainTest {
  @TempDir Path tmp;
  private Configuration conf;
  private final List<String> progress = new ArrayList<>();

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.LOSS, "logistic");
    conf.set(SodmConf.C, "2");
    conf.setBoolean(Param.BIAS.key(), true);
  }

  private TrainPipeline.Result train(Configuration c, String out, Path input) throws IOException {
    return TrainPipeline.run(c, new TrainPipeline.Request(List.of(input.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), progress::add);
  }

  /** Rows of a LIBSVM file: labels and features (no scaling). */
  record Rows(List<String> labels, List<SparseVector> x) {}

  static Rows read(Path file) throws IOException {
    List<String> labels = new ArrayList<>();
    List<SparseVector> x = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      String[] t = line.trim().split("\\s+");
      if (t[0].isEmpty()) continue;
      labels.add(t[0]);
      int[] idx = new int[t.length - 1];
      double[] val = new double[t.length - 1];
      for (int k = 1; k < t.length; k++) {
        idx[k - 1] = Integer.parseInt(t[k].substring(0, t[k].indexOf(':')));
        val[k - 1] = Double.parseDouble(t[k].substring(t[k].indexOf(':') + 1));
      }
      x.add(new SparseVector(idx, val));
    }
    return new Rows(labels, x);
  }

  /**
   * The gradient of 1/2 (|w|^2 + b^2) + C sum_i log(1 + exp(-y_i (w'x_i + b))) from the rows (y = +1 for {@code positive}),
   * written out here apart from the solver: [grad w..., grad b].
   */
  static double[] gradient(Rows rows, String positive, double[] w, double b, double c) {
    double[] g = java.util.Arrays.copyOf(w, w.length + 1);
    g[w.length] = b;
    for (int i = 0; i < rows.x().size(); i++) {
      SparseVector x = rows.x().get(i);
      double y = rows.labels().get(i).equals(positive) ? 1 : -1;
      double f = b;
      for (int k = 0; k < x.indices().length; k++) f += w[x.indices()[k] - 1] * x.values()[k];
      double a = c * (1 / (1 + Math.exp(-y * f)) - 1) * y;
      for (int k = 0; k < x.indices().length; k++) g[x.indices()[k] - 1] += a * x.values()[k];
      g[w.length] += a;
    }
    return g;
  }

  static double norm(double[] v) {
    double s = 0;
    for (double x : v) s += x * x;
    return Math.sqrt(s);
  }

  /**
   * svmguide1 (two classes, as distributed), C = 2 with a bias, tight eps: on 1, 3 and 5 blocks the model's gradient, recomputed
   * from the rows, is below 1e-9 of the gradient at 0 (the optimum of a strongly convex problem), and the three models agree to
   * 1e-6; predict's probability of class 1 is 1 / (1 + exp(-f)) for every test row, and liblinear-predict -b 1 on LIBLINEAR's own
   * -s 0 -B 1 model gives the same probabilities to 1e-4 when it is installed.
   */
  @Test
  void theBinaryModelIsTheOptimumAndItsProbabilitiesAreTheSigmoids() throws Exception {
    Path train = LocalConf.sampleData("svmguide1");
    Path test = LocalConf.sampleData("svmguide1.t");
    Rows rows = read(train);
    conf.set(Param.LINEAR_EPS.key(), "1e-9");
    LinearModel[] models = new LinearModel[3];
    org.apache.hadoop.fs.Path oneBlock = null;
    int[] blocks = {1, 3, 5};
    for (int j = 0; j < blocks.length; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), Integer.toString(blocks[j]));
      TrainPipeline.Result r = train(c, "m" + blocks[j], train);
      if (j == 0) oneBlock = r.modelPath();
      MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
      assertEquals(List.of("0", "1"), m.classes());
      assertTrue(m.hasProbabilities(), "a logistic model gives probabilities");
      models[j] = assertInstanceOf(LinearModel.class, m.subModel(0));
      assertEquals("logistic", models[j].loss().id());
      double[] g = gradient(rows, "1", models[j].w(), models[j].bias(), 2);
      double g0 = norm(gradient(rows, "1", new double[models[j].w().length], 0, 2));
      assertTrue(norm(g) <= 1e-9 * g0, blocks[j] + " blocks: |grad| " + norm(g) + " against |grad(0)| " + g0);
    }
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("tron") && l.contains("converged")), String.join("\n", progress));
    for (int j = 1; j < 3; j++) {
      for (int f = 0; f < models[0].w().length; f++) {
        assertEquals(models[0].w()[f], models[j].w()[f], 1e-6 * Math.max(1, Math.abs(models[0].w()[f])), blocks[j] + " blocks, w" + f);
      }
      assertEquals(models[0].bias(), models[j].bias(), 1e-6 * Math.max(1, Math.abs(models[0].bias())));
    }

    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString());
    PredictJob.Result result = PredictJob.run(conf, oneBlock, List.of(test.toString()), out);
    List<Prediction> preds = AvroFiles.readDir(conf, out, Prediction.class);
    preds.sort(Comparator.comparingLong(Prediction::getId));
    Rows testRows = read(test);
    assertEquals(testRows.x().size(), preds.size());
    List<String> ours = new ArrayList<>();
    for (int i = 0; i < preds.size(); i++) {
      SparseVector x = testRows.x().get(i);
      double f = models[0].bias();
      for (int k = 0; k < x.indices().length; k++) f += models[0].w()[x.indices()[k] - 1] * x.values()[k];
      double p1 = 1 / (1 + Math.exp(-f));
      Prediction p = preds.get(i);
      List<Double> probs = p.getProbabilities(); // in the classes' sorted order: 0, 1
      assertEquals(p1, probs.get(1), 1e-12, "row " + (i + 1));
      assertEquals(1 - p1, probs.get(0), 1e-12, "row " + (i + 1));
      assertEquals(f >= 0 ? "1" : "0", p.getPredicted().toString(), "row " + (i + 1));
      ours.add(String.valueOf(p1));
    }
    // the AUC of P(1), as predict reports it, by counting the (class 1, class 0) pairs it orders right (ties half)
    double pairs = 0;
    double right = 0;
    for (int i = 0; i < ours.size(); i++) {
      if (!testRows.labels().get(i).equals("1")) continue;
      for (int j = 0; j < ours.size(); j++) {
        if (testRows.labels().get(j).equals("1")) continue;
        double a = Double.parseDouble(ours.get(i));
        double b = Double.parseDouble(ours.get(j));
        pairs++;
        right += a > b ? 1 : a == b ? 0.5 : 0;
      }
    }
    assertEquals(right / pairs, result.multiclass().auc(), 1e-12, "AUC");
    if (!LibsvmTools.installed() || !Files.isExecutable(Path.of("/usr/bin/liblinear-train"))) return;
    Path ll = tmp.resolve("ll.model");
    LibsvmTools.run(null, "liblinear-train", "-q", "-s", "0", "-c", "2", "-B", "1", "-e", "1e-6", train.toString(), ll.toString());
    LibsvmTools.run(null, "liblinear-predict", "-b", "1", test.toString(), ll.toString(), tmp.resolve("ll.out").toString());
    List<String> theirs = Files.readAllLines(tmp.resolve("ll.out"));
    List<String> header = List.of(theirs.get(0).split(" "));
    int col = header.indexOf("1"); // "labels 1 0": the column of class 1 (the label word shifts it by one)
    for (int i = 0; i < ours.size(); i++) {
      double p = Double.parseDouble(theirs.get(i + 1).split(" ")[col]);
      assertEquals(Double.parseDouble(ours.get(i)), p, 1e-4, "row " + (i + 1) + ": LIBLINEAR's P(1)");
    }
  }

  /** blobs4, one-vs-rest: the four tasks in one resident run are the tasks trained one after another, bit for bit. */
  @Test
  void oneVsRestTasksInOneRunEqualTheTasksInTurn() throws Exception {
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    Path blobs = MulticlassTrainTest.resource("blobs4.libsvm");
    TrainPipeline.Result first = train(conf, "together", blobs);
    MulticlassModel together = assertInstanceOf(MulticlassModel.class, first.model());
    String[] shown = org.sodm.cli.SodmMainAccess.run("inspect", "-D", "fs.defaultFS=file:///", first.modelPath().toString());
    assertTrue(shown[1].contains("loss       logistic (C=2.0), regularised bias") && shown[1].contains("probability estimates (logistic: "
        + "the tasks' sigmoids of f, normalised to sum 1, as liblinear-predict -b 1)") && shown[1].contains("linear (tron)"), shown[1]);
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("tron-t3")), String.join("\n", progress));
    Configuration c = new Configuration(conf);
    c.setBoolean(LinearTrainer.TASKS_TOGETHER, false);
    MulticlassModel inTurn = assertInstanceOf(MulticlassModel.class, train(c, "inturn", blobs).model());
    assertEquals(4, together.plan().tasks());
    for (int t = 0; t < 4; t++) {
      LinearModel a = (LinearModel) together.subModel(t);
      LinearModel b = (LinearModel) inTurn.subModel(t);
      assertArrayEquals(b.w(), a.w(), "task " + t);
      assertEquals(b.bias(), a.bias(), "task " + t);
    }
    // the probabilities are the tasks' sigmoids normalised to sum 1 (liblinear-predict -b 1's)
    SparseVector x = together.scaler().apply(new SparseVector(new int[] {1, 2}, new double[] {0.3, -0.2}));
    double[] f = together.decisionValues(x);
    double[] p = together.probabilities(f);
    double s = 0;
    for (double v : f) s += 1 / (1 + Math.exp(-v));
    for (int t = 0; t < 4; t++) assertEquals(1 / (1 + Math.exp(-f[t])) / s, p[together.plan().positiveClass(t)], 1e-15);
  }

  /**
   * sodm grid --kernel linear --loss logistic (svmguide1 in [0,1], C = 1/8..32): the warm-started C path in one run; its
   * first C is the cold cell exactly (it starts from 0 as the cold cv does), the others within a point (two rows of 3,089) of
   * the cells of --no-warm-start, which solves every C from zero; the path's stages after the first take their Newton steps
   * from the previous C's w.
   */
  @Test
  void theGridWalksCWarmStartedAsTheColdCells() throws Exception {
    String data = LocalConf.sampleData("svmguide1").toString();
    List<List<String>> cells = warmAndColdCells(tmp, List.of("-i", data, "--scale", "0,1", "--kernel", "linear", "--loss", "logistic",
        "--log2c", "-3,5,2"), "tron-path    C 32.0       solved on all 5 sub-problems");
    assertTrue(progressOf(cells).contains("5 values of C warm-started in one run"));
    assertPathNearCold(cells, 5, 31);
  }

  /**
   * sodm grid's grid.csv with the given arguments, warm-started (the default) and with --no-warm-start, then the warm run's
   * output last; the warm run (only) printed {@code pathLine}.
   */
  static List<List<String>> warmAndColdCells(Path tmp, List<String> given, String pathLine) throws Exception {
    List<List<String>> cells = new ArrayList<>();
    String warmOutput = null;
    for (String warm : new String[] {"--warm-start", "--no-warm-start"}) {
      Path out = tmp.resolve("grid" + warm);
      List<String> args = new ArrayList<>(List.of("grid", "-D", "fs.defaultFS=file:///", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-o",
          out.toString()));
      args.addAll(given);
      if (warm.startsWith("--no")) args.add(warm);
      String[] r = org.sodm.cli.SodmMainAccess.run(args.toArray(new String[0]));
      assertEquals("0", r[0], r[2]);
      assertEquals(!warm.startsWith("--no"), (r[1] + r[2]).contains(pathLine), r[1] + r[2]);
      if (warmOutput == null) warmOutput = r[1] + r[2];
      cells.add(Files.readAllLines(out.resolve("grid.csv")));
    }
    cells.add(List.of(warmOutput));
    return cells;
  }

  static String progressOf(List<List<String>> cells) {
    return cells.get(2).get(0);
  }

  /** The path's first C has the cold cell's correct rows exactly; the later ones within {@code tolerance} rows of the cold cells. */
  static void assertPathNearCold(List<List<String>> cells, int values, int tolerance) {
    List<String> path = cells.get(0);
    List<String> cold = cells.get(1);
    assertEquals(values + 1, path.size());
    assertEquals(cold.get(1).split(",")[13], path.get(1).split(",")[13], "the first C: the same correct rows as the cold cell");
    for (int i = 2; i <= values; i++) {
      int warmCorrect = Integer.parseInt(path.get(i).split(",")[13]);
      int coldCorrect = Integer.parseInt(cold.get(i).split(",")[13]);
      assertTrue(Math.abs(warmCorrect - coldCorrect) <= tolerance, "row " + i + ": " + warmCorrect + " vs " + coldCorrect);
    }
  }

  /**
   * --log2c auto: LIBLINEAR's -C range, from 2^floor(log2(1 / (l max|x|^2))) (|x|^2 with the bias feature, computed here from the
   * file) to 2^10 step 1; refused for a kernel grid and for a loss LIBLINEAR's range is not for.
   */
  @Test
  void autoLog2cIsLiblinearsRangeOfC() throws Exception {
    Path file = LocalConf.sampleData("svmguide1");
    Rows rows = read(file);
    double max = 0;
    for (SparseVector x : rows.x()) max = Math.max(max, x.squaredNorm());
    int begin = (int) Math.floor(Math.log(1 / (rows.x().size() * (max + 1))) / Math.log(2));
    Path out = tmp.resolve("auto");
    String[] common = {"-D", "fs.defaultFS=file:///", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-i", file.toString(), "--log2c", "auto"};
    List<String> args = new ArrayList<>(List.of("grid"));
    args.addAll(List.of(common));
    args.addAll(List.of("--kernel", "linear", "--loss", "logistic", "--bias", "-o", out.toString()));
    String[] r = org.sodm.cli.SodmMainAccess.run(args.toArray(new String[0]));
    assertEquals("0", r[0], r[2]);
    assertTrue((r[1] + r[2]).contains("log2c auto   LIBLINEAR's -C range: C from 2^" + begin + " "), r[1] + r[2]);
    List<String> csv = Files.readAllLines(out.resolve("grid.csv"));
    assertEquals(10 - begin + 1, csv.size() - 1);
    for (int i = 1; i < csv.size(); i++) assertEquals(begin + i - 1, Double.parseDouble(csv.get(i).split(",")[0]), "row " + i);

    args = new ArrayList<>(List.of("grid"));
    args.addAll(List.of(common));
    args.addAll(List.of("--kernel", "linear", "--loss", "odm", "-o", tmp.resolve("odm").toString()));
    r = org.sodm.cli.SodmMainAccess.run(args.toArray(new String[0]));
    assertEquals("1", r[0], r[1] + r[2]);
    assertFalse(r[2].contains("ingest"), "refused before any job: " + r[2]);
    assertTrue(r[2].contains("--log2c auto: LIBLINEAR's range of C is for the hinge, squared-hinge and logistic losses, not odm"), r[2]);
    args = new ArrayList<>(List.of("grid"));
    args.addAll(List.of(common));
    args.addAll(List.of("-o", tmp.resolve("rbf").toString()));
    r = org.sodm.cli.SodmMainAccess.run(args.toArray(new String[0]));
    assertEquals("1", r[0], r[1] + r[2]);
    assertTrue(r[2].contains("--log2c auto: LIBLINEAR's range of C is for --kernel linear"), r[2]);
    assertTrue(Files.notExists(tmp.resolve("odm")) && Files.notExists(tmp.resolve("rbf")), "nothing written");
  }

  @Test
  void refusedWhereItDoesNotApply() {
    Configuration rbf = new Configuration(conf);
    rbf.set(SodmConf.KERNEL, "rbf");
    assertTrue(assertThrows(RuntimeException.class, () -> TrainSpec.from(rbf)).getMessage().contains("--kernel linear only"));
    Configuration jobs = new Configuration(conf);
    jobs.set(Param.ITERATION_MODE.key(), "jobs");
    assertTrue(assertThrows(RuntimeException.class, () -> TrainSpec.from(jobs)).getMessage().contains("use allreduce"));
    Configuration bqo = new Configuration(conf);
    bqo.set(Param.LINEAR_SOLVER.key(), "bqo");
    assertTrue(assertThrows(RuntimeException.class, () -> TrainSpec.from(bqo)).getMessage().contains("bqo does not solve logistic"));
    Configuration tron = new Configuration(conf);
    tron.set(SodmConf.LOSS, "hinge");
    tron.set(Param.LINEAR_SOLVER.key(), "tron");
    assertTrue(assertThrows(RuntimeException.class, () -> TrainSpec.from(tron)).getMessage().contains("tron solves logistic and squared-hinge in the primal, not hinge"));
  }
}
