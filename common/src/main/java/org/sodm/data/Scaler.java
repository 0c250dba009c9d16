package org.sodm.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.FeatureStats;
import org.sodm.avro.ScalerRecord;

/**
 * Per-feature linear scaling to [lower, upper] from training min/max, exactly as
 * {@code svm-scale -l lower -u upper}: x' = lower + (upper - lower)(x - min)/(max - min).
 * Features with max == min, and features never seen in training, are dropped. Values outside
 * the training range are not clipped. Zeros that scale to a non-zero value are materialised
 * (so [-1,1] scaling makes sparse data dense, as with svm-scale).
 */
public final class Scaler {
  private final double lower;
  private final double upper;
  private final int[] indices;
  private final double[] mins;
  private final double[] maxs;
  /** Per kept feature (by position in {@link #indices}): x' = shift + scale x. */
  private final double[] scale;
  private final double[] shift;
  /**
   * Position + 1 in {@link #indices} by feature index - 1 (0 = dropped) when the index space is
   * dense enough; null when it is sparse, and then a binary search in {@link #indices}: memory
   * follows the number of kept features, not the largest index.
   */
  private final int[] position;
  /** True when every kept feature maps 0 to 0, so sparse rows stay sparse. */
  private final boolean zeroPreserving;

  public Scaler(double lower, double upper, int[] indices, double[] mins, double[] maxs) {
    if (!(lower < upper)) throw new IllegalArgumentException("scale lower " + lower + " must be < upper " + upper);
    this.lower = lower;
    this.upper = upper;
    this.indices = indices;
    this.mins = mins;
    this.maxs = maxs;
    int dim = indices.length == 0 ? 0 : indices[indices.length - 1];
    scale = new double[indices.length];
    shift = new double[indices.length];
    boolean zp = true;
    for (int k = 0; k < indices.length; k++) {
      if (k > 0 && indices[k] <= indices[k - 1]) throw new IllegalArgumentException("scaler indices must ascend: " + indices[k - 1] + ", " + indices[k]);
      double s = (upper - lower) / (maxs[k] - mins[k]);
      scale[k] = s;
      shift[k] = lower - s * mins[k];
      zp &= shift[k] == 0;
    }
    zeroPreserving = zp;
    if (dim <= 8L * indices.length + 1024) {
      position = new int[dim];
      for (int k = 0; k < indices.length; k++) position[indices[k] - 1] = k + 1;
    } else {
      position = null;
    }
  }

  /** From ingest statistics; constant features are dropped. */
  public static Scaler fromStats(FeatureStats stats, double lower, double upper) {
    List<FeatureStat> keep = new ArrayList<>();
    for (FeatureStat f : stats.getFeatures()) {
      if (f.getMax() > f.getMin()) keep.add(f);
    }
    int[] idx = new int[keep.size()];
    double[] lo = new double[keep.size()];
    double[] hi = new double[keep.size()];
    for (int k = 0; k < idx.length; k++) {
      idx[k] = keep.get(k).getIndex();
      lo[k] = keep.get(k).getMin();
      hi[k] = keep.get(k).getMax();
    }
    return new Scaler(lower, upper, idx, lo, hi);
  }

  /** Parses "01" / "0,1" / "[0,1]" / "-1,1" / "11"; null for "none". */
  public static double[] parseRange(String s) {
    String t = s.trim().replace("[", "").replace("]", "").replace(" ", "");
    switch (t) {
      case "none":
      case "":
        return null;
      case "01":
      case "0,1":
        return new double[] {0, 1};
      case "11":
      case "-11":
      case "-1,1":
        return new double[] {-1, 1};
      default:
        throw new IllegalArgumentException("scale must be none, 0,1 or -1,1; got '" + s + "'");
    }
  }

  /** Position of feature {@code index} among the kept features, or -1 when it is dropped. */
  private int positionOf(int index) {
    if (position != null) return index <= position.length ? position[index - 1] - 1 : -1;
    int p = Arrays.binarySearch(indices, index);
    return p < 0 ? -1 : p;
  }

  public SparseVector apply(SparseVector x) {
    int[] outI = new int[zeroPreserving ? x.nnz() : indices.length];
    double[] outV = new double[outI.length];
    int k = 0;
    if (zeroPreserving) {
      for (int t = 0; t < x.nnz(); t++) {
        int p = positionOf(x.index(t));
        if (p < 0) continue;
        double v = shift[p] + scale[p] * x.value(t);
        if (v != 0) {
          outI[k] = indices[p];
          outV[k++] = v;
        }
      }
    } else {
      // every kept feature has a value (0 maps to shift): merge x's indices with the kept ones
      int t = 0;
      for (int p = 0; p < indices.length; p++) {
        int f = indices[p];
        while (t < x.nnz() && x.index(t) < f) t++;
        double raw = t < x.nnz() && x.index(t) == f ? x.value(t) : 0;
        double v = shift[p] + scale[p] * raw;
        if (v != 0) {
          outI[k] = f;
          outV[k++] = v;
        }
      }
    }
    return new SparseVector(Arrays.copyOf(outI, k), Arrays.copyOf(outV, k));
  }

  public double lower() {
    return lower;
  }

  public double upper() {
    return upper;
  }

  public ScalerRecord toAvro() {
    List<Integer> i = new ArrayList<>();
    List<Double> lo = new ArrayList<>();
    List<Double> hi = new ArrayList<>();
    for (int k = 0; k < indices.length; k++) {
      i.add(indices[k]);
      lo.add(mins[k]);
      hi.add(maxs[k]);
    }
    return new ScalerRecord(lower, upper, i, lo, hi);
  }

  public static Scaler fromAvro(ScalerRecord r) {
    int n = r.getIndices().size();
    int[] i = new int[n];
    double[] lo = new double[n];
    double[] hi = new double[n];
    for (int k = 0; k < n; k++) {
      i[k] = r.getIndices().get(k);
      lo[k] = r.getMins().get(k);
      hi[k] = r.getMaxs().get(k);
    }
    return new Scaler(r.getLower(), r.getUpper(), i, lo, hi);
  }
}
