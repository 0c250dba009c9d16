package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmReader;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.KernelModel;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * --offset: LIBSVM's model class (an unregularised offset), so that sodm's exact model is svm-train's: on svmguide1 at
 * LIBSVM's default parameters (C = 1, gamma = 1/4, [0,1]-scaled) the same dual objective and the same test labels; in the
 * tree, each block keeps its own offset.
 */
class OffsetTrainTest {
  @TempDir Path tmp;

  private Configuration conf() {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
    conf.set(SodmConf.GAMMA, "0.25");
    conf.set(Param.OFFSET.key(), "true");
    conf.set(Param.LEVELS.key(), "2"); // the tree, then the exact block (the automatic tree is one block on data this small)
    return conf;
  }

  private TrainPipeline.Result train(Configuration conf, String out) throws Exception {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), l -> {});
  }

  @Test
  @SuppressWarnings("unchecked")
  void exactModelIsLibsvms() throws Exception {
    TrainPipeline.Result r = train(conf(), "exact");
    KernelModel m = (KernelModel) r.model();
    assertEquals(1, m.blockCount());
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(
        tmp.resolve("exact").resolve(TrainPipeline.REPORT).toFile(), Map.class);
    double ours = ((Number) ((Map<String, Object>) report.get("exact")).get("objective")).doubleValue();
    LibsvmReader.Data test = LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
    List<String> labels = new ArrayList<>();
    int correct = 0;
    for (int i = 0; i < test.size(); i++) {
      labels.add(m.predict(test.x()[i]));
      if (labels.get(i).equals(test.labels()[i])) correct++;
    }
    double acc = (double) correct / test.size();
    assertTrue(acc > 0.94, "accuracy " + acc);
    Assumptions.assumeTrue(LibsvmTools.installed(), "svm-train not installed: the comparison with LIBSVM is skipped");
    Path range = tmp.resolve("range");
    Path trainS = tmp.resolve("train.scaled");
    Path testS = tmp.resolve("test.scaled");
    LibsvmTools.run(trainS, "svm-scale", "-l", "0", "-u", "1", "-s", range.toString(), LocalConf.sampleData("svmguide1").toString());
    LibsvmTools.run(testS, "svm-scale", "-r", range.toString(), LocalConf.sampleData("svmguide1.t").toString());
    Path model = tmp.resolve("svm.model");
    String out = LibsvmTools.run(null, "svm-train", "-c", "1", "-g", "0.25", "-e", "0.001", trainS.toString(), model.toString());
    java.util.regex.Matcher om = java.util.regex.Pattern.compile("obj = (-?[0-9.e+-]+)").matcher(out);
    assertTrue(om.find(), out);
    double theirs = Double.parseDouble(om.group(1));
    assertEquals(theirs, ours, 2e-4 * Math.abs(theirs), "dual objective: sodm " + ours + ", svm-train " + theirs);
    List<String> libsvm = LibsvmTools.predict(testS, model, tmp);
    int same = 0;
    for (int i = 0; i < labels.size(); i++) if (Double.parseDouble(labels.get(i)) == Double.parseDouble(libsvm.get(i))) same++;
    assertTrue(same >= labels.size() - 2, "labels equal to svm-predict's on " + same + " of " + labels.size());
  }

  /**
   * --offset auto with --exact on more than sodm.train.exact.below.rows rows: the tree's blocks solve without the offset (PBM
   * could follow), but when exact mode's final solve is one warm block it solves LIBSVM's problem, offset included: the same
   * optimum as the explicit --offset run (offsets in the tree too, a second path) and as svm-train, and the model says so.
   * With sodm.train.exact.single=never (PBM) the model keeps no offset.
   */
  @Test
  void exactWithAutoOffsetEndsWithLibsvmsOffsetInItsOneWarmBlock() throws Exception {
    TrainPipeline.Result r = train(exactAutoOffset(), "auto");
    KernelModel m = (KernelModel) r.model();
    assertEquals(1, m.blockCount());
    assertNotEquals(0.0, m.block(0).bias(), "the final block's offset");
    assertEquals("true", m.provenance().getParameters().get(Param.OFFSET.key()));

    Configuration explicit = conf();
    explicit.set(Param.EXACT.key(), "true");
    explicit.set(Param.EXACT_BELOW_ROWS.key(), "1000");
    KernelModel e = (KernelModel) train(explicit, "explicit").model();
    double ours = exactObjective("auto");
    assertSameOptimum("auto", m, "explicit", e);

    Configuration pbm = exactAutoOffset();
    pbm.set(Param.EXACT_SINGLE.key(), "never");
    pbm.set(Param.EXACT_ALLOW_UNCONVERGED.key(), "true"); // what is asserted is the model class, not PBM's convergence
    KernelModel p = (KernelModel) train(pbm, "pbm").model();
    assertEquals(0.0, p.block(0).bias(), 0.0, "PBM keeps no equality constraint, hence no offset");

    Assumptions.assumeTrue(LibsvmTools.installed(), "svm-train not installed: the comparison with LIBSVM is skipped");
    Path range = tmp.resolve("range");
    Path trainS = tmp.resolve("train.scaled");
    LibsvmTools.run(trainS, "svm-scale", "-l", "0", "-u", "1", "-s", range.toString(), LocalConf.sampleData("svmguide1").toString());
    String out = LibsvmTools.run(null, "svm-train", "-c", "1", "-g", "0.25", "-e", "0.001", trainS.toString(),
        tmp.resolve("svm.model").toString());
    java.util.regex.Matcher om = java.util.regex.Pattern.compile("obj = (-?[0-9.e+-]+)").matcher(out);
    assertTrue(om.find(), out);
    double theirs = Double.parseDouble(om.group(1));
    assertEquals(theirs, ours, 2e-4 * Math.abs(theirs), "dual objective: sodm " + ours + ", svm-train " + theirs);
  }

  /**
   * --exact where the automatic tree is one block of every row (svmguide1's 3,089 rows, above sodm.train.exact.below.rows):
   * that block is the whole problem, so it is exact mode's solve - LIBSVM's problem with its offset, in one job - and no
   * second one-block job follows. Its optimum is the one the tree + exact block path reaches (dual objective to 1e-6, the
   * offset to 2e-3; that path's objective is checked against svm-train's by the test above).
   */
  @Test
  void exactOnATreeOfOneBlockSolvesItOnce() throws Exception {
    Configuration auto = exactAutoOffset();
    auto.unset(Param.LEVELS.key());
    List<String> progress = new java.util.ArrayList<>();
    TrainPipeline.Result r = TrainPipeline.run(auto, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        null, new org.apache.hadoop.fs.Path(tmp.resolve("one").toString()), false), progress::add);
    String all = String.join("\n", progress);
    assertEquals(1, progress.stream().filter(l -> l.startsWith("level ")).count(), all);
    assertTrue(progress.stream().noneMatch(l -> l.contains("one block (SV")), "no second one-block solve:\n" + all);
    assertFalse(java.nio.file.Files.exists(tmp.resolve("one").resolve("work").resolve("level-0")), all);
    KernelModel m = (KernelModel) r.model();
    assertEquals(1, m.blockCount());
    assertNotEquals(0.0, m.block(0).bias(), "LIBSVM's offset");
    assertEquals("true", m.provenance().getParameters().get(Param.OFFSET.key()));
    @SuppressWarnings("unchecked")
    Map<String, Object> exact = (Map<String, Object>) new com.fasterxml.jackson.databind.ObjectMapper().readValue(
        tmp.resolve("one").resolve(TrainPipeline.REPORT).toFile(), Map.class).get("exact");
    assertEquals("one block", exact.get("method"));
    assertEquals(Boolean.TRUE, exact.get("converged"));

    // 16 -> 4 blocks without the offset, then exact mode's one warm block with it
    assertSameOptimum("one", m, "tree", (KernelModel) train(exactAutoOffset(), "tree").model());
    assertTrue(java.nio.file.Files.exists(tmp.resolve("tree").resolve("work").resolve("level-0")), "the tree's exact block job");
  }

  /**
   * A rare class (2 of 1,091 rows) in 4 blocks: two blocks hold no row of it. Their solve is of one class: no support vector and
   * the offset b = y of that class (LIBSVM's midpoint would be infinite: the blocks' own offsets kept by --no-common-offset made
   * the model's f = -infinity everywhere and export-libsvm wrote "rho Infinity"). The model's decisions stay finite.
   */
  @Test
  void blocksWithoutAClassKeepAFiniteOffset() throws Exception {
    List<String> lines = java.nio.file.Files.readAllLines(LocalConf.sampleData("svmguide1"));
    List<String> rare = new ArrayList<>();
    for (String l : lines) if (l.startsWith("0 ")) rare.add(l); // 1,089 rows
    int n0 = rare.size();
    for (String l : lines) if (l.startsWith("1 ") && rare.size() < n0 + 2) rare.add(l);
    Path data = tmp.resolve("rare.libsvm");
    java.nio.file.Files.write(data, rare);
    Configuration own = conf();
    own.set(SodmConf.PARTITIONS, "4");
    own.set(Param.EXACT_BELOW_ROWS.key(), "0");
    own.set(Param.COMMON_OFFSET.key(), "false");
    own.set(SodmConf.C, "100");
    own.unset(Param.LEVELS.key()); // one level of the 4 blocks
    KernelModel m = (KernelModel) TrainPipeline.run(own, new TrainPipeline.Request(List.of(data.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("rare").toString()), false), l -> {}).model();
    assertEquals(4, m.blockCount());
    int empty = 0;
    for (int b = 0; b < 4; b++) {
      double bias = m.block(b).bias();
      assertTrue(Double.isFinite(bias), "block " + b + ": offset " + bias);
      boolean none = true; // a block keeps a row even when no coefficient is non-zero
      for (int i = 0; i < m.block(b).size(); i++) none &= m.block(b).coef(i) == 0;
      if (none) {
        empty++;
        assertEquals(m.labels().negative().equals("0") ? -1.0 : 1.0, bias, 0.0, "block " + b + " saw class '0' only: b = its y");
      }
    }
    assertEquals(2, empty, "two blocks without the rare class");
    LibsvmReader.Data train = LibsvmReader.read(data);
    java.util.Set<Double> values = new java.util.HashSet<>();
    for (int i = 0; i < train.size(); i++) {
      double f = m.decision(train.x()[i]);
      assertTrue(Double.isFinite(f), "row " + i + ": f = " + f);
      values.add(f);
    }
    assertTrue(values.size() > train.size() / 2, "a decision function, not a constant: " + values.size() + " distinct values");
  }

  /** --offset auto and --exact on svmguide1 above sodm.train.exact.below.rows (1000): the tree's blocks without the offset. */
  private Configuration exactAutoOffset() {
    Configuration c = conf();
    c.unset(Param.OFFSET.key());
    c.set(Param.EXACT.key(), "true");
    c.set(Param.EXACT_BELOW_ROWS.key(), "1000");
    return c;
  }

  /** The runs in {@code a} and {@code b} reached the same optimum: exact dual objective to 1e-6 relative, offset to 2e-3. */
  private void assertSameOptimum(String a, KernelModel ma, String b, KernelModel mb) throws java.io.IOException {
    double oa = exactObjective(a);
    double ob = exactObjective(b);
    assertEquals(ob, oa, 1e-6 * Math.abs(ob), "dual objective: " + a + " " + oa + ", " + b + " " + ob);
    assertEquals(mb.block(0).bias(), ma.block(0).bias(), 2e-3, "the offsets of " + a + " and " + b);
  }

  @SuppressWarnings("unchecked")
  private double exactObjective(String out) throws java.io.IOException {
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(
        tmp.resolve(out).resolve(TrainPipeline.REPORT).toFile(), Map.class);
    return ((Number) ((Map<String, Object>) report.get("exact")).get("objective")).doubleValue();
  }

  /**
   * In the tree each block is solved with its own offset; with --no-common-offset the model keeps them (4 blocks, 4 offsets);
   * by default the averaged model gets one offset, the primal's best for the mean of the blocks at its best scale: b / a for
   * the a and b that minimise the hinge loss sum_i C_i max(0, 1 - y_i (a f(x_i) + b)) over the support vectors (C_i = C x 4),
   * here summed with the kernel itself; the blocks' own mean does worse. The coefficients are the same in both models.
   */
  @Test
  void treeBlocksShareOneOffsetUnlessAsked() throws Exception {
    Configuration own = conf();
    own.set(SodmConf.PARTITIONS, "4");
    own.set(Param.EXACT_BELOW_ROWS.key(), "0");
    own.set(Param.COMMON_OFFSET.key(), "false");
    KernelModel m = (KernelModel) train(own, "own").model();
    assertEquals(4, m.blockCount());
    java.util.Set<Double> offsets = new java.util.HashSet<>();
    for (int b = 0; b < 4; b++) offsets.add(m.block(b).bias());
    assertEquals(4, offsets.size(), "four blocks, four offsets: " + offsets);
    assertFalse(offsets.contains(0.0));

    Configuration common = conf();
    common.set(SodmConf.PARTITIONS, "4");
    common.set(Param.EXACT_BELOW_ROWS.key(), "0");
    KernelModel c = (KernelModel) train(common, "common").model();
    assertEquals(4, c.blockCount());
    double b = c.block(0).bias();
    for (int e = 0; e < 4; e++) {
      assertEquals(b, c.block(e).bias(), 0, "one offset");
      assertEquals(m.block(e).size(), c.block(e).size());
      for (int i = 0; i < c.block(e).size(); i++) assertEquals(m.block(e).coef(i), c.block(e).coef(i), 0, "block " + e + " coefficient " + i);
    }
    double ownMean = 0;
    for (int e = 0; e < 4; e++) ownMean += m.block(e).bias() / 4;
    double at = hinge(c, b, 4);
    for (double d : new double[] {-0.1, -1e-3, 1e-3, 0.1}) assertTrue(at <= hinge(c, b + d, 4) + 1e-9, "b " + b + " + " + d + " is better");
    assertTrue(at < hinge(c, ownMean, 4), "the blocks' mean offset " + ownMean + " is worse than " + b);

    // the unit-scale fit (the rule before 2026-11-29): another offset, worse in the scaled fit
    Configuration unitScale = conf();
    unitScale.set(SodmConf.PARTITIONS, "4");
    unitScale.set(Param.EXACT_BELOW_ROWS.key(), "0");
    unitScale.set(Param.COMMON_OFFSET_SCALE.key(), "false");
    double unit = ((KernelModel) train(unitScale, "unit").model()).block(0).bias();
    assertNotEquals(b, unit, 1e-3);
    assertTrue(at < hinge(c, unit, 4), "the unit-scale offset " + unit + " is better than " + b);
  }

  /**
   * min over the scale a &gt; 0 of sum over the support vectors of C_i max(0, 1 - a y_i (f(x_i) + b)), f the mean of the blocks
   * without offset summed with the kernel, C_i = cBlock: the hinge of the best scaled fit with offset b (b / a of the fit
   * over a and a b). The sum is convex and piecewise linear in a, so its minimum is at a kink, a = 1 / (y_i (f(x_i) + b)),
   * or at the search's end, every kink evaluated.
   */
  static double hinge(KernelModel c, double b, double cBlock) {
    org.sodm.kernel.Kernel k = c.block(0).kernel();
    java.util.List<Double> margins = new java.util.ArrayList<>(); // y_i (f(x_i) + b)
    for (int e = 0; e < c.blockCount(); e++) {
      for (int i = 0; i < c.block(e).size(); i++) {
        org.sodm.data.SparseVector x = c.block(e).supportVector(i);
        double f = 0;
        for (int d = 0; d < c.blockCount(); d++) {
          for (int j = 0; j < c.block(d).size(); j++) f += c.block(d).coef(j) * k.eval(c.block(d).supportVector(j), x);
        }
        margins.add(Math.signum(c.block(e).coef(i)) * (f / c.blockCount() + b));
      }
    }
    java.util.List<Double> kinks = new java.util.ArrayList<>(java.util.List.of(1e-4, 1e4));
    for (double m : margins) if (m > 1e-4 && m < 1e4) kinks.add(1 / m);
    double best = Double.POSITIVE_INFINITY;
    for (double a : kinks) {
      double sum = 0;
      for (double m : margins) sum += cBlock * Math.max(0, 1 - a * m);
      best = Math.min(best, sum);
    }
    return best;
  }

  @Test
  void refusedWhereItDoesNotApply() {
    Configuration odm = conf();
    odm.set(SodmConf.LOSS, "odm");
    assertThrows(BadParameterException.class, () -> train(odm, "odm"));
    Configuration both = conf();
    both.setBoolean("sodm.train.bias", true);
    assertThrows(BadParameterException.class, () -> train(both, "both"));
    Configuration never = conf();
    never.set(SodmConf.EXACT_SINGLE, "never");
    assertThrows(BadParameterException.class, () -> train(never, "never"));
  }

  private static org.sodm.jobs.spec.TrainSpec spec(String... kv) {
    Configuration c = new Configuration(false);
    c.set(SodmConf.LOSS, "hinge");
    for (int i = 0; i < kv.length; i += 2) c.set(kv[i], kv[i + 1]);
    return org.sodm.jobs.spec.TrainSpec.from(c).withDimension(4);
  }

  /** The auto rule, case by case: hinge in the kernel tree gets the offset; every case the offset cannot serve does not. */
  @Test
  void autoIsOnForHingeInTheKernelTreeOnly() {
    assertTrue(spec().offsetAuto(), "auto is the default");
    assertFalse(spec().offset(), "auto before it is resolved: off");
    assertTrue(spec().resolveOffset(3089).offset(), "hinge, rbf");
    assertTrue(spec(SodmConf.KERNEL, "poly").resolveOffset(1_000_000).offset(), "hinge, poly, large n without --exact");
    assertTrue(spec(SodmConf.EXACT, "true").resolveOffset(10_000).offset(), "--exact on rows <= exact.below.rows: one solve");
    assertFalse(spec(SodmConf.EXACT, "true").resolveOffset(10_001).offset(), "--exact beyond: PBM");
    assertFalse(spec(SodmConf.EXACT_SINGLE, "never").resolveOffset(3089).offset(), "PBM asked for");
    assertFalse(spec(SodmConf.LOSS, "odm").resolveOffset(3089).offset(), "odm");
    assertFalse(spec(SodmConf.LOSS, "squared-hinge").resolveOffset(3089).offset(), "squared hinge");
    assertFalse(spec("sodm.train.bias", "true").resolveOffset(3089).offset(), "--bias");
    assertFalse(spec(SodmConf.KERNEL, "linear").resolveOffset(3089).offset(), "BQO");
    assertTrue(spec(SodmConf.KERNEL, "linear", SodmConf.LINEAR_SOLVER, "kernel").resolveOffset(3089).offset(), "linear kernel in the tree");
    assertFalse(spec(Param.OFFSET.key(), "false").resolveOffset(3089).offset(), "--no-offset");
    assertFalse(spec(Param.OFFSET.key(), "false").offsetAuto());
  }

  /** The default (auto) hinge run is the --offset run, row for row, and says so; --no-offset gives the model without it. */
  @Test
  void theDefaultHingeModelHasLibsvmsOffset() throws Exception {
    Configuration auto = conf();
    auto.unset(Param.OFFSET.key());
    List<String> lines = new ArrayList<>();
    KernelModel a = (KernelModel) TrainPipeline.run(auto, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        null, new org.apache.hadoop.fs.Path(tmp.resolve("auto").toString()), false), lines::add).model();
    assertTrue(lines.stream().anyMatch(l -> l.contains("offset       LIBSVM's unregularised offset")), String.join("\n", lines));
    KernelModel on = (KernelModel) train(conf(), "on").model();
    Configuration off = conf();
    off.set(Param.OFFSET.key(), "false");
    KernelModel none = (KernelModel) train(off, "off").model();
    assertEquals(0.0, none.block(0).bias(), 0.0);
    assertNotEquals(0.0, a.block(0).bias());
    LibsvmReader.Data test = LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
    int differ = 0;
    for (int i = 0; i < test.size(); i++) {
      assertEquals(on.decision(test.x()[i]), a.decision(test.x()[i]), 0.0, "row " + i);
      if (Math.signum(none.decision(test.x()[i])) != Math.signum(a.decision(test.x()[i]))) differ++;
    }
    assertTrue(differ > 0, "the offset changes some labels on svmguide1 (95.125% against 94.70%)");
  }
}
