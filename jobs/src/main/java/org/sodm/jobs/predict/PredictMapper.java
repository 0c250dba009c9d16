package org.sodm.jobs.predict;

import java.io.IOException;
import java.net.URI;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.sodm.avro.Instance;
import org.sodm.avro.Prediction;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.jobs.support.JobFailure;
import org.sodm.model.KernelModel;
import org.sodm.model.Model;
import org.sodm.model.UnseenFeatures;

/** Scores instances with the model from the distributed cache: id, true label, f(x), predicted label. */
public class PredictMapper extends Mapper<AvroKey<Instance>, NullWritable, AvroKey<Prediction>, NullWritable> {
  @Override
  public void run(Context context) throws java.io.IOException, InterruptedException {
    org.sodm.jobs.support.Causes.reporting(context, "PredictMapper", () -> super.run(context));
  }

  private Model model;
  /** Local mode: the model, whose routing picks the block (PredictJob checked it has one). */
  private KernelModel routed;
  private final AvroKey<Prediction> out = new AvroKey<>();
  private final UnseenFeatures unseen = new UnseenFeatures();
  /** Rows scored together by a binary model ({@link Model#decisionsPrepared}: rows x support vectors in blocks). */
  static final int BATCH = 1024;
  private boolean batched;
  private final long[] ids = new long[BATCH];
  private final String[] labels = new String[BATCH];
  private final org.sodm.data.SparseVector[] xs = new org.sodm.data.SparseVector[BATCH];
  private final double[] f = new double[BATCH];
  private int pending;

  /** The model file PredictJob put in the distributed cache (its URI): other cache files (an Oozie launcher's) may come first. */
  static final String MODEL_KEY = "sodm.internal.predict.model";

  /**
   * The distributed cache's copy of the model named by {@link #MODEL_KEY} (the entry with that URI), failing with a message
   * that names the key and the cache when it is absent.
   */
  static Path modelFile(String model, URI[] cache) throws IOException {
    if (model == null) throw new IOException("predict: " + MODEL_KEY + " is not set (the job was not submitted by PredictJob)");
    if (cache != null) {
      for (URI u : cache) if (u.toString().equals(model)) return new Path(u);
    }
    throw new IOException("predict: the model " + model + " is not in the distributed cache " + (cache == null ? "[]"
        : java.util.Arrays.toString(cache)));
  }

  @Override
  protected void setup(Context context) throws IOException {
    AvroClasses.trust();
    Path file;
    try {
      file = modelFile(context.getConfiguration().get(MODEL_KEY), context.getCacheFiles());
    } catch (IOException e) {
      JobFailure.report(context, e.getMessage());
      throw e;
    }
    model = ModelFiles.read(context.getConfiguration(), file);
    if ("local".equals(context.getConfiguration().get(org.sodm.jobs.support.SodmConf.PREDICT_MODE, "global"))) {
      routed = (KernelModel) model;
    }
    batched = routed == null && !(model instanceof org.sodm.model.MulticlassModel);
  }

  @Override
  protected void map(AvroKey<Instance> key, NullWritable value, Context context) throws IOException, InterruptedException {
    Instance in = key.datum();
    if (model instanceof org.sodm.model.MulticlassModel mm) {
      org.sodm.model.MulticlassModel.Scored sc = mm.score(Instances.features(in.getFeatures()), unseen);
      java.util.List<Double> probs = null;
      if (sc.probabilities() != null) {
        probs = new java.util.ArrayList<>(sc.probabilities().length);
        for (double p : sc.probabilities()) probs.add(p);
      }
      out.datum(new Prediction(in.getId(), in.getLabel(), sc.score(), mm.classes().get(sc.index()), probs));
      context.write(out, NullWritable.get());
      context.getCounter("sodm.predict", "instances").increment(1);
      return;
    }
    if (batched) {
      ids[pending] = in.getId();
      labels[pending] = in.getLabel();
      xs[pending++] = model.prepare(Instances.features(in.getFeatures()), unseen);
      if (pending == BATCH) flush(context);
      return;
    }
    org.sodm.data.SparseVector x = model.prepare(Instances.features(in.getFeatures()), unseen);
    double f = routed != null ? routed.decisionLocalPrepared(x) : model.decisionPrepared(x);
    out.datum(new Prediction(in.getId(), in.getLabel(), f, model.labels().original(f), null));
    context.write(out, NullWritable.get());
    context.getCounter("sodm.predict", "instances").increment(1);
  }

  /** Features above the model's dimension, ignored: counted for the driver's warning (one file per task, rewritten by a re-run). */
  /** Scores the pending rows as one batch and writes them in input order. */
  private void flush(Context context) throws IOException, InterruptedException {
    model.decisionsPrepared(xs, pending, f);
    for (int t = 0; t < pending; t++) {
      out.datum(new Prediction(ids[t], labels[t], f[t], model.labels().original(f[t]), null));
      context.write(out, NullWritable.get());
      xs[t] = null;
    }
    context.getCounter("sodm.predict", "instances").increment(pending);
    pending = 0;
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    if (pending > 0) flush(context);
    if (unseen.rows() == 0) return;
    String dir = context.getConfiguration().get(PredictJob.UNSEEN_DIR_KEY);
    if (dir == null) return;
    Path f = new Path(dir, context.getTaskAttemptID().getTaskID().toString());
    try (java.io.OutputStream o = f.getFileSystem(context.getConfiguration()).create(f, true)) {
      o.write((unseen.rows() + " " + unseen.values() + " " + unseen.smallestIndex() + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
  }
}
