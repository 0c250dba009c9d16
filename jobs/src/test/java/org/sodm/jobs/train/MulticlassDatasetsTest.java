package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Prediction;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.LibsvmExport;
import org.sodm.model.MulticlassModel;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * One-vs-one on the shared multi-class data sets (skipped when ../shared/datasets or LIBSVM is
 * absent): pendigits (10 classes, scaled to [0,1] with the training ranges, C = 8, gamma = 0.5)
 * and dna (3 classes, already scaled, LIBSVM's defaults C = 1, gamma = 1/180). sodm's test
 * accuracy is at most 0.3 point below svm-train's with the same C and gamma on the same scaling
 * (the datasets README: 98.23% and 94.52%), svm-predict on sodm's exported model gives
 * sodm's label for every test row, and svm-train's own model gives it for all but at most one row in 1000 (the class order of
 * vote ties is LIBSVM's: dna's 3 tied rows of 1,186 went to another class before).
 */
class MulticlassDatasetsTest {
  @TempDir Path tmp;

  private Path unxz(Path xz, String name) throws IOException {
    Path out = tmp.resolve(name);
    try (InputStream in = new org.tukaani.xz.XZInputStream(Files.newInputStream(xz))) {
      Files.copy(in, out);
    }
    return out;
  }

  private void compare(String set, String trainXz, String testXz, boolean scale, String c, String gamma) throws Exception {
    Path trainX = LocalConf.sharedDataset(set + "/" + trainXz);
    Path testX = LocalConf.sharedDataset(set + "/" + testXz);
    Assumptions.assumeTrue(trainX != null && testX != null, "../shared/datasets/" + set + " absent");
    Assumptions.assumeTrue(LibsvmTools.installed(), "LIBSVM not installed");
    Path train = unxz(trainX, set);
    Path test = unxz(testX, set + ".t");
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, scale ? "0,1" : "none");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, c);
    if (gamma != null) conf.set(SodmConf.GAMMA, gamma);
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(train.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("model").toString()), false), s -> {});
    MulticlassModel m = assertInstanceOf(MulticlassModel.class, r.model());
    PredictJob.Result p = PredictJob.run(conf, r.modelPath(), List.of(test.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString()));
    double ours = p.multiclass().accuracy();

    // LIBSVM with the same C and gamma on the same scaling
    Path trainS = train;
    Path testS = test;
    if (scale) {
      trainS = tmp.resolve("train.scaled");
      testS = tmp.resolve("test.scaled");
      LibsvmTools.run(trainS, "svm-scale", "-l", "0", "-u", "1", "-s", tmp.resolve("svm.range").toString(), train.toString());
      LibsvmTools.run(testS, "svm-scale", "-r", tmp.resolve("svm.range").toString(), test.toString());
    }
    List<String> svmTrain = gamma == null ? LibsvmTools.trainAndPredict(trainS, testS, tmp, "-c", c)
        : LibsvmTools.trainAndPredict(trainS, testS, tmp, "-c", c, "-g", gamma);
    List<String> truth = LibsvmTools.labels(testS);
    int right = 0;
    for (int i = 0; i < truth.size(); i++) if (Double.parseDouble(truth.get(i)) == Double.parseDouble(svmTrain.get(i))) right++;
    double libsvm = (double) right / truth.size();
    assertTrue(ours >= libsvm - 0.003, String.format("%s: sodm %.4f vs LIBSVM %.4f", set, ours, libsvm));

    // svm-predict on the exported model: sodm's labels, row for row
    Path lib = tmp.resolve("sodm.model");
    try (var w = Files.newBufferedWriter(lib)) {
      LibsvmExport.write(m, w);
    }
    Path forExport = test;
    if (scale) {
      Path range = tmp.resolve("sodm.range");
      try (var w = Files.newBufferedWriter(range)) {
        LibsvmExport.writeRange(m.scaler(), w);
      }
      forExport = tmp.resolve("test.sodm-scaled");
      LibsvmTools.run(forExport, "svm-scale", "-r", range.toString(), test.toString());
    }
    List<String> theirs = LibsvmTools.predict(forExport, lib, tmp);
    List<Prediction> preds = AvroFiles.readDir(conf, new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString()), Prediction.class);
    preds.sort(Comparator.comparingLong(Prediction::getId));
    assertEquals(theirs.size(), preds.size());
    int differ = 0;
    for (int i = 0; i < preds.size(); i++) {
      double label = Double.parseDouble(preds.get(i).getPredicted().toString());
      assertEquals(label, Double.parseDouble(theirs.get(i)), set + " row " + (i + 1));
      if (label != Double.parseDouble(svmTrain.get(i))) differ++;
    }
    // svm-train's own model: the same optimum (LIBSVM's offset) and vote ties broken by its label order (first appearance in
    // the training file), so the labels agree row for row up to a decision value within the tolerance of zero
    assertTrue(differ <= Math.max(1, preds.size() / 1000), set + ": " + differ + " of " + preds.size() + " labels differ from svm-train's");
  }

  @Test
  void pendigitsOvoAsLibsvm() throws Exception {
    compare("pendigits", "pendigits.xz", "pendigits.t.xz", true, "8", "0.5");
  }

  @Test
  void dnaOvoAsLibsvm() throws Exception {
    compare("dna", "dna.scale.xz", "dna.scale.t.xz", false, "1", null);
  }
}
