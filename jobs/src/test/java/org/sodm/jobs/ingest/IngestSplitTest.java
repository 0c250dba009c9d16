package org.sodm.jobs.ingest;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.FeatureStats;
import org.sodm.avro.Instance;
import org.sodm.data.Instances;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.testing.LocalConf;

/** One text file read by many map tasks: the same instances, statistics, sample and messages as one task. */
class IngestSplitTest {
  private static final String SPLIT_MAX = org.sodm.jobs.spec.Param.INGEST_SPLIT_BYTES.key();
  @TempDir Path tmp;
  private Configuration conf;

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.setLong(SodmConf.LANDMARK_CANDIDATES, 40);
    conf.setInt("mapreduce.local.map.tasks.maximum", 2);
  }

  /** LIBSVM lines, with blank and comment lines, CRLF endings here and there; label -1 first at line {@code firstNeg}. */
  static List<String> lines(int n, int firstNeg, long seed) {
    Random r = new Random(seed);
    List<String> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      if (i % 97 == 0) {
        out.add(i % 2 == 0 ? "" : "# a comment");
        continue;
      }
      StringBuilder sb = new StringBuilder(i >= firstNeg && r.nextBoolean() ? "-1" : "+1");
      for (int j = 1; j <= 8; j++) {
        if (r.nextInt(3) > 0) sb.append(' ').append(j).append(':').append(String.format(Locale.ROOT, "%.6g", r.nextGaussian()));
      }
      out.add(sb.toString());
    }
    return out;
  }

  static void write(Path f, List<String> lines) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) sb.append(lines.get(i)).append(i % 13 == 5 ? "\r\n" : "\n");
    Files.writeString(f, sb, StandardCharsets.UTF_8);
  }

  private Path ingest(Path in, long splitMax, String name) throws IOException {
    Configuration c = new Configuration(conf);
    c.setLong(SPLIT_MAX, splitMax);
    Path out = tmp.resolve(name);
    IngestJob.run(c, List.of(in.toString()), new org.apache.hadoop.fs.Path(out.toString()));
    return out;
  }

  static int dataParts(Path out) {
    File[] parts = out.resolve("data").toFile().listFiles((d, n) -> n.startsWith("part-") && n.endsWith(".avro"));
    return parts.length;
  }

  private List<Instance> sample(Path out) throws IOException {
    Path s = out.resolve(IngestJob.sampleDirName(conf)).resolve("sample-f000000.avro");
    return AvroFiles.readAll(conf, new org.apache.hadoop.fs.Path(s.toString()), Instance.class);
  }

  private FeatureStats stats(Path out) throws IOException {
    return AvroFiles.readOne(conf, new org.apache.hadoop.fs.Path(out.resolve(IngestJob.STATS).toString()), FeatureStats.class);
  }

  @Test
  void manySplitsGiveTheInstancesStatsAndSampleOfOneTask() throws IOException {
    Path in = tmp.resolve("big.libsvm");
    write(in, lines(3000, 1700, 7));
    long size = Files.size(in);
    Path one = ingest(in, size * 2, "one");
    Path many = ingest(in, size / 6, "many");
    assertEquals(1, dataParts(one));
    assertTrue(dataParts(many) >= 4, "split into " + dataParts(many) + " tasks");

    List<Instance> a = IngestJobTest.readInstances(one);
    List<Instance> b = IngestJobTest.readInstances(many);
    a.sort(Comparator.comparingLong(Instance::getId));
    b.sort(Comparator.comparingLong(Instance::getId));
    assertEquals(3000 - 3000 / 97, a.size());
    assertEquals(a, b, "ids, labels and features do not depend on the split size");

    // ids are the byte offsets of the lines
    byte[] bytes = Files.readAllBytes(in);
    for (Instance x : List.of(a.get(0), a.get(1234), a.get(a.size() - 1))) {
      long off = x.getId() - Instances.idAtOffset(0, 0);
      assertTrue(off == 0 || bytes[(int) off - 1] == '\n', "id " + x.getId() + " starts a line");
    }

    FeatureStats sa = stats(one);
    FeatureStats sb = stats(many);
    assertEquals(sa.getRows(), sb.getRows());
    assertEquals(sa.getLabels(), sb.getLabels(), "counts and first occurrences (file:line) alike");
    assertTrue(sb.getLabels().get(0).getFirstSeen().endsWith("big.libsvm:" + firstNegLine(lines(3000, 1700, 7))),
        sb.getLabels().get(0).getFirstSeen());
    for (int f = 0; f < sa.getFeatures().size(); f++) {
      FeatureStat x = sa.getFeatures().get(f);
      FeatureStat y = sb.getFeatures().get(f);
      assertEquals(x.getMin(), y.getMin());
      assertEquals(x.getMax(), y.getMax());
      assertEquals(x.getNonZeros(), y.getNonZeros());
      assertEquals(x.getSum(), y.getSum(), 1e-9 * Math.max(1, Math.abs(x.getSum())));
    }
  }

  private static int firstNegLine(List<String> lines) {
    for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("-1")) return i + 1;
    throw new AssertionError();
  }

  @Test
  void theSampleIsTheSameForTwoSplitSizesAndDependsOnTheSeed() throws IOException {
    Path in = tmp.resolve("s.libsvm");
    write(in, lines(2500, 1, 11));
    long size = Files.size(in);
    Path one = ingest(in, size * 2, "one");
    Path five = ingest(in, size / 5, "five");
    Path seven = ingest(in, size / 7, "seven");
    assertTrue(dataParts(seven) >= 7);
    List<Instance> s1 = sample(one);
    assertEquals(40, s1.size());
    assertEquals(s1, sample(five));
    assertEquals(s1, sample(seven));
    for (int i = 1; i < s1.size(); i++) assertTrue(s1.get(i - 1).getId() < s1.get(i).getId(), "in id order");
    conf.setLong(SodmConf.SEED, 2);
    assertNotEquals(s1, sample(ingest(in, size / 5, "seed2")));
    assertFalse(Files.exists(five.resolve("_samples")), "the parts are merged and removed");
  }

  @Test
  void anErrorInTheThirdSplitNamesTheLineOfTheFileAndTheText() throws IOException {
    List<String> ls = lines(2000, 1, 5);
    Path in = tmp.resolve("bad.libsvm");
    write(in, ls);
    long size = Files.size(in);
    long splitMax = size / 5;
    // the first line that starts well inside the third split
    byte[] bytes = Files.readAllBytes(in);
    long off = 0;
    int line = 1;
    while (off < 2 * splitMax + 100) {
      while (bytes[(int) off] != '\n') off++;
      off++;
      line++;
    }
    ls.set(line - 1, "+1 3:1 2:7"); // not ascending
    write(in, ls);
    SodmException e = assertThrows(SodmException.class, () -> ingest(in, splitMax, "o"));
    assertTrue(e.getMessage().contains("bad.libsvm:" + line + ": feature indices must ascend"), e.getMessage());
    assertTrue(e.getMessage().contains("offending text: '2:7'"), e.getMessage());
    // and as one task: the same message
    SodmException e1 = assertThrows(SodmException.class, () -> ingest(in, size * 2, "o1"));
    assertTrue(e1.getMessage().contains("bad.libsvm:" + line + ": feature indices must ascend"), e1.getMessage());
  }

  @Test
  void aThirdLabelInALaterSplitNamesItsLine() throws IOException {
    List<String> ls = lines(2000, 1, 9);
    ls.set(1500, "5 1:1");
    Path in = tmp.resolve("three.libsvm");
    write(in, ls);
    conf.setLong(SodmConf.INGEST_MAX_LABELS, 2);
    SodmException e = assertThrows(SodmException.class, () -> ingest(in, Files.size(in) / 5, "o"));
    assertTrue(e.getMessage().contains("three.libsvm:1501: label '5' is a third distinct label"), e.getMessage());
  }

  @Test
  void compressedCopiesGiveTheSameIdsAsThePlainFile() throws IOException {
    Path in = tmp.resolve("p.libsvm");
    write(in, lines(800, 1, 3));
    byte[] bytes = Files.readAllBytes(in);
    Path gz = tmp.resolve("z").resolve("p.libsvm.gz");
    Files.createDirectories(gz.getParent());
    try (var o = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      o.write(bytes);
    }
    Path bz = tmp.resolve("b").resolve("p.libsvm.bz2");
    Files.createDirectories(bz.getParent());
    var codec = new org.apache.hadoop.io.compress.BZip2Codec();
    codec.setConf(conf);
    try (var o = codec.createOutputStream(Files.newOutputStream(bz))) {
      o.write(bytes);
    }
    long small = bytes.length / 4;
    List<Instance> a = IngestJobTest.readInstances(ingest(in, small, "plain"));
    List<Instance> b = IngestJobTest.readInstances(ingest(gz, small, "gz"));
    List<Instance> c = IngestJobTest.readInstances(ingest(bz, small, "bz"));
    a.sort(Comparator.comparingLong(Instance::getId));
    b.sort(Comparator.comparingLong(Instance::getId));
    c.sort(Comparator.comparingLong(Instance::getId));
    assertEquals(a, b);
    assertEquals(a, c);
  }
}
