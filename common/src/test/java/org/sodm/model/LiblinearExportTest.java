package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

/**
 * export-liblinear's file, read back with LIBLINEAR's own prediction rule (written out here from its predict.c and
 * linear.cpp, not from the exporter): the constant bias feature after nr_feature, features above nr_feature ignored,
 * with two classes the first label when w'x &gt; 0, else the first column of the largest w'x. liblinear-predict, when
 * installed, prints the same labels.
 */
class LiblinearExportTest {
  @TempDir Path tmp;
  private static final List<String> CLASSES = List.of("1", "2", "5", "10");

  /** A parsed LIBLINEAR model file. */
  private record Parsed(List<String> labels, int features, double bias, double[][] w, String solver) {
    static Parsed of(String text) {
      List<String> lines = text.lines().toList();
      java.util.Map<String, String> head = new HashMap<>();
      int at = lines.indexOf("w");
      for (String l : lines.subList(0, at)) head.put(l.split(" ")[0], l.substring(l.indexOf(' ') + 1));
      int k = Integer.parseInt(head.get("nr_class"));
      int n = Integer.parseInt(head.get("nr_feature"));
      double bias = Double.parseDouble(head.get("bias"));
      int cols = k == 2 && !"MCSVM_CS".equals(head.get("solver_type")) ? 1 : k; // Crammer-Singer: a column per label
      int rows = bias >= 0 ? n + 1 : n;
      assertEquals(at + 1 + rows, lines.size(), "one line per weight row");
      double[][] w = new double[rows][cols];
      for (int f = 0; f < rows; f++) {
        String[] tok = lines.get(at + 1 + f).trim().split(" ");
        assertEquals(cols, tok.length, "row " + f);
        for (int c = 0; c < cols; c++) w[f][c] = Double.parseDouble(tok[c]);
      }
      return new Parsed(List.of(head.get("label").split(" ")), n, bias, w, head.get("solver_type"));
    }

    double[] decisions(SparseVector x) {
      double[] dec = new double[w[0].length];
      for (int t = 0; t < x.nnz(); t++) {
        if (x.index(t) > features) continue; // LIBLINEAR skips features the model does not have
        for (int c = 0; c < dec.length; c++) dec[c] += w[x.index(t) - 1][c] * x.value(t);
      }
      if (bias >= 0) for (int c = 0; c < dec.length; c++) dec[c] += w[features][c] * bias;
      return dec;
    }

    String predict(SparseVector x) {
      double[] dec = decisions(x);
      if (dec.length == 1) return dec[0] > 0 ? labels.get(0) : labels.get(1);
      int best = 0;
      for (int c = 1; c < dec.length; c++) if (dec[c] > dec[best]) best = c;
      return labels.get(best);
    }
  }

  private static String export(Model m) throws Exception {
    StringWriter w = new StringWriter();
    LiblinearExport.write(m, w);
    return w.toString();
  }

