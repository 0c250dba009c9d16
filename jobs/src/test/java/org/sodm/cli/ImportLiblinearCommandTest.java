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
 * sodm import-liblinear: liblinear-train's model files (SVM, Crammer-Singer and logistic regression; two and four classes;
 * with and without -B) scored by sodm predict --text give liblinear-predict's output file byte for byte (with -b 1 for
 * logistic regression); export-liblinear gives the file back; a file that is no LIBLINEAR classifier fails naming it and
 * writes nothing.
 */
class ImportLiblinearCommandTest {
  @TempDir Path tmp;

  private static Path resource(String name) throws Exception {
    return Path.of(ImportLiblinearCommandTest.class.getResource("/multiclass/" + name).toURI());
  }

  private static boolean installed() {
    return Files.isExecutable(Path.of("/usr/bin/liblinear-train")) && Files.isExecutable(Path.of("/usr/bin/liblinear-predict"));
  }

  /** sodm predict --text's file for the imported model, and the import's summary line. */
  private List<String> sodm(Path model, Path test, String name, String says) throws Exception {
    Path dir = tmp.resolve(name);
    String[] r = SodmMainTest.run("import-liblinear", "-D", "fs.defaultFS=file:///", model.toString(), "-o", dir.toString());
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("sodm import-liblinear: ") && r[1].contains(says) && r[1].contains(dir.resolve("model.avro").toString()), r[1]);
    Configuration conf = LocalConf.create(tmp);
    conf.setBoolean(SodmConf.PREDICT_TEXT, true);
    PredictJob.run(conf, new org.apache.hadoop.fs.Path(dir.resolve("model.avro").toString()), List.of(test.toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve(name + "-pred").toString()));
    return Files.readAllLines(tmp.resolve(name + "-pred").resolve("predictions.txt"));
  }

  private List<String> liblinear(Path train, Path test, String name, String... options) throws Exception {
    Path model = tmp.resolve(name + ".model");
    List<String> cmd = new java.util.ArrayList<>(List.of("liblinear-train", "-q"));
    cmd.addAll(List.of(options));
    cmd.addAll(List.of(train.toString(), model.toString()));
    LibsvmTools.run(null, cmd.toArray(new String[0]));
    boolean logistic = List.of(options).contains("0") || List.of(options).contains("6") || List.of(options).contains("7");
    Path out = tmp.resolve(name + ".out");
    LibsvmTools.run(null, "liblinear-predict", "-b", logistic ? "1" : "0", test.toString(), model.toString(), out.toString());
    return Files.readAllLines(out);
  }

  @Test
  void liblinearTrainModelsPredictAsLiblinearPredict() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(installed(), "LIBLINEAR's tools are not installed");
    Path train = resource("blobs4.libsvm");
    Path test = resource("blobs4.t.libsvm");
    String[][] runs = {{"-s", "1"}, {"-s", "3", "-B", "1"}, {"-s", "4"}, {"-s", "0", "-B", "1"}, {"-s", "7"}};
    for (String[] opts : runs) {
      String name = "four" + String.join("", opts).replace("-", "_");
      List<String> theirs = liblinear(train, test, name, opts);
      boolean logistic = opts[1].equals("0") || opts[1].equals("7");
      assertEquals(logistic, theirs.get(0).startsWith("labels "), "the precondition: -b 1's file for logistic regression");
      assertEquals(theirs, sodm(tmp.resolve(name + ".model"), test, name, "4 classes, one-vs-rest"), String.join(" ", opts));
    }
    // two classes: the first four classes' rows relabelled 1 / -1 by class parity (LIBLINEAR's label order: first appearance)
    Path two = tmp.resolve("two.libsvm");
    Path twoTest = tmp.resolve("two.t.libsvm");
    for (Path[] p : new Path[][] {{train, two}, {test, twoTest}}) {
      StringBuilder b = new StringBuilder();
      for (String l : Files.readAllLines(p[0])) b.append(Integer.parseInt(l.split(" ")[0]) % 2 == 0 ? "1" : "-1").append(l.substring(l.indexOf(' '))).append('\n');
      Files.writeString(p[1], b.toString());
    }
    for (String[] opts : new String[][] {{"-s", "2"}, {"-s", "4", "-B", "1"}, {"-s", "0", "-B", "1"}, {"-s", "6"}}) {
      String name = "two" + String.join("", opts).replace("-", "_");
      List<String> theirs = liblinear(two, twoTest, name, opts);
      assertEquals(theirs, sodm(tmp.resolve(name + ".model"), twoTest, name, "2 classes, "), String.join(" ", opts));
    }
    // export-liblinear writes the imported model back: liblinear-predict prints the same file with it
    Path back = tmp.resolve("back.model");
    String[] ex = SodmMainTest.run("export-liblinear", "-D", "fs.defaultFS=file:///", tmp.resolve("four_s3_B1").toString(), "-o", back.toString());
    assertEquals("0", ex[0], ex[2]);
    LibsvmTools.run(null, "liblinear-predict", test.toString(), back.toString(), tmp.resolve("back.out").toString());
    assertEquals(Files.readAllLines(tmp.resolve("four_s3_B1.out")), Files.readAllLines(tmp.resolve("back.out")));
    // and a logistic-regression model goes back as L2R_LR: liblinear-predict -b 1 prints the same probabilities
    Path lrBack = tmp.resolve("lr-back.model");
    ex = SodmMainTest.run("export-liblinear", "-D", "fs.defaultFS=file:///", tmp.resolve("four_s0_B1").toString(), "-o", lrBack.toString());
    assertEquals("0", ex[0], ex[2]);
    assertFalse(ex[1].contains("left out"), ex[1]);
    assertEquals("solver_type L2R_LR", Files.readAllLines(lrBack).get(0));
    LibsvmTools.run(null, "liblinear-predict", "-b", "1", test.toString(), lrBack.toString(), tmp.resolve("lr-back.out").toString());
    List<String> original = Files.readAllLines(tmp.resolve("four_s0_B1.out"));
    List<String> again = Files.readAllLines(tmp.resolve("lr-back.out"));
    assertEquals(original.size(), again.size());
    for (int i = 0; i < original.size(); i++) { // the weights are written with 17 digits: probabilities to the printed 6
      String[] a = original.get(i).split(" ");
      String[] b = again.get(i).split(" ");
      assertEquals(a[0], b[0], "row " + i);
      for (int c = 1; c < a.length; c++) assertEquals(Double.parseDouble(a[c]), Double.parseDouble(b[c]), 1.5e-6, "row " + i);
    }
  }

  @Test
  void aFileThatIsNoLiblinearClassifierFailsNamingItAndWritesNothing() throws Exception {
    Path svr = tmp.resolve("svr.model");
    Files.writeString(svr, "solver_type L2R_L2LOSS_SVR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n0.5 \n");
    String[] r = SodmMainTest.run("import-liblinear", "-D", "fs.defaultFS=file:///", svr.toString(), "-o", tmp.resolve("svr").toString());
    assertEquals("1", r[0]);
    assertTrue(r[2].contains("import-liblinear: file:" + svr + ": solver_type L2R_L2LOSS_SVR is not a classifier sodm can score"), r[2]);
    assertFalse(Files.exists(tmp.resolve("svr")));
    Path libsvm = tmp.resolve("libsvm.model");
    Files.writeString(libsvm, "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 -1\nnr_sv 0 0\nSV\n");
    r = SodmMainTest.run("import-liblinear", "-D", "fs.defaultFS=file:///", libsvm.toString(), "-o", tmp.resolve("lib").toString());
    assertEquals("1", r[0]);
    assertTrue(r[2].contains("no 'w' line (is this a LIBLINEAR model file?)"), r[2]);
    assertFalse(Files.exists(tmp.resolve("lib")));
  }
}
