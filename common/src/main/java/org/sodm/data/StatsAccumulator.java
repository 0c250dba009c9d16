package org.sodm.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.FeatureStats;
import org.sodm.avro.LabelCount;

/**
 * Streams rows into per-feature min/max/sum/non-zero counts, label counts and totals, in
 * memory proportional to the number of distinct features (not the row count, and not the
 * largest index: {@link FeatureSlots}). Mergeable, so each task keeps one
 * and the driver merges them. Implicit zeros count as values (as svm-scale does).
 */
public final class StatsAccumulator {
  private long rows;
  private long nonZeros;
  private long badRecords;
  private final FeatureSlots slots = new FeatureSlots();
  /**
   * Per slot f, four values side by side: minimum {@code acc[4f]}, maximum {@code acc[4f+1]}, sum {@code acc[4f+2]} and the
   * number of rows that store the feature {@code acc[4f+3]} (a count, exact in a double below 2^53). One cache line per stored
   * value: with four separate arrays, a row's features at random slots of 100,000 missed the cache four times each (a sixth
   * of an ingest task on the 1M x 100k set).
   */
  private double[] acc = new double[4 * 16];
  /** label -> {count, firstSeen}; firstSeen of the earliest (by the caller's order) occurrence. */
  private final Map<String, Object[]> labels = new TreeMap<>(Labels.ORDER);
  /**
   * The same entries by plain string equality (canonical labels are equal under ORDER only when
   * equal as strings): the per-row look-up, without ORDER's number parsing.
   */
  private final Map<String, Object[]> byLabel = new java.util.HashMap<>();

  /**
   * Adds one row. {@code id} orders first occurrences (the smallest id's location is kept,
   * whatever the order of adds and merges).
   */
  public void add(String label, SparseVector x, long id, String location) {
    rows++;
    nonZeros += x.nnz();
    if (label != null) {
      Object[] c = byLabel.get(label);
      if (c == null) {
        c = new Object[] {1L, location, id};
        labels.put(label, c);
        byLabel.put(label, c);
      } else {
        c[0] = (Long) c[0] + 1;
        if (id < (Long) c[2]) {
          c[1] = location;
          c[2] = id;
        }
      }
    }
    int[] idx = x.indices();
    double[] v = x.values();
    for (int k = 0; k < idx.length; k++) accumulate(slot(idx[k]), v[k], v[k], v[k], 1);
  }

  private void accumulate(int f, double lo, double hi, double s, double n) {
    int a = 4 * f;
    if (acc[a + 3] == 0) {
      acc[a] = lo;
      acc[a + 1] = hi;
    } else {
      if (lo < acc[a]) acc[a] = lo;
      if (hi > acc[a + 1]) acc[a + 1] = hi;
    }
    acc[a + 2] += s;
    acc[a + 3] += n;
  }

  /** The slot of a feature index, the per-slot arrays grown to hold it. */
  private int slot(int index) {
    int f = slots.slot(index);
    if (4 * f >= acc.length) acc = Arrays.copyOf(acc, 2 * acc.length);
    return f;
  }

  public void addBadRecord() {
    badRecords++;
  }

  public long rows() {
    return rows;
  }

  public long badRecords() {
    return badRecords;
  }

  public int labelCount() {
    return labels.size();
  }

  /** Labels in canonical order. */
  public List<String> labels() {
    return new ArrayList<>(labels.keySet());
  }

  public String firstSeen(String label) {
    Object[] c = byLabel.get(label);
    return c == null ? null : (String) c[1];
  }

  /** Labels in order of first appearance (by id). */
  public List<String> labelsByAppearance() {
    List<String> l = labels();
    l.sort(java.util.Comparator.comparingLong(a -> (Long) labels.get(a)[2]));
    return l;
  }

  /** Adds another accumulator (commutative up to floating-point rounding of the sums). */
  public void merge(StatsAccumulator o) {
    rows += o.rows;
    nonZeros += o.nonZeros;
    badRecords += o.badRecords;
    int[][] theirs = o.slots.sorted();
    for (int k = 0; k < theirs[0].length; k++) {
      int g = theirs[1][k];
      accumulate(slot(theirs[0][k]), o.acc[4 * g], o.acc[4 * g + 1], o.acc[4 * g + 2], o.acc[4 * g + 3]);
    }
    for (Map.Entry<String, Object[]> e : o.labels.entrySet()) mergeLabel(e.getKey(), e.getValue());
  }

  /** Adds a label's {count, first-seen location, first-seen id} (copied). */
  private void mergeLabel(String label, Object[] v) {
    Object[] c = byLabel.get(label);
    if (c == null) {
      c = new Object[] {v[0], v[1], v[2]};
      labels.put(label, c);
      byLabel.put(label, c);
    } else {
      c[0] = (Long) c[0] + (Long) v[0];
      if ((Long) v[2] < (Long) c[2]) {
        c[1] = v[1];
        c[2] = v[2];
      }
    }
  }

  /** The Avro summary; min/max include implicit zeros for features absent from some rows. */
  public FeatureStats toAvro() {
    List<LabelCount> lc = new ArrayList<>();
    for (Map.Entry<String, Object[]> e : labels.entrySet()) {
      lc.add(new LabelCount(e.getKey(), (Long) e.getValue()[0], (String) e.getValue()[1], (Long) e.getValue()[2]));
    }
    List<FeatureStat> fs = new ArrayList<>();
    int[][] sorted = slots.sorted();
    for (int k = 0; k < sorted[0].length; k++) {
      int f = sorted[1][k];
      double lo = acc[4 * f];
      double hi = acc[4 * f + 1];
      long count = (long) acc[4 * f + 3];
      if (count < rows) {
        lo = Math.min(lo, 0);
        hi = Math.max(hi, 0);
      }
      fs.add(new FeatureStat(sorted[0][k], lo, hi, acc[4 * f + 2], count));
    }
    return new FeatureStats(rows, slots.maxIndex(), nonZeros, badRecords, lc, fs);
  }

