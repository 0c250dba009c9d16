package org.sodm.jobs.phase;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The fold of every row of a {@code sodm cv} run, as the training driver writes it (sorted ids, then
 * one byte per id): read by the kernel tree's stratify tasks and the linear solvers' dealers.
 */
public final class FoldFile {
  private final long[] ids;
  private final byte[] folds;

  public FoldFile(long[] ids, byte[] folds) {
    this.ids = ids;
    this.folds = folds;
  }

  /** The fold of a row (fails for an id the data did not have). */
  public int of(long id) {
    int i = Arrays.binarySearch(ids, id);
    if (i < 0) throw new IllegalArgumentException("row " + id + " is not in the cross-validation folds");
    return folds[i];
  }

  public int rows() {
    return ids.length;
  }

  public static FoldFile read(Configuration conf, Path file) throws IOException {
    try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(file.getFileSystem(conf).open(file)))) {
      int n = in.readInt();
      long[] ids = new long[n];
      for (int i = 0; i < n; i++) ids[i] = in.readLong();
      byte[] folds = new byte[n];
      in.readFully(folds);
      return new FoldFile(ids, folds);
    }
  }
}
