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
 * memory proportional to the dimension (not the row count). Mergeable, so each task keeps one
 * and the driver merges them. Implicit zeros count as values (as svm-scale does).
 */
public final class StatsAccumulator {
  private long rows;
  private long nonZeros;
  private long badRecords;
  private double[] min = new double[16];
  private double[] max = new double[16];
  private double[] sum = new double[16];
  private long[] nnz = new long[16];
  private int dimension;
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
    if (x.maxIndex() > dimension) grow(x.maxIndex());
    for (int k = 0; k < idx.length; k++) {
      int f = idx[k] - 1;
      double a = v[k];
      if (nnz[f] == 0) {
        min[f] = a;
        max[f] = a;
      } else {
        if (a < min[f]) min[f] = a;
        if (a > max[f]) max[f] = a;
      }
      sum[f] += a;
      nnz[f]++;
    }
  }

  public void addBadRecord() {
    badRecords++;
  }

  public long rows() {
    return rows;
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

  private void grow(int d) {
    if (d > min.length) {
      int cap = Math.max(d, 2 * min.length);
      min = Arrays.copyOf(min, cap);
      max = Arrays.copyOf(max, cap);
      sum = Arrays.copyOf(sum, cap);
      nnz = Arrays.copyOf(nnz, cap);
    }
    dimension = d;
  }

  /** Adds another accumulator (commutative up to floating-point rounding of the sums). */
  public void merge(StatsAccumulator o) {
    rows += o.rows;
    nonZeros += o.nonZeros;
    badRecords += o.badRecords;
    if (o.dimension > dimension) grow(o.dimension);
    for (int f = 0; f < o.dimension; f++) {
      if (o.nnz[f] == 0) continue;
      if (nnz[f] == 0) {
        min[f] = o.min[f];
        max[f] = o.max[f];
      } else {
        min[f] = Math.min(min[f], o.min[f]);
        max[f] = Math.max(max[f], o.max[f]);
      }
      sum[f] += o.sum[f];
      nnz[f] += o.nnz[f];
    }
    for (Map.Entry<String, Object[]> e : o.labels.entrySet()) {
      Object[] v = e.getValue();
      Object[] c = byLabel.get(e.getKey());
      if (c == null) {
        c = new Object[] {v[0], v[1], v[2]};
        labels.put(e.getKey(), c);
        byLabel.put(e.getKey(), c);
      } else {
        c[0] = (Long) c[0] + (Long) v[0];
        if ((Long) v[2] < (Long) c[2]) {
          c[1] = v[1];
          c[2] = v[2];
        }
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
    for (int f = 0; f < dimension; f++) {
      if (nnz[f] == 0) continue;
      double lo = min[f];
      double hi = max[f];
      if (nnz[f] < rows) {
        lo = Math.min(lo, 0);
        hi = Math.max(hi, 0);
      }
      fs.add(new FeatureStat(f + 1, lo, hi, sum[f], nnz[f]));
    }
    return new FeatureStats(rows, dimension, nonZeros, badRecords, lc, fs);
  }

  /** Rebuilds an accumulator from its Avro form (for merging task outputs). */
  public static StatsAccumulator fromAvro(FeatureStats s) {
    StatsAccumulator a = new StatsAccumulator();
    a.rows = s.getRows();
    a.nonZeros = s.getNonZeros();
    a.badRecords = s.getBadRecords();
    a.grow(Math.max(s.getDimension(), 1));
    a.dimension = s.getDimension();
    for (FeatureStat f : s.getFeatures()) {
      int i = f.getIndex() - 1;
      a.min[i] = f.getMin();
      a.max[i] = f.getMax();
      a.sum[i] = f.getSum();
      a.nnz[i] = f.getNonZeros();
    }
    for (LabelCount l : s.getLabels()) {
      Object[] c = new Object[] {l.getCount(), l.getFirstSeen(), l.getFirstId()};
      a.labels.put(l.getLabel(), c);
      a.byLabel.put(l.getLabel(), c);
    }
    return a;
  }
}
