package org.sodm.jobs.support;

import java.io.IOException;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapreduce.AvroKeyInputFormat;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * {@link AvroKeyInputFormat} (the same splits, records and schema) with its file splits as {@link FilePiece}s: Hadoop then
 * does not sum its file system's byte counters over every thread around each record a map task reads. A reader's failure
 * names the file ({@link ReportingRecordReader}).
 */
public class AvroPiecesInputFormat<T> extends AvroKeyInputFormat<T> {
  @Override
  public List<InputSplit> getSplits(JobContext job) throws IOException {
    return FilePiece.wrap(super.getSplits(job));
  }

  @Override
  public RecordReader<AvroKey<T>, NullWritable> createRecordReader(InputSplit split, TaskAttemptContext context)
      throws IOException, InterruptedException {
    return new ReportingRecordReader<>(super.createRecordReader(FilePiece.inner(split), context),
        "reading " + FilePiece.unwrap(split).getPath() + " as Avro");
  }
}