  private static List<SparseVector> points(long seed, int n, int d) {
    Random r = new Random(seed);
    List<SparseVector> xs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double[] v = new double[d];
      for (int f = 0; f < d; f++) v[f] = r.nextDouble() < 0.3 ? 0 : r.nextDouble() * 2 - 1;
      xs.add(SparseVector.ofDense(v));
    }
    return xs;
  }

  private static Provenance order(String order) {
    HashMap<String, String> params = new HashMap<>();
    if (order != null) params.put(MulticlassModel.CLASS_ORDER, order);
    return new Provenance("test", "now", "in", "fp", params, List.of(), null);
  }

  @Test
  void twoClassModelIsWAndTheBiasFeature() throws Exception {
    LinearModel m = new LinearModel(Loss.hinge(1), new LabelMap("-1", "1"), null, new double[] {0.5, 0, -2.25, 1e-17}, -0.75, "bqo", null);
    String text = export(m);
    assertTrue(text.startsWith("solver_type L2R_L1LOSS_SVC_DUAL\nnr_class 2\nlabel -1 1\nnr_feature 4\nbias 1\nw\n"), text);
    Parsed p = Parsed.of(text);
    assertEquals(0.75, p.w()[4][0]);
    for (SparseVector x : points(3, 200, 6)) { // features 5 and 6 are beyond the model: ignored by both
      assertEquals(-m.decisionPrepared(x), p.decisions(x)[0], 1e-12);
      assertEquals(m.predict(x), p.predict(x));
    }
    // without an offset, a row without features (f = 0) goes to +1 in both
    LinearModel sq = new LinearModel(Loss.squaredHinge(1), new LabelMap("0", "7"), null, new double[] {1}, 0, "bqo", null);
    assertTrue(export(sq).startsWith("solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 0 7\n"), export(sq));
    assertEquals("7", sq.predict(SparseVector.EMPTY));
    assertEquals("7", Parsed.of(export(sq)).predict(SparseVector.EMPTY));
  }

  /** One-vs-rest over 4 classes, in class-index order and in a training-data order; a tie goes to the first in both. */
  @Test
  void oneVsRestIsOneColumnPerClassInTheLabelOrder() throws Exception {
    for (String order : new String[] {null, "2,0,3,1"}) {
      Subproblems plan = new Subproblems(4, Subproblems.Scheme.OVR);
      Random r = new Random(5);
      Model[] sub = new Model[4];
      for (int t = 0; t < 4; t++) {
        double[] wt = {r.nextGaussian(), r.nextGaussian(), r.nextGaussian()};
        if (t == 3) wt = new double[] {wt[0], wt[1]}; // a task that saw no row with feature 3
        sub[t] = new LinearModel(Loss.hinge(1), ModelCodec.taskLabels(CLASSES, plan, t), null, wt, r.nextGaussian(), "bqo", null);
      }
      // classes 1 and 3 (class index) identical: every point ties between them
      sub[3] = new LinearModel(Loss.hinge(1), ModelCodec.taskLabels(CLASSES, plan, 3), null, ((LinearModel) sub[1]).w(),
          ((LinearModel) sub[1]).bias(), "bqo", null);
      MulticlassModel m = new MulticlassModel(KernelSpec.linear(), Loss.hinge(1), null, CLASSES, plan, sub, null, order(order));
      String text = export(m);
      Parsed p = Parsed.of(text);
      List<String> expected = order == null ? CLASSES : List.of("5", "1", "10", "2");
      assertEquals(expected, p.labels());
      assertEquals(3, p.features());
      int[] hits = new int[4];
      for (SparseVector x : points(7, 400, 4)) {
        double[] f = m.decisionValues(x);
        double[] dec = p.decisions(x);
        for (int c = 0; c < 4; c++) assertEquals(f[CLASSES.indexOf(expected.get(c))], dec[c], 1e-12);
        String label = m.predict(x);
        assertEquals(label, p.predict(x), order + ": " + x);
        hits[CLASSES.indexOf(label)]++;
      }
      int first = expected.indexOf("2") < expected.indexOf("10") ? 1 : 3;
      assertTrue(hits[first] > 0, "the tied pair wins somewhere");
      assertEquals(0, hits[4 - first], "a tie goes to the class first in the label order");
      if (Files.isExecutable(Path.of("/usr/bin/liblinear-predict"))) assertLiblinearPredicts(m, text, points(7, 400, 4));
    }
  }

  /** Two classes with probabilities (one ovo task): signed for LIBLINEAR's first label; the sigmoid is left out and said so. */
  @Test
  void twoClassModelWithProbabilitiesIsSignedForTheFirstLabel() throws Exception {
    List<String> classes = List.of("-1", "1");
    Subproblems plan = new Subproblems(2, Subproblems.Scheme.OVO);
    for (String order : new String[] {"0,1", "1,0"}) {
      LinearModel lin = new LinearModel(Loss.hinge(1), ModelCodec.taskLabels(classes, plan, 0), null, new double[] {0.8, -1.5, 2.25}, -0.4,
          "bqo", null);
      MulticlassModel m = new MulticlassModel(KernelSpec.linear(), Loss.hinge(1), null, classes, plan, new Model[] {lin},
          new Platt[] {new Platt(-2.5, 0.3)}, order(order));
      StringWriter w = new StringWriter();
      assertTrue(LiblinearExport.write(m, w), "the probabilities are reported as left out");
      Parsed p = Parsed.of(w.toString());
      String first = order.equals("0,1") ? "-1" : "1";
      assertEquals(first, p.labels().get(0));
      for (SparseVector x : points(9, 200, 3)) {
        double f = m.decisionValues(x)[0];
        assertEquals(first.equals("1") ? f : -f, p.decisions(x)[0], 1e-12);
        // sodm's label is its most probable class; with A < 0 the sigmoid is monotone, so it is the sign of f but at f's root
        if (Math.abs(f) > 0.2) assertEquals(f >= 0 ? "1" : "-1", p.predict(x));
      }
    }
  }

  @Test
  void modelsLiblinearCannotExpressAreRefusedByName() {
    IllegalArgumentException ovo = assertThrows(IllegalArgumentException.class,
        () -> export(MulticlassModelTest.randomLinearOvo(3, null)));
    assertTrue(ovo.getMessage().contains("one-vs-rest; this model is ovo over 4 classes (train with --multiclass ovr"), ovo.getMessage());
    IllegalArgumentException kernel = assertThrows(IllegalArgumentException.class, () -> export(MulticlassModelTest.randomOvo(3, false)));
    assertTrue(kernel.getMessage().contains("task 0 of this model is rbf (use export-libsvm"), kernel.getMessage());
    LinearModel named = new LinearModel(Loss.hinge(1), new LabelMap("cat", "dog"), null, new double[] {1}, 0, "bqo", null);
    IllegalArgumentException labels = assertThrows(IllegalArgumentException.class, () -> export(named));
    assertTrue(labels.getMessage().contains("labels cat, dog are not"), labels.getMessage());
  }

  private static Model read(String text) throws Exception {
    return LiblinearImport.read(new java.io.BufferedReader(new java.io.StringReader(text)), "m.txt", order(null), null);
  }

  /**
   * import-liblinear: hand-written files of each shape (one column with -B 2.5 and without a bias, Crammer-Singer's two
   * columns for two classes, logistic regression with two and three classes) predict by LIBLINEAR's rule as {@link Parsed}
   * applies it, and logistic regression's probabilities are liblinear-predict -b 1's formula.
   */
  @Test
  void importedFilesPredictByLiblinearsRule() throws Exception {
    List<SparseVector> xs = points(11, 300, 5); // feature 5 beyond nr_feature 4: ignored
    String[] files = {
      "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 4\nbias 2.5\nw\n0.5 \n-1.25 \n0 \n2 \n-0.2 \n",
      "solver_type L2R_L1LOSS_SVC_DUAL\nnr_class 2\nlabel 0 7\nnr_feature 4\nbias -1\nw\n0.5 \n-1.25 \n0 \n2 \n",
      "solver_type L2R_L1LOSS_SVC_DUAL\nnr_class 2\nlabel 7 0\nnr_feature 4\nbias -1\nw\n0.5 \n-1.25 \n0 \n2 \n",
      "solver_type MCSVM_CS\nnr_class 2\nlabel 2 3\nnr_feature 4\nbias -1\nw\n0.5 -0.5 \n-1 0.25 \n0 0 \n2 1 \n",
      "solver_type MCSVM_CS\nnr_class 2\nlabel 3 2\nnr_feature 4\nbias 1\nw\n0.5 -0.5 \n-1 0.25 \n0 0 \n2 1 \n0.1 -0.1 \n",
      "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 4\nbias 1\nw\n0.5 \n-1.25 \n0.75 \n2 \n-0.2 \n",
      "solver_type L2R_LR_DUAL\nnr_class 2\nlabel -1 1\nnr_feature 4\nbias -1\nw\n0.5 \n-1.25 \n0.75 \n2 \n",
      "solver_type L1R_LR\nnr_class 3\nlabel 10 2 5\nnr_feature 4\nbias 1\nw\n1 -1 0.5 \n0 2 -0.5 \n0.25 0.25 -1 \n-1 0 1 \n0 0.1 -0.1 \n"};
    for (String text : files) {
      Model m = read(text);
      Parsed p = Parsed.of(text);
      assertEquals(4, m.dimension(), "features above nr_feature are unseen: ignored and counted");
      boolean logistic = p.solver().contains("LR");
      assertEquals(logistic, m instanceof MulticlassModel mm && mm.hasProbabilities(), p.solver());
      int ties = 0;
      for (SparseVector x : xs) {
        double[] dec = p.decisions(x);
        if (dec.length == 1 ? dec[0] == 0 : dec[0] == dec[1]) ties++;
        String label = m.predict(x);
        if (!logistic) {
          assertEquals(p.predict(x), label, p.solver() + ": " + x);
          continue;
        }
        MulticlassModel mm = (MulticlassModel) m;
        double[] prob = mm.probabilities(mm.decisionValues(mm.prepare(x, null)));
        double[] theirs = new double[p.labels().size()];
        if (dec.length == 1) {
          theirs[0] = 1 / (1 + Math.exp(-dec[0]));
          theirs[1] = 1 - theirs[0];
        } else {
          double sum = 0;
          for (int c = 0; c < dec.length; c++) sum += theirs[c] = 1 / (1 + Math.exp(-dec[c]));
          for (int c = 0; c < dec.length; c++) theirs[c] /= sum;
        }
        int best = 0;
        for (int c = 0; c < theirs.length; c++) {
          assertEquals(theirs[c], prob[mm.classes().indexOf(p.labels().get(c))], 1e-14, p.solver() + " class " + p.labels().get(c));
          if (theirs[c] > theirs[best]) best = c;
        }
        assertEquals(p.labels().get(best), label, p.solver());
      }
      if (p.bias() < 0 && !logistic) assertTrue(ties > 0, p.solver() + ": rows without features tie, and go as liblinear-predict's");
    }
  }

  /** A LIBLINEAR file that is not a classifier, or malformed, fails naming the file (and the line). */
  @Test
  void badLiblinearFilesAreNamed() {
    String head = "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\nw\n";
    String[][] cases = {
      {"solver_type L2R_L2LOSS_SVR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n1 \n", "m.txt: solver_type L2R_L2LOSS_SVR is not a classifier"},
      {"solver_type ONECLASS_SVM\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nrho 0.5\nw\n1 \n", "m.txt: solver_type ONECLASS_SVM is not"},
      {head + "1 \n", "m.txt: 2 weight lines announced (nr_feature 2), 1 found"},
      {head + "1 \n2 3 \n", "m.txt:8: 1 weight expected, got '2 3 '"},
      {head + "1 \nx \n", "m.txt:8: weight 'x' is not a finite number"},
      {head + "1 \n2 \n3 \n", "m.txt:9: more than the 2 weight lines: '3 '"},
      {head.replace("label 1 -1", "label 1 1") + "1 \n2 \n", "m.txt: label 1 is given twice"},
      {head.replace("nr_class 2\n", ""), "m.txt: the header needs one value of nr_class, it has none"},
      {"svm_type c_svc\nSV\n", "m.txt: no 'w' line (is this a LIBLINEAR model file?)"}};
    for (String[] c : cases) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(c[0]), c[1]);
      assertTrue(e.getMessage().contains(c[1]), e.getMessage() + " vs " + c[1]);
    }
  }

  /** export-liblinear of an imported file: the same weights, bias and labels (each column for its label). */
  @Test
  void importThenExportGivesTheWeightsBack() throws Exception {
    String text = "solver_type L2R_L1LOSS_SVC_DUAL\nnr_class 3\nlabel 10 2 5\nnr_feature 2\nbias 1\nw\n1 -1 0.5 \n0 2 -0.5 \n0.25 0.5 -1 \n";
    Parsed in = Parsed.of(text);
    Parsed out = Parsed.of(export(read(text)));
    assertEquals(in.labels(), out.labels());
    assertEquals(in.features(), out.features());
    for (int f = 0; f <= in.features(); f++) assertArrayEquals(in.w()[f], out.w()[f], 0.0, "row " + f);
  }

  private void assertLiblinearPredicts(Model m, String text, List<SparseVector> xs) throws Exception {
    Files.writeString(tmp.resolve("model"), text);
    StringBuilder test = new StringBuilder();
    for (SparseVector x : xs) {
      test.append("1");
      for (int t = 0; t < x.nnz(); t++) test.append(' ').append(x.index(t)).append(':').append(x.value(t));
      test.append('\n');
    }
    Files.writeString(tmp.resolve("test"), test.toString());
    Process proc = new ProcessBuilder("liblinear-predict", tmp.resolve("test").toString(), tmp.resolve("model").toString(),
        tmp.resolve("out").toString()).redirectErrorStream(true).start();
    String said = new String(proc.getInputStream().readAllBytes());
    assertEquals(0, proc.waitFor(), said);
    List<String> theirs = Files.readAllLines(tmp.resolve("out"));
    for (int q = 0; q < xs.size(); q++) assertEquals(m.predict(xs.get(q)), theirs.get(q), "point " + q);
  }
}
