package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

class MetricsAndModelTest {
  @Test
  void aucEqualsPairCountingAndConfusionIsRight() {
    Random r = new Random(5);
    int n = 300;
    double[] y = new double[n];
    double[] f = new double[n];
    for (int i = 0; i < n; i++) {
      y[i] = r.nextDouble() < 0.4 ? 1 : -1;
      f[i] = Math.round((y[i] * 0.5 + r.nextGaussian()) * 4) / 4.0; // many ties
    }
    double wins = 0;
    long pairs = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        if (y[i] > 0 && y[j] < 0) {
          pairs++;
          wins += f[i] > f[j] ? 1 : f[i] == f[j] ? 0.5 : 0;
        }
      }
    }
    Metrics m = Metrics.of(y, f);
    assertEquals(wins / pairs, m.auc(), 1e-12);
    long tp = 0, tn = 0;
    for (int i = 0; i < n; i++) {
      if (y[i] > 0 && f[i] >= 0) tp++;
      if (y[i] < 0 && f[i] < 0) tn++;
    }
    assertEquals(tp, m.tp());
    assertEquals(tn, m.tn());
    assertEquals((double) (tp + tn) / n, m.accuracy(), 1e-15);
    assertEquals(2 * m.precision() * m.recall() / (m.precision() + m.recall()), m.f1(), 1e-15);
    assertTrue(m.toJson("1", "0").contains("\"confusion\""));
    assertTrue(Double.isNaN(Metrics.of(new double[] {1, 1}, new double[] {0.2, -1}).auc()));
    assertFalse(m.toJson("1", "0").contains("other"));
  }

  /**
   * Rows labelled with neither of the model's labels (y = 0): errors in the accuracy (svm-predict's count), false positives
   * of +1 when predicted +1, outside the AUC; the metrics of the other rows as if they were alone.
   */
  @Test
  void rowsOfAnotherLabelAreErrorsAndOutsideTheAuc() {
    java.util.Random r = new java.util.Random(4);
    int n = 300;
    double[] y = new double[n];
    double[] f = new double[n];
    int known = 0;
    for (int i = 0; i < n; i++) {
      y[i] = r.nextInt(5) == 0 ? 0 : r.nextBoolean() ? 1 : -1;
      f[i] = Math.round(r.nextGaussian() * 4) / 4.0 + 0.3 * y[i];
      if (y[i] != 0) known++;
    }
    double[] ky = new double[known];
    double[] kf = new double[known];
    long otherPos = 0, otherNeg = 0;
    for (int i = 0, k = 0; i < n; i++) {
      if (y[i] == 0) {
        if (f[i] >= 0) otherPos++;
        else otherNeg++;
      } else {
        ky[k] = y[i];
        kf[k++] = f[i];
      }
    }
    Metrics alone = Metrics.of(ky, kf);
    Metrics m = Metrics.of(y, f);
    assertEquals(n, m.n());
    assertEquals(n - known, m.other());
    assertEquals(otherPos, m.otherPositive());
    assertEquals(otherNeg, m.otherNegative());
    assertEquals(alone.tp(), m.tp());
    assertEquals(alone.tn(), m.tn());
    assertEquals(alone.fp(), m.fp());
    assertEquals(alone.fn(), m.fn());
    assertEquals(alone.auc(), m.auc(), 0.0);
    assertEquals(alone.recall(), m.recall(), 0.0);
    assertEquals((double) (alone.tp() + alone.tn()) / n, m.accuracy(), 1e-15);
    assertEquals((double) alone.tp() / (alone.tp() + alone.fp() + otherPos), m.precision(), 1e-15);
    assertTrue(m.toJson("1", "0").contains(String.format("\"other\": {\"rows\": %d, \"predictedPositive\": %d, \"predictedNegative\": %d}",
        n - known, otherPos, otherNeg)), m.toJson("1", "0"));
    assertTrue(m.table("1", "0").contains(String.format("(%d rows labelled neither 1 nor 0", n - known)), m.table("1", "0"));
  }

  static KernelModel twoBlockModel(boolean scaled) {
    return twoBlockModel(scaled, new LabelMap("no", "yes"));
  }

  static KernelModel twoBlockModel(boolean scaled, LabelMap labels) {
    Kernel k = KernelSpec.rbf(0.7).create();
    Random r = new Random(9);
    KernelExpansion[] ex = new KernelExpansion[2];
    long[][] ids = new long[2][];
    for (int b = 0; b < 2; b++) {
      SparseVector[] sv = new SparseVector[5];
      double[] c = new double[5];
      ids[b] = new long[5];
      for (int i = 0; i < 5; i++) {
        sv[i] = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
        c[i] = r.nextGaussian();
        ids[b][i] = b * 10 + i;
      }
      ex[b] = new KernelExpansion(k, sv, c, b == 0 ? 0.25 : -0.5);
    }
    Scaler s = scaled ? new Scaler(0, 1, new int[] {1, 2, 3}, new double[] {-1, -1, -1}, new double[] {1, 2, 3}) : null;
    Provenance p = new Provenance("test", "now", "in", "fp", new HashMap<>(), List.of(), null);
    return new KernelModel(KernelSpec.rbf(0.7), Loss.hinge(1), labels, s, new int[] {0, 1}, ids, ex, p);
  }

  @Test
  void modelIsTheMeanOfBlocksAndSurvivesAvro() {
    KernelModel m = twoBlockModel(true);
    Model back = ModelCodec.fromAvro(ModelCodec.toAvro(m));
    SparseVector x = SparseVector.ofDense(0.3, -0.2, 2.5);
    SparseVector xs = m.scaler().apply(x);
    double want = (m.block(0).decision(xs) + m.block(1).decision(xs)) / 2;
    assertEquals(want, m.decision(x), 1e-14);
    assertEquals(m.decision(x), back.decision(x), 0.0);
    assertEquals(want >= 0 ? "yes" : "no", back.predict(x));
  }

  /** The exported LIBSVM model, evaluated by LIBSVM's formula sum sv_coef k(sv, x) - rho, equals the model. */
  @Test
  void libsvmExportReproducesTheDecisionFunction() throws Exception {
    Model m = twoBlockModel(false, new LabelMap("-1", "+1"));
    StringWriter w = new StringWriter();
    LibsvmExport.write(m, w);
    String[] lines = w.toString().split("\n");
    double rho = 0;
    int sv = -1;
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].startsWith("rho ")) rho = Double.parseDouble(lines[i].substring(4));
      if (lines[i].equals("SV")) sv = i + 1;
      if (lines[i].startsWith("label ")) assertEquals("label +1 -1", lines[i]);
    }
    Kernel k = KernelSpec.rbf(0.7).create();
    SparseVector x = SparseVector.ofDense(0.1, 0.9, 0.4);
    double f = -rho;
    for (int i = sv; i < lines.length; i++) {
      String[] t = lines[i].trim().split(" ");
      double[] d = new double[3];
      for (int j = 1; j < t.length; j++) d[Integer.parseInt(t[j].split(":")[0]) - 1] = Double.parseDouble(t[j].split(":")[1]);
      f += Double.parseDouble(t[0]) * k.eval(SparseVector.ofDense(d), x);
    }
    assertEquals(m.decision(x), f, 1e-12);
  }

  /**
   * Labels svm-predict cannot read (its label line is read as ints: "label yes no" made it refuse the whole file, "fscanf
   * failed to read model") are refused before anything is written, naming them; integers with a sign, up to int's range,
   * are exported.
   */
  @Test
  void libsvmExportRefusesLabelsThatAreNotIntegers() throws Exception {
    java.util.Map<LabelMap, String> named = java.util.Map.of(new LabelMap("no", "yes"), "labels yes, no are not",
        new LabelMap("1.5", "2"), "label 1.5 is not", new LabelMap("1", "3000000000"), "label 3000000000 is not");
    for (java.util.Map.Entry<LabelMap, String> bad : named.entrySet()) {
      StringWriter w = new StringWriter();
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> LibsvmExport.write(twoBlockModel(false, bad.getKey()), w));
      assertTrue(e.getMessage().contains("integer labels") && e.getMessage().contains(bad.getValue()), e.getMessage());
      assertEquals("", w.toString());
    }
    StringWriter w = new StringWriter();
    LibsvmExport.write(twoBlockModel(false, new LabelMap("-2147483648", "2147483647")), w);
    assertTrue(w.toString().contains("\nlabel 2147483647 -2147483648\n"), w.toString());
  }
}
