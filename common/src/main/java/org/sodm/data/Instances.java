package org.sodm.data;

import java.util.ArrayList;
import java.util.List;
import org.sodm.avro.Features;
import org.sodm.avro.Instance;

/** Conversions between {@link SparseVector} and the Avro {@link Instance}. */
public final class Instances {
  private Instances() {}

  /** Bits of an id that hold the line (or record) number; the file ordinal sits above them. */
  public static final int LINE_BITS = 40;

  /** The stable id of line {@code line} (1-based) of input file {@code fileOrdinal}. */
  public static long id(int fileOrdinal, long line) {
    if (line <= 0 || line >= (1L << LINE_BITS)) throw new IllegalArgumentException("line " + line + " out of range");
    if (fileOrdinal < 0 || fileOrdinal >= (1 << (63 - LINE_BITS))) {
      throw new IllegalArgumentException("too many input files: " + fileOrdinal);
    }
    return ((long) fileOrdinal << LINE_BITS) | line;
  }

  public static Features toAvro(SparseVector x) {
    List<Integer> i = new ArrayList<>(x.nnz());
    List<Double> v = new ArrayList<>(x.nnz());
    for (int k = 0; k < x.nnz(); k++) {
      i.add(x.index(k));
      v.add(x.value(k));
    }
    return new Features(i, v);
  }

  public static Instance toAvro(long id, String label, SparseVector x) {
    return new Instance(id, label, toAvro(x));
  }

  public static SparseVector features(Features f) {
    List<Integer> li = f.getIndices();
    List<Double> lv = f.getValues();
    int n = li.size();
    int[] i = new int[n];
    double[] v = new double[n];
    for (int k = 0; k < n; k++) {
      i[k] = li.get(k);
      v[k] = lv.get(k);
    }
    return new SparseVector(i, v);
  }
}
