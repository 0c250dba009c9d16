package org.sodm.jobs.predict;

import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.NullWritable;
import org.sodm.avro.Prediction;
import org.sodm.data.Instances;
import org.sodm.jobs.ingest.IngestMapper;

/**
 * {@code sodm predict} on raw input (LIBSVM, CSV, Avro files; plain or compressed): each map task
 * parses its split as the ingest does (the same ids, statistics, bad-record policy and errors
 * naming file and line) and scores every row at once, so the rows are never written and read back
 * as an ingest directory in between.
 */
public class ScoringIngestMapper extends IngestMapper<AvroKey<Prediction>, NullWritable> {
  private Scorer scorer;
  private Scorer.Out write;

  @Override
  protected Sink sink(Context context) {
    return row -> scorer.score(row.getId(), row.getLabel(), Instances.features(row.getFeatures()), write);
  }

  @Override
  protected void setup(Context context) throws IOException {
    scorer = new Scorer(context);
    try {
      write = scorer.output(context);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted opening the task's output");
    }
    super.setup(context);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    try {
      scorer.finish(write);
      write.close();
    } catch (RuntimeException e) {
      throw new IOException("scoring the last rows of the split: " + e, e);
    }
    super.cleanup(context);
  }
}
