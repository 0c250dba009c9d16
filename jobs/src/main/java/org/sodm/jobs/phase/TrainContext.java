package org.sodm.jobs.phase;

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

  /** This context with another spec (the configuration unchanged). */
  public TrainContext withSpec(TrainSpec s) {
    return new TrainContext(conf, s, runner, data, validation, inputs);
  }

  /** The model's provenance: version, time, inputs, a fingerprint of the data, the spec's parameters, the levels. */
  public Provenance provenance(List<LevelStats> levels) {
    java.util.Map<String, String> params = new HashMap<>(spec.values());
    String order = classOrder(data.stats(), spec.probabilityModel());
    if (order != null) params.put(org.sodm.model.MulticlassModel.CLASS_ORDER, order);
    if (spec.multinomial()) { // one softmax over the classes' decision values
      params.put(org.sodm.model.MulticlassModel.COUPLING, org.sodm.model.MulticlassModel.SOFTMAX_COUPLING);
    } else if (spec.loss() instanceof org.sodm.solver.Loss.Logistic) { // liblinear-predict -b 1's probabilities of logistic regression
      params.put(org.sodm.model.MulticlassModel.COUPLING, org.sodm.model.MulticlassModel.LIBLINEAR_COUPLING);
    }
    return new Provenance(Version.get(), Instant.now().toString(), String.join(",", inputs), fingerprint(data), params,
        new ArrayList<>(levels), data.stats().getDimension());
  }

  /**
   * More than two classes, or two with probabilities (a two-class model of sub-problems): their indices (in the sorted class
   * list) in the order of first appearance in the training data (the smallest row id of each label), LIBSVM's label order,
   * by which a multi-class model breaks ties and predict --text orders the probability columns; else null (a binary model,
   * byte for byte as before).
   */
  static String classOrder(org.sodm.avro.FeatureStats stats, boolean probability) {
    List<org.sodm.avro.LabelCount> labels = new ArrayList<>(stats.getLabels());
    if (labels.size() < 2 || labels.size() == 2 && !probability) return null;
    List<String> sorted = new ArrayList<>();
    for (var l : labels) sorted.add(l.getLabel().toString());
    sorted.sort(org.sodm.data.Labels.ORDER);
    labels.sort(java.util.Comparator.comparingLong(org.sodm.avro.LabelCount::getFirstId));
    StringBuilder b = new StringBuilder();
    for (var l : labels) b.append(b.length() == 0 ? "" : ",").append(sorted.indexOf(l.getLabel().toString()));
    return b.toString();
  }

  /**
   * Accuracy on the validation rows, or null without validation data: scored by map tasks on a
   * cluster ({@link ValidationScoring}), by the driver on every core in local mode.
   */
  public Double validationAccuracy(Model m) {
    if (validation == null) return null;
    if (ValidationScoring.inTasks(conf)) {
      try {
        return ValidationScoring.accuracy(conf, m, new org.apache.hadoop.fs.Path(runner.work(), "_validation-scoring"));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return accuracy(m, validation);
  }

  /** Rows per batch of {@link #accuracy} (one batch per task of the common fork-join pool) and of the scoring tasks. */
  static final int BATCH = 1024;

  /**
   * Accuracy of a model on labelled instances (NaN for none), scored on all cores in batches of
   * {@link #BATCH} rows ({@link #correct}).
   */
  public static double accuracy(Model m, List<Instance> rows) {
    if (rows.isEmpty()) return Double.NaN;
    int n = rows.size();
    long correct = IntStream.range(0, (n + BATCH - 1) / BATCH).parallel().mapToLong(c -> {
      int from = c * BATCH;
      int count = Math.min(n, from + BATCH) - from;
      SparseVector[] xs = new SparseVector[count];
      String[] labels = new String[count];
      for (int t = 0; t < count; t++) {
        xs[t] = Instances.features(rows.get(from + t).getFeatures());
        labels[t] = rows.get(from + t).getLabel();
      }
      return correct(m, xs, labels, count);
    }).sum();
    return (double) correct / n;
  }

  /**
   * How many of the raw rows {@code xs[t]} (t &lt; count) the model labels {@code labels[t]}: a binary
   * model through {@link Model#decisionsPrepared} (rows x support vectors in blocks over the merged
   * expansion), a multi-class one row by row.
   */
  static long correct(Model m, SparseVector[] xs, String[] labels, int count) {
    long ok = 0;
    if (m instanceof org.sodm.model.MulticlassModel) {
      for (int t = 0; t < count; t++) if (m.predict(xs[t]).equals(labels[t])) ok++;
      return ok;
    }
    SparseVector[] prepared = new SparseVector[count];
    for (int t = 0; t < count; t++) prepared[t] = m.prepare(xs[t]);
    double[] f = new double[count];
    m.decisionsPrepared(prepared, count, f);
    for (int t = 0; t < count; t++) if (m.labels().original(f[t]).equals(labels[t])) ok++;
    return ok;
  }

  static String fingerprint(IngestJob.Result data) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      // the statistics' Avro binary encoding (exact, and far cheaper than their JSON text: 100,000 features took 0.1-0.2 s)
      try (java.security.DigestOutputStream out = new java.security.DigestOutputStream(java.io.OutputStream.nullOutputStream(), md)) {
        org.apache.avro.io.BinaryEncoder enc = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
        new org.apache.avro.specific.SpecificDatumWriter<>(org.sodm.avro.FeatureStats.class).write(data.stats(), enc);
        enc.flush();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      byte[] h = md.digest();
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < 12; i++) sb.append(String.format("%02x", h[i]));
      return String.format(Locale.ROOT, "rows=%d features=%d nnz=%d sha256(stats)=%s", data.stats().getRows(),
          data.stats().getDimension(), data.stats().getNonZeros(), sb);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
