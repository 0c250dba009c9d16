package org.sodm.jobs.ingest;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.hadoop.io.AvroSerialization;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.mrunit.types.Pair;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sodm.avro.Instance;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.jobs.support.SodmConf;

/** MRUnit tests of the ingest mapper: good lines and every kind of bad line. */
class IngestMapperTest {
  /** The path MRUnit's mock input split reports. */
  private static final String FILE = "somefile";

  private MapDriver<Object, Object, AvroKey<Instance>, NullWritable> driver;

  @org.junit.jupiter.api.io.TempDir java.nio.file.Path statsDir;

  @BeforeEach
  void setUp() {
    AvroClasses.trust();
    driver = MapDriver.newMapDriver(new IngestMapper());
    Configuration conf = driver.getConfiguration();
    conf.addResource(SodmConf.DEFAULT_RESOURCE);
    conf.setStrings("io.serializations", "org.apache.hadoop.io.serializer.WritableSerialization",
        AvroSerialization.class.getName());
    AvroSerialization.setKeyWriterSchema(conf, Instance.getClassSchema());
    AvroSerialization.setKeyReaderSchema(conf, Instance.getClassSchema());
    conf.setStrings(IngestTask.FILES_KEY, "other", FILE);
    conf.set(IngestMapper.FORMATS_KEY + "." + FILE, "libsvm");
    conf.set(IngestTask.STATS_DIR_KEY, statsDir.toString());
  }

  private void lines(String... ls) {
    long off = 0;
    for (String l : ls) {
      driver.withInput(new LongWritable(off), new Text(l));
      off += l.length() + 1;
    }
  }

  @Test
  void goodLinesBecomeInstancesWithStableIds() throws IOException {
    lines("+1 1:0.5 3:2", "", "0 2:-1", "1.0 4:1e-2 # comment");
    List<Pair<AvroKey<Instance>, NullWritable>> out = driver.run();
    assertEquals(3, out.size());
    Instance a = out.get(0).getFirst().datum();
    Instance b = out.get(1).getFirst().datum();
    Instance c = out.get(2).getFirst().datum();
    assertEquals(Instances.idAtOffset(1, 0), a.getId(), "file ordinal 1 (second listed), byte 0");
    assertEquals(Instances.idAtOffset(1, 14), b.getId(), "the line's byte offset (the blank line 2 still counts)");
    assertEquals(Instances.idAtOffset(1, 21), c.getId());
    assertEquals("1", a.getLabel());
    assertEquals("0", b.getLabel());
    assertEquals("1", c.getLabel());
    assertEquals(List.of(1, 3), a.getFeatures().getIndices());
    assertEquals(List.of(0.5, 2.0), a.getFeatures().getValues());
    assertEquals(3, driver.getCounters().findCounter(IngestTask.COUNTER_GROUP, "records").getValue());
    org.sodm.data.StatsAccumulator read = new org.sodm.data.StatsAccumulator();
    IngestTask.mergeStats(new Configuration(), new org.apache.hadoop.fs.Path(statsDir.resolve(IngestTask.statsFileName(1, 0, 4)).toString()),
        read, w -> w);
    org.sodm.avro.FeatureStats st = read.toAvro();
    assertEquals(3, st.getRows());
    assertEquals(4, st.getDimension());
    assertEquals(2, st.getLabels().size());
    assertEquals(2, st.getLabels().get(1).getCount(), "label 1 twice");
  }

  @ParameterizedTest
  @ValueSource(strings = {"1 0:1", "1 3:1 2:1", "1 2:NaN", "1 2:inf", "1 2:x", "2:1 3:1", "1 a:1", "1 1:1:1", "+ 1:1"})
  void everyBadLineFailsWithFileLineAndText(String bad) {
    lines("1 1:1", bad);
    IOException e = assertThrows(IOException.class, () -> driver.run());
    assertTrue(e.getMessage().startsWith(FILE + ":2: "), e.getMessage());
    assertTrue(e.getMessage().contains("offending text"), e.getMessage());
  }

  @Test
  void thirdLabelFailsNamingItAndWhere() {
    driver.getConfiguration().setLong(SodmConf.INGEST_MAX_LABELS, 2);
    lines("1 1:1", "-1 1:2", "1 1:3", "7 1:4");
    IOException e = assertThrows(IOException.class, () -> driver.run());
    assertTrue(e.getMessage().startsWith(FILE + ":4: label '7' is a third distinct label"), e.getMessage());
  }

  @Test
  void skipBadRecordsCountsAndSkipsUpToTheCap() throws IOException {
    driver.getConfiguration().setLong(SodmConf.INGEST_SKIP_BAD, 2);
    lines("1 1:1", "1 0:1", "-1 2:1", "x", "1 3:1");
    List<Pair<AvroKey<Instance>, NullWritable>> out = driver.run();
    assertEquals(3, out.size());
    assertEquals(2, driver.getCounters().findCounter(IngestTask.COUNTER_GROUP, "bad records").getValue());
  }

  @Test
  void skipBadRecordsFailsPastTheCap() {
    driver.getConfiguration().setLong(SodmConf.INGEST_SKIP_BAD, 1);
    lines("1 1:1", "1 0:1", "-1 2:1", "x");
    IOException e = assertThrows(IOException.class, () -> driver.run());
    assertTrue(e.getMessage().contains(FILE + ":4:"), e.getMessage());
    assertTrue(e.getMessage().contains("more than 1 bad records"), e.getMessage());
  }

  @Test
  void csvWithHeaderAndLabelLast() throws IOException {
    Configuration conf = driver.getConfiguration();
    conf.set(IngestMapper.FORMATS_KEY + "." + FILE, "csv");
    conf.set(SodmConf.INGEST_LABEL_COLUMN, "-1");
    lines("b,g,r,class", "1,0,3,yes", "0,2,0,no");
    List<Pair<AvroKey<Instance>, NullWritable>> out = driver.run();
    assertEquals(2, out.size());
    assertEquals("yes", out.get(0).getFirst().datum().getLabel());
    assertEquals(List.of(1, 3), out.get(0).getFirst().datum().getFeatures().getIndices());
    assertEquals(Instances.idAtOffset(1, 12), out.get(0).getFirst().datum().getId());
  }
}
