package org.sodm.jobs.train;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.Instance;
import org.sodm.data.Instances;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.kernel.KernelScale;
import org.sodm.kernel.KernelSpec;

/**
 * The warning of a degenerate RBF kernel ({@link KernelScale}): gamma against the distances
 * between {@link #ROWS} rows of the ingested data (the ingest's seeded sample when it wrote one,
 * else the first rows), scaled as training scales them.
 */
final class KernelScaleCheck {
  private KernelScaleCheck() {}

  /**
   * Rows compared (all pairs: 8,128 distances). The well-posed and the degenerate cases lie two orders of magnitude
   * apart (KernelScale), far more than a median from 128 rows varies; 300 rows cost 27-45 ms of a cold JVM (skin_nonskin's
   * whole training: 1.6 s).
   */
  static final int ROWS = 128;

  /** The warning for {@code spec}'s kernel on {@code data}, or null when there is none (or the kernel is not RBF). */
  static String warning(Configuration conf, TrainSpec spec, IngestJob.Result data) throws IOException {
    KernelSpec k = spec.resolvedKernel();
    if (k.type() != KernelSpec.Type.RBF) return null;
    SparseVector[] rows = rows(conf, data);
    double median = KernelScale.medianSquaredDistance(rows);
    double exponent = k.gamma() * median;
    if (!KernelScale.degenerate(exponent)) return null;
    String advice;
    FeatureStat widest = widest(data);
    if (data.scaler() == null && widest != null) {
      advice = String.format(Locale.ROOT, "The features are not scaled (feature %d ranges over [%s, %s]): add --scale 0,1 (as svm-scale "
          + "-l 0 -u 1 does for svm-train) or choose a smaller --gamma.", widest.getIndex(), num(widest.getMin()), num(widest.getMax()));
    } else {
      advice = "Choose a smaller --gamma.";
    }
    return String.format(Locale.ROOT, "the RBF kernel is degenerate on these data: gamma %s x the median squared distance between %d "
        + "rows %s = %s, so exp(-gamma ||x - x'||^2) < e^-%s for a typical pair: nearly every row becomes a support vector and a "
        + "prediction away from the training rows falls to the offset. %s", num(k.gamma()), rows.length, num(median), num(exponent),
        num(KernelScale.DEGENERATE), advice);
  }

  /** Four significant digits, without the trailing zeros of a fraction (1570.2 -> 1570, 0.2500 -> 0.25, 12060 -> 1.206e+04). */
  static String num(double v) {
    String s = String.format(Locale.ROOT, "%.4g", v);
    int e = s.indexOf('e');
    String mantissa = e < 0 ? s : s.substring(0, e);
    if (mantissa.contains(".")) mantissa = mantissa.replaceAll("0+$", "").replaceAll("\\.$", "");
    return mantissa + (e < 0 ? "" : s.substring(e));
  }

  /** The feature with the widest range, or null when there are no features. */
  private static FeatureStat widest(IngestJob.Result data) {
    FeatureStat best = null;
    for (FeatureStat f : data.stats().getFeatures()) {
      if (best == null || f.getMax() - f.getMin() > best.getMax() - best.getMin()) best = f;
    }
    return best;
  }

  /** {@link #ROWS} rows, scaled: evenly spaced (by id) over the ingest's sample when there is one, else the first rows. */
  static SparseVector[] rows(Configuration conf, IngestJob.Result data) throws IOException {
    List<Instance> sample = new ArrayList<>();
    for (Path f : IngestJob.sampleFiles(conf, data.dir())) sample.addAll(AvroFiles.readAll(conf, f, Instance.class));
    sample.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    List<Instance> picked = new ArrayList<>();
    if (sample.size() <= ROWS) {
      picked = sample;
    } else {
      for (int i = 0; i < ROWS; i++) picked.add(sample.get((int) ((long) i * sample.size() / ROWS)));
    }
    if (picked.size() < 2) picked = AvroFiles.readFirst(conf, new Path(data.dir(), IngestJob.DATA), Instance.class, ROWS);
    Scaler scaler = data.scaler();
    SparseVector[] x = new SparseVector[picked.size()];
    for (int i = 0; i < x.length; i++) {
      SparseVector v = Instances.features(picked.get(i).getFeatures());
      x[i] = scaler == null ? v : scaler.apply(v);
    }
    return x;
  }
}
