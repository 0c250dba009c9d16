package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.avro.Provenance;
import org.sodm.data.SparseVector;

/**
 * LIBSVM model files read back: a model written by LibsvmExport (a second, independent mapping between sodm's tasks and
 * LIBSVM's pairs) reads back to the same decision values, labels, probabilities and vote order; malformed or unsupported
 * files fail naming the file and line. (svm-train's own files against svm-predict: ImportLibsvmCommandTest.)
 */
class LibsvmImportTest {
  private static final Provenance PROV = new Provenance("test", "now", "in", "fp", new HashMap<>(), List.of(), null);

  private static Model roundTrip(Model m) throws Exception {
    StringWriter w = new StringWriter();
    LibsvmExport.write(m, w);
    return LibsvmImport.read(new BufferedReader(new StringReader(w.toString())), "exported", PROV);
  }

  @Test
  void exportedMulticlassModelsReadBackAsThemselves() throws Exception {
    for (String order : new String[] {"0,1,2,3", "2,0,3,1"}) {
      for (boolean platt : new boolean[] {false, true}) {
        MulticlassModel m = MulticlassModelTest.randomOvo(7, platt, order);
        MulticlassModel back = assertInstanceOf(MulticlassModel.class, roundTrip(m));
        assertEquals(m.classes(), back.classes());
        assertArrayEquals(m.classOrder(), back.classOrder(), "LIBSVM's label order, by which votes tie");
        assertEquals(platt, back.hasProbabilities());
        Random r = new Random(3);
        for (int n = 0; n < 300; n++) {
          SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
          double[] f = m.decisionValues(x);
          double[] g = back.decisionValues(x);
          for (int t = 0; t < f.length; t++) assertEquals(f[t], g[t], 1e-12 * Math.max(1, Math.abs(f[t])), "order " + order + " task " + t);
          if (!platt) assertEquals(m.predict(x), back.predict(x));
          if (platt) { // the imported model couples as svm-predict does (stopped at 0.005 / k; sodm's own at 1e-12)
            double[] p = m.score(x).probabilities();
            double[] q = back.score(x).probabilities();
            for (int c = 0; c < p.length; c++) assertEquals(p[c], q[c], 5e-3);
          }
        }
      }
    }
  }

  @Test
  void exportedBinaryModelReadsBackAsItself() throws Exception {
    KernelModel task = (KernelModel) MulticlassModelTest.randomOvo(11, false).subModel(4); // classes "2" and "10": +1 is "10"
    Model back = roundTrip(task);
    assertInstanceOf(KernelModel.class, back);
    assertEquals(task.labels(), back.labels());
    Random r = new Random(5);
    for (int n = 0; n < 300; n++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      assertEquals(task.decision(x), back.decision(x), 1e-12 * Math.max(1, Math.abs(task.decision(x))));
    }
    // LIBSVM's first label the -1 one: the coefficients and rho change sign
    String flipped = "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.25\nlabel -1 1\nnr_sv 1 1\nSV\n"
        + "1.5 1:0.2 2:0.4\n-1.5 1:0.9\n";
    Model b = LibsvmImport.read(new BufferedReader(new StringReader(flipped)), "f", PROV);
    SparseVector x = SparseVector.ofDense(0.3, 0.1);
    double dec = 1.5 * Math.exp(-0.5 * (0.01 + 0.09)) - 1.5 * Math.exp(-0.5 * (0.36 + 0.01)) - 0.25; // LIBSVM's, for label -1
    assertEquals(-dec, b.decision(x), 1e-12);
    assertEquals(dec > 0 ? "-1" : "1", b.predict(x));
  }

