package org.sodm.jobs.predict;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.sodm.avro.Instance;
import org.sodm.avro.Prediction;
import org.sodm.data.AvroClasses;
import org.sodm.data.LabelMap;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.OutputDir;
import org.sodm.jobs.support.OutputGuard;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.KernelModel;
import org.sodm.model.Metrics;
import org.sodm.model.Model;
import org.sodm.model.UnseenFeatures;

/**
 * {@code sodm predict}: map-only batch scoring, one job. Raw input (LIBSVM/CSV/Avro files, plain or
 * compressed) is parsed by the scoring tasks themselves ({@link ScoringIngestMapper}: the ingest's
 * parsers, ids, bad-record policy and errors, without writing an ingest directory in between); an
 * ingest directory is scored as is ({@link PredictMapper}). The model
 * reaches every task through the distributed cache. Output: OUT/part-m-*.avro (Prediction),
 * and OUT/metrics.json when every row is labelled.
 */
public final class PredictJob {
  public static final String METRICS = "metrics.json";
  /** The prediction mode (global or local) of a predictions directory. */
  public static final String MODE = "mode.txt";
  /** The model a predictions directory was made with (its qualified path), for {@code sodm evaluate} without --model. */
  public static final String MODEL = "model.txt";

  /** The model recorded in a predictions directory, or null when it records none (made before sodm wrote it). */
  public static Path modelOf(Configuration conf, Path predictions) throws IOException {
    Path p = new Path(predictions, MODEL);
    FileSystem fs = p.getFileSystem(conf);
    if (!fs.exists(p)) return null;
    try (var in = fs.open(p)) {
      String s = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      return s.isEmpty() ? null : new Path(s);
    }
  }

