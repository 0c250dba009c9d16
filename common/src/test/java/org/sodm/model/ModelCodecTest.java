package org.sodm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.partition.KernelKMeans;
import org.sodm.solver.Loss;

class ModelCodecTest {
  private static final Provenance PROV = new Provenance("test", "now", "in", "fp", new HashMap<>(), List.of(), null);

  /** The record survives a round trip through the model unchanged, and so do the decision values. */
  private static Model roundTrip(Model m) {
    ModelRecord rec = ModelCodec.toAvro(m);
    Model back = ModelCodec.fromAvro(rec);
    assertEquals(rec, ModelCodec.toAvro(back));
    assertEquals(m.getClass(), back.getClass());
    assertEquals(m.loss(), back.loss());
    assertEquals(m.labels().positive(), back.labels().positive());
    assertEquals(m.kernelSpec(), back.kernelSpec());
    assertEquals(m.supportVectors(), back.supportVectors());
    Random r = new Random(5);
    for (int t = 0; t < 20; t++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble() * 2, r.nextDouble() * 3);
      assertEquals(m.decision(x), back.decision(x), 0.0);
    }
    return back;
  }

  @Test
  void kernelModelsRoundTripWithEveryLoss() {
    for (boolean scaled : new boolean[] {false, true}) {
      KernelModel m = MetricsAndModelTest.twoBlockModel(scaled);
      for (Loss loss : new Loss[] {Loss.hinge(3).withBias(true), Loss.squaredHinge(0.5).withWeights(2, 0.25),
          Loss.odm(4, 0.3, 0.7).withWeights(1.5, 1).withBias(true)}) {
        KernelModel withLoss = new KernelModel(m.kernelSpec(), loss, m.labels(), m.scaler(), new int[] {0, 1},
            new long[][] {{0, 1, 2, 3, 4}, {10, 11, 12, 13, 14}}, new KernelExpansion[] {m.block(0), m.block(1)}, PROV);
        KernelModel back = (KernelModel) roundTrip(withLoss);
        assertNull(back.routing());
        assertEquals(12, back.supportVectorId(1, 2));
        assertEquals(1, back.blockId(1));
      }
    }
  }

  /** Decision values and probabilities of two models on the same random rows, bit for bit. */
  private static void sameScores(MulticlassModel a, MulticlassModel b) {
    Random r = new Random(9);
    for (int t = 0; t < 30; t++) {
      SparseVector x = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      double[] fa = a.decisionValues(x);
      org.junit.jupiter.api.Assertions.assertArrayEquals(fa, b.decisionValues(x), 0.0);
      org.junit.jupiter.api.Assertions.assertArrayEquals(a.probabilities(fa), b.probabilities(fa), 0.0);
    }
  }

  /**
   * A multi-class model's support vectors, each in several tasks, are written once in a table by id (format 2; the blocks
   * keep ids and coefficients) and read back to the same scores; the same model with the vectors in its blocks (format 1,
   * as written before the table existed) reads to the same scores too; a table that lacks a block's id, is out of order,
   * or a format that disagrees with the table is refused with what is wrong.
   */
  @Test
  void sharedSupportVectorsAreWrittenOnceByIdInFormat2() {
    MulticlassModel m = MulticlassModelTest.randomOvo(3, true);
    ModelRecord rec = ModelCodec.toAvro(m);
    assertEquals(2, rec.getFormatVersion());
    java.util.TreeSet<Long> distinct = new java.util.TreeSet<>();
    long entries = 0;
    for (org.sodm.avro.TaskModel t : rec.getMulticlass().getTasks()) {
      for (org.sodm.avro.BlockModel b : t.getBlocks()) {
        org.junit.jupiter.api.Assertions.assertTrue(b.getVectors().isEmpty());
        assertEquals(b.getCoef().size(), b.getIds().size());
        distinct.addAll(b.getIds());
        entries += b.getIds().size();
      }
    }
    org.junit.jupiter.api.Assertions.assertTrue(entries > 2 * distinct.size(), entries + " entries, " + distinct.size() + " distinct");
    assertEquals(new java.util.ArrayList<>(distinct), rec.getSupportVectors().getIds());
    MulticlassModel back = (MulticlassModel) ModelCodec.fromAvro(rec);
    sameScores(m, back);
    assertEquals(rec, ModelCodec.toAvro(back));

    // format 1: each block holds its own vectors, taken from the original model (not from the table)
    ModelRecord f1 = ModelRecord.newBuilder(rec).setFormatVersion(1).setSupportVectors(null).setDigest(null).build();
    for (int t = 0; t < m.plan().tasks(); t++) {
      KernelModel km = (KernelModel) m.subModel(t);
      for (int b = 0; b < km.blockCount(); b++) {
        List<org.sodm.avro.Features> v = new java.util.ArrayList<>();
        for (int i = 0; i < km.block(b).size(); i++) v.add(org.sodm.data.Instances.toAvro(km.block(b).supportVector(i)));
        f1.getMulticlass().getTasks().get(t).getBlocks().get(b).setVectors(v);
      }
    }
    f1.setDigest(ModelCodec.digest(f1));
    org.junit.jupiter.api.Assertions.assertTrue(encodedSize(f1) > encodedSize(rec), encodedSize(f1) + " vs " + encodedSize(rec));
    sameScores(m, (MulticlassModel) ModelCodec.fromAvro(f1));

    ModelRecord missing = ModelRecord.newBuilder(rec).build();
    long gone = missing.getSupportVectors().getIds().remove(0);
    missing.getSupportVectors().getVectors().remove(0);
    missing.setDigest(ModelCodec.digest(missing));
    Exception e = assertThrows(IllegalArgumentException.class, () -> ModelCodec.fromAvro(missing));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("support vector id " + gone + " of block"), e.getMessage());
    ModelRecord unordered = ModelRecord.newBuilder(rec).build();
    java.util.Collections.swap(unordered.getSupportVectors().getIds(), 0, 1);
    unordered.setDigest(ModelCodec.digest(unordered));
    e = assertThrows(IllegalArgumentException.class, () -> ModelCodec.fromAvro(unordered));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("not in ascending id order at entry 1"), e.getMessage());
    ModelRecord wrongFormat = ModelRecord.newBuilder(rec).setFormatVersion(1).build();
    wrongFormat.setDigest(ModelCodec.digest(wrongFormat));
    e = assertThrows(IllegalArgumentException.class, () -> ModelCodec.fromAvro(wrongFormat));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("a model of format 1 with a support vector table"), e.getMessage());
  }

  /** A binary model whose blocks share no support vector keeps them in its blocks: format 1, no table. */
  @Test
  void unsharedSupportVectorsStayInTheirBlocks() {
    ModelRecord rec = ModelCodec.toAvro(MetricsAndModelTest.twoBlockModel(false));
    assertEquals(1, rec.getFormatVersion());
    assertNull(rec.getSupportVectors());
    for (org.sodm.avro.BlockModel b : rec.getBlocks()) assertEquals(b.getCoef().size(), b.getVectors().size());
  }

  private static int encodedSize(ModelRecord r) {
    try {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      org.apache.avro.io.BinaryEncoder enc = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
      new org.apache.avro.specific.SpecificDatumWriter<>(ModelRecord.class).write(r, enc);
      enc.flush();
      return out.size();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The digest reads the record without changing it (it copies the record shallowly and sorts the copy's parameters). */
  @Test
  void digestLeavesTheRecordAsItWas() {
    java.util.Map<String, String> params = new java.util.LinkedHashMap<>();
    params.put("z.last", "1");
    params.put("a.first", "2");
    Provenance p = new Provenance("test", "now", "in", "fp", params, List.of(), 3);
    KernelModel m = MetricsAndModelTest.twoBlockModel(true);
    KernelModel withProv = new KernelModel(m.kernelSpec(), m.loss(), m.labels(), m.scaler(), new int[] {0, 1},
        new long[][] {{0, 1, 2, 3, 4}, {10, 11, 12, 13, 14}}, new KernelExpansion[] {m.block(0), m.block(1)}, p);
    ModelRecord rec = ModelCodec.toAvro(withProv);
    ModelRecord before = ModelRecord.newBuilder(rec).build();
    String d = ModelCodec.digest(rec);
    assertEquals(before, rec);
    assertEquals(List.of("z.last", "a.first"), rec.getProvenance().getParameters().keySet().stream().map(Object::toString).toList());
    assertEquals(d, rec.getDigest().toString(), "toAvro wrote the same digest");
    assertEquals(d, ModelCodec.digest(rec));
  }

  @Test
  void routingRoundTripsWithAndWithoutLocalCorrections() {
    KernelModel m = MetricsAndModelTest.twoBlockModel(true);
    Kernel k = m.kernelSpec().create();
    Random r = new Random(3);
    SparseVector[] sample = new SparseVector[12];
    for (int i = 0; i < sample.length; i++) sample[i] = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
    KernelKMeans km = KernelKMeans.fit(sample, k, 3, 10, 1);
    int[] clusterBlock = {1, 0, 1};
    KernelExpansion corr = new KernelExpansion(k, new SparseVector[] {sample[0], sample[5]}, new double[] {0.5, -0.25}, 0.1);
    for (Routing routing : new Routing[] {new Routing(km, clusterBlock, null, null),
        new Routing(km, clusterBlock, new KernelExpansion[] {corr, corr.scaled(2)}, new int[] {0, 1})}) {
      KernelModel routed = m.withRouting(routing);
      KernelModel back = (KernelModel) roundTrip(routed);
      assertEquals(routing.local() == null, back.routing().local() == null);
      for (SparseVector x : sample) {
        assertEquals(routed.decisionLocal(x), back.decisionLocal(x), 0.0);
        int b = clusterBlock[km.assign(routed.prepare(x))];
        double want = routing.local() == null ? m.block(b).decision(routed.prepare(x))
            : m.decision(x) + routing.local()[b].decision(routed.prepare(x));
        assertEquals(want, back.decisionLocal(x), 1e-12);
      }
    }
    assertThrows(IllegalStateException.class, () -> m.decisionLocal(sample[0]));
  }

  @Test
  void linearModelRoundTrips() {
    LinearModel m = new LinearModel(Loss.odm(2, 0.1, 0.5), new LabelMap("-1", "+1"), null, new double[] {0.5, -2, 0.25},
        0.75, "dsvrg", PROV);
    LinearModel back = assertInstanceOf(LinearModel.class, roundTrip(m));
    assertEquals("dsvrg", back.solver());
    assertEquals(0.75, back.bias());
    assertEquals(KernelSpec.linear(), back.kernelSpec());
    assertEquals(0.5 * 1 - 2 * 2 + 0.75, back.decision(SparseVector.ofDense(1, 2)), 0.0);
    assertThrows(IllegalArgumentException.class,
        () -> new LinearModel(Loss.hinge(1), m.labels(), null, new double[] {Double.NaN}, 0, "bqo", PROV));
  }

  @Test
  void saddleModelsRoundTripWithTheirNu() {
    for (Loss loss : new Loss[] {Loss.nu(0.37), Loss.hardMargin()}) {
      LinearModel m = new LinearModel(loss, new LabelMap("-1", "+1"), null, new double[] {0.5, -2, 0.25}, -0.5, "saddle", PROV);
      LinearModel back = assertInstanceOf(LinearModel.class, roundTrip(m));
      assertEquals(loss, back.loss());
    }
    // nu goes into the c field: the schema (and the digests of models written before nu existed) unchanged
    assertEquals(0.37, ModelCodec.lossToAvro(Loss.nu(0.37)).getC());
  }

  /** The flat loss record: a loss's absent parameters are stored at neutral values, and any spelling loads. */
  @Test
  void lossRecords() {
    org.sodm.avro.LossRecord h = ModelCodec.lossToAvro(Loss.hinge(2).withWeights(3, 1));
    assertEquals("hinge", h.getType());
    assertEquals(2, h.getC());
    assertEquals(1, h.getLambda());
    assertEquals(3, h.getPositiveWeight());
    org.sodm.avro.LossRecord o = ModelCodec.lossToAvro(Loss.odm(5, 0.2, 0.4));
    assertEquals("odm", o.getType());
    assertEquals(1, o.getC());
    assertEquals(0.2, o.getTheta());
    o.setType("ODM");
    o.setC(7.0); // an old model's unused C loads
    assertEquals(Loss.odm(5, 0.2, 0.4), ModelCodec.lossFromAvro(o));
  }
}
