package org.sodm.jobs.ingest;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.Instance;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.testing.LocalConf;

/** The ingest job end to end in Hadoop local mode. */
class IngestJobTest {
  @TempDir Path tmp;
  private Configuration conf;

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
  }

  static List<Instance> readInstances(Path dir) throws IOException {
    List<Instance> out = new ArrayList<>();
    File[] parts = dir.resolve("data").toFile().listFiles((d, n) -> n.startsWith("part-") && n.endsWith(".avro"));
    java.util.Arrays.sort(parts);
    for (File f : parts) {
      try (DataFileReader<Instance> r = new DataFileReader<>(f, new SpecificDatumReader<>(Instance.class))) {
        while (r.hasNext()) out.add(r.next());
      }
    }
    return out;
  }

  /** An independent reading of the LIBSVM sample: split on whitespace and colons. */
  static double[][] readDense(Path file, int dim, List<String> labels) throws IOException {
    List<double[]> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (line.isBlank()) continue;
      String[] tok = line.trim().split("\\s+");
      labels.add(tok[0]);
      double[] row = new double[dim];
      for (int k = 1; k < tok.length; k++) {
        String[] iv = tok[k].split(":");
        row[Integer.parseInt(iv[0]) - 1] = Double.parseDouble(iv[1]);
      }
      rows.add(row);
    }
    return rows.toArray(new double[0][]);
  }

  @Test
  void ingestsSampleDataWithStatsMatchingAnIndependentComputation() throws IOException {
    Path in = LocalConf.sampleData("svmguide1");
    Path out = tmp.resolve("ing");
    IngestJob.Result r = IngestJob.run(conf, List.of(in.toString()), new org.apache.hadoop.fs.Path(out.toString()));
    List<String> labels = new ArrayList<>();
    double[][] dense = readDense(in, 4, labels);

    List<Instance> got = readInstances(out);
    assertEquals(dense.length, got.size(), "one instance per line");
    Set<Long> ids = new HashSet<>();
    for (Instance i : got) ids.add(i.getId());
    assertEquals(got.size(), ids.size(), "ids unique");
    got.sort(java.util.Comparator.comparingLong(Instance::getId));
    List<String> lines = Files.readAllLines(in);
    long offset = 0;
    List<Long> offsets = new ArrayList<>();
    for (String l : lines) {
      if (!l.isBlank()) offsets.add(offset);
      offset += l.length() + 1;
    }
    for (int i = 0; i < dense.length; i++) {
      Instance x = got.get(i);
      assertEquals(Instances.idAtOffset(0, offsets.get(i)), x.getId(), "id = the line's byte offset");
      assertEquals(labels.get(i), x.getLabel());
      assertArrayEquals(dense[i], Instances.features(x.getFeatures()).toDense(4), 0.0);
    }

    assertEquals(dense.length, r.stats().getRows());
    assertEquals(4, r.stats().getDimension());
    long ones = labels.stream().filter("1"::equals).count();
    assertEquals("0", r.stats().getLabels().get(0).getLabel());
    assertEquals(dense.length - ones, r.stats().getLabels().get(0).getCount());
    assertEquals(ones, r.stats().getLabels().get(1).getCount());
    assertEquals(-1.0, r.labelMap().signed("0"));
    for (FeatureStat f : r.stats().getFeatures()) {
      int j = f.getIndex() - 1;
      double lo = Double.MAX_VALUE, hi = -Double.MAX_VALUE, sum = 0;
      for (double[] row : dense) {
        lo = Math.min(lo, row[j]);
        hi = Math.max(hi, row[j]);
        sum += row[j];
      }
      assertEquals(lo, f.getMin(), 0.0);
      assertEquals(hi, f.getMax(), 0.0);
      assertEquals(sum / dense.length, f.getSum() / r.stats().getRows(), 1e-9);
    }
    // the artifacts read back identically
    IngestJob.Result back = IngestJob.read(conf, new org.apache.hadoop.fs.Path(out.toString()));
    assertEquals(r.stats(), back.stats());
    assertEquals(r.labelMap(), back.labelMap());
    // the statistics (a record per feature, read back at once) uncompressed as the rows; the small artifacts in sodm.avro.codec
    assertEquals("null", codecOf(out.resolve(IngestJob.STATS)));
    assertEquals(conf.get(SodmConf.AVRO_CODEC), codecOf(out.resolve(IngestJob.LABELS)));
  }

  private static String codecOf(Path avro) throws IOException {
    try (DataFileReader<Object> r = new DataFileReader<>(avro.toFile(), new org.apache.avro.generic.GenericDatumReader<>())) {
      String c = r.getMetaString("avro.codec");
      return c == null ? "null" : c;
    }
  }

  @Test
  void sameInputSameIdsAndMultipleFilesGetDistinctIds() throws IOException {
    Path a = tmp.resolve("a.libsvm");
    Path b = tmp.resolve("b.libsvm.gz");
    Files.writeString(a, "1 1:1\n-1 2:1\n");
    try (var o = new java.util.zip.GZIPOutputStream(Files.newOutputStream(b))) {
      o.write("1 1:2\n-1 2:2\n1 3:3\n".getBytes());
    }
    IngestJob.run(conf, List.of(tmp.resolve("*.libsvm*").toString()), new org.apache.hadoop.fs.Path(tmp.resolve("o1").toString()));
    IngestJob.run(conf, List.of(b.toString(), a.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("o2").toString()));
    List<Instance> x = readInstances(tmp.resolve("o1"));
    List<Instance> y = readInstances(tmp.resolve("o2"));
    x.sort(java.util.Comparator.comparingLong(Instance::getId));
    y.sort(java.util.Comparator.comparingLong(Instance::getId));
    assertEquals(5, x.size());
    assertEquals(x, y, "order of the inputs on the command line does not change ids");
    assertEquals(5, x.stream().map(Instance::getId).distinct().count());
  }

  @Test
  void scalerArtifactIsWrittenAndMatchesStats() throws IOException {
    conf.set(SodmConf.INGEST_SCALE, "-1,1");
    IngestJob.Result r = IngestJob.run(conf, List.of(LocalConf.sampleData("svmguide1").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("s").toString()));
    IngestJob.Result back = IngestJob.read(conf, new org.apache.hadoop.fs.Path(tmp.resolve("s").toString()));
    assertNotNull(back.scaler());
    FeatureStat f1 = r.stats().getFeatures().get(0);
    SparseVector atMin = back.scaler().apply(new SparseVector(new int[] {1}, new double[] {f1.getMax()}));
    assertEquals(1.0, atMin.get(1), 1e-12);
  }

  /**
   * Index 2^31 - 1 costs what index 5 costs: statistics and the scaler follow the features present
   * (with arrays sized by the largest index, this ingest needed 16 GB per array and failed).
   */
  @Test
  void theLargestIndexCostsWhatASmallOneCosts() throws IOException {
    Path in = tmp.resolve("sparse.libsvm");
    Files.writeString(in, "1 5:1 2147483647:0.5\n-1 5:-1 1000000000:2\n1 2147483647:1.5\n-1 5:3\n");
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    IngestJob.Result r = IngestJob.run(conf, List.of(in.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("sp").toString()));
    assertEquals(Integer.MAX_VALUE, r.stats().getDimension());
    assertEquals(List.of(5, 1000000000, Integer.MAX_VALUE), r.stats().getFeatures().stream().map(FeatureStat::getIndex).toList());
    SparseVector y = r.scaler().apply(new SparseVector(new int[] {5, Integer.MAX_VALUE}, new double[] {3, 1.5}));
    assertEquals(1.0, y.get(5), 1e-12);
    assertEquals(1.0, y.get(Integer.MAX_VALUE), 1e-12);
  }

  @Test
  void badInputFailsWithFileAndLineAndLeavesNoOutput() throws IOException {
    Path bad = tmp.resolve("bad.txt");
    Files.writeString(bad, "1 1:1\n-1 2:1\n1 2:1 1:3\n");
    Path out = tmp.resolve("never");
    SodmException e = assertThrows(SodmException.class,
        () -> IngestJob.run(conf, List.of(bad.toString()), new org.apache.hadoop.fs.Path(out.toString())));
    assertTrue(e.getMessage().contains("bad.txt:3: feature indices must ascend"), e.getMessage());
    assertTrue(e.getMessage().contains("'1:3'"), e.getMessage());
    try (var s = Files.list(tmp)) {
      assertTrue(s.noneMatch(p -> p.getFileName().toString().contains("never")), "no partial output left");
    }
  }

  @Test
  void thirdLabelAcrossFilesFailsNamingIt() throws IOException {
    conf.setLong(SodmConf.INGEST_MAX_LABELS, 2);
    Files.writeString(tmp.resolve("p1.txt"), "1 1:1\n-1 2:1\n");
    Files.writeString(tmp.resolve("p2.txt"), "1 1:1\n\n5 2:1\n");
    SodmException e = assertThrows(SodmException.class, () -> IngestJob.run(conf,
        List.of(tmp.resolve("p1.txt").toString(), tmp.resolve("p2.txt").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("o").toString())));
    assertTrue(e.getMessage().contains("p2.txt:3: label '5' is a third distinct label"), e.getMessage());
  }

  @Test
  void emptyAndMissingInputsFail() throws IOException {
    Files.writeString(tmp.resolve("empty.txt"), "\n\n");
    assertTrue(assertThrows(SodmException.class, () -> IngestJob.run(conf, List.of(tmp.resolve("empty.txt").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("o").toString()))).getMessage().contains("empty input"));
    assertTrue(assertThrows(SodmException.class, () -> IngestJob.run(conf, List.of(tmp.resolve("nope.txt").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("o").toString()))).getMessage().contains("nope.txt does not exist"));
  }

  @Test
  void existingOutputIsKeptUnlessOverwrite() throws IOException {
    Files.writeString(tmp.resolve("a.txt"), "1 1:1\n-1 2:1\n");
    org.apache.hadoop.fs.Path o = new org.apache.hadoop.fs.Path(tmp.resolve("o").toString());
    IngestJob.run(conf, List.of(tmp.resolve("a.txt").toString()), o);
    RuntimeException e = assertThrows(org.sodm.jobs.support.SodmException.class,
        () -> IngestJob.run(conf, List.of(tmp.resolve("a.txt").toString()), o));
    assertTrue(e.getMessage().contains("already exists"), e.getMessage());
    conf.setBoolean(SodmConf.OVERWRITE, true);
    IngestJob.run(conf, List.of(tmp.resolve("a.txt").toString()), o);
  }

  @Test
  void csvAndAvroInputs() throws IOException {
    Files.writeString(tmp.resolve("d.csv"), "x1,x2,label\n0.5,0,a\n0,2,b\n1,1,a\n");
    conf.set(SodmConf.INGEST_LABEL_COLUMN, "-1");
    IngestJob.Result csv = IngestJob.run(conf, List.of(tmp.resolve("d.csv").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("c").toString()));
    assertEquals(3, csv.stats().getRows());
    assertEquals(-1.0, csv.labelMap().signed("a"));
    List<Instance> first = readInstances(tmp.resolve("c"));
    // re-ingest the Avro output: same rows, same labels
    IngestJob.Result avro = IngestJob.run(conf, List.of(tmp.resolve("c/data").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("c2").toString()));
    assertEquals(3, avro.stats().getRows());
    List<Instance> second = readInstances(tmp.resolve("c2"));
    assertEquals(first.stream().map(Instance::getFeatures).toList(), second.stream().map(Instance::getFeatures).toList());
    assertEquals(first.stream().map(Instance::getLabel).toList(), second.stream().map(Instance::getLabel).toList());
  }
}