  /** The first byte of {@link #toBytes}'s encoding (its version). */
  private static final int ENCODING = 1;

  /**
   * This accumulator exactly as it is (raw per-feature minima and maxima, before {@link #toAvro} adds the implicit zeros:
   * merging raw values gives the same statistics), for {@link #fromBytes}: a task's statistics that the driver reads back
   * at once. Primitive arrays in one buffer, no record per feature: 100,000 features took ~0.2 s per task as Avro records,
   * and 30 ms per file to read back through a DataInputStream.
   */
  public byte[] toBytes() {
    int[][] sorted = slots.sorted();
    List<byte[]> text = new ArrayList<>();
    int size = 1 + 3 * 8 + 4 + 4 + sorted[0].length * (4 + 3 * 8 + 8);
    for (Map.Entry<String, Object[]> e : labels.entrySet()) {
      byte[] l = e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      Object where = e.getValue()[1];
      byte[] w = where == null ? null : ((String) where).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      text.add(l);
      text.add(w);
      size += 4 + l.length + 8 + 4 + (w == null ? 0 : w.length) + 8;
    }
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(size);
    b.put((byte) ENCODING).putLong(rows).putLong(nonZeros).putLong(badRecords).putInt(labels.size());
    int t = 0;
    for (Object[] v : labels.values()) {
      byte[] l = text.get(t++);
      byte[] w = text.get(t++);
      b.putInt(l.length).put(l).putLong((Long) v[0]);
      b.putInt(w == null ? -1 : w.length);
      if (w != null) b.put(w);
      b.putLong((Long) v[2]);
    }
    b.putInt(sorted[0].length);
    for (int k = 0; k < sorted[0].length; k++) {
      int f = sorted[1][k];
      b.putInt(sorted[0][k]).putDouble(acc[4 * f]).putDouble(acc[4 * f + 1]).putDouble(acc[4 * f + 2]).putLong((long) acc[4 * f + 3]);
    }
    if (b.hasRemaining()) throw new IllegalStateException("statistics encoding: " + b.remaining() + " bytes unused");
    return b.array();
  }

  /** The accumulator {@link #toBytes} encoded; an IOException names what in {@code bytes} is not such an encoding. */
  public static StatsAccumulator fromBytes(byte[] bytes) throws java.io.IOException {
    StatsAccumulator a = new StatsAccumulator();
    a.decode(bytes, java.util.function.UnaryOperator.identity(), false);
    return a;
  }

  /**
   * Adds the accumulator {@code bytes} encodes ({@link #toBytes}), each label's first-seen location mapped by {@code where}:
   * exactly {@code merge(fromBytes(bytes))} with those locations, the same additions in the same order, without
   * building that accumulator (the driver's merge of its tasks' statistics: 100,000 features a task read into slots twice).
   * An IOException names what is not such an encoding; this accumulator is then partly merged, to be dropped.
   */
  public void mergeBytes(byte[] bytes, java.util.function.UnaryOperator<String> where) throws java.io.IOException {
    decode(bytes, where, true);
  }

  /** Reads {@code bytes} into this accumulator: set (a new one, {@link #fromBytes}) or added ({@link #mergeBytes}). */
  private void decode(byte[] bytes, java.util.function.UnaryOperator<String> relocate, boolean add) throws java.io.IOException {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
    try {
      int version = b.get() & 0xFF;
      if (version != ENCODING) throw new java.io.IOException("statistics encoding " + version + ", expected " + ENCODING);
      long r = b.getLong();
      long nz = b.getLong();
      long bad = b.getLong();
      rows = add ? rows + r : r;
      nonZeros = add ? nonZeros + nz : nz;
      badRecords = add ? badRecords + bad : bad;
      for (int l = b.getInt(); l > 0; l--) {
        String label = text(b, b.getInt());
        long count = b.getLong();
        int wl = b.getInt();
        String at = wl < 0 ? null : text(b, wl);
        mergeLabel(label, new Object[] {count, relocate.apply(at), b.getLong()});
      }
      int n = b.getInt();
      int previous = 0;
      for (int k = 0; k < n; k++) {
        int index = b.getInt();
        if (index <= previous) throw new java.io.IOException("statistics: feature " + index + " after " + previous);
        previous = index;
        int f = slot(index);
        double lo = b.getDouble();
        double hi = b.getDouble();
        double sum = b.getDouble();
        long count = b.getLong();
        if (add) {
          accumulate(f, lo, hi, sum, count);
        } else {
          acc[4 * f] = lo;
          acc[4 * f + 1] = hi;
          acc[4 * f + 2] = sum;
          acc[4 * f + 3] = count;
        }
      }
      if (b.hasRemaining()) throw new java.io.IOException("statistics: " + b.remaining() + " bytes after the last feature");
    } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
      throw new java.io.IOException("statistics: truncated or not a statistics encoding (" + bytes.length + " bytes)", e);
    }
  }

  private static String text(java.nio.ByteBuffer b, int length) {
    byte[] t = new byte[length];
    b.get(t);
    return new String(t, java.nio.charset.StandardCharsets.UTF_8);
  }

}
