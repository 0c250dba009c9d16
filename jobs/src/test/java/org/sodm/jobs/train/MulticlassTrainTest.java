package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

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
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Prediction;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.LibsvmExport;
import org.sodm.model.MulticlassModel;
import org.sodm.model.Subproblems;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/** Multi-class training end to end on a small 4-class set (test resources: blobs4.libsvm, 450 rows; blobs4.t.libsvm, 225). */
class MulticlassTrainTest {
  @TempDir Path tmp;
  private Configuration conf;
  private final List<String> progress = new ArrayList<>();

  static Path resource(String name) {
    try {
      return Path.of(MulticlassTrainTest.class.getResource("/multiclass/" + name).toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "4");
    conf.set(SodmConf.GAMMA, "1");
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(SodmConf.FANOUT, "2");
    conf.set(SodmConf.LANDMARKS, "8");
  }

  private TrainPipeline.Result train(String out, List<String> inputs, List<String> validation) throws IOException {
    return TrainPipeline.run(conf, new TrainPipeline.Request(inputs, validation, new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()),
        false), progress::add);
  }

  private List<Prediction> predictions(String dir) throws IOException {
    List<Prediction> all = AvroFiles.readDir(conf, new org.apache.hadoop.fs.Path(tmp.resolve(dir).toString()), Prediction.class);
    all.sort(Comparator.comparingLong(Prediction::getId)); // ids ascend with the line's byte offset: file order
    return all;
  }

