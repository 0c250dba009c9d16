package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * sodm import-libsvm: svm-train's model files (4 classes, with and without -b 1; two classes with -b 1) scored by sodm
 * predict --text give svm-predict's output file (labels and layout; probabilities to the coupling's tolerance); a file
 * that is no LIBSVM model fails naming it and writes nothing.
 */
class ImportLibsvmCommandTest {
  @TempDir Path tmp;

  private static Path resource(String name) throws Exception {
    return Path.of(ImportLibsvmCommandTest.class.getResource("/multiclass/" + name).toURI());
  }

  /** sodm predict --text's file for the imported model. */
  private List<String> sodm(Path libsvmModel, Path test, String name) throws Exception {
    return sodm(libsvmModel, null, test, name);
  }

  /** The same with an svm-scale range file imported with the model ({@code range} may be null). */
  private List<String> sodm(Path libsvmModel, Path range, Path test, String name) throws Exception {
    Path dir = tmp.resolve(name);
    List<String> args = new java.util.ArrayList<>(List.of("import-libsvm", "-D", "fs.defaultFS=file:///", libsvmModel.toString(), "-o",
        dir.toString()));
    if (range != null) args.addAll(List.of("--range", range.toString()));
    String[] r = SodmMainTest.run(args.toArray(new String[0]));
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("sodm import-libsvm: ") && r[1].contains(dir.resolve("model.avro").toString()), r[1]);
    Configuration conf = LocalConf.create(tmp);
    conf.setBoolean(SodmConf.PREDICT_TEXT, true);
    PredictJob.run(conf, new org.apache.hadoop.fs.Path(dir.resolve("model.avro").toString()), List.of(test.toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve(name + "-pred").toString()));
    return Files.readAllLines(tmp.resolve(name + "-pred").resolve("predictions.txt"));
  }

  @Test
  void svmTrainModelsPredictAsSvmPredict() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(LibsvmTools.installed(), "LIBSVM's tools are not installed");
    Path train = resource("blobs4.libsvm");
    Path test = resource("blobs4.t.libsvm");
    // without probabilities: the same file
    Path plain = tmp.resolve("plain.model");
    LibsvmTools.run(null, "svm-train", "-q", "-c", "4", "-g", "1", train.toString(), plain.toString());
    Path theirs = tmp.resolve("plain.out");
    LibsvmTools.run(null, "svm-predict", test.toString(), plain.toString(), theirs.toString());
    assertEquals(Files.readAllLines(theirs), sodm(plain, test, "plain"));
    // trained on svm-scale'd rows: with the range file, sodm scores the raw test rows as svm-predict the scaled ones
    Path range = tmp.resolve("range");
    Path trainScaled = tmp.resolve("train.scaled");
    LibsvmTools.run(trainScaled, "svm-scale", "-l", "-1", "-u", "1", "-s", range.toString(), train.toString());
    Path testScaled = tmp.resolve("test.scaled");
    LibsvmTools.run(testScaled, "svm-scale", "-r", range.toString(), test.toString());
    Path scaledModel = tmp.resolve("scaled.model");
    LibsvmTools.run(null, "svm-train", "-q", "-c", "4", "-g", "1", trainScaled.toString(), scaledModel.toString());
    Path scaledOut = tmp.resolve("scaled.out");
    LibsvmTools.run(null, "svm-predict", testScaled.toString(), scaledModel.toString(), scaledOut.toString());
    assertEquals(Files.readAllLines(scaledOut), sodm(scaledModel, range, test, "scaled"));
    // with probabilities, 4 classes and 2: the same file (the imported model couples as svm-predict: LIBSVM's label order
    // and its stop, max_t |(Qp)_t - p'Qp| < 0.005 / k; a model sodm trains couples to 1e-12)
    Path two = tmp.resolve("two.libsvm");
    Files.write(two, Files.readAllLines(train).stream().filter(l -> l.startsWith("1 ") || l.startsWith("4 ")).toList());
    Path twoTest = tmp.resolve("two.t.libsvm");
    Files.write(twoTest, Files.readAllLines(test).stream().filter(l -> l.startsWith("1 ") || l.startsWith("4 ")).toList());
    for (Path[] set : new Path[][] {{train, test}, {two, twoTest}}) {
      String name = set[0].getFileName().toString();
      Path model = tmp.resolve(name + ".b.model");
      LibsvmTools.run(null, "svm-train", "-q", "-b", "1", "-c", "4", "-g", "1", set[0].toString(), model.toString());
      Path out = tmp.resolve(name + ".b.out");
      LibsvmTools.run(null, "svm-predict", "-b", "1", set[1].toString(), model.toString(), out.toString());
      List<String> want = Files.readAllLines(out);
      List<String> got = sodm(model, set[1], name + "-b");
      assertEquals(want.size(), got.size());
      assertEquals(want.get(0), got.get(0), "the labels line");
      for (int i = 1; i < want.size(); i++) {
        String[] a = want.get(i).split(" ");
        String[] b = got.get(i).split(" ");
        assertEquals(a[0], b[0], name + " row " + i);
        for (int c = 1; c < a.length; c++) assertEquals(a[c], b[c], name + " row " + i);
      }
    }
  }

  /**
   * The other way: sodm's two-class --probability model exported (LIBSVM's -b 1 format, label order svm-train's) gives
   * svm-predict -b 1 sodm predict --text's file: the labels line, labels and probabilities (to 1e-6: the two sums' rounding).
   */
  @Test
  void sodmsTwoClassProbabilityModelExportsForSvmPredict() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(LibsvmTools.installed(), "LIBSVM's tools are not installed");
    Path two = tmp.resolve("two.libsvm");
    Files.write(two, Files.readAllLines(resource("blobs4.libsvm")).stream().filter(l -> l.startsWith("1 ") || l.startsWith("4 ")).toList());
    Path twoTest = tmp.resolve("two.t.libsvm");
    Files.write(twoTest, Files.readAllLines(resource("blobs4.t.libsvm")).stream().filter(l -> l.startsWith("1 ") || l.startsWith("4 ")).toList());
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "4");
    conf.set(SodmConf.GAMMA, "1");
    conf.setBoolean(org.sodm.jobs.spec.Param.PROBABILITY.key(), true);
    org.sodm.jobs.train.TrainPipeline.Result r = org.sodm.jobs.train.TrainPipeline.run(conf, new org.sodm.jobs.train.TrainPipeline.Request(
        List.of(two.toString()), null, new org.apache.hadoop.fs.Path(tmp.resolve("m").toString()), false), l -> {});
    Path lib = tmp.resolve("m.libsvm");
    String[] e = SodmMainTest.run("export-libsvm", "-D", "fs.defaultFS=file:///", r.modelPath().toString(), "-o", lib.toString());
    assertEquals("0", e[0], e[2]);
    Path out = tmp.resolve("svm-predict.out");
    LibsvmTools.run(null, "svm-predict", "-b", "1", twoTest.toString(), lib.toString(), out.toString());
    List<String> want = Files.readAllLines(out);
    conf.setBoolean(SodmConf.PREDICT_TEXT, true);
    PredictJob.run(conf, r.modelPath(), List.of(twoTest.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("p").toString()));
    List<String> got = Files.readAllLines(tmp.resolve("p").resolve("predictions.txt"));
    assertEquals("labels 1 4", got.get(0), "svm-train's label order: the training file's first label first");
    assertEquals(want.get(0), got.get(0));
    assertEquals(want.size(), got.size());
    for (int i = 1; i < want.size(); i++) {
      String[] a = want.get(i).split(" ");
      String[] b = got.get(i).split(" ");
      assertEquals(a[0], b[0], "row " + i);
      for (int c = 1; c < a.length; c++) assertEquals(Double.parseDouble(a[c]), Double.parseDouble(b[c]), 1e-6, "row " + i);
    }
  }

  /** An imported model says where it came from, that its loss is not recorded, and that prediction uses every feature. */
  @Test
  void inspectSaysTheModelWasImported() throws Exception {
    Path file = tmp.resolve("hand.model");
    Files.writeString(file, "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.25\nlabel 1 -1\nnr_sv 1 1\nSV\n"
        + "1.5 1:0.2 2:0.4\n-1.5 1:0.9\n");
    Path dir = tmp.resolve("hand");
    String[] r = SodmMainTest.run("import-libsvm", "-D", "fs.defaultFS=file:///", file.toString(), "-o", dir.toString());
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("(2 classes, 2 support vectors)"), r[1]);
    r = SodmMainTest.run("inspect", "-D", "fs.defaultFS=file:///", dir.toString());
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("loss       not recorded: imported from the LIBSVM model file:" + file) && r[1].contains("imported   ")
        && r[1].contains("features   not recorded: prediction uses every feature of a row")
        && r[1].contains("labels     -1 -> -1, 1 -> +1"), r[1]);
    r = SodmMainTest.run("import-libsvm", "-D", "fs.defaultFS=file:///", file.toString(), "-o", dir.toString());
    assertNotEquals("0", r[0]);
    assertTrue(r[2].contains("already exists"), r[2]);
  }

  @Test
  void aFileThatIsNoModelFailsByNameAndWritesNothing() throws Exception {
    Path data = resource("blobs4.libsvm");
    Path out = tmp.resolve("out");
    String[] r = SodmMainTest.run("import-libsvm", "-D", "fs.defaultFS=file:///", data.toString(), "-o", out.toString());
    assertNotEquals("0", r[0]);
    assertTrue(r[2].contains("import-libsvm: file:" + data + ": no 'SV' line"), r[2]);
    assertFalse(Files.exists(out));
    try (var s = Files.list(tmp)) {
      assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith(".out")), "no temporary directory left");
    }
  }
}
