package org.sodm.jobs.train;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.Instance;
import org.sodm.data.Seeds;
import org.sodm.jobs.support.AvroFiles;

/**
 * The folds of {@code sodm cv}: stratified and seeded. Within each class the rows are ordered by
 * a seeded hash of their id (a random permutation that depends only on the seed and the ids) and
 * dealt to the folds in turn, class after class continuing the deal, so every class's rows are
 * split within +-1 row over the folds and the fold sizes within +-1. No data is copied: the
 * driver reads the ids and labels once and writes the fold of every id (sorted ids, one byte each)
 * to a file the stratify tasks load.
 */
final class CvFolds {
  private final long[] ids;
  private final byte[] folds;
  /** As read back by the tasks ({@link org.sodm.jobs.phase.FoldFile}, the one reader of the file); null as written. */
  private final org.sodm.jobs.phase.FoldFile file;

  private CvFolds(long[] ids, byte[] folds) {
    this.ids = ids;
    this.folds = folds;
    this.file = null;
  }

  /** The fold of a row (fails for an id the data did not have). */
  int of(long id) {
    if (file != null) return file.of(id);
    int i = Arrays.binarySearch(ids, id);
    if (i < 0) throw new IllegalArgumentException("row " + id + " is not in the cross-validation folds");
    return folds[i];
  }

  int rows() {
    return file != null ? file.rows() : ids.length;
  }

  /** The seeded order of a row within its class. */
  static long rank(long seed, long id) {
    return Seeds.mix(seed ^ 0x4356464F4C4453L, id);
  }

  /** Deals the rows of {@code data} (Instances) to {@code k} folds and writes them to {@code file}. */
  static CvFolds write(Configuration conf, Path data, List<String> classes, int k, long seed, Path file) throws IOException {
    if (k < 2 || k > 127) throw new IllegalArgumentException("folds must be in [2, 127], got " + k);
    Map<String, List<long[]>> byClass = new HashMap<>();
    for (String c : classes) byClass.put(c, new ArrayList<>());
    AvroFiles.forEach(conf, data, Instance.class, in -> {
      List<long[]> l = byClass.get(in.getLabel().toString());
      if (l == null) throw new IllegalArgumentException("row " + in.getId() + " has label '" + in.getLabel() + "', not one of " + classes);
      l.add(new long[] {rank(seed, in.getId()), in.getId()});
    });
    int n = 0;
    for (List<long[]> l : byClass.values()) n += l.size();
    long[][] all = new long[n][];
    int at = 0;
    for (String c : classes) { // class after class, continuing the deal
      List<long[]> l = byClass.get(c);
      l.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
      for (long[] r : l) {
        all[at] = new long[] {r[1], at % k};
        at++;
      }
    }
    Arrays.sort(all, (a, b) -> Long.compare(a[0], b[0]));
    long[] ids = new long[n];
    byte[] folds = new byte[n];
    for (int i = 0; i < n; i++) {
      ids[i] = all[i][0];
      folds[i] = (byte) all[i][1];
    }
    FileSystem fs = file.getFileSystem(conf);
    try (DataOutputStream o = new DataOutputStream(new java.io.BufferedOutputStream(fs.create(file, true)))) {
      o.writeInt(n);
      for (long id : ids) o.writeLong(id);
      o.write(folds);
    }
    return new CvFolds(ids, folds);
  }

  static CvFolds read(Configuration conf, Path file) throws IOException {
    org.sodm.jobs.phase.FoldFile f = org.sodm.jobs.phase.FoldFile.read(conf, file);
    return new CvFolds(f);
  }

  private CvFolds(org.sodm.jobs.phase.FoldFile f) {
    this.ids = null;
    this.folds = null;
    this.file = f;
  }
}