  @Test
  void ovoTrainsPredictsAndExportsAsLibsvmPredicts() throws Exception {
    conf.setBoolean(Param.EXACT.key(), true); // the tree of every task, then one exact block per task
    TrainPipeline.Result r = train("ovo", List.of(resource("blobs4.libsvm").toString()), List.of(resource("blobs4.t.libsvm").toString()));
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
    assertEquals(List.of("1", "2", "3", "4"), m.classes());
    assertEquals(Subproblems.Scheme.OVO, m.scheme());
    assertEquals(6, m.plan().tasks());
    assertFalse(m.hasProbabilities());
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 2") && l.contains("24 blocks")), String.join("\n", progress));
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 1") && l.contains("12 blocks")), String.join("\n", progress));
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("exact") && l.contains("one block")), String.join("\n", progress));

    PredictJob.Result p = PredictJob.run(conf, r.modelPath(), List.of(resource("blobs4.t.libsvm").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString()));
    assertNull(p.metrics());
    var mm = p.multiclass();
    assertEquals(225, mm.n());
    long[] support = new long[4];
    for (int c = 0; c < 4; c++) for (long v : mm.confusion()[c]) support[c] += v;
    assertArrayEquals(new long[] {75, 60, 50, 40}, support);
    assertTrue(mm.accuracy() >= 0.85, "accuracy " + mm.accuracy());
    assertEquals(r.levels().get(r.levels().size() - 1).getValidationAccuracy(), mm.accuracy(), 1e-12);
    List<Prediction> preds = predictions("pred");
    List<String> truth = LibsvmTools.labels(resource("blobs4.t.libsvm"));
    for (int i = 0; i < preds.size(); i++) assertEquals(truth.get(i), preds.get(i).getLabel().toString());

    // labels the training data does not have: scored as any row, each an error in the accuracy (as svm-predict counts it),
    // a false positive of the class it is predicted as, and named in a warning
    Path unseen = tmp.resolve("unseen.libsvm");
    Files.writeString(unseen, Files.readString(resource("blobs4.t.libsvm")) + "9 1:0.5 2:0.5 3:0.5 4:0.1\n7 1:0.1 2:0.9 3:0.2 4:0.4\n"
        + "9 1:0.9 2:0.1 3:0.7 4:0.3\n");
    PredictJob.Result u = PredictJob.run(conf, r.modelPath(), List.of(unseen.toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("pred-unseen").toString()));
    assertTrue(u.unknownLabels().startsWith("3 rows are labelled with none of the model's labels (1, 2, 3, 4): '7' (1 row, at "),
        u.unknownLabels());
    assertTrue(u.unknownLabels().contains("unseen.libsvm:227), '9' (2 rows, first at ") && u.unknownLabels().contains("unseen.libsvm:226)"),
        u.unknownLabels());
    var um = u.multiclass();
    assertEquals(228, um.n());
    assertEquals(3, um.other());
    assertEquals(mm.correct(), um.correct(), "the model's rows are scored as before");
    assertEquals((double) mm.correct() / 228, um.accuracy(), 1e-15);
    List<Prediction> withUnknown = predictions("pred-unseen");
    assertEquals(228, withUnknown.size());
    long[] otherAs = new long[4];
    for (Prediction q : withUnknown.subList(225, 228)) otherAs[m.classes().indexOf(q.getPredicted().toString())]++;
    assertArrayEquals(otherAs, um.otherPredicted());
    for (int c = 0; c < 4; c++) {
      long predictedAs = otherAs[c];
      for (long[] row : um.confusion()) predictedAs += row[c];
      assertEquals(predictedAs == 0 ? 0 : (double) um.confusion()[c][c] / predictedAs, um.precision(c), 1e-15, "class " + c);
      assertEquals(mm.recall(c), um.recall(c), 1e-15, "class " + c);
    }
    assertTrue(um.table().contains("(other)") && um.toJson().contains("\"other\": {\"rows\": 3, \"predicted\": ["), um.toJson());

    if (!LibsvmTools.installed()) return; // the comparisons with LIBSVM need it installed
    Path lib = tmp.resolve("model.libsvm");
    Path range = tmp.resolve("model.range");
    try (var w = Files.newBufferedWriter(lib)) {
      LibsvmExport.write(m, w);
    }
    try (var w = Files.newBufferedWriter(range)) {
      LibsvmExport.writeRange(m.scaler(), w);
    }
    Path scaled = tmp.resolve("test.scaled");
    LibsvmTools.run(scaled, "svm-scale", "-r", range.toString(), resource("blobs4.t.libsvm").toString());
    List<String> theirs = LibsvmTools.predict(scaled, lib, tmp);
    for (int i = 0; i < preds.size(); i++) assertEquals(preds.get(i).getPredicted().toString(), theirs.get(i), "row " + (i + 1));
    // svm-predict's accuracy on the file with the unknown labels is sodm's
    Path unseenScaled = tmp.resolve("unseen.scaled");
    LibsvmTools.run(unseenScaled, "svm-scale", "-r", range.toString(), unseen.toString());
    String said = LibsvmTools.run(null, "svm-predict", unseenScaled.toString(), lib.toString(), tmp.resolve("unseen.out").toString());
    assertTrue(said.contains("% (" + um.correct() + "/228) (classification)"), said + " vs " + um.correct() + "/228");
    // LIBSVM with the same C and gamma on the same scaling
    Path trainScaled = tmp.resolve("train.scaled");
    LibsvmTools.run(trainScaled, "svm-scale", "-r", range.toString(), resource("blobs4.libsvm").toString());
    double libsvm = LibsvmTools.trainAndTest(trainScaled, scaled, tmp, "-c", "4", "-g", "1");
    assertTrue(mm.accuracy() >= libsvm - 0.02, "sodm " + mm.accuracy() + " vs LIBSVM " + libsvm);
  }

  /**
   * Multi-class in the tree (two averaged blocks per task, hinge with the offset): every task's model gets its own common offset,
   * the minimiser of its scaled hinge over its support vectors (C x 2 per row; {@link OffsetTrainTest#hinge}), which
   * --no-common-offset leaves to the blocks.
   */
  @Test
  void everyTaskGetsItsOwnCommonOffset() throws IOException {
    conf.set(SodmConf.PARTITIONS, "2");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    MulticlassModel mm = (MulticlassModel) train("common", List.of(resource("blobs4.libsvm").toString()), null).model();
    conf.set(Param.COMMON_OFFSET.key(), "false");
    MulticlassModel own = (MulticlassModel) train("own", List.of(resource("blobs4.libsvm").toString()), null).model();
    assertEquals(6, mm.plan().tasks());
    int differ = 0;
    for (int t = 0; t < mm.plan().tasks(); t++) {
      org.sodm.model.KernelModel m = (org.sodm.model.KernelModel) mm.subModel(t);
      org.sodm.model.KernelModel o = (org.sodm.model.KernelModel) own.subModel(t);
      assertEquals(2, m.blockCount(), "task " + t);
      double b = m.block(0).bias();
      assertEquals(b, m.block(1).bias(), 0, "task " + t + ": one offset");
      double at = OffsetTrainTest.hinge(m, b, 4 * 2);
      for (double d : new double[] {-0.05, -1e-3, 1e-3, 0.05}) {
        assertTrue(at <= OffsetTrainTest.hinge(m, b + d, 4 * 2) + 1e-9, "task " + t + ": b + " + d + " is better");
      }
      if (o.block(0).bias() != o.block(1).bias()) differ++;
    }
    assertTrue(differ > 0, "--no-common-offset: the blocks keep their own offsets");
  }

  @Test
  void ovrWithOdmIsDeterministic() throws IOException {
    conf.set(SodmConf.LOSS, "odm");
    conf.set(Param.MULTICLASS.key(), "ovr");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0"); // the merge tree alone: the model averages each task's last blocks
    TrainPipeline.Result a = train("ovr-a", List.of(resource("blobs4.libsvm").toString()), List.of(resource("blobs4.t.libsvm").toString()));
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, a.model());
    assertEquals(Subproblems.Scheme.OVR, m.scheme());
    assertEquals(4, m.plan().tasks());
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 1") && l.contains("8 blocks")), String.join("\n", progress));
    for (int t = 0; t < 4; t++) assertEquals(2, ((org.sodm.model.KernelModel) m.subModel(t)).blockCount(), "task " + t);
    double acc = a.levels().get(a.levels().size() - 1).getValidationAccuracy();
    assertTrue(acc >= 0.82, "accuracy " + acc);
    TrainPipeline.Result b = train("ovr-b", List.of(resource("blobs4.libsvm").toString()), null);
    ModelRecord ra = ModelFiles.readRecord(conf, a.modelPath());
    ModelRecord rb = ModelFiles.readRecord(conf, b.modelPath());
    assertEquals(ra.getMulticlass(), rb.getMulticlass(), "same data, parameters and seed: the same model");
  }

  @Test
  void probabilitiesAreCalibratedOutputsAndTheLabelIsTheirArgmax() throws IOException {
    conf.setBoolean(Param.PROBABILITY.key(), true);
    TrainPipeline.Result r = train("prob", List.of(resource("blobs4.libsvm").toString()), null);
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
    assertTrue(m.hasProbabilities());
    for (int t = 0; t < m.plan().tasks(); t++) assertTrue(m.platt(t).a() < 0, "task " + t + ": larger f, more likely +1");
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("probability")), String.join("\n", progress));
    assertTrue(progress.stream().anyMatch(l -> l.contains("one block per task")), String.join("\n", progress));
    assertTrue(progress.stream().anyMatch(l -> l.contains("36 blocks")), "6 tasks x (full + 5 folds): " + String.join("\n", progress));
    PredictJob.Result p = PredictJob.run(conf, r.modelPath(), List.of(resource("blobs4.t.libsvm").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString()));
    for (Prediction q : predictions("pred")) {
      assertEquals(4, q.getProbabilities().size());
      double sum = 0;
      int arg = 0;
      for (int c = 0; c < 4; c++) {
        sum += q.getProbabilities().get(c);
        if (q.getProbabilities().get(c) > q.getProbabilities().get(arg)) arg = c;
      }
      assertEquals(1, sum, 1e-9);
      assertEquals(m.classes().get(arg), q.getPredicted().toString());
    }
    var mm = p.multiclass();
    assertTrue(mm.accuracy() >= 0.85, "accuracy " + mm.accuracy());
    assertTrue(mm.logLoss() > 0 && mm.logLoss() < 0.45, "log-loss " + mm.logLoss()); // uniform guessing: ln 4 = 1.39
    assertNotNull(mm.calibrationCounts());
    assertTrue(mm.toJson().contains("\"logLoss\""));
  }

  @Test
  void aClassOfOneRowTrainsWithProbabilitiesAsInLibsvm() throws IOException {
    // svm-train -b 1 trains it; the probability folds without that row leave its tasks' fold models one class only
    // (offset b = -+infinity), whose decisions count as -+1 in Platt's fit (LIBSVM's rule), not as a flat sigmoid
    Path one = tmp.resolve("one.libsvm");
    Files.writeString(one, Files.readString(resource("blobs4.libsvm")) + "7 1:0.5 2:0.5 3:0.5 4:0.1\n");
    conf.setBoolean(Param.PROBABILITY.key(), true);
    TrainPipeline.Result r = train("one", List.of(one.toString()), null);
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
    assertEquals(List.of("1", "2", "3", "4", "7"), m.classes());
    for (int t = 0; t < m.plan().tasks(); t++) {
      assertTrue(m.platt(t).a() < -0.1, "task " + t + " (classes " + m.plan().negativeClass(t) + ", " + m.plan().positiveClass(t)
          + "): a fitted sigmoid, A = " + m.platt(t).a());
    }
    PredictJob.Result p = PredictJob.run(conf, r.modelPath(), List.of(resource("blobs4.t.libsvm").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString()));
    assertTrue(p.multiclass().accuracy() >= 0.85, "the other classes as without the row: " + p.multiclass().accuracy());
  }

  @Test
  void badInputFailsClearlyAndWritesNoModel() throws IOException {
    SodmException e;
    conf.set(Param.MAX_CLASSES.key(), "3");
    e = assertThrows(SodmException.class, () -> train("max", List.of(resource("blobs4.libsvm").toString()), null));
    assertTrue(e.getMessage().contains("is distinct label number 4") && e.getMessage().contains("sodm.train.max.classes"), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("max").resolve("model.avro")));
    assertFalse(Files.exists(tmp.resolve("max").resolve("work").resolve("ingest")), "the failed ingest left no phase");

    // the two class weights of binary data would weigh each task's own +1 and -1 sides: refused, not applied
    conf.unset(Param.MAX_CLASSES.key());
    conf.set(Param.WEIGHT_POSITIVE.key(), "2");
    RuntimeException w = assertThrows(org.sodm.jobs.spec.BadParameterException.class, () -> train("weights", List.of(resource("blobs4.libsvm").toString()), null));
    assertTrue(w.getMessage().contains("--weight-positive") && w.getMessage().contains("4 classes [1, 2, 3, 4]")
        && w.getMessage().contains("--class-weights"), w.getMessage());
    assertFalse(Files.exists(tmp.resolve("weights").resolve("model.avro")));
  }

  /** --kernel linear: BQO one-vs-rest (the default scheme of the linear solvers), as LIBLINEAR's -s 3 -B 1 with the same C. */
  @Test
  void linearSolversTrainOneVsRest() throws Exception {
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.C, "1");
    conf.setBoolean(Param.BIAS.key(), true);
    TrainPipeline.Result r = train("lin", List.of(resource("blobs4.libsvm").toString()), List.of(resource("blobs4.t.libsvm").toString()));
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
    assertEquals(Subproblems.Scheme.OVR, m.scheme());
    for (int t = 0; t < 4; t++) assertInstanceOf(org.sodm.model.LinearModel.class, m.subModel(t));
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("bqo-t3")), String.join("\n", progress));
    // the model line names the linear tasks' weights (it said "0 support vectors (0 distinct)")
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("model") && l.contains("4 classes, ovr 4 task(s), linear (bqo), 4 weights a task")),
        String.join("\n", progress));
    double acc = r.levels().get(0).getValidationAccuracy();
    assertTrue(acc >= 0.84, "accuracy " + acc);
    // inspect shows each task's weights (it printed "0 SV in 0 block(s)" for a linear task)
    String[] shown = org.sodm.cli.SodmMainAccess.run("inspect", "-D", "fs.defaultFS=file:///", r.modelPath().toString());
    assertEquals("0", shown[0], shown[2]);
    org.sodm.model.LinearModel t3 = (org.sodm.model.LinearModel) m.subModel(3);
    assertTrue(shown[1].contains(String.format(java.util.Locale.ROOT, "task rest/4   linear (bqo), %d weights", t3.w().length)), shown[1]);
    assertFalse(shown[1].contains("SV in 0 block(s)"), shown[1]);
    if (!java.nio.file.Files.isExecutable(Path.of("/usr/bin/liblinear-train"))) return;
    Path range = tmp.resolve("lin.range");
    try (var w = Files.newBufferedWriter(range)) {
      LibsvmExport.writeRange(m.scaler(), w);
    }
    Path trainS = tmp.resolve("lin.train");
    Path testS = tmp.resolve("lin.test");
    LibsvmTools.run(trainS, "svm-scale", "-r", range.toString(), resource("blobs4.libsvm").toString());
    LibsvmTools.run(testS, "svm-scale", "-r", range.toString(), resource("blobs4.t.libsvm").toString());
    LibsvmTools.run(null, "liblinear-train", "-q", "-s", "3", "-c", "1", "-B", "1", trainS.toString(), tmp.resolve("ll.model").toString());
    LibsvmTools.run(null, "liblinear-predict", testS.toString(), tmp.resolve("ll.model").toString(), tmp.resolve("ll.out").toString());
    List<String> theirs = Files.readAllLines(tmp.resolve("ll.out"));
    List<String> truth = LibsvmTools.labels(resource("blobs4.t.libsvm"));
    int ok = 0;
    for (int i = 0; i < truth.size(); i++) if (truth.get(i).equals(theirs.get(i))) ok++;
    double liblinear = (double) ok / truth.size();
    assertTrue(Math.abs(acc - liblinear) <= 0.02, "sodm " + acc + " vs LIBLINEAR " + liblinear); // 225 rows: 1 row = 0.44 point

    // export-liblinear: liblinear-predict on the model exported (and the test data scaled by its range file) prints sodm's labels
    Path exported = tmp.resolve("sodm.liblinear");
    String[] ex = org.sodm.cli.SodmMainAccess.run("export-liblinear", "-D", "fs.defaultFS=file:///", r.modelPath().toString(), "-o",
        exported.toString());
    assertEquals("0", ex[0], ex[2]);
    assertTrue(ex[1].contains("4 classes, one-vs-rest: one column of w per class") && ex[1].contains("svm-scale -r " + exported + ".range"),
        ex[1]);
    Path sodmScaled = tmp.resolve("lin.test.sodm");
    LibsvmTools.run(sodmScaled, "svm-scale", "-r", exported + ".range", resource("blobs4.t.libsvm").toString());
    LibsvmTools.run(null, "liblinear-predict", sodmScaled.toString(), exported.toString(), tmp.resolve("sodm-ll.out").toString());
    List<String> viaLiblinear = Files.readAllLines(tmp.resolve("sodm-ll.out"));
    PredictJob.run(conf, r.modelPath(), List.of(resource("blobs4.t.libsvm").toString()), new org.apache.hadoop.fs.Path(tmp.resolve("lin-pred").toString()));
    List<Prediction> preds = predictions("lin-pred");
    assertEquals(truth.size(), preds.size());
    for (int i = 0; i < preds.size(); i++) assertEquals(preds.get(i).getPredicted().toString(), viaLiblinear.get(i), "row " + (i + 1));
  }

  /** --kernel linear --multiclass ovo: export-libsvm writes each task's w as one support vector; svm-predict prints sodm's labels. */
  @Test
  void linearOneVsOneExportsForSvmPredict() throws Exception {
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.C, "1");
    conf.set(Param.MULTICLASS.key(), "ovo");
    TrainPipeline.Result r = train("lin-ovo", List.of(resource("blobs4.libsvm").toString()), null);
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
    assertEquals(Subproblems.Scheme.OVO, m.scheme());
    Path exported = tmp.resolve("ovo.libsvm");
    String[] ex = org.sodm.cli.SodmMainAccess.run("export-libsvm", "-D", "fs.defaultFS=file:///", r.modelPath().toString(), "-o",
        exported.toString());
    assertEquals("0", ex[0], ex[2]);
    assertTrue(ex[1].contains("4 classes, one-vs-one, linear: one SV = w per pair"), ex[1]);
    String[] refused = org.sodm.cli.SodmMainAccess.run("export-liblinear", "-D", "fs.defaultFS=file:///", r.modelPath().toString(), "-o",
        tmp.resolve("ovo.liblinear").toString());
    assertEquals("1", refused[0]);
    assertTrue(refused[2].contains("LIBLINEAR's multi-class format is one-vs-rest"), refused[2]);
    assertFalse(Files.exists(tmp.resolve("ovo.liblinear")));
    PredictJob.run(conf, r.modelPath(), List.of(resource("blobs4.t.libsvm").toString()), new org.apache.hadoop.fs.Path(tmp.resolve("ovo-pred").toString()));
    List<Prediction> preds = predictions("ovo-pred");
    if (!LibsvmTools.installed()) return; // the comparison with svm-predict needs it installed
    Path scaled = tmp.resolve("ovo.test.scaled");
    LibsvmTools.run(scaled, "svm-scale", "-r", exported + ".range", resource("blobs4.t.libsvm").toString());
    List<String> theirs = LibsvmTools.predict(scaled, exported, tmp);
    assertEquals(preds.size(), theirs.size());
    for (int i = 0; i < preds.size(); i++) assertEquals(preds.get(i).getPredicted().toString(), theirs.get(i), "row " + (i + 1));
  }
}
