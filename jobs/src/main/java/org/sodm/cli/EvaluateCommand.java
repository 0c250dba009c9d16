package org.sodm.cli;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.Model;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "evaluate", sortOptions = false,
    header = "Metrics of a predictions directory: accuracy, precision, recall, F1, AUC, confusion matrix.",
    description = {
    "Metrics of a predictions directory: accuracy, precision, recall, F1 (of the +1 class), AUC, confusion",
    "matrix; as a table, or JSON with --json. Multi-class models: per-class precision, recall and F1, their",
    "macro and micro averages and the K x K confusion matrix; with --probability also the log-loss and a",
    "calibration table (rows binned by the predicted class's probability: mean probability against accuracy).",
    "Rows labelled with none of the model's labels are errors in the accuracy (svm-predict's count), false",
    "positives of the class predicted, an (other) row of the confusion matrix, and outside the AUC and log-loss."})
public final class EvaluateCommand extends SodmCommand {
  @Option(names = {"-p", "--predictions"}, required = true, paramLabel = "DIR", description = "Output of sodm predict.")
  String predictions;

  @Option(names = {"-m", "--model"}, paramLabel = "MODEL",
      description = "The model that made them (for its labels); default: the one sodm predict recorded in DIR (model.txt).")
  String model;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  @Option(names = "--reliability-png", paramLabel = "FILE",
      description = "With probabilities (--probability models): also write a reliability diagram (accuracy against mean "
          + "probability per bin) as a PNG. An existing FILE is replaced only with --overwrite and only when sodm evaluate drew it.")
  String reliabilityPng;

  @Override
  protected java.util.List<Param> params() {
    return java.util.List.of(Param.OVERWRITE);
  }

  @Override
  protected void applyOptions(Configuration conf) {}

  /** --model, else the model sodm predict recorded beside the predictions. */
  private Path modelFile(Configuration conf) throws java.io.IOException {
    if (model != null) return ModelFiles.resolve(conf, model);
    Path dir = new Path(predictions);
    Path recorded = PredictJob.modelOf(conf, dir);
    if (recorded == null) {
      throw new SodmException(dir.getFileSystem(conf).makeQualified(dir) + " does not name the model that made it (no "
          + PredictJob.MODEL + ": not written by this sodm predict); give it with --model MODEL");
    }
    if (!recorded.getFileSystem(conf).exists(recorded)) {
      throw new SodmException("the model that made " + predictions + ", " + recorded + " (its " + PredictJob.MODEL
          + "), no longer exists; give the model with --model MODEL");
    }
    return recorded;
  }

  /** Refuses an existing --reliability-png that is not a diagram of this command, or any existing one without --overwrite. */
  private static void checkPng(Configuration conf, Path png) throws java.io.IOException {
    org.apache.hadoop.fs.FileSystem fs = png.getFileSystem(conf);
    if (!fs.exists(png)) return;
    Path q = fs.makeQualified(png);
    if (!fs.getFileStatus(png).isFile()) throw new SodmException("--reliability-png " + q + " exists and is a directory");
    if (!Param.OVERWRITE.booleanValue(conf)) {
      throw new SodmException("--reliability-png " + q + " already exists (remove it or pass --overwrite)");
    }
    byte[] head = new byte[4096];
    int n;
    try (java.io.InputStream in = fs.open(png)) {
      n = in.readNBytes(head, 0, head.length);
    }
    if (!ReliabilityPng.writtenBySodm(head, n)) {
      throw new SodmException("--overwrite: " + q + " is not a reliability diagram drawn by sodm evaluate; refusing to replace it: "
          + "remove it yourself or choose another file");
    }
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    if (reliabilityPng != null) checkPng(conf, new Path(reliabilityPng));
    Model m = ModelFiles.read(conf, modelFile(conf));
    if (m instanceof org.sodm.model.MulticlassModel mm) {
      PredictJob.MulticlassEvaluation ev = PredictJob.evaluate(conf, new Path(predictions), mm);
      if (ev.metrics() == null) throw new SodmException(predictions + ": not every row has a label; nothing to evaluate");
      String mode = PredictJob.mode(conf, new Path(predictions));
      if (json) {
        out().println("{\"mode\": \"" + mode + "\", " + ev.metrics().toJson().substring(1));
      } else {
        out().println("prediction mode: " + mode);
        out().println(ev.metrics().table());
      }
      if (reliabilityPng != null) {
        if (ev.metrics().calibrationCounts() == null) {
          throw new SodmException(predictions + " has no probabilities: --reliability-png needs a model trained with --probability");
        }
        Path png = new Path(reliabilityPng);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        ReliabilityPng.write(ev.metrics(), "sodm reliability diagram: " + predictions, bytes);
        // checked above: absent, or a diagram of this command
        org.sodm.jobs.support.OutputGuard.writeAtomically(png.getFileSystem(conf), png, o -> o.write(bytes.toByteArray()));
        if (!json) out().println("reliability diagram: " + png);
      }
      return 0;
    }
    if (reliabilityPng != null) {
      throw new SodmException(predictions + " has no probabilities: --reliability-png needs a model trained with --probability");
    }
    PredictJob.Evaluation ev = PredictJob.evaluate(conf, new Path(predictions), m.labels());
    if (ev.rows() == 0) {
      throw new SodmException(predictions + " holds no predictions: give the output directory of sodm predict (its part-m-*.avro files)");
    }
    if (ev.metrics() == null) throw new SodmException(predictions + ": not every row has a label; nothing to evaluate");
    String pos = m.labels().positive();
    String neg = m.labels().negative();
    String mode = PredictJob.mode(conf, new Path(predictions));
    if (json) {
      String j = ev.metrics().toJson(pos, neg).trim();
      out().println(j.startsWith("{") ? "{\"mode\": \"" + mode + "\", " + j.substring(1).stripLeading() : j);
    } else {
      out().println("prediction mode: " + mode);
      out().println(ev.metrics().table(pos, neg));
    }
    return 0;
  }
}
