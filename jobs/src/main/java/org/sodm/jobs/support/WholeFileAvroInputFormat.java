package org.sodm.jobs.support;

import org.apache.avro.mapreduce.AvroKeyInputFormat;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobContext;

/**
 * Avro keys read one file per task. For the tasks whose result depends on the order in which they
 * see rows (the stratified dealing, the landmark reservoir): with one split per ingested part
 * their seed and their row sequence depend only on the part, never on the file system's block
 * size, so a model is the same on the local file system (32 MB blocks) and on HDFS (128 MB).
 * The parts themselves are cut by {@code sodm.ingest.split.bytes}, also independent of it.
 */
public class WholeFileAvroInputFormat<T> extends AvroKeyInputFormat<T> {
  @Override
  protected boolean isSplitable(JobContext context, Path filename) {
    return false;
  }

  /** Each file as a {@link FilePiece}: Hadoop then does not sum its byte counters around every record. */
  @Override
  public java.util.List<org.apache.hadoop.mapreduce.InputSplit> getSplits(JobContext job) throws java.io.IOException {
    return FilePiece.wrap(super.getSplits(job));
  }

  @Override
  public org.apache.hadoop.mapreduce.RecordReader<org.apache.avro.mapred.AvroKey<T>, org.apache.hadoop.io.NullWritable> createRecordReader(
      org.apache.hadoop.mapreduce.InputSplit split, org.apache.hadoop.mapreduce.TaskAttemptContext context)
      throws java.io.IOException, InterruptedException {
    return new ReportingRecordReader<>(super.createRecordReader(FilePiece.inner(split), context),
        "reading " + FilePiece.unwrap(split).getPath() + " as Avro");
  }
}