  /** Two classes with probabilities (a model of one sub-problem): LIBSVM's binary -b 1 format, each vector with its class. */
  @Test
  void twoClassProbabilityModelsRoundTrip() throws Exception {
    MulticlassModel four = MulticlassModelTest.randomOvo(13, true);
    KernelModel pair = (KernelModel) four.subModel(0); // classes "1" and "2"
    HashMap<String, String> params = new HashMap<>();
    params.put(MulticlassModel.CLASS_ORDER, "1,0"); // LIBSVM's label order: "2" first
    MulticlassModel m = new MulticlassModel(pair.kernelSpec(), pair.loss(), null, List.of("1", "2"), new Subproblems(2, Subproblems.Scheme.OVO),
        new Model[] {pair}, new Platt[] {four.platt(0)}, new Provenance("test", "now", "in", "fp", params, List.of(), null));
    StringWriter w = new StringWriter();
    LibsvmExport.write(m, w);
    String text = w.toString();
    assertTrue(text.contains("nr_class 2\n") && text.contains("label 2 1\n"), text);
    long pos = 0;
    long neg = 0;
    java.util.Map<Long, Double> sign = new java.util.HashMap<>();
    for (int b = 0; b < pair.blockCount(); b++) for (int s = 0; s < pair.block(b).size(); s++) sign.put(pair.supportVectorId(b, s), pair.block(b).coef(s));
    for (double c : sign.values()) {
      if (c > 0) pos++;
      else neg++;
    }
    assertTrue(text.contains("nr_sv " + pos + " " + neg + "\n"), "the vectors of \"2\" (positive coefficients) first: " + text);
    MulticlassModel back = assertInstanceOf(MulticlassModel.class, LibsvmImport.read(new BufferedReader(new StringReader(text)), "e", PROV));
    assertArrayEquals(new int[] {1, 0}, back.classOrder());
    Random r = new Random(9);
    for (int n = 0; n < 300; n++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      assertEquals(m.decisionValues(x)[0], back.decisionValues(x)[0], 1e-12 * Math.max(1, Math.abs(m.decisionValues(x)[0])));
      assertArrayEquals(m.score(x).probabilities(), back.score(x).probabilities(), 1e-12);
      assertEquals(m.predict(x), back.predict(x));
    }
  }

  /**
   * Probabilities that tie (every sigmoid 0.5: probA = probB = 0): the class first in the file's label order, as svm-predict
   * -b 1 breaks the tie (checked with svm-predict 3.x: "2" for labels 2 1, "3" for labels 3 1 2, on every row), not the class
   * of the smallest index.
   */
  @Test
  void tiedProbabilitiesGoToTheFirstLabelAsSvmPredictBreaksThem() throws Exception {
    String two = "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.25\nlabel 2 1\nprobA 0\nprobB 0\n"
        + "nr_sv 1 1\nSV\n1.5 1:0.2 2:0.4\n-1.5 1:0.9\n";
    String three = "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 3\ntotal_sv 3\nrho 0.25 0.1 -0.3\nlabel 3 1 2\nprobA 0 0 0\n"
        + "probB 0 0 0\nnr_sv 1 1 1\nSV\n1.5 0.5 1:0.2 2:0.4\n-1.5 0.7 1:0.9\n-0.5 -1.2 2:0.3\n";
    String[][] cases = {{two, "2"}, {three, "3"}};
    for (String[] c : cases) {
      MulticlassModel m = assertInstanceOf(MulticlassModel.class, LibsvmImport.read(new BufferedReader(new StringReader(c[0])), "t", PROV));
      for (SparseVector x : new SparseVector[] {SparseVector.ofDense(0.3, 0.1), SparseVector.ofDense(0.9), SparseVector.ofDense(0, 0.5)}) {
        MulticlassModel.Scored sc = m.score(x);
        for (double p : sc.probabilities()) assertEquals(1.0 / m.classes().size(), p, 1e-12, "a tie");
        assertEquals(c[1], m.classes().get(sc.index()), "the first label of the file's label line");
        assertEquals(c[1], m.predict(x));
      }
    }
  }

