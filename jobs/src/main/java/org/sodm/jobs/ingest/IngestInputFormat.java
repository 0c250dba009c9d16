package org.sodm.jobs.ingest;

import java.io.IOException;
import java.util.List;
import org.apache.avro.mapreduce.AvroKeyRecordReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;
import org.sodm.avro.Instance;
import org.sodm.jobs.support.FilePiece;
import org.sodm.jobs.support.ReportingRecordReader;

/**
 * Input files read as text lines (LIBSVM, CSV; compressed by extension) or Avro Instances
 * according to the file's format; uncompressed text is split, anything else is one split per file. Keys are the line's byte offset or the Avro datum; values the line text or null.
 */
public class IngestInputFormat extends FileInputFormat<Object, Object> {
  /**
   * Uncompressed text (LIBSVM, CSV) splits: {@link LineRecordReader} reads each line exactly once
   * across split boundaries, and the ids are made from the lines' byte offsets, so they do not
   * depend on the split size. Compressed files (gzip, xz, and bzip2, whose split readers do not
   * give byte offsets of the decompressed text) and Avro files are read by one task each.
   */
  @Override
  protected boolean isSplitable(JobContext context, Path file) {
    Configuration conf = context.getConfiguration();
    if (!conf.get(IngestMapper.FORMATS_KEY + "." + file, "libsvm").equals("avro")) {
      return new CompressionCodecFactory(conf).getCodec(file) == null;
    }
    return false;
  }

  /** The file splits as {@link FilePiece}s: Hadoop then does not sum its byte counters around every line. */
  @Override
  public List<InputSplit> getSplits(JobContext job) throws IOException {
    return FilePiece.wrap(super.getSplits(job));
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public RecordReader<Object, Object> createRecordReader(InputSplit split, TaskAttemptContext context) {
    Path file = FilePiece.unwrap(split).getPath();
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
