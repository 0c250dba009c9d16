package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.ingest.IngestInputFormat;
import org.sodm.testing.LocalConf;

/**
 * The ingest's splits are {@link FilePiece}s (not {@code FileSplit}s, which make Hadoop sum its byte counters around every
 * record) that read every line of the file exactly once, at its byte offset; its output format is not a
 * {@code FileOutputFormat} for the same reason.
 */
class FilePieceTest {
  @TempDir Path tmp;

  @Test
  void aPieceTravelsAsItsFileSplitAndUnwraps() throws Exception {
    FileSplit f = new FileSplit(new org.apache.hadoop.fs.Path("file:/data/train.libsvm"), 4096, 1 << 20, new String[0]);
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    new FilePiece(f).write(new DataOutputStream(b));
    FilePiece back = new FilePiece();
    back.readFields(new DataInputStream(new ByteArrayInputStream(b.toByteArray())));
    FileSplit u = FilePiece.unwrap(back);
    assertEquals(f.getPath(), u.getPath());
    assertEquals(4096, u.getStart());
    assertEquals(1 << 20, u.getLength());
    assertEquals(1 << 20, back.getLength());
    assertSame(f, FilePiece.unwrap(f));
    InputSplit other = new InputSplit() {
      @Override
      public long getLength() {
        return 0;
      }

      @Override
      public String[] getLocations() {
        return new String[0];
      }
    };
    assertSame(other, FilePiece.inner(other));
    assertThrows(IllegalArgumentException.class, () -> FilePiece.unwrap(other));
  }

  @Test
  void theIngestReadsEveryLineOnceFromPieces() throws Exception {
    StringBuilder text = new StringBuilder();
    List<Long> offsets = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      offsets.add((long) text.length());
      text.append(i % 2 == 0 ? "+1" : "-1").append(" 1:").append(i).append(i % 7 == 0 ? "\r\n" : "\n");
    }
    Path file = tmp.resolve("train.libsvm");
    Files.writeString(file, text);
    Configuration conf = LocalConf.create(tmp);
    conf.setLong(FileInputFormat.SPLIT_MINSIZE, 4000);
    conf.setLong(FileInputFormat.SPLIT_MAXSIZE, 4000);
    Job job = Job.getInstance(conf);
    FileInputFormat.setInputPaths(job, new org.apache.hadoop.fs.Path(file.toUri()));
    IngestInputFormat format = new IngestInputFormat();
    List<InputSplit> splits = format.getSplits(job);
    assertTrue(splits.size() >= 4, splits.size() + " splits");
    List<Long> seen = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    for (InputSplit s : splits) {
      assertTrue(s instanceof FilePiece, s.getClass().getName());
      assertFalse(s instanceof FileSplit);
      TaskAttemptContextImpl ctx = new TaskAttemptContextImpl(job.getConfiguration(), new TaskAttemptID());
      try (RecordReader<Object, Object> r = format.createRecordReader(s, ctx)) {
        r.initialize(s, ctx);
        while (r.nextKeyValue()) {
          seen.add(((org.apache.hadoop.io.LongWritable) r.getCurrentKey()).get());
          lines.add(r.getCurrentValue().toString());
        }
      }
    }
    assertEquals(offsets, seen);
    for (int i = 0; i < lines.size(); i++) assertEquals((i % 2 == 0 ? "+1" : "-1") + " 1:" + i, lines.get(i));
  }

  @Test
  void wholeAvroFilesArePiecesReadWhole() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    List<org.sodm.avro.Instance> rows = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      rows.add(org.sodm.data.Instances.toAvro(i + 1, i % 2 == 0 ? "1" : "-1", new org.sodm.data.SparseVector(new int[] {1, 3},
          new double[] {i, -i})));
    }
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(tmp.resolve("parts").toUri());
    AvroFiles.write(conf, new org.apache.hadoop.fs.Path(dir, "part-m-00000.avro"), org.sodm.avro.Instance.getClassSchema(),
        rows.subList(0, 200));
    AvroFiles.write(conf, new org.apache.hadoop.fs.Path(dir, "part-m-00001.avro"), org.sodm.avro.Instance.getClassSchema(),
        rows.subList(200, 500));
    Job job = Job.getInstance(conf);
    FileInputFormat.setInputPaths(job, dir);
    org.apache.avro.mapreduce.AvroJob.setInputKeySchema(job, org.sodm.avro.Instance.getClassSchema());
    WholeFileAvroInputFormat<org.sodm.avro.Instance> format = new WholeFileAvroInputFormat<>();
    List<InputSplit> splits = format.getSplits(job);
    assertEquals(2, splits.size());
    List<Long> ids = new ArrayList<>();
    for (InputSplit s : splits) {
      assertTrue(s instanceof FilePiece, s.getClass().getName());
      TaskAttemptContextImpl ctx = new TaskAttemptContextImpl(job.getConfiguration(), new TaskAttemptID());
      try (RecordReader<org.apache.avro.mapred.AvroKey<org.sodm.avro.Instance>, org.apache.hadoop.io.NullWritable> r =
          format.createRecordReader(s, ctx)) {
        r.initialize(s, ctx);
        while (r.nextKeyValue()) ids.add(r.getCurrentKey().datum().getId());
      }
    }
    ids.sort(null);
    List<Long> expected = new ArrayList<>();
    for (long i = 1; i <= 500; i++) expected.add(i);
    assertEquals(expected, ids);
  }

  @Test
  void theUncountedOutputIsNotAFileOutputFormat() {
    assertFalse(FileOutputFormat.class.isAssignableFrom(UncountedAvroOutputFormat.class));
  }
}
