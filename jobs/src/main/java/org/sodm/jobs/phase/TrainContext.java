package org.sodm.jobs.phase;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.sodm.avro.Instance;
import org.sodm.avro.LevelStats;
import org.sodm.avro.Provenance;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.Version;
import org.sodm.model.Model;

/**
 * What a {@link Trainer} works with: the job configuration (carrying the spec), the spec, the
 * phase runner, the ingested training data and the validation rows (or null).
 */
public record TrainContext(Configuration conf, TrainSpec spec, PhaseRunner runner, IngestJob.Result data,
    List<Instance> validation, List<String> inputs) {

  /** The model's provenance: version, time, inputs, a fingerprint of the data, the spec's parameters, the levels. */
  public Provenance provenance(List<LevelStats> levels) {
    return new Provenance(Version.get(), Instant.now().toString(), String.join(",", inputs), fingerprint(data),
        new HashMap<>(spec.values()), new ArrayList<>(levels), data.stats().getDimension());
  }

  /** Accuracy on the validation rows, or null without validation data. */
  public Double validationAccuracy(Model m) {
    return validation == null ? null : accuracy(m, validation);
  }

  /** Rows per batch of {@link #accuracy} (one batch per task of the common fork-join pool). */
  static final int BATCH = 1024;

  /**
   * Accuracy of a model on labelled instances (NaN for none), scored on all cores in batches of
   * {@link #BATCH} rows: a binary model through {@link Model#decisionsPrepared} (rows x support
   * vectors in blocks over the merged expansion), a multi-class one row by row.
   */
  public static double accuracy(Model m, List<Instance> rows) {
    if (rows.isEmpty()) return Double.NaN;
    int n = rows.size();
    long correct = IntStream.range(0, (n + BATCH - 1) / BATCH).parallel().mapToLong(c -> {
      int from = c * BATCH;
      int count = Math.min(n, from + BATCH) - from;
      long ok = 0;
      if (m instanceof org.sodm.model.MulticlassModel) {
        for (int t = 0; t < count; t++) {
          Instance in = rows.get(from + t);
          if (m.predict(Instances.features(in.getFeatures())).equals(in.getLabel())) ok++;
        }
        return ok;
      }
      SparseVector[] xs = new SparseVector[count];
      for (int t = 0; t < count; t++) xs[t] = m.prepare(Instances.features(rows.get(from + t).getFeatures()));
      double[] f = new double[count];
      m.decisionsPrepared(xs, count, f);
      for (int t = 0; t < count; t++) {
        if (m.labels().original(f[t]).equals(rows.get(from + t).getLabel())) ok++;
      }
      return ok;
    }).sum();
    return (double) correct / n;
  }

  static String fingerprint(IngestJob.Result data) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] h = md.digest(data.stats().toString().getBytes(StandardCharsets.UTF_8));
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < 12; i++) sb.append(String.format("%02x", h[i]));
      return String.format(Locale.ROOT, "rows=%d features=%d nnz=%d sha256(stats)=%s", data.stats().getRows(),
          data.stats().getDimension(), data.stats().getNonZeros(), sb);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
