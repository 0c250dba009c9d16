package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

class MulticlassModelTest {
  @TempDir Path tmp;
  private static final Provenance PROV = new Provenance("test", "now", "in", "fp", new HashMap<>(), List.of(), null);
  private static final List<String> CLASSES = List.of("1", "2", "5", "10");

  /**
   * A random ovo model over 4 classes: 40 points with a class each; the model of pair (i, j) has
   * two blocks, each over a random subset of the points of classes i and j (so points are shared
   * between pairs, as support vectors of several pairs are in a trained model).
   */
  static MulticlassModel randomOvo(long seed, boolean platt) {
    return randomOvo(seed, platt, PROV);
  }

  /** The same with the class order (LIBSVM's label order) {@code order} in the provenance. */
  static MulticlassModel randomOvo(long seed, boolean platt, String order) {
    HashMap<String, String> params = new HashMap<>();
    params.put(MulticlassModel.CLASS_ORDER, order);
    return randomOvo(seed, platt, new Provenance("test", "now", "in", "fp", params, List.of(), null));
  }

  static MulticlassModel randomOvo(long seed, boolean platt, Provenance prov) {
    Random r = new Random(seed);
    KernelSpec ks = KernelSpec.rbf(0.8);
    Kernel k = ks.create();
    int n = 40;
    SparseVector[] pts = new SparseVector[n];
    int[] cls = new int[n];
    for (int i = 0; i < n; i++) {
      pts[i] = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      cls[i] = i % 4;
    }
    Subproblems plan = new Subproblems(4, Subproblems.Scheme.OVO);
    Model[] sub = new Model[plan.tasks()];
    Platt[] sig = platt ? new Platt[plan.tasks()] : null;
    for (int t = 0; t < plan.tasks(); t++) {
      int a = plan.negativeClass(t);
      int b = plan.positiveClass(t);
      KernelExpansion[] ex = new KernelExpansion[2];
      long[][] ids = new long[2][];
      for (int blk = 0; blk < 2; blk++) {
        List<Integer> members = new ArrayList<>();
        for (int i = 0; i < n; i++) if ((cls[i] == a || cls[i] == b) && i % 2 == blk && r.nextDouble() < 0.8) members.add(i);
        SparseVector[] sv = new SparseVector[members.size()];
        double[] c = new double[sv.length];
        ids[blk] = new long[sv.length];
        for (int m = 0; m < sv.length; m++) {
          int i = members.get(m);
          sv[m] = pts[i];
          c[m] = (cls[i] == b ? 1 : -1) * r.nextDouble() * 2;
          ids[blk][m] = 1000 + i;
        }
        ex[blk] = new KernelExpansion(k, sv, c, r.nextGaussian() * 0.1);
      }
      sub[t] = new KernelModel(ks, Loss.hinge(1), ModelCodec.taskLabels(CLASSES, plan, t), null, new int[] {0, 1}, ids, ex, null);
      if (platt) sig[t] = new Platt(-1 - r.nextDouble(), r.nextGaussian() * 0.2);
    }
    return new MulticlassModel(ks, Loss.hinge(1), null, CLASSES, plan, sub, sig, prov);
  }

  /** LIBSVM's svm_predict_values vote: dec = -f for pair (i, j); dec > 0 votes i, else j; the first class with most votes. */
  private static int libsvmVote(Subproblems plan, double[] f, int k) {
    return libsvmVote(plan, f, k, new int[] {0, 1, 2, 3});
  }

  /** The same when LIBSVM's label order is {@code order} (class indices): a tie goes to the class earliest in it. */
  private static int libsvmVote(Subproblems plan, double[] f, int k, int[] order) {
    int[] vote = new int[k];
    int p = 0;
    for (int i = 0; i < k; i++) {
      for (int j = i + 1; j < k; j++) {
        assertEquals(i, plan.negativeClass(p));
        assertEquals(j, plan.positiveClass(p));
        if (-f[p] > 0) vote[i]++;
        else vote[j]++;
        p++;
      }
    }
    int best = order[0];
    for (int q = 1; q < k; q++) if (vote[order[q]] > vote[best]) best = order[q];
    return best;
  }

