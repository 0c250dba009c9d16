package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmReader;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.Model;
import org.sodm.model.MulticlassModel;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * --class-weights (LIBSVM's -wi): two classes as --weight-positive / --weight-negative; more classes one-vs-one, each class
 * pair's task the binary problem of its two classes with their weights (checked against that binary problem trained on its
 * own, and against svm-train -wi where installed); one-vs-rest (kernel and linear), each class against the rest with the
 * class's weight and 1 for the rest (LIBLINEAR's rule); the methods without per-task weights refused by name.
 */
class ClassWeightsTest {
  @TempDir Path tmp;
  private Configuration conf;

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "4");
    conf.set(SodmConf.GAMMA, "1");
  }

  private Model train(String out, Path data, String... kv) throws IOException {
    Configuration c = new Configuration(conf);
    for (int i = 0; i < kv.length; i += 2) c.set(kv[i], kv[i + 1]);
    return TrainPipeline.run(c, new TrainPipeline.Request(List.of(data.toString()), null, new org.apache.hadoop.fs.Path(tmp.resolve(out)
        .toString()), false), l -> {}).model();
  }

  @Test
  void parseNamesTheBadEntry() {
    assertEquals(Map.of("3", 5.0, "1", 0.5), ClassWeights.parse(" 3:5, 1:0.5"));
    assertEquals(List.of("3", "1"), List.copyOf(ClassWeights.parse("3:5,1:0.5").keySet()), "in the order given");
    assertEquals(Map.of("a:b", 2.0), ClassWeights.parse("a:b:2"), "the last colon separates the weight");
    assertTrue(ClassWeights.parse("").isEmpty());
    String[][] bad = {{"3", "is not LABEL:WEIGHT"}, {"3:", "is not LABEL:WEIGHT"}, {":2", "is not LABEL:WEIGHT"},
      {"3:x", "the weight of '3' is not a number"}, {"3:0", "must be > 0"}, {"3:-1", "must be > 0"}, {"3:Infinity", "finite"},
      {"3:2,3:4", "class '3' is given twice"}, {"3:2,", "is not LABEL:WEIGHT"}};
    for (String[] b : bad) {
      BadParameterException e = assertThrows(BadParameterException.class, () -> ClassWeights.parse(b[0]), b[0]);
      assertTrue(e.getMessage().startsWith("bad parameter --class-weights (sodm.train.class.weights)") && e.getMessage().contains(b[1]),
          e.getMessage());
    }
  }

  /** Two classes: the weights of the +1 (the larger label) and -1 labels, the same model as --weight-positive / --weight-negative. */
  @Test
  void twoClassesAreTheirPositiveAndNegativeWeights() throws Exception {
    Path data = LocalConf.sampleData("svmguide1");
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    Model byLabel = train("by-label", data, Param.CLASS_WEIGHTS.key(), "1:3,0:0.5");
    Model bySign = train("by-sign", data, SodmConf.WEIGHT_POSITIVE, "3", SodmConf.WEIGHT_NEGATIVE, "0.5");
    Model none = train("none", data);
    var test = LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
    int moved = 0;
    for (int i = 0; i < test.size(); i++) {
      assertEquals(bySign.decision(test.x()[i]), byLabel.decision(test.x()[i]), 0.0, "row " + (i + 1));
      if (!none.predict(test.x()[i]).equals(byLabel.predict(test.x()[i]))) moved++;
    }
    assertTrue(moved > 0, "the weights change some predictions");
    // the automatic tree's C B test counts the weight once (C = 8, weight 4, 7 blocks of m rows: 224 > 32, larger blocks)
    Configuration c = new Configuration(conf);
    c.set(SodmConf.C, "8");
    Configuration signs = new Configuration(c);
    signs.set(SodmConf.WEIGHT_POSITIVE, "4");
    c.set(Param.CLASS_WEIGHTS.key(), "1:4");
    org.sodm.jobs.spec.TrainSpec mapped = ClassWeights.apply(new Configuration(c), org.sodm.jobs.spec.TrainSpec.from(c), List.of("0", "1"));
    assertEquals(org.sodm.jobs.spec.TrainSpec.from(signs).loss(), mapped.loss());
    assertEquals(org.sodm.jobs.spec.TrainSpec.from(signs).tree().shape(49_990), mapped.tree().shape(49_990));
    assertEquals(org.sodm.jobs.spec.TrainSpec.from(signs).tree().smallBlocksC(49_990), mapped.tree().smallBlocksC(49_990), 0.0);
    BadParameterException e = assertThrows(BadParameterException.class, () -> train("both", data, Param.CLASS_WEIGHTS.key(), "1:3",
        SodmConf.WEIGHT_POSITIVE, "3"));
    assertTrue(e.getMessage().contains("either per class or with --weight-positive / --weight-negative, not both"), e.getMessage());
  }

  /**
   * Four classes, one-vs-one: each class pair's task is the binary problem of its two classes' rows weighted by their weights
   * (trained by itself: its decision values on the test rows equal the task's to 1e-9), and with svm-train installed the
   * predictions are svm-train -w2 5 -w3 0.5's.
   */
  @Test
  void eachPairIsItsTwoClassesWeightedAsLibsvmWeighsThem() throws Exception {
    Path data = MulticlassTrainTest.resource("blobs4.libsvm");
    Path testFile = MulticlassTrainTest.resource("blobs4.t.libsvm");
    MulticlassModel m = (MulticlassModel) train("multi", data, Param.CLASS_WEIGHTS.key(), "2:5,3:0.5");
    MulticlassModel plain = (MulticlassModel) train("plain", data);
    assertEquals(List.of("1", "2", "3", "4"), m.classes());
    double[] w = {1, 5, 0.5, 1};
    List<String> lines = Files.readAllLines(data);
    var test = LibsvmReader.read(testFile);
    int task = 0;
    boolean changed = false;
    for (int i = 0; i < 4; i++) {
      for (int j = i + 1; j < 4; j++, task++) {
        String a = m.classes().get(i);
        String b = m.classes().get(j);
        Path pair = tmp.resolve("pair-" + a + "-" + b + ".libsvm");
        List<String> rows = new ArrayList<>();
        for (String l : lines) if (l.startsWith(a + " ") || l.startsWith(b + " ")) rows.add(l);
        Files.write(pair, rows);
        Model binary = train("binary-" + a + "-" + b, pair, SodmConf.WEIGHT_POSITIVE, Double.toString(w[j]), SodmConf.WEIGHT_NEGATIVE,
            Double.toString(w[i]));
        for (int r = 0; r < test.size(); r++) {
          double f = m.decisionValues(m.prepare(test.x()[r]))[task];
          double g = binary.decision(test.x()[r]);
          assertEquals(g, f, 1e-9 * Math.max(1, Math.abs(g)), "task " + a + " vs " + b + ", test row " + (r + 1));
          changed |= Math.abs(f - plain.decisionValues(plain.prepare(test.x()[r]))[task]) > 1e-6;
        }
      }
    }
    assertTrue(changed, "the weights change the tasks' decision values");
    if (!LibsvmTools.installed()) return;
    List<String> theirs = LibsvmTools.trainAndPredict(data, testFile, tmp, "-c", "4", "-g", "1", "-w2", "5", "-w3", "0.5");
    int differ = 0;
    for (int r = 0; r < test.size(); r++) if (!m.predict(test.x()[r]).equals(theirs.get(r))) differ++;
    assertTrue(differ <= 1, differ + " of " + test.size() + " test rows predicted otherwise than svm-train -w2 5 -w3 0.5");
  }

  /**
   * One against the rest, LIBLINEAR's rule: task c is the binary problem of class c (weight w_c) against every other row
   * (weight 1), trained by itself on the same rows relabelled (the same row ids, so the same blocks): its decision values
   * on the test rows equal the task's. The kernel tree, BQO (hinge: tasks solved in one resident run, and one after
   * another) and DSVRG (ODM).
   */
  @Test
  void oneAgainstTheRestWeighsTheClassAndNotTheRest() throws Exception {
    Path data = MulticlassTrainTest.resource("blobs4.libsvm");
    var test = LibsvmReader.read(MulticlassTrainTest.resource("blobs4.t.libsvm"));
    List<String> lines = Files.readAllLines(data);
    double[] w = {1, 5, 0.5, 1};
    String[][] runs = {
      {"kernel", Param.MULTICLASS.key(), "ovr"},
      {"bqo", SodmConf.KERNEL, "linear"},
      {"bqo-apart", SodmConf.KERNEL, "linear", org.sodm.jobs.linear.LinearTrainer.TASKS_TOGETHER, "false"},
      {"dsvrg", SodmConf.KERNEL, "linear", SodmConf.LOSS, "odm"},
    };
    for (String[] run : runs) {
      String[] kv = java.util.Arrays.copyOfRange(run, 1, run.length);
      List<String> weighted = new ArrayList<>(List.of(kv));
      weighted.addAll(List.of(Param.CLASS_WEIGHTS.key(), "2:5,3:0.5"));
      MulticlassModel m = (MulticlassModel) train(run[0], data, weighted.toArray(String[]::new));
      MulticlassModel plain = (MulticlassModel) train(run[0] + "-plain", data, kv);
      assertEquals(4, m.decisionValues(m.prepare(test.x()[0])).length, run[0] + ": one task per class");
      boolean changed = false;
      for (int c = 0; c < 4; c++) {
        String label = m.classes().get(c);
        List<String> rows = new ArrayList<>();
        for (String l : lines) rows.add((l.startsWith(label + " ") ? "1" : "0") + l.substring(l.indexOf(' ')));
        Path one = tmp.resolve(run[0] + "-rest-" + label + ".libsvm");
        Files.write(one, rows);
        List<String> binaryKv = new ArrayList<>(List.of(kv));
        binaryKv.addAll(List.of(SodmConf.WEIGHT_POSITIVE, Double.toString(w[c]), Param.MULTICLASS.key(), "ovo"));
        Model binary = train(run[0] + "-binary-" + label, one, binaryKv.toArray(String[]::new));
        for (int r = 0; r < test.size(); r++) {
          double f = m.decisionValues(m.prepare(test.x()[r]))[c];
          double g = binary.decision(test.x()[r]);
          assertEquals(g, f, 1e-9 * Math.max(1, Math.abs(g)), run[0] + ": class " + label + " against the rest, test row " + (r + 1));
          changed |= Math.abs(f - plain.decisionValues(plain.prepare(test.x()[r]))[c]) > 1e-6;
        }
      }
      assertTrue(changed, run[0] + ": the weights change the tasks' decision values");
    }
  }

  /**
   * --kernel linear with per-class weights reaches LIBLINEAR's weighted one-vs-rest optimum: for each class, the primal
   * 0.5 ||w||^2 + sum_i C_i max(0, 1 - y_i w.x_i) (C_i = w_c on the class's rows, 1 on the rest, as liblinear-train -wi
   * weighs them) of sodm's task equals that of liblinear-train -s 3 -e 1e-6's (read from its model file) within 1e-3
   * relative, and is above the unweighted task's optimum's value under the weights (the weights are applied). Skipped
   * without liblinear-train.
   */
  @Test
  void linearTasksReachLiblinearsWeightedOptimum() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/liblinear-train")), "liblinear-train is not installed");
    Path data = MulticlassTrainTest.resource("blobs4.libsvm");
    MulticlassModel m = (MulticlassModel) train("lin-weighted", data, SodmConf.KERNEL, "linear", SodmConf.C, "1", Param.LINEAR_EPS.key(), "1e-6",
        Param.CLASS_WEIGHTS.key(), "2:5,3:0.5");
    MulticlassModel plain = (MulticlassModel) train("lin-plain", data, SodmConf.KERNEL, "linear", SodmConf.C, "1", Param.LINEAR_EPS.key(), "1e-6");
    Path model = tmp.resolve("ll.model");
    LibsvmTools.run(null, "liblinear-train", "-q", "-s", "3", "-c", "1", "-e", "1e-6", "-w2", "5", "-w3", "0.5", data.toString(), model.toString());
    List<String> ll = Files.readAllLines(model);
    List<String> llLabels = List.of(ll.get(2).substring("label ".length()).trim().split(" "));
    int wAt = ll.indexOf("w");
    var d = LibsvmReader.read(data);
    java.util.Map<String, Double> weight = Map.of("2", 5.0, "3", 0.5);
    for (int c = 0; c < 4; c++) {
      String label = m.classes().get(c);
      double[] theirs = new double[4];
      for (int f = 0; f < 4; f++) theirs[f] = Double.parseDouble(ll.get(wAt + 1 + f).trim().split(" ")[llLabels.indexOf(label)]);
      Model ours = m.subModel(c);
      double[] w = ((org.sodm.model.LinearModel) ours).w();
      double[] w0 = ((org.sodm.model.LinearModel) plain.subModel(c)).w();
      double pOurs = 0;
      double pTheirs = 0;
      double pPlain = 0;
      for (int f = 0; f < 4; f++) {
        pOurs += 0.5 * w[f] * w[f];
        pTheirs += 0.5 * theirs[f] * theirs[f];
        pPlain += 0.5 * w0[f] * w0[f];
      }
      for (int i = 0; i < d.size(); i++) {
        boolean pos = d.labels()[i].equals(label);
        double y = pos ? 1 : -1;
        double ci = pos ? weight.getOrDefault(label, 1.0) : 1;
        double[] x = new double[4];
        for (int k = 0; k < d.x()[i].nnz(); k++) x[d.x()[i].indices()[k] - 1] = d.x()[i].values()[k];
        double ft = 0;
        double f0 = 0;
        for (int f = 0; f < 4; f++) {
          ft += theirs[f] * x[f];
          f0 += w0[f] * x[f];
        }
        pOurs += ci * Math.max(0, 1 - y * ours.decision(d.x()[i]));
        pTheirs += ci * Math.max(0, 1 - y * ft);
        pPlain += ci * Math.max(0, 1 - y * f0);
      }
      assertEquals(pTheirs, pOurs, 1e-3 * pTheirs, "class " + label + " against the rest: the weighted primal");
      if (weight.containsKey(label)) assertTrue(pPlain > pTheirs * (1 + 1e-3), "class " + label + ": the unweighted w is not the weighted optimum");
    }
  }

  /** More than two classes: a label the data lacks, both kinds of weights, and nu are refused by name. */
  @Test
  void whatCannotWeighTasksIsRefused() {
    Path data = MulticlassTrainTest.resource("blobs4.libsvm");
    String[][] cases = {
      {"label", "class '7' is not a label of the training data (its labels: 1, 2, 3, 4)", Param.CLASS_WEIGHTS.key(), "7:2"},
      {"both", "per-class weights: --class-weights LABEL:W", SodmConf.WEIGHT_NEGATIVE, "2"},
      {"nu", "--loss nu takes no class weights", SodmConf.LOSS, "nu"},
    };
    for (String[] c : cases) {
      BadParameterException e = assertThrows(BadParameterException.class, () -> train(c[0], data, Param.CLASS_WEIGHTS.key(), "2:5",
          c[2], c[3]), c[0]);
      assertTrue(e.getMessage().contains("--class-weights") && e.getMessage().contains(c[1]), e.getMessage());
      assertFalse(Files.exists(tmp.resolve(c[0]).resolve("model.avro")));
      if (c[0].equals("nu")) assertFalse(Files.exists(tmp.resolve(c[0])), "refused before the ingest: nothing written");
    }
  }
}
