package org.sodm.jobs.support;

import java.io.IOException;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * A record reader that reports why it failed (a file that is not what its name says, permission
 * denied, ...) to the driver through {@link JobFailure}: the reader runs before the mapper, so the
 * mapper cannot report it, and Hadoop's local runner would only say "NA".
 */
public final class ReportingRecordReader<K, V> extends RecordReader<K, V> {
  private final RecordReader<K, V> in;
  private final String what;
  private TaskAttemptContext context;

  public ReportingRecordReader(RecordReader<K, V> in, String what) {
    this.in = in;
    this.what = what;
  }

  private interface Op<T> {
    T get() throws IOException, InterruptedException;
  }

  private <T> T reporting(Op<T> op) throws IOException, InterruptedException {
    try {
      return op.get();
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (context != null) JobFailure.report(context, Causes.describe(e, what));
      throw e;
    }
  }

  @Override
  public void initialize(InputSplit split, TaskAttemptContext ctx) throws IOException, InterruptedException {
    this.context = ctx;
    reporting(() -> {
      in.initialize(FilePiece.inner(split), ctx);
      return null;
    });
  }

  @Override
  public boolean nextKeyValue() throws IOException, InterruptedException {
    return reporting(in::nextKeyValue);
  }

  @Override
  public K getCurrentKey() throws IOException, InterruptedException {
    return in.getCurrentKey();
  }

  @Override
  public V getCurrentValue() throws IOException, InterruptedException {
    return in.getCurrentValue();
  }

  @Override
  public float getProgress() throws IOException, InterruptedException {
    return in.getProgress();
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
