package org.sodm.jobs.train;

import org.sodm.jobs.spec.TrainSpec;
import org.sodm.data.Seeds;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapred.AvroValue;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.Reservoir;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.Kernel;
import org.sodm.partition.KernelKMeans;
import org.sodm.partition.LandmarkSelector;
import org.sodm.partition.Landmarks;

/**
 * Landmark (or k-means centre) selection. Mappers draw a seeded reservoir sample of at most
 * {@code sodm.train.landmark.candidates} scaled instances from their split; for the stratified
 * partitioner each mapper then keeps its own S greedy landmarks (eq. 8) as candidates. One
 * reducer receives all candidates in id order and selects the final S landmarks from their
 * union (stratified), or fits kernel k-means with K clusters on the sample (kmeans). Output:
 * TrainRecords: landmarks with stratum = index, or the k-means sample with block = cluster.
 */
public final class LandmarkJob {
  private static final Logger LOG = LoggerFactory.getLogger(LandmarkJob.class);
  static final String MODE = "sodm.internal.landmarks.mode";

  private LandmarkJob() {}

  /** Seeded per ingested part (one split each), so a re-executed task samples the same rows. */
  public static class SampleMapper extends Mapper<AvroKey<Instance>, NullWritable, LongWritable, AvroValue<TrainRecord>> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "SampleMapper", () -> super.run(context));
    }

    private Reservoir<Instance> reservoir;
    private Scaler scaler;

    @Override
    protected void setup(Context context) throws IOException {
      AvroClasses.trust();
      Configuration conf = context.getConfiguration();
      FileSplit split = org.sodm.jobs.support.FilePiece.unwrap(context.getInputSplit());
      TrainSpec spec = TrainSpec.of(conf);
      long seed = Seeds.split(spec.seed(), split.getPath().getName(), split.getStart());
      // the input format reuses its record: copy the ones kept
      reservoir = new Reservoir<>(spec.tree().candidates(), seed, in -> Instance.newBuilder(in).build());
      scaler = TrainKeys.scaler(conf);
    }

    @Override
    protected void map(AvroKey<Instance> key, NullWritable value, Context context) {
      reservoir.offer(key.datum());
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      Configuration conf = context.getConfiguration();
      LongWritable id = new LongWritable();
      AvroValue<TrainRecord> out = new AvroValue<>();
      for (TrainRecord r : candidates(conf, reservoir.items(), scaler)) {
        id.set(r.getId());
        out.datum(r);
        context.write(id, out);
      }
    }
  }

  /**
   * A split's (or an ingest sample file's) candidates, in id order: its sampled rows scaled, and
   * for the stratified partitioner only its own S greedy landmarks (eq. 8).
   */
  static List<TrainRecord> candidates(Configuration conf, List<Instance> sample, Scaler scaler) {
    List<Instance> rows = new ArrayList<>(sample);
    rows.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    SparseVector[] x = new SparseVector[rows.size()];
    for (int i = 0; i < x.length; i++) {
      SparseVector v = Instances.features(rows.get(i).getFeatures());
      x[i] = scaler == null ? v : scaler.apply(v);
    }
    List<Integer> keep = new ArrayList<>();
    if ("stratified".equals(conf.get(MODE)) && x.length > 0) {
      TrainSpec spec = TrainSpec.of(conf);
      Kernel k = spec.resolvedKernel().strataKernel().create();
      Landmarks local = LandmarkSelector.select(x, k, Math.min(spec.tree().landmarks(), x.length), spec.seed());
      for (int s : local.sourceIndex()) keep.add(s);
      Collections.sort(keep);
    } else {
      for (int i = 0; i < x.length; i++) keep.add(i);
    }
    List<TrainRecord> out = new ArrayList<>(keep.size());
    for (int i : keep) {
      out.add(new TrainRecord(rows.get(i).getId(), 0.0, Instances.toAvro(x[i]), -1, -1, List.of(), 0.0, List.of(), 0.0));
    }
    return out;
  }

  /**
   * The final selection from the union of candidates (in id order): S landmarks with stratum =
   * index (stratified), or the sample with block = k-means cluster (kmeans).
   */
  static List<TrainRecord> select(Configuration conf, List<TrainRecord> all) {
    SparseVector[] x = new SparseVector[all.size()];
    for (int i = 0; i < x.length; i++) x[i] = Instances.features(all.get(i).getFeatures());
    TrainSpec spec = TrainSpec.of(conf);
    Kernel k = spec.resolvedKernel().create();
    long seed = spec.seed();
    List<TrainRecord> out = new ArrayList<>();
    if ("kmeans".equals(conf.get(MODE))) {
      int clusters = conf.getInt(TrainKeys.BLOCKS, 1);
      // DC-SVM: a uniform sample of at most m (--kmeans-sample) of the candidates, in id order
      int m = spec.kmeansSample();
      int[] keep = KernelKMeans.uniformSampleIndices(x.length, m, seed);
      SparseVector[] xs = new SparseVector[keep.length];
      for (int i = 0; i < keep.length; i++) xs[i] = x[keep[i]];
      x = xs;
      KernelKMeans km = KernelKMeans.fit(x, k, Math.min(clusters, x.length), LevelKMeans.MAX_ITER, seed);
      int[] member = km.memberships();
      for (int i = 0; i < x.length; i++) {
        TrainRecord r = all.get(keep[i]);
        r.setBlock(member[i]);
        out.add(r);
      }
      double[] obj = km.objectiveHistory();
      LOG.info("kernel k-means: {} clusters on {} sampled points, objective {} -> {}", clusters, x.length,
          obj.length > 0 ? obj[0] : Double.NaN, obj.length > 0 ? obj[obj.length - 1] : Double.NaN);
    } else {
      int s = Math.min(spec.tree().landmarks(), x.length);
      Landmarks lm = LandmarkSelector.select(x, spec.resolvedKernel().strataKernel().create(), s, seed);
      int[] src = lm.sourceIndex();
      for (int t = 0; t < src.length; t++) {
        TrainRecord r = all.get(src[t]);
        r.setStratum(t);
        out.add(r);
      }
      double[] res = lm.residuals();
      LOG.info("landmarks: {} selected from {} candidates, residual {} -> {}", src.length, x.length,
          res.length > 0 ? res[0] : Double.NaN, res.length > 0 ? res[res.length - 1] : Double.NaN);
    }
    return out;
  }

  /** The single reducer: final selection from the union of candidates, in id order. */
  public static class SelectReducer extends Reducer<LongWritable, AvroValue<TrainRecord>, AvroKey<TrainRecord>, NullWritable> {
    @Override
    public void run(Context context) throws java.io.IOException, InterruptedException {
      org.sodm.jobs.support.Causes.reporting(context, "SelectReducer", () -> super.run(context));
    }

    private final List<TrainRecord> all = new ArrayList<>();

    @Override
    protected void setup(Context context) {
      AvroClasses.trust();
    }

    @Override
    protected void reduce(LongWritable id, Iterable<AvroValue<TrainRecord>> values, Context context) {
      for (AvroValue<TrainRecord> v : values) {
        all.add(TrainRecord.newBuilder(v.datum()).build());
        break; // ids are unique; one value per id
      }
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      List<TrainRecord> selected;
      try {
        selected = select(context.getConfiguration(), all);
      } catch (RuntimeException e) {
        JobFailure.report(context, "landmark selection failed: " + e);
        throw e;
      }
      AvroKey<TrainRecord> out = new AvroKey<>();
      for (TrainRecord r : selected) {
        out.datum(r);
        context.write(out, NullWritable.get());
      }
    }
  }

  /**
   * The selection without a job: from the row samples the ingest wrote
   * ({@link IngestJob#sampleDirName}: per input file, a seeded bottom-k sample of as many rows as a map
   * task here would draw), in the driver: per sample file the candidates a map task keeps
   * ({@link #candidates}), then the final {@link #select}, written as the job writes it
   * ({@code out/part-r-00000.avro}). This saves a pass over the data and a job (0.6 s of 5 s on
   * ijcnn1 in local mode). Returns false, having written nothing, when the ingest directory has
   * no sample for this candidate count and seed, or when the samples may hold more than
   * {@code sodm.train.landmark.driver.rows} rows (the job then runs).
   */
  static boolean fromSample(Configuration base, Path ingestDir, Path out, String mode) throws IOException {
    Configuration conf = new Configuration(base);
    conf.set(MODE, mode);
    TrainSpec spec = TrainSpec.of(conf);
    long cap = spec.tree().landmarkDriverRows();
    if (cap <= 0) return false;
    List<Path> files = IngestJob.sampleFiles(conf, ingestDir);
    long perFile = spec.tree().candidates();
    if (files.isEmpty() || files.size() * perFile > cap) return false;
    Scaler scaler = TrainKeys.scaler(conf);
    List<TrainRecord> all = new ArrayList<>();
    for (Path f : files) all.addAll(candidates(conf, AvroFiles.readAll(conf, f, Instance.class), scaler));
    all.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    AvroFiles.write(conf, new Path(out, "part-r-00000.avro"), TrainRecord.getClassSchema(), select(conf, all));
    return true;
  }

  /** Runs the job: instances of {@code data} in, landmark TrainRecords in {@code out}. */
  static void run(Configuration base, Path data, Path out, String mode) throws IOException {
    Configuration conf = new Configuration(base);
    conf.set(MODE, mode);
    conf.set(JobFailure.DIR_KEY, new Path(out.getParent(), "_failures").toString());
    Job job = Jobs.newJob(conf, "sodm landmarks");
    job.setJarByClass(LandmarkJob.class);
    job.setInputFormatClass(org.sodm.jobs.support.WholeFileAvroInputFormat.class); // seeded per part
    AvroJob.setInputKeySchema(job, Instance.getClassSchema());
    FileInputFormat.setInputPaths(job, data);
    job.setMapperClass(SampleMapper.class);
    job.setMapOutputKeyClass(LongWritable.class);
    AvroJob.setMapOutputValueSchema(job, TrainRecord.getClassSchema());
    job.setReducerClass(SelectReducer.class);
    job.setNumReduceTasks(1);
    job.setOutputFormatClass(org.sodm.jobs.support.UncountedAvroOutputFormat.class);
    AvroJob.setOutputKeySchema(job, TrainRecord.getClassSchema());
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job, "landmark selection");
  }
}
