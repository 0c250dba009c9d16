package org.sodm.cli;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.train.TrainKeys;
import org.sodm.jobs.train.TrainPipeline;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "cv", sortOptions = false,
    header = "k-fold cross-validation, as svm-train -v.",
    description = {
    "k-fold cross-validation, as svm-train -v: the rows are dealt to stratified, seeded folds (within each class",
    "in the order of a seeded hash of the row id, so every class is split within +-1 row), every (task, fold) is a",
    "sub-problem of the same training jobs (each trained without its fold), and every row is scored by the models",
    "that did not see it. Prints the accuracy of each fold, their mean +- standard deviation, and the accuracy over",
    "all rows (svm-train -v's 'Cross Validation Accuracy'). Takes sodm train's options. With --kernel linear (BQO,",
    "DSVRG) every (task, fold) is trained in turn by the linear solver instead, its dealer leaving the fold out."})
public final class CvCommand extends SodmCommand {
  @Option(names = {"-i", "--input"}, required = true, split = ",", paramLabel = "PATH",
      description = "Training data: LIBSVM/CSV/Avro files, directories, globs, or an ingest directory.")
  List<String> inputs;

  @Option(names = {"--folds", "-v"}, paramLabel = "K", defaultValue = "5", description = "Folds (default 5, at most 127); -v K as svm-train -v K.")
  int folds;

  @Option(names = {"-o", "--output"}, paramLabel = "DIR",
      description = "Where to keep the run (work/, train-report.json with the folds; model.avro is fold 0's); default: a temporary directory, removed at the end.")
  String output;

  @Override
  protected List<Param> params() {
    return TrainCommand.PARAMS;
  }

  @Override
  protected String quietSays() {
    return " but the Cross Validation Accuracy line";
  }

  @Override
  protected void applyOptions(Configuration conf) {
    if (folds < 2 || folds > 127) {
      throw new org.sodm.jobs.spec.BadParameterException("bad parameter --folds: must be in [2, 127], got " + folds);
    }
    conf.setInt(TrainKeys.CV_FOLDS, folds);
  }

  /** A progress line of a run in a temporary directory: its model's path (removed at the end) replaced by where to keep one. */
  static String notKept(String line, Path dir) {
    return line.replace(new Path(dir, "model.avro").toString(), "not kept (-o DIR keeps the run)").replace(dir.toString(), "a temporary directory");
  }

  @Override
  @SuppressWarnings("unchecked")
  protected int execute(Configuration conf) throws Exception {
    boolean temporary = output == null;
    Path out = temporary ? new Path(new java.io.File(System.getProperty("java.io.tmpdir"), "sodm-cv-" + java.util.UUID.randomUUID())
        .toURI()) : new Path(output);
    FileSystem fs = out.getFileSystem(conf);
    try {
      TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(inputs, null, out, false),
          line -> out().println("sodm cv: " + (temporary ? notKept(line, out) : line)));
      Map<String, Object> report;
      try (java.io.InputStream in = fs.open(new Path(out, TrainPipeline.REPORT))) {
        report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(in, Map.class);
      }
      Map<String, Object> cv = (Map<String, Object>) report.get("cv");
      result().printf(Locale.ROOT, "Cross Validation Accuracy = %.4f%% (%d folds; per fold %.4f%% +- %.4f) in %.1f s%n",
          100 * ((Number) cv.get("accuracy")).doubleValue(), folds, 100 * ((Number) cv.get("mean")).doubleValue(),
          100 * ((Number) cv.get("sd")).doubleValue(), r.seconds());
    } finally {
      if (temporary) fs.delete(out, true);
    }
    return 0;
  }
}
