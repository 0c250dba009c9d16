package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockModel;
import org.sodm.avro.LevelStats;
import org.sodm.avro.ModelRecord;
import org.sodm.data.LibsvmReader;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelModel;
import org.sodm.model.LibsvmExport;
import org.sodm.model.Model;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.Loss;
import org.sodm.solver.SolverOptions;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * Issue 18: the training options no other test exercised, each through a real {@link TrainPipeline#run} in Hadoop local
 * mode on svmguide1 (scaled to [0,1], hinge, C = 1, gamma = 2 unless said otherwise), each checked against something
 * outside the pipeline: LIBSVM's svm-predict / svm-train (those parts skip when LIBSVM is not installed), an in-process
 * {@link KernelDualSolver} solve of the whole problem, or the plain input file.
 */
class PipelineOptionsTest {
  @TempDir Path tmp;
  private final List<String> progress = new ArrayList<>();
  private static final Map<String, Double> REFERENCES = new HashMap<>();

  private Configuration conf() {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(Param.OFFSET.key(), "false"); // the references are the box-constrained dual without LIBSVM's offset (KernelDualSolver)
    return conf;
  }

  private TrainPipeline.Result train(Configuration conf, String out) throws IOException {
    return train(conf, out, LocalConf.sampleData("svmguide1"));
  }

  private TrainPipeline.Result train(Configuration conf, String out, Path input) throws IOException {
    progress.clear();
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(input.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), progress::add);
  }

  private String log() {
    return String.join("\n", progress);
  }

  /**
   * The whole svmguide1 problem (scaled to [0,1] with the training ranges, as ingest does) solved in this process
   * (eps 1e-7): the minimised dual objective.
   */
  private static synchronized double reference(KernelSpec k, Loss loss) throws IOException {
    String key = k + " " + loss;
    Double r = REFERENCES.get(key);
    if (r == null) {
      LibsvmReader.Data d = LibsvmReader.read(LocalConf.sampleData("svmguide1"));
      StatsAccumulator acc = new StatsAccumulator();
      for (int i = 0; i < d.size(); i++) acc.add(d.labels()[i], d.x()[i], i + 1, "x");
      LibsvmReader.Data s = d.scaled(Scaler.fromStats(acc.toAvro(), 0, 1));
      r = new KernelDualSolver(k.create(), new SolverOptions(1e-7, 1_000_000, true, 64L << 20, 7))
          .solve(s.x(), s.y(), loss, null).report().dualObjective();
      REFERENCES.put(key, r);
    }
    return r;
  }

  private static double relative(double a, double ref) {
    return Math.abs(a - ref) / Math.abs(ref);
  }

  private static LevelStats last(TrainPipeline.Result r) {
    return r.levels().get(r.levels().size() - 1);
  }

  private static LibsvmReader.Data testSet() throws IOException {
    return LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
  }

  private static List<String> predictions(Model m, LibsvmReader.Data test) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < test.size(); i++) out.add(m.predict(test.x()[i]));
    return out;
  }

  private static double accuracy(List<String> predicted, LibsvmReader.Data test) {
    int ok = 0;
    for (int i = 0; i < test.size(); i++) if (Double.parseDouble(predicted.get(i)) == Double.parseDouble(test.labels()[i])) ok++;
    return (double) ok / test.size();
  }

  /** Recall of label 1: sodm's +1 class (LabelMap: the larger of svmguide1's labels 0 and 1), LIBSVM's -w1. */
  private static double recallOfOne(List<String> predicted, LibsvmReader.Data test) {
    int pos = 0;
    int hit = 0;
    for (int i = 0; i < test.size(); i++) {
      if (Double.parseDouble(test.labels()[i]) != 1) continue;
      pos++;
      if (Double.parseDouble(predicted.get(i)) == 1) hit++;
    }
    return (double) hit / pos;
  }

  private static double meanBias(KernelModel m) {
    double b = 0;
    for (int k = 0; k < m.blockCount(); k++) b += m.block(k).bias() / m.blockCount();
    return b;
  }

  /** The test rows as the model scores them (its own scaler, full precision), in LIBSVM format, for svm-predict. */
  private Path preparedTest(Model m, LibsvmReader.Data test, String name) throws IOException {
    Path f = tmp.resolve(name);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < test.size(); i++) {
      SparseVector x = m.prepare(test.x()[i]);
      b.append(test.labels()[i]);
      for (int t = 0; t < x.nnz(); t++) {
        b.append(' ').append(x.index(t)).append(':').append(String.format(Locale.ROOT, "%.17g", x.value(t)));
      }
      b.append('\n');
    }
    Files.writeString(f, b);
    return f;
  }

  private Path export(Model m, String name) throws IOException {
    Path lib = tmp.resolve(name);
    try (var w = Files.newBufferedWriter(lib)) {
      LibsvmExport.write(m, w);
    }
    return lib;
  }

  /** svm-scale -l 0 -u 1 of svmguide1, and of svmguide1.t with the training ranges: {train, test}. */
  private Path[] libsvmScaled() throws Exception {
    Path train = tmp.resolve("svmguide1.scaled");
    Path test = tmp.resolve("svmguide1.t.scaled");
    Path range = tmp.resolve("svmguide1.range");
    if (!Files.exists(test)) {
      LibsvmTools.run(train, "svm-scale", "-l", "0", "-u", "1", "-s", range.toString(), LocalConf.sampleData("svmguide1").toString());
      LibsvmTools.run(test, "svm-scale", "-r", range.toString(), LocalConf.sampleData("svmguide1.t").toString());
    }
    return new Path[] {train, test};
  }

  private static List<Object> coefficients(ModelRecord r) {
    List<Object> all = new ArrayList<>();
    for (BlockModel b : r.getBlocks()) {
      all.add(b.getIds());
      all.add(b.getCoef());
      all.add(b.getBias());
    }
    return all;
  }

  // 1 ---------------------------------------------------------------------------------------------------------------

  /**
   * --kernel poly (--degree 3, --coef0 1, -g 0.5) and --kernel sigmoid (-g 0.5, --coef0 -1, with --bias: see
   * {@link #sigmoidWithoutBiasIsAsAccurateAsLibsvm}): the model keeps the kernel as given; svm-predict on the model's
   * LIBSVM export gives sodm's label for every row of svmguide1.t (a kernel computed otherwise than LIBSVM's, a dropped
   * coef0 or degree, or a wrong export changes labels); and the test accuracy is within 1 point of svm-train's with the
   * same kernel and C (so the agreement is not that of two constant models). Measured: poly 95.93% (svm-train 95.925%),
   * sigmoid 94.38% (94.4%), every row agrees, no ties.
   */
  @Test
  void polyAndSigmoidKernelsPredictAsSvmPredictOnTheExport() throws Exception {
    LibsvmReader.Data test = testSet();
    boolean libsvm = LibsvmTools.installed();
    record Case(String kind, KernelSpec spec, boolean bias, String... libsvmArgs) {}
    List<Case> cases = List.of(
        new Case("poly", KernelSpec.poly(0.5, 1, 3), false, "-t", "1", "-d", "3", "-g", "0.5", "-r", "1", "-c", "1"),
        new Case("sigmoid", KernelSpec.sigmoid(0.5, -1), true, "-t", "3", "-g", "0.5", "-r", "-1", "-c", "1"));
    for (Case c : cases) {
      Configuration conf = conf();
      conf.set(SodmConf.KERNEL, c.kind());
      conf.set(SodmConf.GAMMA, Double.toString(c.spec().gamma()));
      conf.set(SodmConf.COEF0, Double.toString(c.spec().coef0()));
      if (c.kind().equals("poly")) conf.set(SodmConf.DEGREE, Integer.toString(c.spec().degree()));
      conf.set(SodmConf.BIAS, Boolean.toString(c.bias()));
      TrainPipeline.Result r = train(conf, c.kind());
      KernelModel m = assertInstanceOf(KernelModel.class, r.model());
      assertEquals(c.spec().type(), m.kernelSpec().type(), c.kind());
      assertEquals(c.spec().gamma(), m.kernelSpec().gamma(), 0.0, c.kind());
      assertEquals(c.spec().coef0(), m.kernelSpec().coef0(), 0.0, c.kind());
      if (c.kind().equals("poly")) assertEquals(3, m.kernelSpec().degree());
      List<String> ours = predictions(m, test);
      double acc = accuracy(ours, test);
      if (!libsvm) continue;
      double theirsAcc = LibsvmTools.trainAndTest(libsvmScaled()[0], libsvmScaled()[1], tmp, c.libsvmArgs());
      System.out.printf(Locale.ROOT, "%s: sodm %.4f, svm-train %.4f, %d SVs%n", c.kind(), acc, theirsAcc, m.supportVectors());
      assertTrue(Math.abs(acc - theirsAcc) <= 0.01, String.format(Locale.ROOT, "%s: sodm %.4f vs svm-train %.4f", c.kind(), acc, theirsAcc));

      List<String> theirs = LibsvmTools.predict(preparedTest(m, test, c.kind() + ".t"), export(m, c.kind() + ".model"), tmp);
      assertEquals(test.size(), theirs.size());
      int ties = 0;
      for (int i = 0; i < test.size(); i++) {
        double f = m.decision(test.x()[i]);
        if (Math.abs(f) < 1e-9) { // LIBSVM predicts the second label at f = 0, sodm the first
          ties++;
          continue;
        }
        assertEquals(Double.parseDouble(ours.get(i)), Double.parseDouble(theirs.get(i)), c.kind() + " row " + (i + 1) + ": f = " + f);
      }
      assertTrue(ties <= 5, c.kind() + ": " + ties + " exact ties");
    }
    Assumptions.assumeTrue(libsvm, "LIBSVM not installed: the svm-predict / svm-train comparisons were skipped");
  }

  /**
   * Bug (or undocumented limitation): sodm's dual without LIBSVM's equality constraint sum y_i alpha_i = 0 is unbounded
   * below within the box for a non-PSD kernel such as sigmoid, and the solver puts every row of one class at the bound.
   * Measured (svmguide1, C = 1): -g 0.5 --coef0 -1 gives 50.00% test accuracy (2,000 SVs, dual objective -1.0e6; the same
   * model for every row) where svm-train -t 3 -g 0.5 -r -1 -c 1 gives 94.40%; -g 0.5 --coef0 -0.5: 54.30% vs 93.83%;
   * -g 0.25 --coef0 -0.5: 50.00%. With --bias (k + 1) sodm gets 94.38%. With --offset (LIBSVM's equality-constrained
   * offset) sodm's model is svm-train's: 94.40%, which this test asserts; without it the run warns.
   */
  @Test
  void sigmoidWithOffsetIsAsAccurateAsLibsvm() throws Exception {
    Assumptions.assumeTrue(LibsvmTools.installed(), "LIBSVM not installed");
    Configuration conf = conf();
    conf.set(org.sodm.jobs.spec.Param.OFFSET.key(), "true"); // LIBSVM's model class: the fix of the collapse described above
    conf.set(SodmConf.KERNEL, "sigmoid");
    conf.set(SodmConf.GAMMA, "0.5");
    conf.set(SodmConf.COEF0, "-1");
    TrainPipeline.Result r = train(conf, "sigmoid-nobias");
    LibsvmReader.Data test = testSet();
    double acc = accuracy(predictions(r.model(), test), test);
    double theirs = LibsvmTools.trainAndTest(libsvmScaled()[0], libsvmScaled()[1], tmp, "-t", "3", "-g", "0.5", "-r", "-1", "-c", "1");
    assertEquals(theirs, acc, 0.002, String.format(Locale.ROOT, "sodm --offset %.4f vs svm-train %.4f", acc, theirs));
  }

  /**
   * The tree with a sigmoid kernel whose k(z,z) = tanh(0.1 |z|^2 - 1) is negative on every row of data in [0, 1]: the
   * landmarks' selection (a pivoted Cholesky of the kernel) had no positive diagonal and the run failed ("kernel has no
   * positive k(z,z)"); the strata are now the linear kernel's (the sigmoid's inner product) and the blocks solve the sigmoid
   * problem with LIBSVM's offset: within 0.3 point of svm-train -t 3 -g 0.1 -r -1 -c 2 (measured 91.05 / 91.275%).
   */
  @Test
  void aSigmoidKernelWithoutAPositiveDiagonalTrainsInTheTree() throws Exception {
    Configuration conf = conf();
    conf.set(Param.OFFSET.key(), "true");
    conf.set(SodmConf.KERNEL, "sigmoid");
    conf.set(SodmConf.GAMMA, "0.1");
    conf.set(SodmConf.COEF0, "-1");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    TrainPipeline.Result r = train(conf, "sigmoid-tree");
    assertTrue(progress.stream().anyMatch(l -> l.contains("kernel linear (sigmoid(gamma=0.1, coef0=-1.0) is not positive semi-definite")),
        String.join("\n", progress));
    KernelModel m = assertInstanceOf(KernelModel.class, r.model());
    assertEquals(4, m.blockCount());
    assertEquals(KernelSpec.Type.SIGMOID, m.kernelSpec().type(), "the model's kernel is the one given");
    assertEquals(0.1, m.kernelSpec().gamma(), 0.0);
    assertEquals(-1.0, m.kernelSpec().coef0(), 0.0);
    LibsvmReader.Data test = testSet();
    double acc = accuracy(predictions(m, test), test);
    assertTrue(acc > 0.85, "accuracy " + acc);
    Assumptions.assumeTrue(LibsvmTools.installed(), "LIBSVM not installed");
    double theirs = LibsvmTools.trainAndTest(libsvmScaled()[0], libsvmScaled()[1], tmp, "-t", "3", "-g", "0.1", "-r", "-1", "-c", "2");
    assertTrue(acc >= theirs - 0.003, String.format(Locale.ROOT, "sodm %.4f vs svm-train %.4f", acc, theirs));
  }

  /** Kernel k-means (DC-SVM's partitioner) with a kernel that is not positive semi-definite: refused before any work. */
  @Test
  void kernelKMeansRefusesAKernelThatIsNotPositiveSemiDefinite() {
    for (String[] k : new String[][] {{"sigmoid", "0"}, {"poly", "-1"}}) {
      Configuration conf = conf();
      conf.set(SodmConf.KERNEL, k[0]);
      conf.set(SodmConf.COEF0, k[1]);
      conf.set(Param.PARTITIONER.key(), "kmeans");
      org.sodm.jobs.spec.BadParameterException e = assertThrows(org.sodm.jobs.spec.BadParameterException.class, () -> train(conf, k[0]));
      assertTrue(e.getMessage().contains("--partitioner") && e.getMessage().contains("needs a positive semi-definite kernel"),
          e.getMessage());
      assertFalse(java.nio.file.Files.exists(tmp.resolve(k[0])), "nothing written");
    }
  }

  // 2 ---------------------------------------------------------------------------------------------------------------

  /**
   * --bias with the kernel tree (the default shape: 16 -> 4 blocks, then one exact block for these 3,089 rows): the
   * model's bias is the sum of its coefficients (k + 1) and non-zero (measured -1.198; 0 exactly without --bias), the
   * final objective is the in-process optimum of the k + 1 problem (measured 4e-8 relative; the k problem's optimum
   * differs by far more), and the test accuracy is within 1 point of svm-train -c 1 -g 2 (measured 96.50% both).
   */
  @Test
  void biasIsFittedAndAccuracyIsSvmTrains() throws Exception {
    Configuration conf = conf();
    conf.set(SodmConf.BIAS, "true");
    TrainPipeline.Result r = train(conf, "bias");
    KernelModel m = assertInstanceOf(KernelModel.class, r.model());
    assertTrue(m.loss().bias(), "the model's loss has the bias");
    double bias = meanBias(m);
    double sum = 0;
    for (int k = 0; k < m.blockCount(); k++) for (int i = 0; i < m.block(k).size(); i++) sum += m.block(k).coef(i) / m.blockCount();
    assertEquals(sum, bias, 1e-9 * Math.max(1, Math.abs(sum)), "the bias of k + 1 is the sum of the coefficients");
    assertTrue(Math.abs(bias) > 0.1, "bias " + bias);

    double ref = reference(KernelSpec.rbf(2), Loss.hinge(1).withBias(true));
    double noBias = reference(KernelSpec.rbf(2), Loss.hinge(1));
    double obj = last(r).getObjective();
    System.out.printf(Locale.ROOT, "bias %.6g; objective %.10g vs k+1 optimum %.10g (%.2e), k optimum %.10g%n", bias, obj, ref,
        relative(obj, ref), noBias);
    assertTrue(relative(noBias, ref) > 1e-3, "the bias must change the optimum for this check to mean anything");
    assertTrue(relative(obj, ref) <= 1e-4, obj + " vs " + ref);

    LibsvmReader.Data test = testSet();
    double acc = accuracy(predictions(m, test), test);
    Assumptions.assumeTrue(LibsvmTools.installed(), "LIBSVM not installed: the svm-train comparison was skipped");
    double theirs = LibsvmTools.trainAndTest(libsvmScaled()[0], libsvmScaled()[1], tmp, "-c", "1", "-g", "2");
    System.out.printf(Locale.ROOT, "bias: sodm %.4f, svm-train %.4f%n", acc, theirs);
    assertTrue(Math.abs(acc - theirs) <= 0.01, String.format(Locale.ROOT, "sodm %.4f vs svm-train %.4f", acc, theirs));
  }

  // 3 ---------------------------------------------------------------------------------------------------------------

  /**
   * --weight-positive 10 (sodm.train.weight.positive; +1 is label 1, the larger label, so LIBSVM's -w1 10): the final
   * objective is the in-process optimum of the weighted problem (C_i = 10 C for label 1), the recall of label 1 on
   * svmguide1.t rises (measured 96.35% -> 99.90%), and the labels agree with svm-train -c 1 -g 2 -w1 10 on >= 97% of the
   * rows (measured 99.90%).
   */
  @Test
  void positiveClassWeightRaisesItsRecallAsSvmTrainW1() throws Exception {
    LibsvmReader.Data test = testSet();
    TrainPipeline.Result plain = train(conf(), "w1");
    Configuration conf = conf();
    conf.set(SodmConf.WEIGHT_POSITIVE, "10");
    TrainPipeline.Result r = train(conf, "w10");
    KernelModel m = assertInstanceOf(KernelModel.class, r.model());
    assertEquals("1", m.labels().positive(), "label 1 is sodm's +1 class");
    assertEquals(10.0, ((Loss.Hinge) m.loss()).weights().positive(), 0.0);

    Loss weighted = Loss.hinge(1).withWeights(10, 1);
    double ref = reference(KernelSpec.rbf(2), weighted);
    double unweighted = reference(KernelSpec.rbf(2), Loss.hinge(1));
    double obj = last(r).getObjective();
    System.out.printf(Locale.ROOT, "weights: objective %.10g vs weighted optimum %.10g (%.2e), unweighted %.10g%n", obj, ref,
        relative(obj, ref), unweighted);
    assertTrue(relative(unweighted, ref) > 1e-3);
    assertTrue(relative(obj, ref) <= 1e-4, obj + " vs " + ref);

    List<String> p0 = predictions(plain.model(), test);
    List<String> p = predictions(m, test);
    double before = recallOfOne(p0, test);
    double after = recallOfOne(p, test);
    System.out.printf(Locale.ROOT, "weights: recall of label 1 %.4f -> %.4f, accuracy %.4f -> %.4f%n", before, after, accuracy(p0, test),
        accuracy(p, test));
    assertTrue(after >= before + 0.01, String.format(Locale.ROOT, "recall %.4f -> %.4f", before, after));

    Assumptions.assumeTrue(LibsvmTools.installed(), "LIBSVM not installed: the svm-train -w1 comparison was skipped");
    Path[] s = libsvmScaled();
    Path model = tmp.resolve("w.model");
    LibsvmTools.run(null, "svm-train", "-q", "-c", "1", "-g", "2", "-w1", "10", s[0].toString(), model.toString());
    List<String> theirs = LibsvmTools.predict(s[1], model, tmp);
    int agree = 0;
    for (int i = 0; i < test.size(); i++) if (Double.parseDouble(p.get(i)) == Double.parseDouble(theirs.get(i))) agree++;
    double rate = (double) agree / test.size();
    System.out.printf(Locale.ROOT, "weights: agreement with svm-train -w1 10 %.4f (its recall %.4f)%n", rate, recallOfOne(theirs, test));
    assertTrue(rate >= 0.97, "agreement " + rate);
  }

  // 4 ---------------------------------------------------------------------------------------------------------------

  /**
   * --loss squared-hinge (Param.LOSS: squared-hinge, also l2) in the default tree (ending in one exact block for these
   * 3,089 rows) and in exact mode by PBM (2 k-means blocks over the tree's 4, no refine): both final objectives are the
   * in-process squared-hinge optimum within 1e-4 relative (measured 2.3e-7 for the tree, 6.8e-6 for PBM after its 200
   * iterations, which start 2.5e-2 away; the hinge optimum is 3.3e-2 away). PBM does not reach its 1e-3 violation in
   * 200 iterations from alpha / 4 without refine (6.6e-3; the hinge loss alike: 1.0e-2), hence --allow-unconverged.
   */
  @Test
  @SuppressWarnings("unchecked")
  void squaredHingeReachesTheInProcessOptimumInTheTreeAndByPbm() throws Exception {
    double ref = reference(KernelSpec.rbf(2), Loss.squaredHinge(1));
    double hinge = reference(KernelSpec.rbf(2), Loss.hinge(1));
    assertTrue(relative(hinge, ref) > 1e-2, "hinge and squared hinge optima must differ for the check to mean anything");
    Configuration conf = conf();
    conf.set(SodmConf.LOSS, "squared-hinge");
    TrainPipeline.Result tree = train(conf, "sq-tree");
    assertEquals("squared-hinge", tree.model().loss().id());
    double treeObj = last(tree).getObjective();
    System.out.printf(Locale.ROOT, "squared hinge tree: %.10g vs %.10g (%.2e)%n", treeObj, ref, relative(treeObj, ref));
    assertTrue(relative(treeObj, ref) <= 1e-4, treeObj + " vs " + ref + "\n" + log());

    conf.set(SodmConf.EXACT, "true");
    conf.set(SodmConf.EXACT_SINGLE, "never");
    conf.set(SodmConf.EXACT_REFINE, "false");
    conf.set(Param.EXACT_BLOCKS.key(), "2");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(Param.EXACT_ALLOW_UNCONVERGED.key(), "true");
    TrainPipeline.Result pbm = train(conf, "sq-pbm");
    assertEquals("squared-hinge", pbm.model().loss().id());
    assertEquals(1, ((KernelModel) pbm.model()).blockCount());
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(
        tmp.resolve("sq-pbm").resolve(TrainPipeline.REPORT).toFile(), Map.class);
    Map<String, Object> exact = (Map<String, Object>) report.get("exact");
    assertEquals("pbm", exact.get("method"), log());
    double obj = ((Number) exact.get("objective")).doubleValue();
    assertEquals(obj, last(pbm).getObjective(), 0.0);
    double start = progress.stream().filter(l -> l.startsWith("exact pbm    iter   0")).findFirst()
        .map(l -> Double.parseDouble(l.replaceAll(".*obj +(\\S+).*", "$1"))).orElseThrow(() -> new AssertionError(log()));
    System.out.printf(Locale.ROOT, "squared hinge PBM: %.10g vs %.10g (%.2e; iteration 0 %.2e), %s%n", obj, ref, relative(obj, ref),
        relative(start, ref), exact);
    assertTrue(relative(start, ref) > 1e-3, "PBM starts away from the optimum");
    assertTrue(relative(obj, ref) <= 1e-4, obj + " vs " + ref + "\n" + log());
  }

  // 5 ---------------------------------------------------------------------------------------------------------------

  private Configuration earlyStopConf(String c) {
    Configuration conf = conf();
    conf.set(SodmConf.PARTITIONS, "8");
    conf.set(SodmConf.FANOUT, "2"); // levels 3, 2, 1: 8 -> 4 -> 2 blocks
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    conf.set(SodmConf.C, c);
    return conf;
  }

  /**
   * sodm.train.early.stop (--no-early-stop): with C = 1e-4 every row of the bottom blocks ends at its bound (Q alpha
   * stays far below 1), and the merged blocks start at the bound of their own C (C x B, alpha / 2): converged at the warm
   * start (violation 0), so the tree stops after level 2 with "early stop" (2 levels); with --no-early-stop all 3 levels
   * run (level 1 converged at its start as well) and the model is the same function. With C = 1 the merged blocks are
   * not converged at their start (violation about 0.5) and no early stop happens.
   */
  @Test
  void earlyStopEndsTheTreeWhenEveryMergedBlockStartsConverged() throws Exception {
    double eps = Double.parseDouble(Param.EPS.defaultValue());
    TrainPipeline.Result on = train(earlyStopConf("1e-4"), "es-on");
    String onLog = log();
    assertTrue(progress.stream().anyMatch(l -> l.contains("early stop")), onLog);
    assertEquals(List.of(3, 2), on.levels().stream().map(LevelStats::getLevel).toList(), onLog);
    assertEquals(3089, on.levels().get(0).getSupportVectors(), "every row at its bound at the bottom");
    assertTrue(on.levels().get(0).getMaxInitialViolation() > eps, "the bottom level had work to do");
    assertTrue(on.levels().get(1).getMaxInitialViolation() <= eps, onLog);
    assertEquals(4, ((KernelModel) on.model()).blockCount());

    Configuration conf = earlyStopConf("1e-4");
    conf.set(SodmConf.EARLY_STOP, "false");
    TrainPipeline.Result off = train(conf, "es-off");
    assertFalse(progress.stream().anyMatch(l -> l.contains("early stop")), log());
    assertEquals(List.of(3, 2, 1), off.levels().stream().map(LevelStats::getLevel).toList(), log());
    assertTrue(off.levels().get(2).getMaxInitialViolation() <= eps, "level 1 started converged too");
    assertEquals(2, ((KernelModel) off.model()).blockCount());
    LibsvmReader.Data test = testSet();
    for (int i = 0; i < 500; i++) {
      double a = on.model().decision(test.x()[i]);
      assertEquals(a, off.model().decision(test.x()[i]), 1e-9 * Math.max(1, Math.abs(a)), "row " + (i + 1));
    }

    TrainPipeline.Result busy = train(earlyStopConf("1"), "es-c1");
    assertFalse(progress.stream().anyMatch(l -> l.contains("early stop")), log());
    assertEquals(3, busy.levels().size(), log());
    assertTrue(busy.levels().get(1).getMaxInitialViolation() > eps, log());
  }

  // 6 ---------------------------------------------------------------------------------------------------------------

  private TrainPipeline.Result oneBlock(String out, String key, String value) throws IOException {
    Configuration conf = conf();
    conf.set(SodmConf.PARTITIONS, "1"); // the whole problem in one block
    conf.set(SodmConf.EPS, "1e-5");
    if (key != null) conf.set(key, value);
    TrainPipeline.Result r = train(conf, out);
    assertEquals(1, r.levels().size(), log());
    assertEquals(1, last(r).getBlocks(), log());
    return r;
  }

  /**
   * sodm.solver.shrinking (--no-shrinking): one block of the whole problem (eps 1e-5) reaches the same optimum either
   * way, and the in-process one, within 1e-6 relative (measured: on 1.4e-10, off 2.6e-8 from the reference); the option
   * reaches the solver (kernel evaluations 3,580,389 with shrinking, 1,918,269 without: shrinking recomputes columns).
   */
  @Test
  void shrinkingOnOrOffReachesTheSameOptimum() throws Exception {
    double ref = reference(KernelSpec.rbf(2), Loss.hinge(1));
    LevelStats on = last(oneBlock("shrink-on", null, null));
    LevelStats off = last(oneBlock("shrink-off", SodmConf.SHRINKING, "false"));
    System.out.printf(Locale.ROOT, "shrinking: on %.12g (%.2e), off %.12g (%.2e), kernel evaluations %d / %d%n", on.getObjective(),
        relative(on.getObjective(), ref), off.getObjective(), relative(off.getObjective(), ref), on.getKernelEvaluations(),
        off.getKernelEvaluations());
    assertTrue(relative(off.getObjective(), on.getObjective()) <= 1e-6, on.getObjective() + " vs " + off.getObjective());
    assertTrue(relative(on.getObjective(), ref) <= 1e-6, on.getObjective() + " vs " + ref);
    assertTrue(relative(off.getObjective(), ref) <= 1e-6, off.getObjective() + " vs " + ref);
    assertNotEquals(on.getKernelEvaluations(), off.getKernelEvaluations(), "the option did not reach the solver");
  }

  // 7 ---------------------------------------------------------------------------------------------------------------

  /**
   * --cache-mb 1 (sodm.cache.mb): the same optimum as the default 256 MB cache within 1e-6 relative (measured identical)
   * and the in-process one; the small cache is used (peak block memory 1.6 MB vs 8.3 MB, more kernel evaluations:
   * 3,768,818 vs 3,580,389).
   */
  @Test
  void smallCacheReachesTheSameOptimum() throws Exception {
    double ref = reference(KernelSpec.rbf(2), Loss.hinge(1));
    LevelStats big = last(oneBlock("cache-default", null, null));
    LevelStats small = last(oneBlock("cache-1", SodmConf.CACHE_MB, "1"));
    System.out.printf(Locale.ROOT, "cache: default %.12g, 1 MB %.12g (%.2e), memory %d / %d, kernel evaluations %d / %d%n",
        big.getObjective(), small.getObjective(), relative(small.getObjective(), big.getObjective()), big.getMaxBlockMemoryBytes(),
        small.getMaxBlockMemoryBytes(), big.getKernelEvaluations(), small.getKernelEvaluations());
    assertTrue(relative(small.getObjective(), big.getObjective()) <= 1e-6, big.getObjective() + " vs " + small.getObjective());
    assertTrue(relative(small.getObjective(), ref) <= 1e-6, small.getObjective() + " vs " + ref);
    assertTrue(small.getMaxBlockMemoryBytes() < 3L << 20, "peak memory " + small.getMaxBlockMemoryBytes());
    assertTrue(big.getMaxBlockMemoryBytes() > 2 * small.getMaxBlockMemoryBytes());
    assertTrue(small.getKernelEvaluations() > big.getKernelEvaluations(), "a 1 MB cache recomputes columns");
  }

  // 8 ---------------------------------------------------------------------------------------------------------------

  /**
   * .xz and .bz2 copies of svmguide1 (written here with the xz library and Hadoop's BZip2Codec) train exactly the model
   * of the plain file: the same support vector ids (ids are byte offsets in the decompressed text), coefficients and bias.
   */
  @Test
  void compressedInputsGiveThePlainFilesModel() throws Exception {
    Configuration conf = conf();
    Path plain = LocalConf.sampleData("svmguide1");
    Path xz = tmp.resolve("in-xz/svmguide1.xz");
    Files.createDirectories(xz.getParent());
    try (OutputStream o = new org.tukaani.xz.XZOutputStream(Files.newOutputStream(xz), new org.tukaani.xz.LZMA2Options())) {
      Files.copy(plain, o);
    }
    Path bz2 = tmp.resolve("in-bz2/svmguide1.bz2");
    Files.createDirectories(bz2.getParent());
    org.apache.hadoop.io.compress.BZip2Codec codec = new org.apache.hadoop.io.compress.BZip2Codec();
    codec.setConf(conf);
    try (OutputStream o = codec.createOutputStream(Files.newOutputStream(bz2))) {
      Files.copy(plain, o);
    }
    assertArrayEquals(new byte[] {(byte) 0xFD, '7', 'z', 'X', 'Z', 0}, head(xz, 6), "an xz file");
    assertArrayEquals(new byte[] {'B', 'Z', 'h'}, head(bz2, 3), "a bzip2 file");

    ModelRecord a = ModelFiles.readRecord(conf, train(conf, "plain", plain).modelPath());
    assertTrue(a.getBlocks().get(0).getCoef().size() > 100);
    for (Path in : List.of(xz, bz2)) {
      TrainPipeline.Result r = train(conf, "from-" + in.getFileName().toString().replace('.', '-'), in);
      assertTrue(progress.stream().anyMatch(l -> l.startsWith("ingest") && l.contains("3,089 rows")), log());
      assertEquals(coefficients(a), coefficients(ModelFiles.readRecord(conf, r.modelPath())), in.getFileName().toString());
    }
  }

  private static byte[] head(Path f, int n) throws IOException {
    try (InputStream in = Files.newInputStream(f)) {
      return in.readNBytes(n);
    }
  }
}
