package org.sodm.jobs.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Features;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/**
 * A resident task's rows read straight from the ingested Avro blocks ({@link DealtInputFormat#dealRows}) are the rows its
 * record reader deals, in the same order, bit for bit: over two ingested files, for every block, with and without a scaler,
 * for a one-vs-rest task and with a held-out fold; and a row the problem cannot take fails naming its file.
 */
class DealtRowsTest {
  @TempDir Path tmp;

  /** One dealt row: id, y, indices, values (raw bits). */
  private record Row(long id, double y, List<Integer> idx, List<Long> bits) {
    static Row of(long id, double y, int[] idx, double[] val, int n) {
      List<Integer> i = new ArrayList<>();
      List<Long> v = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        i.add(idx[k]);
        v.add(Double.doubleToRawLongBits(val[k]));
      }
      return new Row(id, y, i, v);
    }
  }

  private Configuration ingested(String name, String scale) throws IOException {
    Configuration conf = LocalConf.create(tmp.resolve(name + "-conf"));
    if (scale != null) conf.set(SodmConf.INGEST_SCALE, scale);
    IngestJob.Result data = IngestJob.run(conf, List.of(LocalConf.sampleData("svmguide1").toString(),
        LocalConf.sampleData("svmguide1.t").toString()), new org.apache.hadoop.fs.Path(tmp.resolve(name).toString()));
    org.sodm.jobs.spec.TrainSpec.from(conf).withDimension(4).writeTo(conf);
    conf.set(LinearKeys.INGEST_DIR, data.dir().toString());
    return conf;
  }

  private static List<InputSplit> splits(Configuration conf, int k) throws IOException {
    conf.setInt(LinearKeys.BLOCKS, k);
    return new DealtInputFormat().getSplits(Job.getInstance(conf));
  }

  private static List<Row> byReader(Configuration conf, InputSplit split) throws Exception {
    List<Row> out = new ArrayList<>();
    try (DealtInputFormat.Reader r = new DealtInputFormat.Reader()) {
      r.initialize(split, new TaskAttemptContextImpl(conf, new TaskAttemptID()));
      while (r.nextKeyValue()) {
        TrainRecord t = r.getCurrentKey().datum();
        SparseVector x = Instances.features(t.getFeatures());
        out.add(Row.of(t.getId(), t.getY(), x.indices(), x.values(), x.nnz()));
      }
    }
    return out;
  }

  private static List<Row> byBlocks(Configuration conf, InputSplit split) throws IOException {
    List<Row> out = new ArrayList<>();
    int[] progress = {0};
    assertTrue(DealtInputFormat.dealRows((DealtInputFormat.Split) split, conf, (id, y, idx, val, n) -> out.add(Row.of(id, y, idx, val, n)),
        () -> progress[0]++));
    assertTrue(progress[0] >= 2, "progress once per Avro block of each file");
    return out;
  }

  private static void sameRows(Configuration conf, int k, String what) throws Exception {
    int total = 0;
    for (InputSplit s : splits(conf, k)) {
      List<Row> want = byReader(conf, s);
      List<Row> got = byBlocks(conf, s);
      assertFalse(want.isEmpty(), what);
      assertEquals(want, got, what + ", " + ((DealtInputFormat.Split) s).describe());
      total += want.size();
    }
    assertTrue(total > 1000, what + ": " + total + " rows");
  }

  @Test
  void blocksDealtFromAvroBlocksAreTheReadersRows() throws Exception {
    Configuration plain = ingested("plain", null);
    assertEquals(2, org.sodm.jobs.support.AvroFiles.dataFiles(plain, DealtInputFormat.dataDir(plain)).stream()
        .filter(p -> p.getName().endsWith(".avro")).count(), "two ingested files");
    sameRows(plain, 3, "binary");
    Configuration ovr = new Configuration(plain);
    ovr.set(LinearKeys.TASK_POSITIVE, "1");
    sameRows(ovr, 2, "one-vs-rest task");
    Configuration held = new Configuration(plain);
    held.setInt(LinearKeys.HELD_OUT_FOLD, 1);
    held.setInt(LinearKeys.HASH_FOLDS, 3);
    sameRows(held, 2, "held-out fold");
    sameRows(ingested("scaled", "-1,1"), 3, "scaled");
  }

  /** Ingested files written with a codec (their blocks come out of DataFileStream decompressed) deal the same rows. */
  @Test
  void compressedIngestedFilesDealTheSameRows() throws Exception {
    Configuration conf = LocalConf.create(tmp.resolve("deflate-conf"));
    conf.setBoolean("mapreduce.output.fileoutputformat.compress", true);
    conf.set("avro.output.codec", "deflate");
    IngestJob.Result data = IngestJob.run(conf, List.of(LocalConf.sampleData("svmguide1").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("deflate").toString()));
    org.sodm.jobs.spec.TrainSpec.from(conf).withDimension(4).writeTo(conf);
    conf.set(LinearKeys.INGEST_DIR, data.dir().toString());
    for (org.apache.hadoop.fs.Path p : org.sodm.jobs.support.AvroFiles.dataFiles(conf, DealtInputFormat.dataDir(conf))) {
      if (!p.getName().endsWith(".avro")) continue;
      try (org.apache.avro.file.DataFileStream<Object> s = new org.apache.avro.file.DataFileStream<>(
          p.getFileSystem(conf).open(p), new org.apache.avro.generic.GenericDatumReader<>())) {
        assertEquals("deflate", s.getMetaString("avro.codec"), p.toString());
      }
    }
    sameRows(conf, 2, "deflate");
  }

  /** A row whose label is not the problem's fails naming the ingested file, on the block path as on the record path. */
  @Test
  void aRowThatCannotBeDealtNamesItsFile() throws Exception {
    Configuration conf = ingested("bad", null);
    org.apache.hadoop.fs.Path bad = new org.apache.hadoop.fs.Path(DealtInputFormat.dataDir(conf), "part-m-99999.avro");
    try (DataFileWriter<Instance> w = new DataFileWriter<>(new SpecificDatumWriter<>(Instance.class))) {
      w.create(Instance.getClassSchema(), new java.io.File(bad.toUri().getPath()));
      w.append(new Instance(7L, "cat", new Features(Arrays.asList(1, 2), Arrays.asList(0.5, 1.5))));
    }
    InputSplit only = splits(conf, 1).get(0);
    IOException e = assertThrows(IOException.class, () -> byBlocks(conf, only));
    assertTrue(e.getMessage().contains("part-m-99999.avro") && e.getMessage().contains("label 'cat'"), e.getMessage());
    Exception r = assertThrows(Exception.class, () -> byReader(conf, only));
    assertTrue(r.getMessage().contains("label 'cat'"), r.getMessage());
  }
}
