package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.SparseVector;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.LinearModel;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * The L2-SVM (--loss squared-hinge) in the primal, end to end: --penalty l1 (LIBLINEAR's -s 5) meets the L1 optimality
 * conditions recomputed from the rows on 1 and 3 blocks, reaches liblinear-train -s 5's optimum when it is installed and exports
 * as L1R_L2LOSS_SVC; --linear-solver tron (-s 2) reaches the optimum of BQO's dual (the default solver); the refusals.
 */
class SquaredHingePrimalTrainTest {
  @TempDir Path tmp;
  private Configuration conf;
  private final List<String> progress = new ArrayList<>();

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.LOSS, "squared-hinge");
    conf.set(SodmConf.C, "0.1");
  }

  private LinearModel train(Configuration c, String out, Path input) throws IOException {
    return assertInstanceOf(LinearModel.class, TrainPipeline.run(c, new TrainPipeline.Request(List.of(input.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), progress::add).model());
  }

  /** w for label "1" of a binary model, its bias last. */
  static double[] weights(LinearModel lin) {
    double sign = lin.labels().signed("1");
    double[] w = java.util.Arrays.copyOf(lin.w(), lin.w().length + 1);
    for (int k = 0; k < w.length - 1; k++) w[k] *= sign;
    w[w.length - 1] = sign * lin.bias();
    return w;
  }

  /** The margins' slack 1 - y (w'x + b) of each row (y = +1 for "1"). */
  static double[] slacks(LogisticTrainTest.Rows rows, double[] w) {
    double[] xi = new double[rows.x().size()];
    for (int i = 0; i < xi.length; i++) {
      SparseVector x = rows.x().get(i);
      double z = w[w.length - 1];
      for (int k = 0; k < x.indices().length; k++) z += w[x.indices()[k] - 1] * x.values()[k];
      xi[i] = 1 - (rows.labels().get(i).equals("1") ? 1 : -1) * z;
    }
    return xi;
  }

  /** grad of C sum_i max(0, 1 - y_i (w'x_i + b))^2 from the rows: [grad w..., grad b]. */
  static double[] lossGradient(LogisticTrainTest.Rows rows, double[] w, double c) {
    double[] xi = slacks(rows, w);
    double[] g = new double[w.length];
    for (int i = 0; i < xi.length; i++) {
      if (xi[i] <= 0) continue;
      double a = -2 * c * xi[i] * (rows.labels().get(i).equals("1") ? 1 : -1);
      SparseVector x = rows.x().get(i);
      for (int k = 0; k < x.indices().length; k++) g[x.indices()[k] - 1] += a * x.values()[k];
      g[w.length - 1] += a;
    }
    return g;
  }

  /** l1 |w|_1 + l2 / 2 |w|^2 (the bias's weight included) + C sum_i max(0, slack_i)^2. */
  static double objective(LogisticTrainTest.Rows rows, double[] w, double c, double l1, double l2) {
    double f = 0;
    for (double v : w) f += l1 * Math.abs(v) + l2 / 2 * v * v;
    for (double xi : slacks(rows, w)) if (xi > 0) f += c * xi * xi;
    return f;
  }

  /**
   * --penalty l1 with a bias, C = 0.1, eps 1e-6, on 1 and 3 blocks (newGLMNET on the dense Hessian by auto's rule) and by OWL-QN:
   * the optimality conditions from the rows to 1e-4 of |grad L(0)|, the irrelevant features mostly exactly 0, the relevant ones
   * not, the three objectives within 1e-8; without a bias, liblinear-train -s 5 -e 1e-8's objective to 1e-7, the export
   * L1R_L2LOSS_SVC and liblinear-predict's labels those of sodm's w.
   */
  @Test
  void l1MeetsTheOptimalityConditionsAndIsLiblinearsOptimum() throws Exception {
    Path file = L1LogisticTrainTest.data(tmp);
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.set(Param.PENALTY.key(), "l1");
    conf.setBoolean(Param.BIAS.key(), true);
    conf.set(Param.LINEAR_EPS.key(), "1e-6");
    double[] f = new double[3];
    for (int j = 0; j < 3; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), j == 1 ? "3" : "1");
      if (j == 2) c.set(Param.L1_SOLVER.key(), "owlqn");
      progress.clear();
      double[] w = weights(train(c, "l1-" + j, file));
      String said = j < 2 ? "by newGLMNET on the dense Hessian (auto" : "by OWL-QN (--l1-solver";
      assertTrue(progress.stream().anyMatch(l -> l.contains(said)), String.join("\n", progress));
      double[] g = lossGradient(rows, w, 0.1);
      double g0 = LogisticTrainTest.norm(lossGradient(rows, new double[w.length], 0.1));
      int zeros = 0;
      for (int k = 0; k < w.length; k++) {
        if (w[k] != 0) {
          assertEquals(0, g[k] + Math.signum(w[k]), 1e-4 * g0, "model " + j + ", weight " + k);
        } else {
          assertTrue(Math.abs(g[k]) <= 1 + 1e-4 * g0, "model " + j + ", weight " + k + " at 0 with |grad| " + g[k]);
          if (k >= 4 && k < 20) zeros++;
        }
        if (k < 4) assertTrue(w[k] != 0, "relevant feature " + (k + 1) + " kept");
      }
      if (j < 2) assertTrue(zeros >= 8, "model " + j + ": " + zeros + " of 16 irrelevant features at 0");
      f[j] = objective(rows, w, 0.1, 1, 0);
    }
    for (int j = 1; j < 3; j++) assertEquals(f[0], f[j], 1e-8 * f[0], "model " + j);

    if (!LibsvmTools.installed() || !Files.isExecutable(Path.of("/usr/bin/liblinear-train"))) return;
    Configuration c = new Configuration(conf);
    c.setBoolean(Param.BIAS.key(), false);
    c.set(Param.LINEAR_EPS.key(), "1e-7");
    double[] ours = weights(train(c, "nobias", file));
    double mine = objective(rows, ours, 0.1, 1, 0);
    double[] theirs = L1LogisticTrainTest.liblinearOptimum(tmp, file, "5", "0.1", 20, 21);
    double their = objective(rows, theirs, 0.1, 1, 0);
    assertEquals(their, mine, 1e-7 * their, "sodm " + mine + " LIBLINEAR " + their);
    Path export = tmp.resolve("export.ll");
    String[] ex = org.sodm.cli.SodmMainAccess.run("export-liblinear", "-D", "fs.defaultFS=file:///", tmp.resolve("nobias").toString(),
        "-o", export.toString());
    assertEquals("0", ex[0], ex[2]);
    assertEquals("solver_type L1R_L2LOSS_SVC", Files.readAllLines(export).get(0));
    LibsvmTools.run(null, "liblinear-predict", file.toString(), export.toString(), tmp.resolve("ll.out").toString());
    List<String> labels = Files.readAllLines(tmp.resolve("ll.out"));
    double[] xi = slacks(rows, ours);
    for (int i = 0; i < xi.length; i++) {
      double z = (1 - xi[i]) * (rows.labels().get(i).equals("1") ? 1 : -1); // w'x, the model's decision value for "1"
      assertEquals(z >= 0 ? "1" : "-1", labels.get(i), "row " + (i + 1) + ": liblinear-predict's label is sodm's");
    }
  }

  /**
   * --penalty l1 on 3,000 sparse features ({@link L1LogisticTrainTest#wideData}), no bias, C = 0.1, eps 1e-6: one block takes
   * newGLMNET by column, two OWL-QN; the column form's model meets the L1 optimality conditions from the rows and keeps the
   * five relevant features; the objectives agree to 1e-7, and with liblinear-train -s 5 -e 1e-8's when it is installed.
   */
  @Test
  void l1OnWideDataByColumn() throws Exception {
    Path file = L1LogisticTrainTest.wideData(tmp);
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.set(Param.PENALTY.key(), "l1");
    conf.set(Param.LINEAR_EPS.key(), "1e-6");
    double[] f = new double[2];
    for (int j = 0; j < 2; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), Integer.toString(j + 1));
      progress.clear();
      double[] w = weights(train(c, "wide-" + j, file));
      String said = j == 0 ? "by newGLMNET by column (auto: 3001 weights > 1024" : "by OWL-QN (auto: 3001 weights > 1024";
      assertTrue(progress.stream().anyMatch(l -> l.contains(said)), String.join("\n", progress));
      f[j] = objective(rows, w, 0.1, 1, 0);
      if (j == 1) continue;
      double[] g = lossGradient(rows, w, 0.1);
      double g0 = LogisticTrainTest.norm(lossGradient(rows, new double[w.length], 0.1));
      for (int k = 0; k < w.length - 1; k++) {
        if (w[k] != 0) {
          assertEquals(0, g[k] + Math.signum(w[k]), 1e-4 * g0, "weight " + k);
        } else {
          assertTrue(Math.abs(g[k]) <= 1 + 1e-4 * g0, "weight " + k + " at 0 with |grad| " + g[k]);
        }
        if (k < 5) assertTrue(w[k] != 0, "relevant feature " + (k + 1) + " kept");
      }
    }
    assertEquals(f[0], f[1], 1e-7 * f[0], "by column and by OWL-QN");
    if (!LibsvmTools.installed() || !Files.isExecutable(Path.of("/usr/bin/liblinear-train"))) return;
    double[] theirs = L1LogisticTrainTest.liblinearOptimum(tmp, file, "5", "0.1", 3000, 3001);
    double their = objective(rows, theirs, 0.1, 1, 0);
    assertEquals(their, f[0], 1e-7 * their, "sodm " + f[0] + " LIBLINEAR " + their);
  }

  /**
   * --linear-solver tron (LIBLINEAR's -s 2) and the default BQO (its dual, -s 1) at eps 1e-6 with a bias on 1 and 2 blocks: the
   * primal objectives 1/2 |w|^2 + C sum xi^2 within 1e-6, and TRON's gradient from the rows below 1e-4 of its value at 0.
   */
  @Test
  void tronReachesTheDualsOptimum() throws Exception {
    Path file = L1LogisticTrainTest.data(tmp);
    LogisticTrainTest.Rows rows = LogisticTrainTest.read(file);
    conf.setBoolean(Param.BIAS.key(), true);
    conf.set(Param.LINEAR_EPS.key(), "1e-6");
    double[] f = new double[3];
    for (int j = 0; j < 3; j++) {
      Configuration c = new Configuration(conf);
      c.set(Param.LINEAR_BLOCKS.key(), j == 2 ? "2" : "1");
      if (j > 0) c.set(Param.LINEAR_SOLVER.key(), "tron");
      double[] w = weights(train(c, "l2-" + j, file));
      f[j] = objective(rows, w, 0.1, 0, 1);
      if (j == 0) continue;
      double[] g = lossGradient(rows, w, 0.1);
      for (int k = 0; k < w.length; k++) g[k] += w[k];
      double g0 = LogisticTrainTest.norm(lossGradient(rows, new double[w.length], 0.1));
      assertTrue(LogisticTrainTest.norm(g) <= 1e-4 * g0, "model " + j + ": |grad f| " + LogisticTrainTest.norm(g) + " of " + g0);
    }
    assertEquals(f[0], f[1], 1e-6 * f[0], "TRON on 1 block against BQO");
    assertEquals(f[0], f[2], 1e-6 * f[0], "TRON on 2 blocks against BQO");
  }

  /** What the primal does not take: |w|_1 with the hinge or a dual solver, TRON's job per iteration. */
  @Test
  void refusals() {
    L1LogisticTrainTest.assertRefused(conf, "--penalty (sodm.train.penalty): l1 is logistic regression's (l1: LIBLINEAR's -s 6) and the "
        + "L2-SVM's (-s 5)", SodmConf.LOSS, "hinge", Param.PENALTY.key(), "l1");
    L1LogisticTrainTest.assertRefused(conf, "--linear-solver (sodm.train.linear.solver): bqo solves the dual, which has no |w|_1",
        Param.PENALTY.key(), "l1", Param.LINEAR_SOLVER.key(), "bqo");
    L1LogisticTrainTest.assertRefused(conf, "TRON runs as one resident", Param.LINEAR_SOLVER.key(), "tron", Param.ITERATION_MODE.key(), "jobs");
    L1LogisticTrainTest.assertRefused(conf, "tron solves logistic and squared-hinge in the primal, not odm", SodmConf.LOSS, "odm",
        Param.LINEAR_SOLVER.key(), "tron");
  }
}
