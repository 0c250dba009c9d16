package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.SparseVector;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.LinearModel;
import org.sodm.model.MulticlassModel;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * {@code --loss logistic --penalty l1} end to end (newGLMNET or OWL-QN on the resident runtime, LIBLINEAR's -s 6): the model of
 * either method meets the L1 optimality conditions recomputed from the rows on 1 and 3 blocks and is sparse where the data says so; its objective is
 * LIBLINEAR's -s 6 optimum's when liblinear-train is installed, and its export is L1R_LR with liblinear-predict -b 1's
 * probabilities; where it does not apply it is refused.
 */
class L1LogisticTrainTest {
  @TempDir Path tmp;
  private Configuration conf;
  private final List<String> progress = new ArrayList<>();

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.LOSS, "logistic");
    conf.set(Param.PENALTY.key(), "l1");
    conf.set(SodmConf.C, "1");
  }

  /** 800 rows of 20 features in [0,1]; the label depends on the first four only (with noise). */
  private Path data() throws IOException {
    return data(tmp);
  }

  /** As above, written in {@code dir}. */
  static Path data(Path dir) throws IOException {
    SplittableRandom r = new SplittableRandom(21);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 800; i++) {
      double[] x = new double[20];
      for (int f = 0; f < 20; f++) x[f] = Math.round(r.nextDouble() * 1000) / 1000.0;
      double s = 2 * x[0] + 1.5 * x[1] - 2 * x[2] - x[3] + 0.3 * r.nextGaussian();
      b.append(s > 0 ? "1" : "-1");
      for (int f = 0; f < 20; f++) b.append(' ').append(f + 1).append(':').append(x[f]);
      b.append('\n');
    }
    Path file = dir.resolve("l1.libsvm");
    Files.writeString(file, b.toString());
    return file;
  }

  private TrainPipeline.Result train(Configuration c, String out, Path input) throws IOException {
    return TrainPipeline.run(c, new TrainPipeline.Request(List.of(input.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), progress::add);
  }

  /** grad of C sum_i log(1 + exp(-y_i (w'x_i + b))) from the rows (y = +1 for "1"): [grad w..., grad b]. */
  static double[] lossGradient(LogisticTrainTest.Rows rows, double[] w, double b, double c, boolean bias) {
    double[] g = LogisticTrainTest.gradient(rows, "1", w, b, c);
    for (int f = 0; f < w.length; f++) g[f] -= w[f]; // LogisticTrainTest's has the regulariser's w and b: take them out
    g[w.length] = bias ? g[w.length] - b : 0;
    return g;
  }

  static double objective(LogisticTrainTest.Rows rows, double[] w, double b, double c) {
    double f = Math.abs(b);
    for (double v : w) f += Math.abs(v);
    for (int i = 0; i < rows.x().size(); i++) {
      SparseVector x = rows.x().get(i);
      double y = rows.labels().get(i).equals("1") ? 1 : -1;
      double z = b;
      for (int k = 0; k < x.indices().length; k++) z += w[x.indices()[k] - 1] * x.values()[k];
      f += c * Math.log1p(Math.exp(-y * z));
    }
    return f;
  }

  /**
   * With a bias, C = 0.1, eps 1e-6, on 1 and 3 blocks: the optimality conditions from the rows (|grad_j L + sign(w_j)| on the non-zero
   * weights and |grad_j L| &lt;= 1 on the zeros, to 1e-4 of |grad L(0)|), at least 8 of the 16 irrelevant features exactly 0,
   * the four relevant ones not; the models of both methods (newGLMNET by auto's rule, OWL-QN by --l1-solver) on both block
   * counts: objectives equal to 1e-9; inspect names the penalty.
   */
  @Test
  void theModelMeetsTheL1OptimalityConditionsAndIsSparse() throws Exception {
    Path file = data();
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.setBoolean(Param.BIAS.key(), true);
    conf.set(Param.LINEAR_EPS.key(), "1e-6");
    conf.set(SodmConf.C, "0.1");
    double[] f = new double[4];
    int[] blocks = {1, 3, 1, 3};
    for (int j = 0; j < 4; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), Integer.toString(blocks[j]));
      if (j >= 2) c.set(Param.L1_SOLVER.key(), "owlqn");
      progress.clear();
      MulticlassModel m = assertInstanceOf(MulticlassModel.class, train(c, "m" + j, file).model());
      String said = j < 2 ? "by newGLMNET on the dense Hessian (auto: 21 weights <= 1024, 21.0 stored values per row <= 512)"
          : "by OWL-QN (--l1-solver: 21 weights";
      assertTrue(progress.stream().anyMatch(l -> l.contains(said)), String.join("\n", progress));
      String ended = j < 2 ? "iterations of newGLMNET on the dense Hessian" : "iterations of OWL-QN";
      assertTrue(progress.stream().anyMatch(l -> l.contains(ended)), String.join("\n", progress));
      LinearModel lin = (LinearModel) m.subModel(0);
      double sign = m.classes().get(m.plan().positiveClass(0)).equals("1") ? 1 : -1; // w for "1"
      double[] w = lin.w().clone();
      for (int k = 0; k < w.length; k++) w[k] *= sign;
      double b = sign * lin.bias();
      double[] g = lossGradient(rows, w, b, 0.1, true);
      double g0 = LogisticTrainTest.norm(lossGradient(rows, new double[w.length], 0, 0.1, true));
      int zeros = 0;
      for (int k = 0; k <= w.length; k++) {
        double wk = k < w.length ? w[k] : b;
        if (wk != 0) {
          assertEquals(0, g[k] + Math.signum(wk), 1e-4 * g0, blocks[j] + " blocks, weight " + k);
        } else {
          assertTrue(Math.abs(g[k]) <= 1 + 1e-4 * g0, blocks[j] + " blocks, weight " + k + " at 0 with |grad| " + g[k]);
          if (k >= 4 && k < w.length) zeros++;
        }
        if (k < 4) assertTrue(wk != 0, "relevant feature " + (k + 1) + " kept");
      }
      assertTrue(zeros >= 8, blocks[j] + " blocks: " + zeros + " of 16 irrelevant features at 0");
      f[j] = objective(rows, w, b, 0.1);
    }
    for (int j = 1; j < 4; j++) assertEquals(f[0], f[j], 1e-9 * f[0], "model " + j);
    assertTrue(progress.stream().anyMatch(l -> l.contains("|pseudo-gradient|") && l.contains("evaluations")), String.join("\n", progress));
    String[] inspect = org.sodm.cli.SodmMainAccess.run("inspect", "-D", "fs.defaultFS=file:///", tmp.resolve("m0").toString());
    assertTrue(inspect[1].contains("penalty |w|_1 (L1)"), inspect[1]);
  }

  /**
   * Without a bias, against liblinear-train -s 6 -e 1e-8 (when installed): the objectives |w|_1 + C sum log(1 + exp(-y w'x)),
   * both recomputed here, within 1e-7 (relative); the export is L1R_LR and liblinear-predict -b 1 on it prints sodm's
   * probabilities to its 6 digits.
   */
  @Test
  void itIsLiblinearsL1Optimum() throws Exception {
    Path file = data();
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.set(Param.LINEAR_EPS.key(), "1e-7");
    TrainPipeline.Result r = train(conf, "nobias", file);
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
    LinearModel lin = (LinearModel) m.subModel(0);
    double sign = m.classes().get(m.plan().positiveClass(0)).equals("1") ? 1 : -1;
    double[] w = lin.w().clone();
    for (int k = 0; k < w.length; k++) w[k] *= sign;
    assertEquals(0.0, lin.bias());
    double ours = objective(rows, w, 0, 1);
    if (!LibsvmTools.installed() || !Files.isExecutable(Path.of("/usr/bin/liblinear-train"))) return;
    double[] theirs = liblinearOptimum(tmp, file, "6", "1", 20, 20);
    double their = objective(rows, theirs, 0, 1);
    assertEquals(their, ours, 1e-7 * their, "sodm " + ours + " LIBLINEAR " + their);

    Path export = tmp.resolve("export.ll");
    String[] ex = org.sodm.cli.SodmMainAccess.run("export-liblinear", "-D", "fs.defaultFS=file:///", r.modelPath().getParent().toString(),
        "-o", export.toString());
    assertEquals("0", ex[0], ex[2]);
    assertEquals("solver_type L1R_LR", Files.readAllLines(export).get(0));
    LibsvmTools.run(null, "liblinear-predict", "-b", "1", file.toString(), export.toString(), tmp.resolve("out").toString());
    List<String> out = Files.readAllLines(tmp.resolve("out"));
    int col = List.of(out.get(0).split(" ")).indexOf("1");
    for (int i = 0; i < rows.x().size(); i++) {
      SparseVector x = rows.x().get(i);
      double z = 0;
      for (int k = 0; k < x.indices().length; k++) z += w[x.indices()[k] - 1] * x.values()[k];
      assertEquals(1 / (1 + Math.exp(-z)), Double.parseDouble(out.get(i + 1).split(" ")[col]), 1e-6, "row " + (i + 1));
    }
  }

  /**
   * --penalty elasticnet --l1-ratio 0.4 (scikit-learn's elastic net: rho |w|_1 + (1 - rho)/2 |w|^2 + C sum loss), C = 0.5 with a
   * bias, eps 1e-6, by newGLMNET (auto) and OWL-QN on 1 and 3 blocks: the optimality conditions from the rows (grad_j L + (1 -
   * rho) w_j + rho sign(w_j) = 0 on the non-zero weights, |grad_j L| &lt;= rho on the zeros, to 1e-4 of |grad L(0)|), some
   * irrelevant features exactly 0, the four models' objectives equal to 1e-9; the run and inspect say the penalty.
   */
  @Test
  void theElasticNetMeetsItsOptimalityConditions() throws Exception {
    Path file = data();
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.set(Param.PENALTY.key(), "elasticnet");
    conf.set(Param.L1_RATIO.key(), "0.4");
    conf.setBoolean(Param.BIAS.key(), true);
    conf.set(Param.LINEAR_EPS.key(), "1e-6");
    conf.set(SodmConf.C, "0.5");
    double rho = 0.4;
    double[] f = new double[4];
    for (int j = 0; j < 4; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), j % 2 == 0 ? "1" : "3");
      if (j >= 2) c.set(Param.L1_SOLVER.key(), "owlqn");
      progress.clear();
      MulticlassModel m = assertInstanceOf(MulticlassModel.class, train(c, "en" + j, file).model());
      String said = "elastic net 0.4 |w|_1 + 0.6/2 |w|^2, by " + (j < 2 ? "newGLMNET" : "OWL-QN");
      assertTrue(progress.stream().anyMatch(l -> l.contains(said)), String.join("\n", progress));
      LinearModel lin = (LinearModel) m.subModel(0);
      double sign = m.classes().get(m.plan().positiveClass(0)).equals("1") ? 1 : -1;
      double[] w = lin.w().clone();
      for (int k = 0; k < w.length; k++) w[k] *= sign;
      double b = sign * lin.bias();
      double[] g = lossGradient(rows, w, b, 0.5, true);
      double g0 = LogisticTrainTest.norm(lossGradient(rows, new double[w.length], 0, 0.5, true));
      int zeros = 0;
      for (int k = 0; k <= w.length; k++) {
        double wk = k < w.length ? w[k] : b;
        if (wk != 0) {
          assertEquals(0, g[k] + (1 - rho) * wk + rho * Math.signum(wk), 1e-4 * g0, "model " + j + ", weight " + k);
        } else {
          assertTrue(Math.abs(g[k]) <= rho + 1e-4 * g0, "model " + j + ", weight " + k + " at 0 with |grad| " + g[k]);
          zeros++;
        }
      }
      assertTrue(zeros >= 3, "model " + j + ": " + zeros + " weights at 0");
      double ridge = (1 - rho) / 2 * (b * b);
      for (double v : w) ridge += (1 - rho) / 2 * v * v;
      f[j] = (objective(rows, w, b, 0.5) - (1 - rho) * (Math.abs(b) + java.util.Arrays.stream(w).map(Math::abs).sum())) + ridge;
    }
    for (int j = 1; j < 4; j++) assertEquals(f[0], f[j], 1e-9 * f[0], "model " + j);
    String[] inspect = org.sodm.cli.SodmMainAccess.run("inspect", "-D", "fs.defaultFS=file:///", tmp.resolve("en0").toString());
    assertEquals("0", inspect[0], inspect[2]);
    assertTrue(inspect[1].contains("loss       logistic (C=0.5), regularised bias (k + 1), penalty elastic net rho |w|_1 + (1 - rho)/2 "
        + "|w|^2, rho 0.4"), inspect[1]);
  }

  /**
   * sodm grid with --penalty l1 walks C warm-started (newGLMNET by auto's rule, every fold and C in one resident run): the first C's
   * cells are the cold cells' exactly, the later ones within 3 rows (of 3,089).
   */
  @Test
  void theGridWalksCWarmStarted() throws Exception {
    String data = org.sodm.testing.LocalConf.sampleData("svmguide1").toString();
    List<List<String>> cells = LogisticTrainTest.warmAndColdCells(tmp, List.of("-i", data, "--scale", "0,1", "--kernel", "linear", "--loss",
        "logistic", "--penalty", "l1", "--log2c", "-3,5,2"), "tron-path    C 32.0       solved on all 5 sub-problems");
    assertTrue(LogisticTrainTest.progressOf(cells).contains("5 values of C warm-started in one run"), LogisticTrainTest.progressOf(cells));
    LogisticTrainTest.assertPathNearCold(cells, 5, 3);
  }

  /**
   * On unscaled svmguide1 (features up to ~300) the gradient at 0 is large, so LIBLINEAR's stop relative to it lets the warm
   * start of every C after the first meet the stop at once: the grid says so on those lines and in a note naming the cures,
   * and the first C took iterations. With --l1-gap every C iterates.
   */
  @Test
  void aStageTheWarmStartAlreadySolvesIsSaidSo() throws Exception {
    String[] r = org.sodm.cli.SodmMainAccess.run("grid", "-D", "fs.defaultFS=file:///", "-i",
        org.sodm.testing.LocalConf.sampleData("svmguide1").toString(), "-o", tmp.resolve("g").toString(), "--kernel", "linear", "--loss",
        "logistic", "--penalty", "l1", "--log2c", "-3,3,2");
    assertEquals("0", r[0], r[2]);
    String out = r[1] + r[2];
    assertTrue(out.matches("(?s).*log2c -3 +C 0\\.125 +[0-9.]+% \\(5 folds, [1-9][0-9]* iterations\\).*"), out);
    assertTrue(out.contains("(5 folds, 0 iterations: the previous C's solution meets this C's stop)"), out);
    assertTrue(out.contains("resident iterations"), out);
    assertTrue(out.contains("note         3 value(s) of C kept the previous C's model (its stop, relative to the gradient at 0, held "
        + "there); --l1-gap G"), out);
    // by duality gap every C is solved: no stage keeps the previous one's model, and no such note
    String[] g = org.sodm.cli.SodmMainAccess.run("grid", "-D", "fs.defaultFS=file:///", "-i",
        org.sodm.testing.LocalConf.sampleData("svmguide1").toString(), "-o", tmp.resolve("g-gap").toString(), "--kernel", "linear", "--loss",
        "logistic", "--penalty", "l1", "--log2c", "-3,3,2", "--l1-gap", "1e-4");
    assertEquals("0", g[0], g[2]);
    String gapOut = g[1] + g[2];
    assertTrue(gapOut.matches("(?s).*log2c 3 +C 8\\.0 +[0-9.]+% \\(5 folds, [1-9][0-9]* iterations\\).*"), gapOut);
    assertTrue(!gapOut.contains("0 iterations: the previous") && !gapOut.contains("kept the previous C's model"), gapOut);
  }

  /** The duality gap a run's closing line gives ("duality gap G (...)"). */
  private double saidGap() {
    for (String l : progress) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("duality gap ([0-9.e+-]+) \\(").matcher(l);
      if (m.find()) return Double.parseDouble(m.group(1));
    }
    throw new AssertionError("no duality gap said:\n" + String.join("\n", progress));
  }

  /** The objective of the model {@code m} of labels "1" / other on {@code rows} (C = 1, with its bias). */
  private static double objectiveOf(TrainPipeline.Result r, LogisticTrainTest.Rows rows) {
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
    LinearModel lin = (LinearModel) m.subModel(0);
    double sign = m.classes().get(m.plan().positiveClass(0)).equals("1") ? 1 : -1;
    double[] w = lin.w().clone();
    for (int k = 0; k < w.length; k++) w[k] *= sign;
    return objective(rows, w, sign * lin.bias(), 1);
  }

  /**
   * svmguide1 as it comes (features up to ~300), C = 1 with a bias. By OWL-QN at LIBLINEAR's rule (eps 0.01) the run stops more
   * than 1e-3 above the optimum (min f: newGLMNET stopped by a gap of 1e-5 f; f within that of it) and its closing line's duality gap bounds that
   * distance; with --l1-gap 1e-4 on 2 blocks it converges "by duality gap", its f within 1e-4 f of the optimum and its said gap
   * at most 1e-4 f, the report has it; with --l1-gap 1e-9, below what f's rounding lets the descent certify here, the run says it
   * was not reached. The models' objectives are recomputed from the rows.
   */
  @Test
  void theDualityGapCertifiesTheModelAndStopsTheRun() throws Exception {
    Path file = org.sodm.testing.LocalConf.sampleData("svmguide1");
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.setBoolean(Param.BIAS.key(), true);
    Configuration ref = new Configuration(conf);
    ref.set(Param.L1_SOLVER.key(), "glmnet");
    ref.set(Param.L1_GAP.key(), "1e-5");
    double fStar = objectiveOf(train(ref, "ref", file), rows); // at most 1e-5 fStar above the optimum: its certificate
    assertTrue(saidGap() <= 1e-5 * fStar, "the reference's gap " + saidGap());

    progress.clear();
    Configuration rule = new Configuration(conf);
    rule.set(Param.L1_SOLVER.key(), "owlqn");
    rule.set(Param.LINEAR_EPS.key(), "0.01");
    double f = objectiveOf(train(rule, "rule", file), rows);
    assertTrue(f - fStar > 1e-3 * fStar, "LIBLINEAR's rule stops " + (f / fStar - 1) + " above the optimum");
    assertTrue(saidGap() >= f - fStar, "the certificate " + saidGap() + " bounds f - min f " + (f - fStar));

    progress.clear();
    Configuration gap = new Configuration(rule);
    gap.set(Param.L1_GAP.key(), "1e-4");
    gap.set(Param.LINEAR_BLOCKS.key(), "2");
    double g = objectiveOf(train(gap, "gap", file), rows);
    assertTrue(progress.stream().anyMatch(l -> l.contains("converged (duality gap <= 1.0E-4 f) after")), String.join("\n", progress));
    assertTrue(progress.stream().anyMatch(l -> l.matches(".*evaluations +[0-9]+  gap [0-9.e+-]+.*")), String.join("\n", progress));
    assertTrue(g - fStar <= 1e-4 * g, "f " + g + " against " + fStar);
    assertTrue(saidGap() <= 1e-4 * g && saidGap() >= g - fStar - 1e-9 * fStar, "gap " + saidGap());
    String report = Files.readString(tmp.resolve("gap").resolve("train-report.json"));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"dualityGap\" *: *([0-9.eE+-]+)").matcher(report);
    assertTrue(m.find(), report);
    assertEquals(saidGap(), Double.parseDouble(m.group(1)), 1e-3 * saidGap(), "the report's gap is the line's: " + report);
    // a gap below what f's rounding lets the descent reach on these unscaled features: the run says it was not reached
    progress.clear();
    Configuration tight = new Configuration(conf);
    tight.set(Param.L1_GAP.key(), "1e-9");
    train(tight, "tight", file);
    assertTrue(progress.stream().anyMatch(l -> l.contains("stopped: no further decrease within rounding") && l.contains("--l1-gap 1.0E-9 not "
        + "reached (f's rounding ends the descent first")), String.join("\n", progress));
  }

  /** {@code base} with the given keys and values is refused by TrainSpec with a message containing {@code message}. */
  static void assertRefused(Configuration base, String message, String... keyValues) {
    Configuration c = new Configuration(base);
    for (int k = 0; k < keyValues.length; k += 2) c.set(keyValues[k], keyValues[k + 1]);
    String got = assertThrows(RuntimeException.class, () -> TrainSpec.from(c)).getMessage();
    assertTrue(got.contains(message), got);
  }

  @Test
  void refusedWhereItDoesNotApply() throws IOException {
    assertRefused(conf, "--penalty (sodm.train.penalty): l1 is logistic regression's", SodmConf.LOSS, "hinge");
    assertRefused(conf, "--l1-solver (sodm.train.l1.solver): chooses --penalty l1's method", Param.PENALTY.key(), "l2",
        Param.L1_SOLVER.key(), "owlqn");
    assertRefused(conf, "--l1-ratio (sodm.train.l1.ratio): is --penalty elasticnet's rho", Param.L1_RATIO.key(), "0.5");
    assertRefused(conf, "--l1-gap (sodm.train.l1.gap): is --penalty l1's and elasticnet's stop", Param.PENALTY.key(), "l2",
        Param.L1_GAP.key(), "1e-4");
    assertRefused(conf, "--l1-gap", Param.L1_GAP.key(), "1");
    Configuration zero = new Configuration(conf);
    zero.set(Param.PENALTY.key(), "elasticnet");
    zero.set(Param.L1_RATIO.key(), "0");
    assertThrows(RuntimeException.class, () -> TrainSpec.from(zero));
    // 5,000 features: on 2 blocks too many for the dense Hessian when asked for, OWL-QN by auto's rule
    Path wide = tmp.resolve("wide.libsvm");
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 40; i++) b.append(i % 2 == 0 ? "1" : "-1").append(' ').append(1 + i % 3).append(":1 ").append(4990 + i % 7).append(":0.5\n");
    b.append("1 5000:1\n");
    Files.writeString(wide, b.toString());
    Configuration glm = new Configuration(conf);
    glm.set(Param.L1_SOLVER.key(), "glmnet");
    glm.set(Param.LINEAR_BLOCKS.key(), "2");
    RuntimeException e = assertThrows(RuntimeException.class, () -> train(glm, "wide-glmnet", wide));
    assertTrue(e.getMessage().contains("--l1-solver (sodm.train.l1.solver): glmnet runs on 5001 weights by column, which needs every row "
        + "in one block, and this run has 2 blocks (--linear-blocks 1 if the rows fit one task); its dense form takes at most 4096 "
        + "weights (use owlqn or auto)"), e.getMessage());
    assertTrue(!Files.exists(tmp.resolve("wide-glmnet").resolve("model.avro")), "no model written");
    progress.clear();
    Configuration two = new Configuration(conf);
    two.set(Param.LINEAR_BLOCKS.key(), "2");
    train(two, "wide-auto", wide);
    assertTrue(progress.stream().anyMatch(l -> l.contains("by OWL-QN (auto: 5001 weights > 1024")), String.join("\n", progress));
  }

  /**
   * liblinear-train -s {@code solver} -c {@code c} -e 1e-8 (no bias) on {@code file}: its w for label "1" ({@code dim} weights,
   * in an array of {@code length}; LIBLINEAR's w is for its first label).
   */
  static double[] liblinearOptimum(Path dir, Path file, String solver, String c, int dim, int length) throws Exception {
    Path ll = dir.resolve("ll-s" + solver + ".model");
    LibsvmTools.run(null, "liblinear-train", "-q", "-s", solver, "-c", c, "-e", "1e-8", file.toString(), ll.toString());
    List<String> model = Files.readAllLines(ll);
    double s = model.get(2).split(" ")[1].equals("1") ? 1 : -1;
    int start = model.indexOf("w") + 1;
    double[] w = new double[length];
    for (int k = 0; k < dim; k++) w[k] = s * Double.parseDouble(model.get(start + k).trim());
    return w;
  }

  /** 400 rows of 3,000 sparse features: the five first in every row (the label depends on them, with noise), eight more at random. */
  static Path wideData(Path dir) throws IOException {
    SplittableRandom r = new SplittableRandom(5);
    StringBuilder text = new StringBuilder();
    int dim = 3000;
    for (int i = 0; i < 400; i++) {
      java.util.TreeMap<Integer, Double> x = new java.util.TreeMap<>();
      for (int f = 1; f <= 5; f++) x.put(f, Math.round(r.nextDouble() * 1000) / 1000.0);
      for (int k = 0; k < 8; k++) x.put(6 + r.nextInt(dim - 5), Math.round(r.nextDouble() * 1000) / 1000.0);
      if (i == 0) x.put(dim, 0.5);
      double s = 3 * x.get(1) + 2 * x.get(2) - 3 * x.get(3) - 2 * x.get(4) + x.get(5) - 0.5 + 0.3 * r.nextGaussian();
      text.append(s > 0 ? "1" : "-1");
      x.forEach((f, v) -> text.append(' ').append(f).append(':').append(v));
      text.append('\n');
    }
    Path file = dir.resolve("wide.libsvm");
    Files.writeString(file, text.toString());
    return file;
  }

  /**
   * 3,000 sparse features (more weights than the dense Hessian's form takes), 400 rows, no bias, eps 1e-6: on one block auto's rule
   * takes newGLMNET by column, on 2 blocks OWL-QN; the column form's model meets the L1 optimality conditions recomputed from the
   * rows, keeps the five relevant features and is sparse; the two objectives agree to 1e-7, and with LIBLINEAR's -s 6 -e 1e-8
   * optimum when liblinear-train is installed.
   */
  @Test
  void wideDataByColumnOnOneBlock() throws Exception {
    int dim = 3000;
    Path file = wideData(tmp);
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.set(Param.LINEAR_EPS.key(), "1e-6");
    double[] f = new double[2];
    for (int j = 0; j < 2; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), Integer.toString(j + 1));
      progress.clear();
      MulticlassModel m = assertInstanceOf(MulticlassModel.class, train(c, "wide" + j, file).model());
      String said = j == 0 ? "by newGLMNET by column (auto: 3001 weights > 1024, 14.0 stored values per row <= 512, every row in one block)"
          : "by OWL-QN (auto: 3001 weights > 1024";
      assertTrue(progress.stream().anyMatch(l -> l.contains(said)), String.join("\n", progress));
      LinearModel lin = (LinearModel) m.subModel(0);
      double sign = m.classes().get(m.plan().positiveClass(0)).equals("1") ? 1 : -1;
      double[] w = lin.w().clone();
      for (int k = 0; k < w.length; k++) w[k] *= sign;
      f[j] = objective(rows, w, 0, 1);
      if (j == 1) continue;
      double[] g = lossGradient(rows, w, 0, 1, false);
      double g0 = LogisticTrainTest.norm(lossGradient(rows, new double[w.length], 0, 1, false));
      int nonZero = 0;
      for (int k = 0; k < w.length; k++) {
        if (w[k] != 0) {
          nonZero++;
          assertEquals(0, g[k] + Math.signum(w[k]), 1e-4 * g0, "weight " + k);
        } else {
          assertTrue(Math.abs(g[k]) <= 1 + 1e-4 * g0, "weight " + k + " at 0 with |grad| " + g[k]);
        }
        if (k < 5) assertTrue(w[k] != 0, "relevant feature " + (k + 1) + " kept");
      }
      assertTrue(nonZero < dim / 10, nonZero + " non-zero weights of " + dim);
    }
    assertEquals(f[0], f[1], 1e-7 * f[0], "by column and by OWL-QN");
    if (!LibsvmTools.installed() || !Files.isExecutable(Path.of("/usr/bin/liblinear-train"))) return;
    double[] theirs = liblinearOptimum(tmp, file, "6", "1", dim, dim);
    double their = objective(rows, theirs, 0, 1);
    assertEquals(their, f[0], 1e-7 * their, "sodm " + f[0] + " LIBLINEAR " + their);
  }
}
