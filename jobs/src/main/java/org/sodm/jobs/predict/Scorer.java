package org.sodm.jobs.predict;

import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;
import org.sodm.avro.Prediction;
import org.sodm.data.AvroClasses;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.JobFailure;
import org.sodm.model.KernelModel;
import org.sodm.model.Model;
import org.sodm.model.UnseenFeatures;

/**
 * Scores rows with the model of a predict job's distributed cache, in input order: id, true label,
 * f(x), predicted label. Binary models score {@link #BATCH} rows together (rows x support vectors in
 * blocks, {@link Model#decisionsPrepared}). Shared by {@link PredictMapper} (ingested Instances) and
 * {@link ScoringIngestMapper} (raw input parsed in the same task).
 */
final class Scorer {
  /** Where a prediction goes (the task's output). */
  interface Out {
    void write(Prediction p) throws IOException, InterruptedException;

    /** Ends the output when the task has scored its last row (after {@link Scorer#finish}). */
    default void close() throws IOException {}
  }

  /**
   * The task's output: each prediction as an Avro key; with --text ({@link org.sodm.jobs.support.SodmConf#PREDICT_TEXT})
   * also its svm-predict line ({@link PredictionsText.Part}).
   */
  Out output(TaskInputOutputContext<?, ?, org.apache.avro.mapred.AvroKey<Prediction>, org.apache.hadoop.io.NullWritable> context)
      throws IOException, InterruptedException {
    org.apache.avro.mapred.AvroKey<Prediction> key = new org.apache.avro.mapred.AvroKey<>();
    Out avro = p -> {
      key.datum(p);
      context.write(key, org.apache.hadoop.io.NullWritable.get());
    };
    return context.getConfiguration().getBoolean(org.sodm.jobs.support.SodmConf.PREDICT_TEXT, false)
        ? new PredictionsText.Part(context, model, avro) : avro;
  }

  static final int BATCH = 1024;
  private final TaskInputOutputContext<?, ?, ?, ?> context;
  private final Model model;
  /** Local mode: the model, whose routing picks the block (PredictJob checked it has one). */
  private final KernelModel routed;
  private final boolean batched;
  private final UnseenFeatures unseen = new UnseenFeatures();
  private final long[] ids = new long[BATCH];
  private final String[] labels = new String[BATCH];
  private final SparseVector[] xs = new SparseVector[BATCH];
  private final double[] f = new double[BATCH];
  private int pending;

  /** Reads the model named by {@link PredictMapper#MODEL_KEY} from the task's distributed cache. */
  Scorer(TaskInputOutputContext<?, ?, ?, ?> context) throws IOException {
    AvroClasses.trust();
    this.context = context;
    Path file;
    try {
      file = PredictMapper.modelFile(context.getConfiguration().get(PredictMapper.MODEL_KEY), context.getCacheFiles());
    } catch (IOException e) {
      JobFailure.report(context, e.getMessage());
      throw e;
    }
    model = ModelFiles.readVerifiedByDriver(context.getConfiguration(), file);
    routed = "local".equals(context.getConfiguration().get(org.sodm.jobs.support.SodmConf.PREDICT_MODE, "global"))
        ? (KernelModel) model : null;
    batched = routed == null && !(model instanceof org.sodm.model.MulticlassModel);
  }

  /** Scores one row (binary models: when its batch is full, or at {@link #finish}). */
  void score(long id, String label, SparseVector features, Out out) throws IOException, InterruptedException {
    if (model instanceof org.sodm.model.MulticlassModel mm) {
      org.sodm.model.MulticlassModel.Scored sc = mm.score(features, unseen);
      java.util.List<Double> probs = null;
      if (sc.probabilities() != null) {
        probs = new java.util.ArrayList<>(sc.probabilities().length);
        for (double p : sc.probabilities()) probs.add(p);
      }
      out.write(new Prediction(id, label, sc.score(), mm.classes().get(sc.index()), probs));
      context.getCounter("sodm.predict", "instances").increment(1);
      return;
    }
    if (batched) {
      ids[pending] = id;
      labels[pending] = label;
      xs[pending++] = model.prepare(features, unseen);
      if (pending == BATCH) flush(out);
      return;
    }
    SparseVector x = model.prepare(features, unseen);
    double v = routed != null ? routed.decisionLocalPrepared(x) : model.decisionPrepared(x);
    out.write(new Prediction(id, label, v, model.labels().original(v), null));
    context.getCounter("sodm.predict", "instances").increment(1);
  }

  /** Scores the pending rows as one batch and writes them in input order. */
  private void flush(Out out) throws IOException, InterruptedException {
    model.decisionsPrepared(xs, pending, f);
    for (int t = 0; t < pending; t++) {
      out.write(new Prediction(ids[t], labels[t], f[t], model.labels().original(f[t]), null));
      xs[t] = null;
    }
    context.getCounter("sodm.predict", "instances").increment(pending);
    pending = 0;
  }

  /**
   * Scores what is pending; features above the model's dimension, ignored, are counted for the driver's warning (one file
   * per task, rewritten by a re-run).
   */
  void finish(Out out) throws IOException, InterruptedException {
    if (pending > 0) flush(out);
    if (unseen.rows() == 0) return;
    String dir = context.getConfiguration().get(PredictJob.UNSEEN_DIR_KEY);
    if (dir == null) return;
    Path p = new Path(dir, context.getTaskAttemptID().getTaskID().toString());
    try (java.io.OutputStream o = p.getFileSystem(context.getConfiguration()).create(p, true)) {
      o.write((unseen.rows() + " " + unseen.values() + " " + unseen.smallestIndex() + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
  }
}
