package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.LinearModel;
import org.sodm.model.MulticlassModel;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * {@code --multiclass multinomial} end to end (one softmax problem over every class, TRON on the resident runtime): the model is
 * the softmax primal's optimum (its gradient recomputed from the rows, with class weights and a bias) on 1 and 3 blocks; its
 * probabilities are the softmax of its decision values; liblinear-predict scores its export with the same labels; two classes
 * are the binary model at 2C, which is the two-class softmax optimum; cv and the grid's warm path; refusals.
 */
class MultinomialTrainTest {
  @TempDir Path tmp;
  private Configuration conf;
  private final List<String> progress = new ArrayList<>();

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.LOSS, "logistic");
    conf.set(Param.MULTICLASS.key(), "multinomial");
    conf.set(SodmConf.C, "2");
    conf.setBoolean(Param.BIAS.key(), true);
  }

  private TrainPipeline.Result train(Configuration c, String out, Path input) throws IOException {
    return TrainPipeline.run(c, new TrainPipeline.Request(List.of(input.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), progress::add);
  }

  /** Class c's scores w_c'x + b_c of a row, w[c] = (weights..., b). */
  static double[] scores(double[][] w, SparseVector x) {
    double[] z = new double[w.length];
    for (int c = 0; c < w.length; c++) {
      z[c] = w[c][w[c].length - 1];
      for (int k = 0; k < x.indices().length; k++) {
        if (x.indices()[k] < w[c].length) z[c] += w[c][x.indices()[k] - 1] * x.values()[k];
      }
    }
    return z;
  }

  static double[] softmax(double[] z) {
    double max = Double.NEGATIVE_INFINITY;
    for (double v : z) max = Math.max(max, v);
    double s = 0;
    double[] p = new double[z.length];
    for (int c = 0; c < z.length; c++) s += p[c] = Math.exp(z[c] - max);
    for (int c = 0; c < z.length; c++) p[c] /= s;
    return p;
  }

  /**
   * |grad| of 1/2 sum_c |(w_c, b_c)|^2 + sum_i C_i (log sum_c exp(z_ic) - z_{i,y_i}) at W, written out here apart from the solver.
   */
  static double gradientNorm(LogisticTrainTest.Rows rows, List<String> classes, double[][] w, double[] classC) {
    double[][] g = lossGradient(rows, classes, w, classC);
    double s = 0;
    for (int c = 0; c < w.length; c++) for (int k = 0; k < w[c].length; k++) s += (g[c][k] + w[c][k]) * (g[c][k] + w[c][k]);
    return Math.sqrt(s);
  }

  /** The loss's gradient sum_i C_i (p_ic - [y_i = c]) (x_i, 1) per class, from the rows. */
  static double[][] lossGradient(LogisticTrainTest.Rows rows, List<String> classes, double[][] w, double[] classC) {
    double[][] g = new double[w.length][w[0].length];
    int d = w[0].length - 1;
    for (int i = 0; i < rows.x().size(); i++) {
      SparseVector x = rows.x().get(i);
      int y = classes.indexOf(rows.labels().get(i));
      double[] p = softmax(scores(w, x));
      for (int c = 0; c < w.length; c++) {
        double a = classC[y] * (p[c] - (c == y ? 1 : 0));
        for (int k = 0; k < x.indices().length; k++) g[c][x.indices()[k] - 1] += a * x.values()[k];
        g[c][d] += a;
      }
    }
    return g;
  }

  /**
   * --penalty l1 with the softmax (blobs4, C = 2, a bias, eps 1e-7): newGLMNET (the dense softmax Hessian) and OWL-QN on 1 and 2
   * blocks; each model's pseudo-gradient of |W|_1 + loss, from the rows, below 1e-5 of its value at 0, the four objectives equal
   * to 1e-9, newGLMNET's models with weights exactly 0, in far fewer iterations. With --l1-gap 1e-4 OWL-QN stops by the softmax's
   * duality gap, its f within 1e-4 f of theirs and its closing line's gap bounding the distance.
   */
  @Test
  void l1ByNewGlmnetAndOwlqnReachTheSameOptimum() throws Exception {
    Path blobs = MulticlassTrainTest.resource("blobs4.libsvm");
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(blobs);
    conf.set(Param.PENALTY.key(), "l1");
    conf.set(Param.LINEAR_EPS.key(), "1e-7");
    double[] classC = {2, 2, 2, 2};
    double[] f = new double[4];
    int[] iterations = new int[4];
    for (int j = 0; j < 4; j++) {
      Configuration cf = new Configuration(conf);
      cf.set(Param.L1_SOLVER.key(), j < 2 ? "glmnet" : "owlqn");
      cf.set(Param.LINEAR_BLOCKS.key(), j % 2 == 0 ? "1" : "2");
      progress.clear();
      MulticlassModel m = assertInstanceOf(MulticlassModel.class, train(cf, "l1-" + j, blobs).model());
      double[] check = l1Check(rows, m, classC);
      f[j] = check[0];
      double pg = check[1] * check[1];
      double pg0 = check[2] * check[2];
      int zeros = (int) check[3];
      assertTrue(Math.sqrt(pg) <= 1e-5 * Math.sqrt(pg0), "model " + j + ": |pseudo-gradient| " + Math.sqrt(pg) + " of " + Math.sqrt(pg0));
      if (j < 2) assertTrue(zeros >= 1, "model " + j + ": no weight at 0"); // OWL-QN may end a weight at 1e-9 where |grad| = 1
      String line = progress.stream().filter(l -> l.contains(" evaluations of f)")).findFirst().orElseThrow();
      assertTrue(line.contains(j < 2 ? "iterations of newGLMNET on the dense Hessian" : "iterations of OWL-QN"), line);
      iterations[j] = Integer.parseInt(line.replaceAll(".* after (\\d+) .*", "$1"));
    }
    for (int j = 1; j < 4; j++) assertEquals(f[0], f[j], 1e-9 * f[0], "model " + j);
    assertTrue(2 * iterations[0] < iterations[2], "newGLMNET " + iterations[0] + ", OWL-QN " + iterations[2]);
    // --l1-gap: OWL-QN on 2 blocks stops by the softmax's duality gap, within 1e-4 f of the optimum above, where LIBLINEAR's rule
    // at a loose eps (0.5) stops far from it
    Configuration loose = new Configuration(conf);
    loose.set(Param.L1_SOLVER.key(), "owlqn");
    loose.set(Param.LINEAR_BLOCKS.key(), "2");
    loose.set(Param.LINEAR_EPS.key(), "0.5");
    double fl = l1Check(rows, assertInstanceOf(MulticlassModel.class, train(loose, "l1-loose", blobs).model()), classC)[0];
    assertTrue(fl - f[0] > 1e-3 * f[0], "the rule at eps 0.5 stops " + (fl / f[0] - 1) + " above the optimum");
    Configuration gap = new Configuration(loose);
    gap.set(Param.L1_GAP.key(), "1e-4");
    progress.clear();
    double fg = l1Check(rows, assertInstanceOf(MulticlassModel.class, train(gap, "l1-gap", blobs).model()), classC)[0];
    String line = progress.stream().filter(l -> l.contains("converged (duality gap <= 1.0E-4 f) after")).findFirst()
        .orElseThrow(() -> new AssertionError(String.join("\n", progress)));
    double said = Double.parseDouble(line.replaceAll(".*; duality gap ([0-9.e+-]+) .*", "$1"));
    assertTrue(fg - f[0] <= 1e-4 * fg && said <= 1e-4 * fg && said >= fg - f[0] - 1e-9 * f[0], "f " + fg + " against " + f[0] + ": " + line);
  }

  /**
   * A multinomial L1 model's objective |W|_1 + sum_i C_i (log sum_k exp(z_ik) - z_{i,y_i}), its pseudo-gradient's norm, the
   * pseudo-gradient's norm at 0 and its weights at 0, all from the rows: {f, |pg|, |pg(0)|, zeros}.
   */
  static double[] l1Check(LogisticTrainTest.Rows rows, MulticlassModel m, double[] classC) {
    double[][] w = weights(m);
    double[][] g = lossGradient(rows, m.classes(), w, classC);
    double[][] g0 = lossGradient(rows, m.classes(), new double[w.length][w[0].length], classC);
    double pg = 0;
    double pg0 = 0;
    double f = 0;
    int zeros = 0;
    for (int c = 0; c < w.length; c++) {
      for (int k = 0; k < w[c].length; k++) {
        double v = w[c][k];
        double p = v != 0 ? g[c][k] + Math.signum(v) : Math.max(0, Math.abs(g[c][k]) - 1);
        pg += p * p;
        double p0 = Math.max(0, Math.abs(g0[c][k]) - 1);
        pg0 += p0 * p0;
        if (v == 0) zeros++;
        f += Math.abs(v);
      }
    }
    for (int i = 0; i < rows.x().size(); i++) {
      double[] z = scores(w, rows.x().get(i));
      double max = java.util.Arrays.stream(z).max().getAsDouble();
      double lse = max + Math.log(java.util.Arrays.stream(z).map(v -> Math.exp(v - max)).sum());
      int y = m.classes().indexOf(rows.labels().get(i));
      f += classC[y] * (lse - z[y]);
    }
    return new double[] {f, Math.sqrt(pg), Math.sqrt(pg0), zeros};
  }

  /**
   * --penalty l1 with the softmax on 3 classes of 600 sparse features (1,803 weights: beyond the dense Hessian's form), a bias, C =
   * 1, eps 1e-6: on one block auto's rule takes newGLMNET by column, on 2 blocks OWL-QN; the column form's pseudo-gradient from
   * the rows below 1e-5 of its value at 0, weights exactly 0, the two objectives within 1e-7.
   */
  @Test
  void l1OnWideDataByColumn() throws Exception {
    java.util.SplittableRandom r = new java.util.SplittableRandom(9);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 240; i++) {
      int c = i % 3;
      java.util.TreeMap<Integer, Double> x = new java.util.TreeMap<>();
      for (int f = 1; f <= 3; f++) x.put(f, Math.round((f - 1 == c ? 1 : 0) * 1000 + r.nextDouble() * 800) / 1000.0);
      for (int k = 0; k < 6; k++) x.put(4 + r.nextInt(597), Math.round(r.nextDouble() * 1000) / 1000.0);
      if (i == 0) x.put(600, 0.5);
      text.append(c);
      x.forEach((f, v) -> text.append(' ').append(f).append(':').append(v));
      text.append('\n');
    }
    Path file = tmp.resolve("wide3.libsvm");
    java.nio.file.Files.writeString(file, text.toString());
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.set(Param.PENALTY.key(), "l1");
    conf.set(SodmConf.C, "1");
    conf.set(Param.LINEAR_EPS.key(), "1e-6");
    double[] f = new double[2];
    for (int j = 0; j < 2; j++) {
      Configuration cf = new Configuration(conf);
      cf.set(Param.LINEAR_BLOCKS.key(), Integer.toString(j + 1));
      progress.clear();
      MulticlassModel m = assertInstanceOf(MulticlassModel.class, train(cf, "wide-" + j, file).model());
      String said = j == 0 ? "by newGLMNET by column (auto: 1803 weights > 1024" : "by OWL-QN (auto: 1803 weights > 1024";
      assertTrue(progress.stream().anyMatch(l -> l.contains(said)), String.join("\n", progress));
      double[] check = l1Check(rows, m, new double[] {1, 1, 1});
      f[j] = check[0];
      if (j == 1) continue;
      assertTrue(check[1] <= 1e-5 * check[2], "|pseudo-gradient| " + check[1] + " of " + check[2]);
      assertTrue(check[3] > 1000, check[3] + " weights at 0");
    }
    assertEquals(f[0], f[1], 1e-7 * f[0], "by column and by OWL-QN");
  }

  static double[][] weights(MulticlassModel m) {
    double[][] w = new double[m.classes().size()][];
    for (int t = 0; t < w.length; t++) {
      LinearModel l = (LinearModel) m.subModel(t);
      w[m.plan().positiveClass(t)] = java.util.Arrays.copyOf(l.w(), l.w().length + 1);
      w[m.plan().positiveClass(t)][l.w().length] = l.bias();
    }
    return w;
  }

  /**
   * blobs4 (4 classes), C = 2, class weights 1:2 and 3:0.5, a bias, eps 1e-9: on 1 and 3 blocks the model's softmax gradient,
   * recomputed from the rows, is below 1e-9 of the gradient at 0, and the two agree to 1e-6; predict's probabilities are the
   * softmax of the decision values computed from the model's weights (1e-12) and its label the largest; inspect names the
   * model; liblinear-predict gives the exported model's labels on every row when it is installed.
   */
  @Test
  void theModelIsTheSoftmaxOptimumAndItsProbabilitiesTheSoftmax() throws Exception {
    Path blobs = MulticlassTrainTest.resource("blobs4.libsvm");
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(blobs);
    conf.set(Param.LINEAR_EPS.key(), "1e-9");
    conf.set(Param.CLASS_WEIGHTS.key(), "1:2,3:0.5");
    double[] classC = {4, 2, 1, 2};
    double[][][] w = new double[2][][];
    int[] blocks = {1, 3};
    TrainPipeline.Result first = null;
    for (int j = 0; j < 2; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), Integer.toString(blocks[j]));
      TrainPipeline.Result r = train(c, "m" + blocks[j], blobs);
      if (j == 0) first = r;
      MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
      assertTrue(m.softmax() && m.hasProbabilities(), "a softmax model");
      assertEquals(List.of("1", "2", "3", "4"), m.classes());
      w[j] = weights(m);
      double[][] zero = new double[4][w[j][0].length];
      double g = gradientNorm(rows, m.classes(), w[j], classC);
      double g0 = gradientNorm(rows, m.classes(), zero, classC);
      assertTrue(g <= 1e-9 * g0, blocks[j] + " blocks: |grad| " + g + " against |grad(0)| " + g0);
    }
    for (int c = 0; c < 4; c++) {
      for (int f = 0; f < w[0][c].length; f++) assertEquals(w[0][c][f], w[1][c][f], 1e-6 * Math.max(1, Math.abs(w[0][c][f])), "class " + c);
    }
    // (at this eps the run may end on "no further decrease within rounding": the gradient above is what is asserted)
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("softmax ") && l.contains("Newton iterations")), String.join("\n", progress));
    assertTrue(progress.stream().anyMatch(l -> l.contains("one softmax problem over 4 classes on 3 block(s)")), String.join("\n", progress));

    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString());
    PredictJob.run(conf, first.modelPath(), List.of(blobs.toString()), out);
    List<Prediction> preds = AvroFiles.readDir(conf, out, Prediction.class);
    preds.sort(Comparator.comparingLong(Prediction::getId));
    assertEquals(rows.x().size(), preds.size());
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < preds.size(); i++) {
      double[] p = softmax(scores(w[0], rows.x().get(i)));
      List<Double> got = preds.get(i).getProbabilities(); // the classes' sorted order
      int best = 0;
      for (int c = 0; c < 4; c++) {
        assertEquals(p[c], got.get(c), 1e-12, "row " + (i + 1) + ", class " + c);
        if (p[c] > p[best]) best = c;
      }
      assertEquals(String.valueOf(best + 1), preds.get(i).getPredicted().toString(), "row " + (i + 1));
      labels.add(preds.get(i).getPredicted().toString());
    }
    String[] shown = org.sodm.cli.SodmMainAccess.run("inspect", "-D", "fs.defaultFS=file:///", first.modelPath().toString());
    assertTrue(shown[1].contains("scheme     multinomial, one softmax model: a w per class, probability estimates (multinomial logistic "
        + "regression: the softmax of the classes' f)"), shown[1]);
    if (!LibsvmTools.installed() || !Files.isExecutable(Path.of("/usr/bin/liblinear-predict"))) return;
    Path ll = tmp.resolve("export.ll");
    String[] ex = org.sodm.cli.SodmMainAccess.run("export-liblinear", "-D", "fs.defaultFS=file:///", first.modelPath().getParent().toString(),
        "-o", ll.toString());
    assertEquals("0", ex[0], ex[2]);
    assertTrue(Files.readAllLines(ll).get(0).equals("solver_type MCSVM_CS"), "a joint model with a w per class");
    LibsvmTools.run(null, "liblinear-predict", blobs.toString(), ll.toString(), tmp.resolve("ll.out").toString());
    assertEquals(labels, Files.readAllLines(tmp.resolve("ll.out")), "liblinear-predict's labels are sodm's");
  }

  /**
   * Two classes: the binary logistic model at 2C, bit for bit, and that is the two-class softmax optimum: W = (-w/2, w/2) has the
   * softmax gradient at C below 1e-8 of its gradient at 0 (recomputed from the rows).
   */
  @Test
  void twoClassesAreTheBinaryModelAtTwiceC() throws Exception {
    Path train = LocalConf.sampleData("svmguide1");
    conf.set(Param.LINEAR_EPS.key(), "1e-10");
    conf.set(SodmConf.C, "0.5");
    MulticlassModel multi = assertInstanceOf(MulticlassModel.class, train(conf, "multi", train).model());
    assertTrue(progress.stream().anyMatch(l -> l.contains("multinomial of two classes: binary logistic regression at C = 2 x 0.5 = 1.0")),
        String.join("\n", progress));
    Configuration binary = new Configuration(conf);
    binary.unset(Param.MULTICLASS.key());
    binary.set(SodmConf.C, "1");
    MulticlassModel bin = assertInstanceOf(MulticlassModel.class, train(binary, "binary", train).model());
    LinearModel a = (LinearModel) multi.subModel(0);
    LinearModel b = (LinearModel) bin.subModel(0);
    assertArrayEquals(b.w(), a.w());
    assertEquals(b.bias(), a.bias());
    int pos = multi.plan().positiveClass(0);
    double[][] w = new double[2][a.w().length + 1];
    for (int f = 0; f <= a.w().length; f++) {
      double v = f < a.w().length ? a.w()[f] : a.bias();
      w[pos][f] = v / 2;
      w[1 - pos][f] = -v / 2;
    }
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(train);
    double g = gradientNorm(rows, multi.classes(), w, new double[] {0.5, 0.5});
    double g0 = gradientNorm(rows, multi.classes(), new double[2][w[0].length], new double[] {0.5, 0.5});
    assertTrue(g <= 1e-8 * g0, "|grad| " + g + " against " + g0);
  }

  /**
   * sodm grid --multiclass multinomial (blobs4, C = 1/8..8): the warm-started path in one run (softmax-path lines, one problem
   * per fold); its first C is the cold cell exactly and the others within 2 rows of --no-warm-start's cells.
   */
  @Test
  void theGridWalksCWarmStartedAsTheColdCells() throws Exception {
    String data = MulticlassTrainTest.resource("blobs4.libsvm").toString();
    List<List<String>> cells = LogisticTrainTest.warmAndColdCells(tmp, List.of("-i", data, "--kernel", "linear", "--loss", "logistic",
        "--multiclass", "multinomial", "--log2c", "-3,3,2"), "softmax-path C 8.0        solved on all 5 sub-problems");
    LogisticTrainTest.assertPathNearCold(cells, 4, 2);
  }

  @Test
  void refusedWhereItDoesNotApply() throws Exception {
    Configuration hinge = new Configuration(conf);
    hinge.set(SodmConf.LOSS, "hinge");
    assertTrue(assertThrows(RuntimeException.class, () -> TrainSpec.from(hinge)).getMessage().contains(
        "--multiclass (sodm.train.multiclass): multinomial is logistic regression's multi-class model"));
  }

  /**
   * Above 4 blocks the partition job deals the rows (with their class index) and one resident run solves the softmax problem on
   * its blocks: 6 blocks give the model of 1 block to 1e-6 (tight eps), and cv's folds run the same way.
   */
  @Test
  void moreThanFourBlocksTrainOnThePartitionJobsBlocks() throws Exception {
    Path blobs = MulticlassTrainTest.resource("blobs4.libsvm");
    conf.set(Param.LINEAR_EPS.key(), "1e-9");
    double[][][] w = new double[2][][];
    int[] blocks = {1, 6};
    for (int j = 0; j < 2; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), Integer.toString(blocks[j]));
      w[j] = weights(assertInstanceOf(MulticlassModel.class, train(c, "b" + blocks[j], blobs).model()));
    }
    assertTrue(progress.stream().anyMatch(l -> l.contains("one softmax problem over 4 classes on 6 block(s)")), String.join("\n", progress));
    for (int c = 0; c < 4; c++) {
      for (int f = 0; f < w[0][c].length; f++) assertEquals(w[0][c][f], w[1][c][f], 1e-6 * Math.max(1, Math.abs(w[0][c][f])), "class " + c);
    }
    String[] r = org.sodm.cli.SodmMainAccess.run("cv", "-D", "fs.defaultFS=file:///", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-i",
        blobs.toString(), "--kernel", "linear", "--loss", "logistic", "--multiclass", "multinomial", "--linear-blocks", "6", "-o",
        tmp.resolve("cv6").toString());
    assertEquals("0", r[0], r[2]);
    assertTrue((r[1] + r[2]).contains("5 softmax problems over 4 classes (5 folds) on 6 block(s) in one run"), r[1] + r[2]);
  }
}