  /** Writes the mode and the model of a predictions directory ({@link #MODE}, {@link #MODEL}). */
  private static void writeProvenance(FileSystem fs, Path dir, String mode, Path modelFile) throws IOException {
    try (OutputStream o = fs.create(new Path(dir, MODE))) {
      o.write((mode + "\n").getBytes(StandardCharsets.UTF_8));
    }
    try (OutputStream o = fs.create(new Path(dir, MODEL))) {
      o.write((modelFile.getFileSystem(fs.getConf()).makeQualified(modelFile) + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The mode a predictions directory was made with ("global" when not recorded). */
  public static String mode(Configuration conf, Path predictions) throws IOException {
    Path p = new Path(predictions, MODE);
    FileSystem fs = p.getFileSystem(conf);
    if (!fs.exists(p)) return "global";
    try (var in = fs.open(p)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
  }

  private PredictJob() {}

  /** Where the map tasks count the features the model never saw (one small text file per task). */
  static final String UNSEEN_DIR_KEY = "sodm.internal.predict.unseen.dir";

  /**
   * The predictions' directory, rows, {@code metrics} for binary models and {@code multiclass} for
   * multi-class ones (each null when some row has no label), the labels, the unseen features ignored, and the warning
   * about rows labelled with none of the model's labels ({@link #unknownLabels}), or null.
   */
  public record Result(Path output, long rows, Metrics metrics, LabelMap labels, org.sodm.model.MulticlassMetrics multiclass,
      UnseenFeatures unseen, int dimension, String unknownLabels) {
    /** The warning about features the model never saw, or null. */
    public String unseenWarning() {
      return unseen.warning(dimension);
    }
  }

  /** Smallest split of the local-mode rule (1 MB; tests lower it to split small files). */
  static final String MIN_SPLIT_KEY = "sodm.internal.predict.min.split.bytes";

  /**
   * Local mode: the split size that gives every local core a map task over {@code files} (scoring
   * is the CPU-bound part); 0 on a cluster, where the splits follow the file system's blocks (Avro
   * files) or sodm.ingest.split.bytes (raw text). Avro files split at their sync markers, text at
   * lines (compressed text is one task per file); each prediction keeps its instance id, so the
   * predictions and metrics do not depend on the split.
   */
  static long localSplitBytes(Configuration conf, List<Path> files, Model model) throws IOException {
    if (!Jobs.isLocal(conf)) return 0;
    int p = conf.getInt("mapreduce.local.map.tasks.maximum", 1);
    if (p <= 1) return 0;
    long bytes = 0;
    for (Path f : files) bytes += f.getFileSystem(conf).getFileStatus(f).getLen();
    return Math.max(minSplitBytes(conf, model), (bytes + p - 1) / p);
  }

  /**
   * The smallest split of the local-mode rule: {@link #MIN_SPLIT_KEY} (1 MB) for a model that costs at most
   * {@value #CHEAP_ROW} kernel evaluations a row, smaller in proportion above that (down to 64 KB): a split is worth a task
   * when scoring its rows costs more than the task. letter's 26-class model (13,716 distinct support vectors) scored
   * 3,734 rows (580 KB) in one task: 3.7 s, in two 2.9-3.6 s.
   */
  static long minSplitBytes(Configuration conf, Model model) {
    long min = conf.getLong(MIN_SPLIT_KEY, 1L << 20);
    long cost = kernelEvaluationsPerRow(model);
    return cost <= CHEAP_ROW ? min : Math.max(Math.min(min, 64L << 10), (long) (min * ((double) CHEAP_ROW / cost)));
  }

  /** Kernel evaluations per scored row up to which {@link #MIN_SPLIT_KEY} applies unchanged. */
  static final long CHEAP_ROW = 2_000;

  /** The kernel evaluations of scoring one row: distinct support vectors (multi-class: shared by the tasks); 0 for linear. */
  static long kernelEvaluationsPerRow(Model model) {
    if (model instanceof org.sodm.model.MulticlassModel mm) {
      return mm.distinctSupportVectors() > 0 ? mm.distinctSupportVectors() : mm.supportVectors();
    }
    return model instanceof KernelModel ? model.supportVectors() : 0;
  }

  /**
   * The CSV layout the model's training data was read with ({@link Param#CSV_LAYOUT}: the training parameters the model
   * records), set in {@code conf} for each key the user did not give and the training did not leave at its default: a test
   * file laid out as the training file (its label in the last column, say) is read as it was. Returns the options taken,
   * as "--label-column -1".
   */
  static List<String> csvLayoutOf(Configuration conf, Model model) {
    java.util.Map<String, String> params = model.provenance() == null ? null : model.provenance().getParameters();
    List<String> took = new ArrayList<>();
    if (params == null) return took;
    for (Param p : Param.CSV_LAYOUT) {
      String v = params.get(p.key());
      String[] sources = conf.getPropertySources(p.key());
      boolean given = sources != null && !java.util.Arrays.asList(sources).equals(List.of(SodmConf.DEFAULT_RESOURCE));
      if (v == null || given || v.equals(p.defaultValue())) continue;
      conf.set(p.key(), v, "the model's training data");
      took.add(p.optionName() + " " + v);
    }
    return took;
  }

  public static Result run(Configuration base, Path modelFile, List<String> inputs, Path output) throws IOException {
    AvroClasses.trust();
    Configuration conf = new Configuration(base);
    Jobs.localParallelism(conf);
    OutputGuard.checkDisjoint(conf, output, inputs, "input");
    OutputGuard.checkDisjoint(conf, output, List.of(modelFile.toString()), "model");
    Model model = ModelFiles.read(conf, modelFile);
    List<String> layout = csvLayoutOf(conf, model);
    if (!layout.isEmpty()) {
      org.slf4j.LoggerFactory.getLogger(PredictJob.class).info("CSV input read as the model's training data was: {} (give the "
          + "option to read it otherwise)", String.join(", ", layout));
    }
    String mode = conf.getTrimmed(SodmConf.PREDICT_MODE, "global");
    if (!mode.equals("global") && !mode.equals("local")) {
      throw new SodmException("bad parameter --mode (" + SodmConf.PREDICT_MODE + "): global or local, got '" + mode + "'");
    }
    if (mode.equals("local") && !(model instanceof KernelModel km && km.routing() != null)) {
      throw new SodmException("--mode local needs a model trained with --partitioner kmeans (" + modelFile + " has no routing)");
    }
    try (OutputDir od = OutputDir.create(conf, output, conf.getBoolean(SodmConf.OVERWRITE, false))) {
      Path in = new Path(inputs.get(0));
      FileSystem ifs = in.getFileSystem(conf);
      conf.set(JobFailure.DIR_KEY, new Path(od.temp(), "_failures").toString());
      Path unseenDir = new Path(od.temp(), "_unseen");
      conf.set(UNSEEN_DIR_KEY, unseenDir.toString());
      vectorTasks(conf);
      Path pred = new Path(od.temp(), "predictions");
      Job job;
      IngestJob.Parse parse = null;
      String unknown = null;
      boolean ingestDir = inputs.size() == 1 && ifs.isDirectory(in) && ifs.exists(new Path(in, IngestJob.STATS));
      // --text: the lines in the order the inputs were given
      int[] filePlace = ingestDir || !conf.getBoolean(SodmConf.PREDICT_TEXT, false) ? null : IngestJob.givenOrder(conf, inputs);
      if (!ingestDir) {
        Configuration ic = new Configuration(conf);
        ic.set(SodmConf.INGEST_MAX_LABELS, "1000000"); // any labels: one the model does not know is an error (unknownLabels)
        ic.set(SodmConf.INGEST_SCALE, "none"); // the model's scaler applies
        ic.setBoolean(SodmConf.OVERWRITE, false);
        parse = IngestJob.Parse.prepare(ic, inputs);
      }
      if (parse != null && parse.splittable()) {
        // uncompressed text: each map task parses its split as the ingest does and scores the rows at once (one job, no
        // ingest directory in between)
        parse = parse.statsUnder(od.temp());
        long split = localSplitBytes(conf, parse.files(), model);
        if (split > 0) {
          parse.conf().setLong(FileInputFormat.SPLIT_MINSIZE, 1);
          parse.conf().setLong(FileInputFormat.SPLIT_MAXSIZE, split);
        }
        job = parse.job("sodm predict " + inputs, ScoringIngestMapper.class, Prediction.getClassSchema(), pred);
      } else {
        // an ingest directory, or compressed / Avro files (one parsing task per file): scored over the cores from Avro
        Path data;
        if (ingestDir) {
          unknown = unknownLabels(IngestJob.read(conf, in).stats(), model);
          data = new Path(in, IngestJob.DATA);
        } else {
          IngestJob.Result ingested = IngestJob.run(parse, new Path(od.temp(), "_ingest")); // the inputs listed once
          parse = null; // the ingest checked its statistics
          unknown = unknownLabels(ingested.stats(), model);
          data = new Path(ingested.dir(), IngestJob.DATA);
        }
        job = Jobs.newJob(conf, "sodm predict");
        job.setJarByClass(PredictJob.class);
        job.setInputFormatClass(org.sodm.jobs.support.AvroPiecesInputFormat.class);
        AvroJob.setInputKeySchema(job, Instance.getClassSchema());
        FileInputFormat.setInputPaths(job, data);
        long split = localSplitBytes(conf, AvroFiles.dataFiles(conf, data), model);
        if (split > 0) FileInputFormat.setMaxInputSplitSize(job, split);
        job.setMapperClass(PredictMapper.class);
        job.setNumReduceTasks(0);
        job.setOutputFormatClass(org.sodm.jobs.support.UncountedAvroOutputFormat.class);
        AvroJob.setOutputKeySchema(job, Prediction.getClassSchema());
        FileOutputFormat.setOutputPath(job, pred);
      }
      job.addCacheFile(modelFile.toUri());
      job.getConfiguration().set(PredictMapper.MODEL_KEY, modelFile.toUri().toString());
      try (ModelFiles.Shared shared = ModelFiles.share(job.getConfiguration(), model)) {
        Jobs.run(job, "predict");
      }
      if (parse != null) unknown = unknownLabels(parse.finish().toAvro(), model);
      FileSystem fs = od.temp().getFileSystem(conf);
      if (conf.getBoolean(SodmConf.PREDICT_TEXT, false)) PredictionsText.write(conf, pred, od.temp(), model, filePlace);
      // flatten: predictions at the top of OUT
      for (Path p : AvroFiles.dataFiles(conf, pred)) fs.rename(p, new Path(od.temp(), p.getName()));
      fs.delete(pred, true);
      fs.delete(new Path(od.temp(), "_stats"), true);
      fs.delete(new Path(od.temp(), "_ingest"), true);
      fs.delete(new Path(od.temp(), "_failures"), true);
      UnseenFeatures unseen = readUnseen(fs, unseenDir);
      fs.delete(unseenDir, true);
      if (model instanceof org.sodm.model.MulticlassModel mm) {
        MulticlassEvaluation mev = evaluate(conf, od.temp(), mm);
        if (mev.metrics() != null) {
          try (OutputStream o = fs.create(new Path(od.temp(), METRICS))) {
            o.write((mev.metrics().toJson() + "\n").getBytes(StandardCharsets.UTF_8));
          }
        }
        writeProvenance(fs, od.temp(), mode, modelFile);
        fs.create(new Path(od.temp(), "_SUCCESS")).close();
        od.commit();
        return new Result(od.target(), mev.rows(), null, model.labels(), mev.metrics(), unseen, model.dimension(), unknown);
      }
      Evaluation ev = evaluate(conf, od.temp(), model.labels());
      if (ev.metrics() != null) {
        try (OutputStream o = fs.create(new Path(od.temp(), METRICS))) {
          o.write((ev.metrics().toJson(model.labels().positive(), model.labels().negative()) + "\n").getBytes(StandardCharsets.UTF_8));
        }
      }
      writeProvenance(fs, od.temp(), mode, modelFile);
      fs.create(new Path(od.temp(), "_SUCCESS")).close();
      od.commit();
      return new Result(od.target(), ev.rows(), ev.metrics(), model.labels(), null, unseen, model.dimension(), unknown);
    }
  }

  /**
   * When this JVM scores with the Vector API ({@link org.sodm.kernel.RbfSums#vectorized()}: started
   * with {@code --add-modules jdk.incubator.vector}, as {@code bin/sodm predict} does), the map tasks
   * of a cluster get the module too, so a cluster scores as local mode does (the two RBF paths
   * differ in the last bits of the decision values). Local-mode tasks run in this JVM.
   */
  static void vectorTasks(Configuration conf) {
    if (!org.sodm.kernel.RbfSums.vectorized() || Jobs.isLocal(conf)) return;
    String opts = conf.get("mapreduce.map.java.opts", conf.get("mapred.child.java.opts", ""));
    if (!opts.contains("jdk.incubator.vector")) conf.set("mapreduce.map.java.opts", (opts + " --add-modules jdk.incubator.vector").trim());
  }

  /**
   * The warning about rows labelled with none of the model's labels, naming each such label, its rows and the file and
   * line of its first row; null when there are none. They are scored as any row; the metrics count them as errors, as
   * svm-predict does ({@link Metrics}, {@link org.sodm.model.MulticlassMetrics}).
   */
  static String unknownLabels(org.sodm.avro.FeatureStats stats, Model model) {
    if (stats.getLabels() == null) return null;
    List<String> known = known(model);
    List<String> parts = new ArrayList<>();
    long rows = 0;
    for (var l : stats.getLabels()) {
      if (l.getLabel() == null) continue;
      String label = l.getLabel().toString();
      if (known.contains(label)) continue;
      rows += l.getCount();
      parts.add("'" + label + "' (" + String.format(java.util.Locale.ROOT, "%,d", l.getCount()) + (l.getCount() == 1 ? " row, " : " rows, first ")
          + "at " + l.getFirstSeen() + ")");
    }
    if (parts.isEmpty()) return null;
    int shown = Math.min(parts.size(), 5);
    return String.format(java.util.Locale.ROOT, "%,d row%s labelled with none of the model's labels (%s): %s%s; scored as any row, they count "
        + "as errors in the accuracy, as svm-predict counts them", rows, rows == 1 ? " is" : "s are", String.join(", ", known),
        String.join(", ", parts.subList(0, shown)), parts.size() > shown ? " and " + (parts.size() - shown) + " more label" + (parts.size() - shown == 1 ? "" : "s") : "");
  }

  private static List<String> known(Model model) {
    return model instanceof org.sodm.model.MulticlassModel mm ? mm.classes() : List.of(model.labels().negative(), model.labels().positive());
  }

  /** The map tasks' counts of unseen features, summed. */
  private static UnseenFeatures readUnseen(FileSystem fs, Path dir) throws IOException {
    UnseenFeatures all = new UnseenFeatures();
    if (!fs.exists(dir)) return all;
    for (org.apache.hadoop.fs.FileStatus st : fs.listStatus(dir)) {
      if (!st.isFile() || st.getPath().getName().startsWith(".")) continue;
      try (java.io.InputStream in = fs.open(st.getPath())) {
        String[] f = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().split(" ");
        all.add(Long.parseLong(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2]));
      }
    }
    return all;
  }

  /** Rows read and metrics (null when some row has no label). */
  public record Evaluation(long rows, Metrics metrics) {}

  /** Rows read and multi-class metrics (null when some row has no label). */
  public record MulticlassEvaluation(long rows, org.sodm.model.MulticlassMetrics metrics) {}

  /**
   * Multi-class metrics of a predictions directory (per-class precision, recall, F1, macro and
   * micro averages, confusion matrix; with probabilities the log-loss and calibration table); a
   * true label that is not one of the model's classes is an error ({@link org.sodm.model.MulticlassMetrics#other}).
   */
  public static MulticlassEvaluation evaluate(Configuration conf, Path predictions, org.sodm.model.MulticlassModel model)
      throws IOException {
    java.util.Map<String, Integer> index = new java.util.HashMap<>();
    for (int c = 0; c < model.classes().size(); c++) index.put(model.classes().get(c), c);
    org.sodm.model.MulticlassMetrics.Builder b = new org.sodm.model.MulticlassMetrics.Builder(model.classes());
    long[] counts = new long[3]; // rows, unlabelled, with probabilities
    AvroFiles.forEach(conf, predictions, Prediction.class, r -> {
      counts[0]++;
      if (r.getLabel() == null) {
        counts[1]++;
        return;
      }
      Integer t = index.get(r.getLabel().toString());
      Integer p = index.get(r.getPredicted().toString());
      if (p == null) throw new SodmException("instance " + r.getId() + ": predicted label '" + r.getPredicted() + "' is not one of the model's classes");
      double[] probs = null;
      if (r.getProbabilities() != null) {
        probs = new double[r.getProbabilities().size()];
        for (int i = 0; i < probs.length; i++) probs[i] = r.getProbabilities().get(i);
        if (probs.length != model.classes().size()) {
          throw new SodmException("instance " + r.getId() + ": " + probs.length + " probabilities for " + model.classes().size() + " classes");
        }
        counts[2]++;
      }
      if (t == null) b.addOther(p, probs); // a label the model does not have: an error, as svm-predict counts it
      else b.add(t, p, probs);
    });
    if (counts[1] > 0 || counts[0] == 0) return new MulticlassEvaluation(counts[0], null);
    return new MulticlassEvaluation(counts[0], b.build());
  }

  /** Metrics of a predictions directory; rows labelled with neither of the model's two labels count as errors. */
  public static Evaluation evaluate(Configuration conf, Path predictions, LabelMap labels) throws IOException {
    List<Double> y = new ArrayList<>();
    List<Double> f = new ArrayList<>();
    long[] counts = new long[2]; // rows, unlabelled
    AvroFiles.forEach(conf, predictions, Prediction.class, r -> {
      counts[0]++;
      if (r.getLabel() == null) {
        counts[1]++;
        return;
      }
      String label = r.getLabel().toString();
      // a label the model does not have: 0, an error, as svm-predict counts it
      y.add(label.equals(labels.positive()) ? 1.0 : label.equals(labels.negative()) ? -1.0 : 0.0);
      f.add(r.getDecision());
    });
    boolean allLabelled = counts[1] == 0;
    long rows = counts[0];
    if (!allLabelled || y.isEmpty()) return new Evaluation(rows, null);
    double[] ya = new double[y.size()];
    double[] fa = new double[f.size()];
    for (int i = 0; i < ya.length; i++) {
      ya[i] = y.get(i);
      fa[i] = f.get(i);
    }
    return new Evaluation(rows, Metrics.of(ya, fa));
  }
}
