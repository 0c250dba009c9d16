package org.sodm.cli;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.predict.PredictJob;
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
    "calibration table (rows binned by the predicted class's probability: mean probability against accuracy)."})
public final class EvaluateCommand extends SodmCommand {
  @Option(names = {"-p", "--predictions"}, required = true, paramLabel = "DIR", description = "Output of sodm predict.")
  String predictions;

  @Option(names = {"-m", "--model"}, required = true, paramLabel = "MODEL", description = "The model that made them (for its labels).")
  String model;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  @Option(names = "--reliability-png", paramLabel = "FILE",
      description = "With probabilities (--probability models): also write a reliability diagram (accuracy against mean probability per bin) as a PNG.")
  String reliabilityPng;

  @Override
  protected void applyOptions(Configuration conf) {}

  @Override
  protected int execute(Configuration conf) throws Exception {
    Model m = ModelFiles.read(conf, ModelFiles.resolve(conf, model));
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
        try (java.io.OutputStream o = png.getFileSystem(conf).create(png, true)) {
          o.write(bytes.toByteArray());
        }
        if (!json) out().println("reliability diagram: " + png);
      }
      return 0;
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
