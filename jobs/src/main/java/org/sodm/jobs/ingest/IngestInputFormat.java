package org.sodm.jobs.ingest;

import java.io.IOException;
import org.apache.avro.mapreduce.AvroKeyRecordReader;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;
import org.sodm.avro.Instance;
import org.sodm.jobs.support.ReportingRecordReader;

/**
 * One split per input file (so line numbers, and the ids made from them, are exact), read as
 * text lines (LIBSVM, CSV; compressed by extension) or Avro Instances according to the file's
 * format. Keys are the line's byte offset or the Avro datum; values the line text or null.
 */
public class IngestInputFormat extends FileInputFormat<Object, Object> {
  @Override
  protected boolean isSplitable(JobContext context, Path file) {
    return false;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public RecordReader<Object, Object> createRecordReader(InputSplit split, TaskAttemptContext context) {
    Path file = ((FileSplit) split).getPath();
    String format = context.getConfiguration().get(IngestMapper.FORMATS_KEY + "." + file, "libsvm");
    RecordReader r = format.equals("avro") ? new AvroKeyRecordReader<Instance>(Instance.getClassSchema()) : new LineRecordReader();
    return new ReportingRecordReader<Object, Object>(r, "reading " + file + " as " + format);
  }

  /** For the type checker: the two key types this format produces. */
  static boolean isText(Object key) throws IOException {
    if (key instanceof LongWritable) return true;
    if (key instanceof Text) throw new IOException("unexpected key type");
    return false;
  }
}
