package org.sodm.jobs.phase;

import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;
import org.sodm.avro.Instance;
import org.sodm.avro.ModelRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.Model;
import org.sodm.model.ModelCodec;

/**
 * {@code --validation} scoring in map tasks (issue 18 item 3): the model written once under
 * {@code work/}, read once per task, the validation rows (their ingest
 * directory) split over the tasks and scored in batches ({@link TrainContext#correct}); the tasks
 * count the rows and the correct ones in job counters. Used on a cluster; in local mode the
 * driver scores the rows it holds on every core (the same batches, no job set-up), unless
 * {@link #WHERE_KEY} says {@code tasks}.
 */
public final class ValidationScoring {
  private ValidationScoring() {}

  /** The validation rows' ingest data directory (set by the pipeline with --validation). */
  public static final String DIR_KEY = "sodm.internal.validation.data";
  /** {@code tasks}: map tasks; {@code driver}: the driver; unset: tasks on a cluster, the driver in local mode. */
  public static final String WHERE_KEY = "sodm.internal.validation.scoring";

  static final String GROUP = "sodm.validation";
  /** Scoring jobs run by this JVM (tests check that the tasks, not the driver, scored). */
  static final java.util.concurrent.atomic.AtomicInteger JOBS = new java.util.concurrent.atomic.AtomicInteger();

  /** True when the validation rows are scored by a job. */
  static boolean inTasks(Configuration conf) {
    if (conf.get(DIR_KEY) == null) return false;
    String where = conf.getTrimmed(WHERE_KEY, "");
    if (where.equals("tasks")) return true;
    if (where.equals("driver")) return false;
    if (!where.isEmpty()) throw new SodmException(WHERE_KEY + ": tasks or driver, got '" + where + "'");
    return !Jobs.isLocal(conf);
  }

  /** The accuracy of {@code m} on the validation rows, scored by a map-only job; {@code scratch} is removed after. */
  static double accuracy(Configuration base, Model m, Path scratch) throws IOException {
    AvroClasses.trust();
    Configuration conf = new Configuration(base);
    Jobs.localParallelism(conf);
    Path data = new Path(conf.get(DIR_KEY));
    FileSystem fs = scratch.getFileSystem(conf);
    fs.delete(scratch, true);
    try {
      Path modelFile = fs.makeQualified(new Path(scratch, "model.avro"));
      AvroFiles.writeOne(conf, modelFile, ModelRecord.getClassSchema(), ModelCodec.toAvro(m));
      Job job = Jobs.newJob(conf, "sodm validation scoring");
      job.setJarByClass(ValidationScoring.class);
      // the model by its own key, read once per task (a job's cache files may hold others: Oozie adds its libraries)
      job.getConfiguration().set(MODEL_KEY, modelFile.toString());
      job.setInputFormatClass(org.sodm.jobs.support.AvroPiecesInputFormat.class);
      AvroJob.setInputKeySchema(job, Instance.getClassSchema());
      FileInputFormat.setInputPaths(job, data);
      if (Jobs.isLocal(conf)) {
        int p = conf.getInt("mapreduce.local.map.tasks.maximum", 1);
        long bytes = 0;
        for (Path f : AvroFiles.dataFiles(conf, data)) bytes += f.getFileSystem(conf).getFileStatus(f).getLen();
        if (p > 1) FileInputFormat.setMaxInputSplitSize(job, Math.max(conf.getLong(MIN_SPLIT_KEY, 1L << 20), (bytes + p - 1) / p));
      }
      job.setMapperClass(ScoringMapper.class);
      job.setNumReduceTasks(0);
      job.setOutputFormatClass(NullOutputFormat.class);
      org.apache.hadoop.mapreduce.Counters counters = Jobs.runCounting(job, "validation scoring");
      JOBS.incrementAndGet();
      long rows = counters.findCounter(GROUP, "rows").getValue();
      long correct = counters.findCounter(GROUP, "correct").getValue();
      return rows == 0 ? Double.NaN : (double) correct / rows;
    } finally {
      fs.delete(scratch, true);
    }
  }

  /** The model file the tasks read. */
  static final String MODEL_KEY = "sodm.internal.validation.model";

  /** Smallest split in local mode (1 MB; tests lower it to split small files over the cores). */
  static final String MIN_SPLIT_KEY = "sodm.internal.validation.min.split.bytes";

  /** Counts the rows and the correctly predicted ones, {@link TrainContext#BATCH} rows at a time. */
  public static class ScoringMapper extends Mapper<AvroKey<Instance>, NullWritable, NullWritable, NullWritable> {
    private Model model;
    private final SparseVector[] xs = new SparseVector[TrainContext.BATCH];
    private final String[] labels = new String[TrainContext.BATCH];
    private int pending;

    @Override
    protected void setup(Context context) throws IOException {
      AvroClasses.trust();
      String f = context.getConfiguration().get(MODEL_KEY);
      if (f == null) throw new IOException("validation scoring: " + MODEL_KEY + " is not set");
      Path file = new Path(f);
      // the model this training run's driver has just written (and digested): not digested again
      model = ModelCodec.fromVerified(AvroFiles.readOne(context.getConfiguration(), file, ModelRecord.class));
    }

    @Override
    protected void map(AvroKey<Instance> key, NullWritable value, Context context) {
      Instance in = key.datum();
      xs[pending] = Instances.features(in.getFeatures());
      labels[pending++] = in.getLabel();
      if (pending == xs.length) flush(context);
    }

    private void flush(Context context) {
      long ok = TrainContext.correct(model, xs, labels, pending);
      context.getCounter(GROUP, "rows").increment(pending);
      context.getCounter(GROUP, "correct").increment(ok);
      pending = 0;
    }

    @Override
    protected void cleanup(Context context) {
      if (pending > 0) flush(context);
    }
  }
}