  /** A model that scales: export-libsvm's model and range file read back score raw rows as the model does. */
  @Test
  void aRangeFileScalesAsTheModelsScaler() throws Exception {
    MulticlassModel four = MulticlassModelTest.randomOvo(17, false);
    org.sodm.data.Scaler scaler = new org.sodm.data.Scaler(-1, 1, new int[] {1, 2, 3}, new double[] {-2, 0, 1}, new double[] {2, 4, 3});
    Model[] sub = new Model[four.plan().tasks()];
    for (int t = 0; t < sub.length; t++) {
      KernelModel k = (KernelModel) four.subModel(t);
      KernelExpansion[] blocks = new KernelExpansion[k.blockCount()];
      int[] ids = new int[k.blockCount()];
      long[][] svIds = new long[k.blockCount()][];
      for (int b = 0; b < blocks.length; b++) {
        blocks[b] = k.block(b);
        ids[b] = b;
        svIds[b] = new long[k.block(b).size()];
        for (int s = 0; s < svIds[b].length; s++) svIds[b][s] = k.supportVectorId(b, s);
      }
      sub[t] = new KernelModel(k.kernelSpec(), k.loss(), k.labels(), scaler, ids, svIds, blocks, null);
    }
    MulticlassModel m = new MulticlassModel(four.kernelSpec(), four.loss(), scaler, four.classes(), four.plan(), sub, null, PROV);
    StringWriter model = new StringWriter();
    LibsvmExport.write(m, model);
    StringWriter range = new StringWriter();
    LibsvmExport.writeRange(scaler, range);
    org.sodm.data.Scaler back = LibsvmImport.readRange(new BufferedReader(new StringReader(range.toString())), "r");
    Model imported = LibsvmImport.read(new BufferedReader(new StringReader(model.toString())), "m", PROV, back);
    Random r = new Random(2);
    for (int n = 0; n < 300; n++) {
      SparseVector raw = SparseVector.ofDense(4 * r.nextDouble() - 2, 4 * r.nextDouble(), 1 + 2 * r.nextDouble(), r.nextDouble());
      assertEquals(m.predict(raw), imported.predict(raw));
      double[] f = m.decisionValues(m.prepare(raw));
      double[] g = ((MulticlassModel) imported).decisionValues(imported.prepare(raw));
      for (int t = 0; t < f.length; t++) assertEquals(f[t], g[t], 1e-12 * Math.max(1, Math.abs(f[t])));
    }
    // svm-scale's own rules: a constant feature is dropped; label scaling and a bad header are refused
    org.sodm.data.Scaler constant = LibsvmImport.readRange(new BufferedReader(new StringReader("x\n0 1\n1 0 2\n2 5 5\n")), "c");
    assertEquals(SparseVector.ofDense(0.5), constant.apply(SparseVector.ofDense(1, 7)));
    for (String[] bad : new String[][] {{"y\n0 1\n1 3\nx\n0 1\n", "r:1: the file scales labels"}, {"x\n1 0\n", "r:2: lower 1.0 must be below"},
        {"x\n0 1\n2 0 1\n1 0 1\n", "r:4: feature index 1 after 2"}, {"z\n", "r:1: an svm-scale range file starts with 'x'"}}) {
      LibsvmImport.BadModelException e = assertThrows(LibsvmImport.BadModelException.class,
          () -> LibsvmImport.readRange(new BufferedReader(new StringReader(bad[0])), "r"));
      assertTrue(e.getMessage().startsWith(bad[1]), e.getMessage());
    }
  }

  @Test
  void malformedOrUnsupportedFilesNameTheFileAndLine() {
    String ok = "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.25\nlabel 1 -1\nnr_sv 1 1\nSV\n1.5 1:0.2\n-1.5 1:0.9\n";
    String[][] bad = {
      {ok.replace("c_svc", "epsilon_svr"), "m: svm_type epsilon_svr is not a classifier"},
      {ok.replace("rbf", "precomputed"), "m: kernel_type precomputed is not supported"},
      {ok.replace("SV\n", ""), "m: no 'SV' line"},
      {ok.replace("nr_sv 1 1", "nr_sv 2 1"), "m: nr_sv adds up to 3, total_sv is 2"},
      {ok.replace("-1.5 1:0.9", "x 1:0.9"), "m:11: a coefficient 'x' is not a finite number"},
      {ok.replace("-1.5 1:0.9", "-1.5 2:0.9 1:0.1"), "m:11: feature index 1 after 2"},
      {ok.replace("-1.5 1:0.9\n", ""), "m: 2 support vectors announced, 1 found"},
      {ok + "1 1:1\n", "m: more than total_sv 2 support vectors"},
      {ok.replace("rho 0.25", "rho 0.25 1"), "m: the header needs 1 values of rho, got 2"},
      {ok.replace("label 1 -1", "label 1 1"), "m: label 1 is given twice"},
    };
    for (String[] b : bad) {
      LibsvmImport.BadModelException e = assertThrows(LibsvmImport.BadModelException.class,
          () -> LibsvmImport.read(new BufferedReader(new StringReader(b[0])), "m", PROV), b[1]);
      assertTrue(e.getMessage().startsWith(b[1]), e.getMessage());
    }
  }
}