  /** With LIBSVM's label order in the provenance (first appearance in the training data), vote ties go to the earliest class in it. */
  /** A model like {@code m} on the same rows: every other support vector of each block dropped, the rest's coefficients scaled. */
  private static MulticlassModel thinned(MulticlassModel m, double scale, int keep) {
    Model[] sub = new Model[m.plan().tasks()];
    for (int t = 0; t < sub.length; t++) {
      KernelModel km = (KernelModel) m.subModel(t);
      KernelExpansion[] ex = new KernelExpansion[km.blockCount()];
      long[][] ids = new long[ex.length][];
      int[] blockIds = new int[ex.length];
      for (int b = 0; b < ex.length; b++) {
        KernelExpansion e = km.block(b);
        List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < e.size(); i++) if (i % 2 == keep) kept.add(i);
        SparseVector[] sv = new SparseVector[kept.size()];
        double[] c = new double[kept.size()];
        ids[b] = new long[kept.size()];
        for (int j = 0; j < sv.length; j++) {
          sv[j] = e.supportVector(kept.get(j));
          c[j] = scale * e.coef(kept.get(j));
          ids[b][j] = km.supportVectorId(b, kept.get(j));
        }
        ex[b] = new KernelExpansion(e.kernel(), sv, c, e.bias() * scale);
        blockIds[b] = km.blockId(b);
      }
      sub[t] = new KernelModel(km.kernelSpec(), km.loss(), km.labels(), null, blockIds, ids, ex, null);
    }
    return new MulticlassModel(m.kernelSpec(), m.loss(), null, m.classes(), m.plan(), sub, null, null);
  }

  /**
   * A family of models over the same rows (sodm grid's models of each C) gives each model's own decision values bit for
   * bit, with the kernel of a row and each distinct support vector of any of them computed once; different kernels are
   * refused.
   */
  @Test
  void familyScoresEachModelAsItself() {
    MulticlassModel a = randomOvo(21, false);
    MulticlassModel b = thinned(a, 3.5, 0);
    MulticlassModel c = thinned(a, 0.25, 1);
    MulticlassModel.Family fam = new MulticlassModel.Family(b, a, c);
    assertEquals(a.distinctSupportVectors(), fam.size());
    assertTrue(b.distinctSupportVectors() < a.distinctSupportVectors() && c.distinctSupportVectors() < a.distinctSupportVectors());
    Random r = new Random(4);
    for (int n = 0; n < 50; n++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble() * 2, r.nextDouble());
      double[][] f = fam.decisionValues(x);
      assertArrayEquals(b.decisionValues(x), f[0], 0.0);
      assertArrayEquals(a.decisionValues(x), f[1], 0.0);
      assertArrayEquals(c.decisionValues(x), f[2], 0.0);
    }
    MulticlassModel other = new MulticlassModel(KernelSpec.rbf(0.3), a.loss(), null, a.classes(), a.plan(),
        java.util.stream.IntStream.range(0, a.plan().tasks()).mapToObj(a::subModel).toArray(Model[]::new), null, null);
    assertThrows(IllegalArgumentException.class, () -> new MulticlassModel.Family(a, other));
  }

  @Test
  void voteTiesFollowTheClassOrderOfTheProvenance() {
    MulticlassModel m = randomOvo(1, false, "2,0,3,1");
    assertArrayEquals(new int[] {2, 0, 3, 1}, m.classOrder());
    assertArrayEquals(new int[] {0, 1, 2, 3}, randomOvo(1, false).classOrder(), "without it: class index order");
    // f of pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3): 0 beats 1, 2 beats 0, 0 beats 3, 1 beats 2, 3 beats 1, 2 beats 3
    double[] tie = {-1, 1, -1, -1, 1, -1}; // votes: 0: 2, 1: 1, 2: 2, 3: 1
    assertEquals(2, m.predictIndex(tie), "a tie of classes 0 and 2 goes to 2, first in the order");
    assertEquals(0, randomOvo(1, false).predictIndex(tie));
    Random g = new Random(3);
    for (int q = 0; q < 2000; q++) {
      double[] f = new double[6];
      for (int t = 0; t < 6; t++) f[t] = g.nextInt(3) - 1;
      assertEquals(libsvmVote(m.plan(), f, 4, new int[] {2, 0, 3, 1}), m.predictIndex(f), java.util.Arrays.toString(f));
    }
    assertThrows(IllegalArgumentException.class, () -> randomOvo(1, false, "2,0,2,1"), "not a permutation");
  }

  @Test
  void sharedKernelEvaluationEqualsEachTaskAndVotesAsLibsvm() {
    MulticlassModel m = randomOvo(1, false);
    Random r = new Random(2);
    for (int q = 0; q < 200; q++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      double[] f = m.decisionValues(x);
      for (int t = 0; t < f.length; t++) assertEquals(m.subModel(t).decisionPrepared(x), f[t], 1e-12);
      assertEquals(libsvmVote(m.plan(), f, 4), m.predictIndex(f));
      assertEquals(CLASSES.get(libsvmVote(m.plan(), f, 4)), m.predict(x));
    }
    // ties: every pair's f exactly 0 votes for the larger class j; crafted vote vectors against the direct rule
    Random g = new Random(3);
    for (int q = 0; q < 2000; q++) {
      double[] f = new double[6];
      for (int t = 0; t < 6; t++) f[t] = g.nextInt(3) - 1; // -1, 0 or +1: many ties in the votes
      assertEquals(libsvmVote(m.plan(), f, 4), m.predictIndex(f), java.util.Arrays.toString(f));
    }
  }

  @Test
  void oneClassesDecisionValuesAreItsTasksEntriesAndNanElsewhere() {
    MulticlassModel m = randomOvo(4, false);
    Random r = new Random(5);
    for (int q = 0; q < 50; q++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      double[] all = m.decisionValues(x);
      for (int c = 0; c < 4; c++) {
        double[] one = m.decisionValues(x, c);
        int involved = 0;
        for (int t = 0; t < all.length; t++) {
          if (m.plan().y(t, c) != 0) {
            assertEquals(all[t], one[t], 0, "task " + t + " of class " + c);
            involved++;
          } else {
            assertTrue(Double.isNaN(one[t]), "task " + t + " does not involve class " + c);
          }
        }
        assertEquals(3, involved, "ovo: K - 1 pairs per class");
      }
    }
  }

  /**
   * The distinct support vectors' kernel values come from dense feature-major columns (6 features) or their feature index
   * (1,500 features, no dense copy): on sparse vectors with holes, an augmented (bias) kernel and rows with a feature beyond
   * every support vector's, each task's value equals its own sum of k(sv_i, x) evaluated pair by pair.
   */
  @Test
  void sharedDenseColumnsEqualTheKernelPairByPairOnSparseRows() {
    Random r = new Random(7);
    sharedColumnsEqualTheKernelPairByPair(r, 6, 0.6, 0.5);
    sharedColumnsEqualTheKernelPairByPair(r, 1500, 0.01, 0.01);
  }

  private static void sharedColumnsEqualTheKernelPairByPair(Random r, int d, double density, double xDensity) {
    for (KernelSpec ks : new KernelSpec[] {KernelSpec.rbf(0.7), KernelSpec.poly(0.5, 1, 3), KernelSpec.linear()}) {
      for (boolean augmented : new boolean[] {false, true}) {
        Kernel k = augmented ? new org.sodm.kernel.AugmentedKernel(ks.create()) : ks.create();
        int n = 30;
        SparseVector[] pts = new SparseVector[n];
        for (int i = 0; i < n; i++) pts[i] = sparse(r, d, density);
        Subproblems plan = new Subproblems(3, Subproblems.Scheme.OVO);
        Model[] sub = new Model[plan.tasks()];
        for (int t = 0; t < plan.tasks(); t++) {
          List<Integer> members = new ArrayList<>();
          for (int i = 0; i < n; i++) if (i % 3 != t && r.nextDouble() < 0.8) members.add(i);
          SparseVector[] sv = new SparseVector[members.size()];
          double[] c = new double[sv.length];
          long[][] ids = {new long[sv.length]};
          for (int m = 0; m < sv.length; m++) {
            sv[m] = pts[members.get(m)];
            c[m] = r.nextGaussian();
            ids[0][m] = members.get(m);
          }
          KernelExpansion[] ex = {new KernelExpansion(k, sv, c, r.nextGaussian())};
          sub[t] = new KernelModel(ks, Loss.hinge(1), ModelCodec.taskLabels(List.of("a", "b", "c"), plan, t), null, new int[] {0}, ids,
              ex, null);
        }
        MulticlassModel m = new MulticlassModel(ks, Loss.hinge(1), null, List.of("a", "b", "c"), plan, sub, null, PROV);
        for (int q = 0; q < 50; q++) {
          SparseVector x = sparse(r, q % 2 == 0 ? d : d + 3, xDensity); // odd rows: features no support vector has
          double[] f = m.decisionValues(x);
          for (int t = 0; t < plan.tasks(); t++) {
            KernelExpansion e = ((KernelModel) sub[t]).block(0);
            double want = e.bias();
            for (int i = 0; i < e.size(); i++) want += e.coef(i) * k.eval(e.supportVector(i), x);
            assertEquals(want, f[t], 1e-12 * (1 + Math.abs(want)), d + " features, " + ks + (augmented ? " +1" : "") + " task " + t + " row " + q);
          }
        }
      }
    }
  }

  /** A sparse vector of features 1..d, each present with probability p. */
  private static SparseVector sparse(Random r, int d, double p) {
    List<Integer> idx = new ArrayList<>();
    List<Double> val = new ArrayList<>();
    for (int f = 1; f <= d; f++) {
      if (r.nextDouble() < p) {
        idx.add(f);
        val.add(r.nextGaussian());
      }
    }
    int[] i = new int[idx.size()];
    double[] v = new double[idx.size()];
    for (int t = 0; t < i.length; t++) {
      i[t] = idx.get(t);
      v[t] = val.get(t);
    }
    return new SparseVector(i, v);
  }

  @Test
  void ovrTakesTheLargestDecisionValueSmallerIndexOnTies() {
    MulticlassModel ovo = randomOvo(1, false);
    Model[] sub = new Model[4];
    for (int c = 0; c < 4; c++) sub[c] = ovo.subModel(c);
    MulticlassModel m = new MulticlassModel(ovo.kernelSpec(), ovo.loss(), null, CLASSES, new Subproblems(4, Subproblems.Scheme.OVR),
        sub, null, PROV);
    assertEquals(2, m.predictIndex(new double[] {0.1, -3, 0.7, 0.2}));
    assertEquals(1, m.predictIndex(new double[] {0.1, 0.7, 0.7, 0.2}));
    assertEquals(0, m.predictIndex(new double[] {-1, -1, -1, -1}));
  }

  @Test
  void probabilitiesAreCoupledAndTheLabelIsTheirArgmax() {
    MulticlassModel m = randomOvo(4, true);
    Random r = new Random(5);
    for (int q = 0; q < 100; q++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      MulticlassModel.Scored s = m.score(x);
      double[] p = s.probabilities();
      double sum = 0;
      for (double v : p) sum += v;
      assertEquals(1, sum, 1e-9);
      int arg = 0;
      for (int c = 1; c < 4; c++) if (p[c] > p[arg]) arg = c;
      assertEquals(arg, s.index());
      assertEquals(CLASSES.get(arg), m.predict(x));
      assertEquals(p[arg], s.score(), 0);
      // the coupling's input: r[j][i] = sigmoid of f_ij, clipped as LIBSVM does
      double[] f = m.decisionValues(x);
      double[][] rr = new double[4][4];
      for (int t = 0; t < 6; t++) {
        double pj = Math.min(Math.max(1 / (1 + Math.exp(m.platt(t).a() * f[t] + m.platt(t).b())), 1e-7), 1 - 1e-7);
        rr[m.plan().positiveClass(t)][m.plan().negativeClass(t)] = pj;
        rr[m.plan().negativeClass(t)][m.plan().positiveClass(t)] = 1 - pj;
      }
      assertArrayEquals(Coupling.probabilities(rr), p, 1e-12);
    }
  }

  @Test
  void codecRoundTripKeepsTasksSigmoidsAndPredictions() {
    for (boolean platt : new boolean[] {false, true}) {
      MulticlassModel m = randomOvo(7, platt);
      ModelRecord rec = ModelCodec.toAvro(m);
      assertNotNull(rec.getMulticlass());
      assertTrue(rec.getBlocks().isEmpty());
      MulticlassModel back = (MulticlassModel) ModelCodec.fromAvro(rec);
      assertEquals(rec, ModelCodec.toAvro(back));
      assertEquals(CLASSES, back.classes());
      assertEquals(platt, back.hasProbabilities());
      Random r = new Random(8);
      for (int q = 0; q < 50; q++) {
        SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
        assertArrayEquals(m.decisionValues(x), back.decisionValues(x), 0);
        assertEquals(m.predict(x), back.predict(x));
      }
      // a changed coefficient is refused by the digest
      rec.getMulticlass().getTasks().get(2).getBlocks().get(0).getCoef().set(0, 9.0);
      assertThrows(IllegalArgumentException.class, () -> ModelCodec.fromAvro(rec));
    }
  }

  /** A binary model's record encodes exactly as with the schema before the multiclass field (HEAD's Model.avsc, a test resource). */
  @Test
  void binaryRecordsEncodeAsBeforeTheMulticlassField() throws Exception {
    Schema.Parser parser = new Schema.Parser();
    java.util.Map<String, Schema> types = new java.util.HashMap<>();
    types.put("org.sodm.avro.Features", org.sodm.avro.Features.getClassSchema());
    types.put("org.sodm.avro.LabelMapRecord", org.sodm.avro.LabelMapRecord.getClassSchema());
    types.put("org.sodm.avro.ScalerRecord", org.sodm.avro.ScalerRecord.getClassSchema());
    parser.addTypes(types);
    Schema before;
    try (var in = getClass().getResourceAsStream("/model-before-multiclass.avsc")) {
      before = parser.parse(in);
    }
    assertNull(before.getField("multiclass"));
    for (boolean scaled : new boolean[] {false, true}) {
      ModelRecord rec = ModelCodec.toAvro(MetricsAndModelTest.twoBlockModel(scaled));
      assertNull(rec.getMulticlass());
      ModelRecord noDigest = ModelRecord.newBuilder(rec).setDigest(null).build();
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      var enc = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
      new org.apache.avro.generic.GenericDatumWriter<Object>(before).write(noDigest, enc);
      enc.flush();
      String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(out.toByteArray()));
      assertEquals(sha, rec.getDigest().toString(), "the digest of a binary model is the digest of its old encoding");
    }
  }

  /**
   * The exported LIBSVM model, evaluated by LIBSVM's prediction rule implemented here from the
   * file (and by svm-predict itself when installed), gives sodm's label for every point.
   */
  @Test
  void libsvmExportReproducesTheLabels() throws Exception {
    exportReproducesTheLabels(randomOvo(11, false), List.of("1", "2", "5", "10"));
  }

  /** In LIBSVM's own label order (first appearance): the file lists the classes so, and svm-predict breaks ties as sodm. */
  @Test
  void libsvmExportInTheTrainingDataOrderReproducesTheLabels() throws Exception {
    exportReproducesTheLabels(randomOvo(11, false, "2,0,3,1"), List.of("5", "1", "10", "2"));
    exportReproducesTheLabels(randomOvo(13, true, "3,1,0,2"), List.of("10", "2", "1", "5"));
  }

  /**
   * A one-vs-one linear model (--kernel linear --multiclass ovo) in LIBSVM's format: each task's w is one support vector of
   * the pair, and LIBSVM's votes over the file reproduce sodm's labels (and its pair decisions, up to sign), in both orders.
   */
  @Test
  void libsvmExportOfALinearOvoModelReproducesTheLabels() throws Exception {
    exportReproducesTheLabels(randomLinearOvo(31, null), CLASSES);
    exportReproducesTheLabels(randomLinearOvo(32, "2,0,3,1"), List.of("5", "1", "10", "2"));
  }

  /** Six linear tasks over 3 features with random weights (one of them 0 in some tasks) and offsets; {@code order} or null. */
  static MulticlassModel randomLinearOvo(long seed, String order) {
    Random r = new Random(seed);
    Subproblems plan = new Subproblems(4, Subproblems.Scheme.OVO);
    Model[] sub = new Model[plan.tasks()];
    for (int t = 0; t < sub.length; t++) {
      double[] wt = {r.nextGaussian(), r.nextBoolean() ? 0 : r.nextGaussian(), r.nextGaussian()};
      sub[t] = new LinearModel(Loss.hinge(1), ModelCodec.taskLabels(CLASSES, plan, t), null, wt, r.nextGaussian() * 0.5, "bqo", null);
    }
    HashMap<String, String> params = new HashMap<>();
    if (order != null) params.put(MulticlassModel.CLASS_ORDER, order);
    return new MulticlassModel(KernelSpec.linear(), Loss.hinge(1), null, CLASSES, plan, sub, null,
        new Provenance("test", "now", "in", "fp", params, List.of(), null));
  }

  private void exportReproducesTheLabels(MulticlassModel m, List<String> fileOrder) throws Exception {
    StringWriter w = new StringWriter();
    LibsvmExport.write(m, w);
    String text = w.toString();
    List<String> lines = text.lines().toList();
    int sv = lines.indexOf("SV");
    java.util.Map<String, String> head = new HashMap<>();
    for (String l : lines.subList(0, sv)) head.put(l.split(" ")[0], l.substring(l.indexOf(' ') + 1));
    int k = Integer.parseInt(head.get("nr_class"));
    assertEquals(String.join(" ", fileOrder), head.get("label"));
    boolean identity = fileOrder.equals(CLASSES);
    String[] rhoS = head.get("rho").split(" ");
    String[] probA = m.hasProbabilities() ? head.get("probA").split(" ") : null;
    String[] probB = m.hasProbabilities() ? head.get("probB").split(" ") : null;
    String[] nsvS = head.get("nr_sv").split(" ");
    int[] start = new int[k];
    int[] nsv = new int[k];
    for (int c = 0; c < k; c++) {
      nsv[c] = Integer.parseInt(nsvS[c]);
      if (c > 0) start[c] = start[c - 1] + nsv[c - 1];
    }
    List<double[]> coef = new ArrayList<>();
    List<SparseVector> vec = new ArrayList<>();
    for (String l : lines.subList(sv + 1, lines.size())) {
      String[] tok = l.trim().split(" ");
      double[] c = new double[k - 1];
      for (int q = 0; q < k - 1; q++) c[q] = Double.parseDouble(tok[q]);
      double[] dense = new double[3];
      for (int q = k - 1; q < tok.length; q++) {
        String[] iv = tok[q].split(":");
        dense[Integer.parseInt(iv[0]) - 1] = Double.parseDouble(iv[1]);
      }
      coef.add(c);
      vec.add(SparseVector.ofDense(dense));
    }
    Kernel kern = head.get("kernel_type").equals("linear") ? KernelSpec.linear().create()
        : KernelSpec.rbf(Double.parseDouble(head.get("gamma"))).create();
    Random r = new Random(12);
    List<SparseVector> xs = new ArrayList<>();
    StringBuilder test = new StringBuilder();
    for (int q = 0; q < 300; q++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      xs.add(x);
      test.append("1 1:").append(x.value(0)).append(" 2:").append(x.value(1)).append(" 3:").append(x.value(2)).append('\n');
      int[] vote = new int[k];
      int p = 0;
      for (int i = 0; i < k; i++) {
        for (int j = i + 1; j < k; j++) {
          double sum = 0;
          for (int s = 0; s < nsv[i]; s++) sum += coef.get(start[i] + s)[j - 1] * kern.eval(vec.get(start[i] + s), x);
          for (int s = 0; s < nsv[j]; s++) sum += coef.get(start[j] + s)[i] * kern.eval(vec.get(start[j] + s), x);
          sum -= Double.parseDouble(rhoS[p]);
          if (identity) assertEquals(-m.decisionValues(x)[p], sum, 1e-9, "pair " + p);
          int ti = CLASSES.indexOf(fileOrder.get(i));
          int tj = CLASSES.indexOf(fileOrder.get(j));
          int lo = Math.min(ti, tj);
          int task = lo * (2 * k - lo - 1) / 2 + (Math.max(ti, tj) - lo - 1); // ovo task (lo, hi) in LIBSVM's pair order
          assertEquals(lo, m.plan().negativeClass(task));
          assertEquals(Math.abs(m.decisionValues(x)[task]), Math.abs(sum), 1e-9, "pair " + p + ": task " + task + "'s |f|");
          if (probA != null) { // LIBSVM's pairwise probability of the class at position i, from the file, against sodm's sigmoid
            double pi = 1 / (1 + Math.exp(Double.parseDouble(probA[p]) * sum + Double.parseDouble(probB[p])));
            double pos = m.platt(task).probability(m.decisionValues(x)[task]);
            assertEquals(m.plan().positiveClass(task) == ti ? pos : 1 - pos, pi, 1e-9, "pair " + p + "'s probability");
          }
          if (sum > 0) vote[i]++;
          else vote[j]++;
          p++;
        }
      }
      int best = 0;
      for (int i = 1; i < k; i++) if (vote[i] > vote[best]) best = i;
      if (!m.hasProbabilities()) assertEquals(m.predict(x), fileOrder.get(best)); // else the label is the argmax of probabilities
    }
    if (!Files.isExecutable(Path.of("/usr/bin/svm-predict"))) return; // LIBSVM's own check needs it installed
    Files.writeString(tmp.resolve("model"), text);
    Files.writeString(tmp.resolve("test"), test.toString());
    Process proc = new ProcessBuilder("svm-predict", tmp.resolve("test").toString(), tmp.resolve("model").toString(),
        tmp.resolve("out").toString()).redirectErrorStream(true).start();
    proc.getInputStream().readAllBytes();
    assertEquals(0, proc.waitFor());
    List<String> theirs = Files.readAllLines(tmp.resolve("out"));
    if (m.hasProbabilities()) return; // svm-predict without -b 1 votes; sodm's label is the argmax of its probabilities
    for (int q = 0; q < xs.size(); q++) assertEquals(m.predict(xs.get(q)), theirs.get(q), "point " + q);
  }

  /**
   * A two-class linear model with probabilities (--kernel linear --probability) in LIBSVM's format: one support vector (w,
   * signed for the class at label position 0), rho and probA / probB such that LIBSVM's dec = w'x - rho and its probability
   * of the first label equal sodm's f (or -f) and probability, in both class orders; svm-predict -b 1 (when installed) prints
   * sodm's probabilities.
   */
  @Test
  void twoClassLinearModelWithProbabilitiesExports() throws Exception {
    List<String> classes = List.of("-1", "1");
    Subproblems plan = new Subproblems(2, Subproblems.Scheme.OVO);
    double[] wt = {0.8, -1.5, 0, 2.25};
    Platt platt = new Platt(-2.5, 0.3);
    Random r = new Random(21);
    List<SparseVector> xs = new ArrayList<>();
    for (int i = 0; i < 30; i++) xs.add(SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble(), r.nextDouble()));
    for (String order : List.of("0,1", "1,0")) {
      HashMap<String, String> params = new HashMap<>();
      params.put(MulticlassModel.CLASS_ORDER, order);
      Provenance prov = new Provenance("test", "now", "in", "fp", params, List.of(), null);
      LinearModel lin = new LinearModel(Loss.hinge(1), ModelCodec.taskLabels(classes, plan, 0), null, wt, -0.4, "bqo", null);
      MulticlassModel m = new MulticlassModel(KernelSpec.linear(), Loss.hinge(1), null, classes, plan, new Model[] {lin},
          new Platt[] {platt}, prov);
      StringWriter text = new StringWriter();
      LibsvmExport.write(m, text);
      List<String> lines = List.of(text.toString().split("\n"));
      assertTrue(lines.contains("kernel_type linear") && lines.contains("nr_class 2") && lines.contains("total_sv 1"), text.toString());
      String first = order.equals("0,1") ? "-1" : "1";
      assertTrue(lines.contains("label " + first + " " + (first.equals("1") ? "-1" : "1")), text.toString());
      double rho = Double.parseDouble(lines.stream().filter(l -> l.startsWith("rho ")).findFirst().orElseThrow().substring(4));
      double probA = Double.parseDouble(lines.stream().filter(l -> l.startsWith("probA ")).findFirst().orElseThrow().substring(6));
      double probB = Double.parseDouble(lines.stream().filter(l -> l.startsWith("probB ")).findFirst().orElseThrow().substring(6));
      String[] sv = lines.get(lines.indexOf("SV") + 1).trim().split(" ");
      assertEquals("1", sv[0]);
      double[] v = new double[4];
      for (int t = 1; t < sv.length; t++) v[Integer.parseInt(sv[t].split(":")[0]) - 1] = Double.parseDouble(sv[t].split(":")[1]);
      for (SparseVector x : xs) {
        double dec = -rho;
        for (int f = 0; f < 4; f++) dec += v[f] * x.get(f + 1);
        double f = m.decisionValues(x)[0];
        assertEquals(first.equals("1") ? f : -f, dec, 1e-12, order);
        double pFirst = 1 / (1 + Math.exp(probA * dec + probB));
        assertEquals(m.probabilities(m.decisionValues(x))[classes.indexOf(first)], pFirst, 1e-9, order);
      }
      if (!Files.isExecutable(Path.of("/usr/bin/svm-predict"))) continue;
      Files.writeString(tmp.resolve("lin.model"), text.toString());
      StringBuilder test = new StringBuilder();
      for (SparseVector x : xs) {
        test.append("1");
        for (int t = 0; t < x.nnz(); t++) test.append(' ').append(x.index(t)).append(':').append(x.value(t));
        test.append('\n');
      }
      Files.writeString(tmp.resolve("lin.test"), test.toString());
      Process proc = new ProcessBuilder("svm-predict", "-b", "1", tmp.resolve("lin.test").toString(), tmp.resolve("lin.model").toString(),
          tmp.resolve("lin.out").toString()).redirectErrorStream(true).start();
      proc.getInputStream().readAllBytes();
      assertEquals(0, proc.waitFor());
      List<String> out = Files.readAllLines(tmp.resolve("lin.out"));
      assertEquals("labels " + first + " " + (first.equals("1") ? "-1" : "1"), out.get(0));
      for (int q = 0; q < xs.size(); q++) {
        String[] f = out.get(q + 1).split(" ");
        double[] p = m.probabilities(m.decisionValues(xs.get(q)));
        assertEquals(p[classes.indexOf(first)], Double.parseDouble(f[1]), 1e-6, order + " row " + q);
        assertEquals(m.predict(xs.get(q)), f[0], order + " row " + q);
      }
    }
  }

  @Test
  void ovrModelsAreNotExportable() {
    MulticlassModel ovo = randomOvo(1, false);
    Model[] sub = new Model[4];
    for (int c = 0; c < 4; c++) sub[c] = ovo.subModel(c);
    MulticlassModel m = new MulticlassModel(ovo.kernelSpec(), ovo.loss(), null, CLASSES, new Subproblems(4, Subproblems.Scheme.OVR),
        sub, null, PROV);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LibsvmExport.write(m, new StringWriter()));
    assertTrue(e.getMessage().contains("one-vs-one"), e.getMessage());
  }

  @Test
  void metricsFromTheConfusionMatrix() {
    MulticlassMetrics.Builder b = new MulticlassMetrics.Builder(List.of("a", "b", "c"));
    int[][] rows = {{0, 0}, {0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}, {2, 2}, {2, 0}};
    for (int[] r : rows) b.add(r[0], r[1], null);
    MulticlassMetrics mm = b.build();
    assertEquals(5.0 / 8, mm.accuracy(), 1e-15);
    assertEquals(2.0 / 3, mm.precision(0), 1e-15); // predicted a: 3 rows, 2 right
    assertEquals(2.0 / 3, mm.recall(0), 1e-15);
    assertEquals(0.5, mm.precision(1), 1e-15);
    assertEquals(0.5, mm.recall(1), 1e-15);
    assertEquals(2.0 / 3, mm.precision(2), 1e-15);
    assertEquals(2.0 / 3, mm.recall(2), 1e-15);
    assertEquals((2.0 / 3 + 0.5 + 2.0 / 3) / 3, mm.macroF1(), 1e-15);
    assertEquals(5.0 / 8, mm.micro(), 1e-15);
    assertTrue(Double.isNaN(mm.logLoss()));
    assertTrue(mm.toJson().contains("\"confusion\": [[2, 1, 0], [0, 1, 1], [1, 0, 2]]"), mm.toJson());
    MulticlassMetrics.Builder pb = new MulticlassMetrics.Builder(List.of("a", "b"));
    pb.add(0, 0, new double[] {0.9, 0.1}).add(1, 0, new double[] {0.6, 0.4}).add(1, 1, new double[] {0.25, 0.75});
    MulticlassMetrics pm = pb.build();
    assertEquals((-Math.log(0.9) - Math.log(0.4) - Math.log(0.75)) / 3, pm.logLoss(), 1e-15);
    assertEquals(1, pm.calibrationCounts()[9][0]); // 0.9
    assertEquals(1, pm.calibrationCounts()[7][0]); // 0.75
    assertEquals(0, pm.calibrationCounts()[6][1]); // 0.6 predicted a, truly b
    // two classes: the AUC of P(b), by hand: pairs (b row, a row) with P(b) above: 0.4 > 0.1, 0.75 > 0.1: 2 of 2
    assertEquals(1.0, pm.auc(), 1e-15);
    assertTrue(pm.toJson().contains("\"auc\": 1.000000") && pm.table().contains("AUC        1.0000   (P(b) as the score)"),
        pm.toJson() + "\n" + pm.table());
    assertTrue(Double.isNaN(mm.auc()) && !mm.toJson().contains("auc") && !mm.table().contains("AUC"), "three classes: no AUC");
    MulticlassMetrics.Builder tb = new MulticlassMetrics.Builder(List.of("a", "b")); // ties and a misordered pair
    tb.add(0, 0, new double[] {0.7, 0.3}).add(0, 1, new double[] {0.4, 0.6}).add(1, 1, new double[] {0.4, 0.6})
        .add(1, 0, new double[] {0.8, 0.2}).addOther(1, new double[] {0.1, 0.9});
    // b rows: 0.6, 0.2; a rows: 0.3, 0.6: (0.6 vs 0.3) 1, (0.6 vs 0.6) 1/2, (0.2 vs 0.3) 0, (0.2 vs 0.6) 0: 1.5 / 4; other rows out
    assertEquals(1.5 / 4, tb.build().auc(), 1e-15);

    // rows labelled with none of the classes, worked by hand: 3 of 11 rows, each an error (svm-predict's accuracy), a false
    // positive of the class predicted, a wrong prediction in the calibration, and left out of the log-loss
    MulticlassMetrics.Builder ob = new MulticlassMetrics.Builder(List.of("a", "b", "c"));
    for (int[] r : rows) ob.add(r[0], r[1], null);
    ob.addOther(0, null).addOther(0, null).addOther(2, null);
    MulticlassMetrics om = ob.build();
    assertEquals(11, om.n());
    assertEquals(3, om.other());
    assertEquals(5.0 / 11, om.accuracy(), 1e-15);
    assertEquals(2.0 / 5, om.precision(0), 1e-15); // predicted a: 3 + 2 other rows, 2 right
    assertEquals(2.0 / 3, om.recall(0), 1e-15);
    assertEquals(0.5, om.precision(1), 1e-15);
    assertEquals(2.0 / 4, om.precision(2), 1e-15);
    assertEquals(5.0 / 11, om.micro(), 1e-15);
    assertTrue(om.toJson().contains("\"other\": {\"rows\": 3, \"predicted\": [2, 0, 1]}"), om.toJson());
    assertTrue(om.table().contains("(other)") && om.table().contains("3 rows labelled with none of the model's classes"), om.table());
    assertFalse(mm.toJson().contains("other") || mm.table().contains("other"), "no other rows, no mention");
    MulticlassMetrics.Builder opb = new MulticlassMetrics.Builder(List.of("a", "b"));
    opb.add(0, 0, new double[] {0.9, 0.1}).addOther(1, new double[] {0.35, 0.65});
    MulticlassMetrics opm = opb.build();
    assertEquals(-Math.log(0.9), opm.logLoss(), 1e-15);
    assertEquals(1, opm.calibrationCounts()[6][0]); // 0.65, wrong
    assertEquals(0, opm.calibrationCounts()[6][1]);
    assertThrows(IllegalStateException.class, () -> new MulticlassMetrics.Builder(List.of("a", "b")).add(0, 0, new double[] {1, 0})
        .addOther(1, null).build(), "probabilities for some rows only");
  }

  /** A multinomial model's probabilities: exp(f_c) / sum_k exp(f_k), finite at decision values whose exp overflows. */
  @Test
  void softmaxIsTheRatioOfExponentialsWithoutOverflow() {
    double[] f = {0.3, -1.2, 2.0};
    double s = Math.exp(0.3) + Math.exp(-1.2) + Math.exp(2.0);
    double[] p = MulticlassModel.softmax(f);
    assertEquals(Math.exp(0.3) / s, p[0], 1e-15);
    assertEquals(Math.exp(-1.2) / s, p[1], 1e-15);
    assertEquals(Math.exp(2.0) / s, p[2], 1e-15);
    double[] big = MulticlassModel.softmax(new double[] {1000, 999, -1000});
    assertEquals(1 / (1 + Math.exp(-1)), big[0], 1e-15);
    assertEquals(Math.exp(-1) / (1 + Math.exp(-1)), big[1], 1e-15);
    assertEquals(0.0, big[2]);
  }
}
