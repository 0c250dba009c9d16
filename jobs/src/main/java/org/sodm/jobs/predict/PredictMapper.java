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

  @Override
  protected void setup(Context context) throws IOException {
    AvroClasses.trust();
    URI[] cache = context.getCacheFiles();
    if (cache == null || cache.length == 0) {
      JobFailure.report(context, "predict: no model in the distributed cache");
      throw new IOException("predict: no model in the distributed cache");
    }
    model = ModelFiles.read(context.getConfiguration(), new Path(cache[0]));
    if ("local".equals(context.getConfiguration().get(org.sodm.jobs.support.SodmConf.PREDICT_MODE, "global"))) {
      routed = (KernelModel) model;
    }
  }

  @Override
  protected void map(AvroKey<Instance> key, NullWritable value, Context context) throws IOException, InterruptedException {
    Instance in = key.datum();
    if (model instanceof org.sodm.model.MulticlassModel mm) {
      org.sodm.model.MulticlassModel.Scored sc = mm.score(Instances.features(in.getFeatures()));
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
    double f = routed != null ? routed.decisionLocal(Instances.features(in.getFeatures()))
        : model.decision(Instances.features(in.getFeatures()));
    out.datum(new Prediction(in.getId(), in.getLabel(), f, model.labels().original(f), null));
    context.write(out, NullWritable.get());
    context.getCounter("sodm.predict", "instances").increment(1);
  }
}
