package org.sodm.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;
import org.sodm.avro.Features;
import org.sodm.avro.Instance;

class InstanceCodecTest {

  /** Instances as Avro's own specific writer writes them (boxed lists), with a null label and empty features among them. */
  private static List<Instance> instances(Random rnd, int n) {
    List<Instance> out = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      int nnz = r % 7 == 0 ? 0 : 1 + rnd.nextInt(r % 5 == 0 ? 300 : 20);
      List<Integer> idx = new ArrayList<>();
      List<Double> val = new ArrayList<>();
      int f = 0;
      for (int k = 0; k < nnz; k++) {
        f += 1 + rnd.nextInt(50);
        idx.add(f);
        val.add(k % 31 == 4 ? -0.0 : k % 37 == 5 ? Double.MIN_VALUE : k % 41 == 6 ? -Double.MAX_VALUE : rnd.nextGaussian() * Math.pow(10, rnd.nextInt(40) - 20));
      }
      String label = r % 11 == 0 ? null : r % 13 == 0 ? "k\u00e4tzchen \u732b " + r : r % 2 == 0 ? "+1" : "cat " + r;
      long id = r % 17 == 0 ? Long.MIN_VALUE + r : r % 19 == 0 ? Long.MAX_VALUE - r : (long) r * 1_000_003L - 5;
      out.add(new Instance(id, label, new Features(idx, val)));
    }
    return out;
  }

  private static byte[] file(List<Instance> in) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataFileWriter<Instance> w = new DataFileWriter<>(new SpecificDatumWriter<>(Instance.class))) {
      w.setSyncInterval(4096); // several blocks
      w.create(Instance.getClassSchema(), bytes);
      for (Instance i : in) w.append(i);
    }
    return bytes.toByteArray();
  }

  @Test
  void decodesThisVersionsFilesDirectlyIntoArraysAndEqualToAvrosReader() throws IOException {
    List<Instance> want = instances(new Random(1), 500);
    InstanceReader reader = new InstanceReader();
    List<Instance> got = new ArrayList<>();
    try (DataFileStream<Instance> s = new DataFileStream<>(new ByteArrayInputStream(file(want)), reader)) {
      Instance reuse = null;
      while (s.hasNext()) got.add(reuse = s.next(reuse));
    }
    assertTrue(reader.direct(), "the direct path");
    assertEquals(want.size(), got.size());
    for (int r = 0; r < want.size(); r++) {
      Instance w = want.get(r);
      Instance g = got.get(r);
      assertEquals(w, g, "row " + r);
      assertInstanceOf(PrimitiveLists.Ints.class, g.getFeatures().getIndices());
      SparseVector x = Instances.features(g.getFeatures());
      assertArrayEquals(w.getFeatures().getIndices().stream().mapToInt(Integer::intValue).toArray(), x.indices());
      assertArrayEquals(w.getFeatures().getValues().stream().mapToDouble(Double::doubleValue).toArray(), x.values(), 0);
    }
  }

  @Test
  void arraysWrittenInSeveralBlocksDecodeWhole() throws IOException {
    Instance want = instances(new Random(2), 6).get(5); // r = 5: up to 300 features
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder enc = EncoderFactory.get().blockingBinaryEncoder(bytes, null);
    new SpecificDatumWriter<>(Instance.class).write(want, enc);
    enc.flush();
    InstanceReader reader = new InstanceReader();
    reader.setSchema(Instance.getClassSchema());
    Instance got = reader.read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    assertEquals(want, got);
  }

  /** A file written under another schema (here: a field this version does not have) is resolved by Avro: equal records. */
  @Test
  void anotherWriterSchemaIsResolvedByAvro() throws IOException {
    Schema features = Instance.getClassSchema().getField("features").schema();
    Schema older = SchemaBuilder.record("Instance").namespace("org.sodm.avro").fields()
        .requiredLong("id").name("label").type().unionOf().nullType().and().stringType().endUnion().nullDefault()
        .name("weight").type().doubleType().doubleDefault(1)
        .name("features").type(features).noDefault().endRecord();
    List<Instance> want = instances(new Random(3), 50);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataFileWriter<GenericRecord> w = new DataFileWriter<>(new GenericDatumWriter<>(older))) {
      w.create(older, bytes);
      for (Instance i : want) {
        GenericRecord g = new GenericData.Record(older);
        g.put("id", i.getId());
        g.put("label", i.getLabel());
        g.put("weight", 2.0);
        g.put("features", i.getFeatures());
        w.append(g);
      }
    }
    InstanceReader reader = new InstanceReader();
    List<Instance> got = new ArrayList<>();
    try (DataFileStream<Instance> s = new DataFileStream<>(new ByteArrayInputStream(bytes.toByteArray()), reader)) {
      while (s.hasNext()) got.add(s.next());
    }
    assertFalse(reader.direct(), "resolved, not direct");
    assertEquals(want, got);
  }

  /** A vector built on a list's array never changes when the list does (Avro's reader clears and refills lists it reuses). */
  @Test
  void listsCopyBeforeChangingAnArrayTheyShare() {
    int[] idx = {1, 4, 9};
    double[] val = {0.5, -1, 2};
    SparseVector x = new SparseVector(idx, val);
    Features f = Instances.toAvro(x);
    assertSame(idx, ((PrimitiveLists.Ints) f.getIndices()).array(), "no copy while unchanged");
    f.getIndices().set(0, 2);
    f.getValues().clear();
    f.getValues().add(7.0);
    f.getIndices().add(12);
    assertArrayEquals(new int[] {1, 4, 9}, x.indices());
    assertArrayEquals(new double[] {0.5, -1, 2}, x.values(), 0);
    assertEquals(List.of(2, 4, 9, 12), f.getIndices());
    assertEquals(List.of(7.0), f.getValues());
    PrimitiveLists.Ints owned = (PrimitiveLists.Ints) f.getIndices();
    int[] out = owned.array(); // exactly full after the adds? if not, a copy; either way later changes must not reach it
    int[] before = out.clone();
    owned.remove(0);
    owned.set(0, 99);
    assertArrayEquals(before, out);
    assertEquals(List.of(99, 9, 12), owned);
  }

  /** The writer's bytes are Avro's own, for boxed lists and for primitive ones, with a plain and a blocking encoder. */
  @Test
  void writesTheBytesOfAvrosWriter() throws IOException {
    List<Instance> rows = instances(new Random(4), 300);
    // buffered and direct: the primitive rows are encoded whole (one writeFixed); blocking: field by field
    for (String kind : new String[] {"buffered", "direct", "blocking", "blocking direct"}) {
      boolean blocking = kind.startsWith("blocking");
      ByteArrayOutputStream avro = new ByteArrayOutputStream();
      ByteArrayOutputStream ours = new ByteArrayOutputStream();
      ByteArrayOutputStream oursPrimitive = new ByteArrayOutputStream();
      BinaryEncoder ea = encoder(kind, avro);
      BinaryEncoder eo = encoder(kind, ours);
      BinaryEncoder ep = encoder(kind, oursPrimitive);
      SpecificDatumWriter<Instance> a = new SpecificDatumWriter<>(Instance.class);
      InstanceWriter o = new InstanceWriter();
      o.setSchema(Instance.getClassSchema());
      for (Instance r : rows) {
        a.write(r, ea);
        o.write(r, eo);
        SparseVector x = new SparseVector(r.getFeatures().getIndices().stream().mapToInt(Integer::intValue).toArray(),
            r.getFeatures().getValues().stream().mapToDouble(Double::doubleValue).toArray());
        o.write(Instances.toAvro(r.getId(), r.getLabel(), x), ep);
      }
      ea.flush();
      eo.flush();
      ep.flush();
      assertArrayEquals(avro.toByteArray(), ours.toByteArray(), "boxed lists, " + kind);
      assertArrayEquals(avro.toByteArray(), oursPrimitive.toByteArray(), "primitive lists, " + kind);
      if (!blocking) { // and they read back as the rows they were
        InstanceReader reader = new InstanceReader();
        reader.setSchema(Instance.getClassSchema());
        org.apache.avro.io.BinaryDecoder dec = DecoderFactory.get().binaryDecoder(oursPrimitive.toByteArray(), null);
        for (Instance r : rows) assertEquals(r, reader.read(null, dec));
        assertTrue(dec.isEnd());
      }
    }
  }

  private static BinaryEncoder encoder(String kind, ByteArrayOutputStream out) {
    return switch (kind) {
      case "buffered" -> EncoderFactory.get().binaryEncoder(out, null);
      case "direct" -> EncoderFactory.get().directBinaryEncoder(out, null);
      case "blocking" -> EncoderFactory.get().blockingBinaryEncoder(out, null);
      default -> EncoderFactory.get().blockingDirectBinaryEncoder(out, null);
    };
  }

  /** The data model the jobs use hands out these for Instance and Avro's own for any other schema. */
  @Test
  void theDataModelPicksThemForInstancesOnly() {
    SodmAvroData data = new SodmAvroData(getClass().getClassLoader()); // as avro-mapred makes it
    assertInstanceOf(InstanceReader.class, data.createDatumReader(Instance.getClassSchema()));
    assertInstanceOf(InstanceReader.class, data.createDatumReader(Instance.getClassSchema(), Instance.getClassSchema()));
    assertInstanceOf(InstanceWriter.class, data.createDatumWriter(Instance.getClassSchema()));
    Schema other = Features.getClassSchema();
    assertFalse(data.createDatumReader(other) instanceof InstanceReader);
    assertFalse(data.createDatumWriter(other) instanceof InstanceWriter);
  }

  /** Every row of a file through {@link InstanceBlockDecoder}, block by block as DataFileStream hands them out. */
  private static List<Instance> blockDecoded(byte[] file) throws IOException {
    List<Instance> got = new ArrayList<>();
    InstanceBlockDecoder d = new InstanceBlockDecoder();
    try (DataFileStream<Object> s = new DataFileStream<>(new ByteArrayInputStream(file), new org.apache.avro.generic.GenericDatumReader<>())) {
      while (s.hasNext()) {
        long count = s.getBlockCount();
        java.nio.ByteBuffer b = s.nextBlock();
        d.decode(b.array(), b.arrayOffset() + b.position(), b.remaining(), count, collect(got));
      }
    }
    return got;
  }

  /** Rows as records (copies of the decoder's arrays, which it reuses). */
  private static InstanceBlockDecoder.Rows collect(List<Instance> out) {
    return (id, label, idx, val, n) -> {
      List<Integer> i = new ArrayList<>();
      List<Double> v = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        i.add(idx[k]);
        v.add(val[k]);
      }
      out.add(new Instance(id, label, new Features(i, v)));
    };
  }

  /**
   * The block decoder gives Avro's own records, bit for bit (-0.0, the smallest subnormal, -MAX_VALUE, ids at both ends of
   * long, non-ASCII labels, null labels, empty rows), over a file of several blocks and more distinct labels than it caches.
   */
  @Test
  void blockDecoderGivesAvrosRecords() throws IOException {
    List<Instance> want = instances(new Random(5), 700);
    assertTrue(want.stream().map(Instance::getLabel).distinct().count() > 100);
    List<Instance> got = blockDecoded(file(want));
    assertEquals(want.size(), got.size());
    for (int r = 0; r < want.size(); r++) {
      Instance w = want.get(r);
      Instance g = got.get(r);
      assertEquals(w.getId(), g.getId(), "row " + r);
      assertEquals(w.getLabel(), g.getLabel(), "row " + r);
      assertEquals(w.getFeatures().getIndices(), g.getFeatures().getIndices(), "row " + r);
      List<Double> wv = w.getFeatures().getValues();
      List<Double> gv = g.getFeatures().getValues();
      assertEquals(wv.size(), gv.size());
      for (int k = 0; k < wv.size(); k++) {
        assertEquals(Double.doubleToRawLongBits(wv.get(k)), Double.doubleToRawLongBits(gv.get(k)), "row " + r + " value " + k);
      }
    }
  }

  /** Arrays in several counted blocks with their byte sizes (a blocking encoder's), and large indices, decode whole. */
  @Test
  void blockDecoderReadsArraysInSeveralBlocks() throws IOException {
    List<Instance> want = new ArrayList<>(instances(new Random(6), 40));
    want.add(new Instance(9L, "big", new Features(List.of(1, 128, 16_384, 2_097_152, Integer.MAX_VALUE), List.of(1.0, 2.0, 3.0, 4.0, 5.0))));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder enc = new EncoderFactory().configureBlockSize(64).blockingBinaryEncoder(bytes, null);
    SpecificDatumWriter<Instance> w = new SpecificDatumWriter<>(Instance.class);
    for (Instance i : want) w.write(i, enc);
    enc.flush();
    byte[] b = bytes.toByteArray();
    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    BinaryEncoder pe = EncoderFactory.get().binaryEncoder(plain, null);
    for (Instance i : want) w.write(i, pe);
    pe.flush();
    assertTrue(b.length > plain.size(), "the blocking encoder wrote arrays in sized blocks");
    List<Instance> got = new ArrayList<>();
    new InstanceBlockDecoder().decode(b, 0, b.length, want.size(), collect(got));
    assertEquals(want, got);
  }

  /** A block that ends inside a record, or holds more than its count, is refused (never rows from past its end). */
  @Test
  void blockDecoderRefusesTruncatedAndOverlongBlocks() throws IOException {
    List<Instance> rows = instances(new Random(7), 30);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder enc = EncoderFactory.get().binaryEncoder(bytes, null);
    SpecificDatumWriter<Instance> w = new SpecificDatumWriter<>(Instance.class);
    for (Instance i : rows) w.write(i, enc);
    enc.flush();
    byte[] b = bytes.toByteArray();
    byte[] padded = new byte[b.length + 50];
    System.arraycopy(b, 0, padded, 10, b.length);
    List<Instance> got = new ArrayList<>();
    new InstanceBlockDecoder().decode(padded, 10, b.length, rows.size(), collect(got)); // an offset into a larger array
    assertEquals(rows, got);
    for (int cut : new int[] {1, 5, 200}) {
      IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
          () -> new InstanceBlockDecoder().decode(padded, 10, b.length - cut, rows.size(), (id, l, i, v, n) -> {}));
      assertTrue(e.getMessage().contains("ends inside a record"), e.getMessage());
    }
    IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
        () -> new InstanceBlockDecoder().decode(b, 0, b.length, rows.size() - 1, (id, l, i, v, n) -> {}));
    assertTrue(e.getMessage().contains("byte(s) after the block's 29 records"), e.getMessage());
  }
}
