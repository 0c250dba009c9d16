package org.sodm.jobs.support;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * A {@link FileSplit} carried in a split that is not one. Hadoop's map task counts the bytes a
 * task reads from a {@code FileSplit} by summing its file system's statistics before and after
 * every record ({@code MapTask.NewTrackingRecordReader}), a walk over every thread's statistics
 * that took 8% of an ingest task's time on a 1M-row LIBSVM file; for any other split it does not.
 * The task's file system counters (bytes read) are kept as before. Readers take the file split
 * back with {@link #unwrap}.
 */
public final class FilePiece extends InputSplit implements Writable {
  private FileSplit split;

  public FilePiece() {}

  public FilePiece(FileSplit split) {
    this.split = split;
  }

  /** Each {@link FileSplit} of {@code splits} as a piece (other splits as they are). */
  public static List<InputSplit> wrap(List<InputSplit> splits) {
    List<InputSplit> out = new ArrayList<>(splits.size());
    for (InputSplit s : splits) out.add(s instanceof FileSplit f ? new FilePiece(f) : s);
    return out;
  }

  /** The file split of a piece, or {@code split} itself when it is a {@link FileSplit}. */
  public static FileSplit unwrap(InputSplit split) {
    if (split instanceof FilePiece p) return p.split;
    if (split instanceof FileSplit f) return f;
    throw new IllegalArgumentException("not a split of a file: " + split.getClass().getName());
  }

  /** {@link #unwrap} for readers that also take other splits: a piece's file split, or {@code split} itself. */
  public static InputSplit inner(InputSplit split) {
    return split instanceof FilePiece p ? p.split : split;
  }

  @Override
  public long getLength() throws IOException, InterruptedException {
    return split.getLength();
  }

  @Override
  public String[] getLocations() throws IOException {
    return split.getLocations();
  }

  @Override
  public void write(DataOutput out) throws IOException {
    split.write(out);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    split = new FileSplit();
    split.readFields(in);
  }

  @Override
  public String toString() {
    return String.valueOf(split);
  }
}
