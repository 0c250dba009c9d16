package org.sodm.jobs.predict;

import java.io.IOException;
import java.net.URI;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.sodm.avro.Instance;
import org.sodm.avro.Prediction;
import org.sodm.data.Instances;

/** Scores instances with the model from the distributed cache: id, true label, f(x), predicted label. */
public class PredictMapper extends Mapper<AvroKey<Instance>, NullWritable, AvroKey<Prediction>, NullWritable> {
  @Override
  public void run(Context context) throws java.io.IOException, InterruptedException {
    org.sodm.jobs.support.Causes.reporting(context, "PredictMapper", () -> super.run(context));
  }

  private Scorer scorer;
  private Scorer.Out write;

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
  protected void setup(Context context) throws IOException, InterruptedException {
    scorer = new Scorer(context);
    write = scorer.output(context);
  }

  @Override
  protected void map(AvroKey<Instance> key, NullWritable value, Context context) throws IOException, InterruptedException {
    Instance in = key.datum();
    scorer.score(in.getId(), in.getLabel(), Instances.features(in.getFeatures()), write);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    scorer.finish(write);
    write.close();
  }
}
