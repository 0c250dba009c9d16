package org.sodm.data;

import java.util.List;
import org.sodm.avro.Features;
import org.sodm.avro.Instance;

/** Conversions between {@link SparseVector} and the Avro {@link Instance}. */
public final class Instances {
  private Instances() {}

  /**
   * Bits of an id that hold the line's byte offset (text) or the record number (Avro); the file
   * ordinal sits above them.
   */
  public static final int LINE_BITS = 40;

  /** The stable id of record {@code line} (1-based) of input file {@code fileOrdinal} (Avro inputs). */
  public static long id(int fileOrdinal, long line) {
    if (line <= 0 || line >= (1L << LINE_BITS)) throw new IllegalArgumentException("line " + line + " out of range");
    if (fileOrdinal < 0 || fileOrdinal >= (1 << (63 - LINE_BITS))) {
      throw new IllegalArgumentException("too many input files: " + fileOrdinal);
    }
    return ((long) fileOrdinal << LINE_BITS) | line;
  }

  /**
   * The stable id of the text line that starts at byte {@code offset} (0-based, in the
   * decompressed file) of input file {@code fileOrdinal}: {@code ordinal × 2^40 + offset}. It
   * depends on the file's content and place only, never on how the file is split, and orders
   * like the file.
   */
  public static long idAtOffset(int fileOrdinal, long offset) {
    if (offset < 0 || offset >= (1L << LINE_BITS)) {
      throw new IllegalArgumentException("byte offset " + offset + " out of range (text inputs are limited to 2^40 bytes, 1 TiB, per file)");
    }
    if (fileOrdinal < 0 || fileOrdinal >= (1 << (63 - LINE_BITS))) {
      throw new IllegalArgumentException("too many input files: " + fileOrdinal);
    }
    return ((long) fileOrdinal << LINE_BITS) | offset;
  }

  /** The features of {@code x} as Avro's record: lists over x's own arrays (no copy, no boxing; see {@link PrimitiveLists}). */
  public static Features toAvro(SparseVector x) {
    return new Features(new PrimitiveLists.Ints(x.indices()), new PrimitiveLists.Doubles(x.values()));
  }

  public static Instance toAvro(long id, String label, SparseVector x) {
    return new Instance(id, label, toAvro(x));
  }

  public static SparseVector features(Features f) {
    List<Integer> li = f.getIndices();
    List<Double> lv = f.getValues();
    if (li instanceof PrimitiveLists.Ints pi && lv instanceof PrimitiveLists.Doubles pv) return new SparseVector(pi.array(), pv.array());
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
