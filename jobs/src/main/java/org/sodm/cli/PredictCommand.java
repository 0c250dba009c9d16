package org.sodm.cli;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.OutputGuard;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "predict", sortOptions = false,
    header = "Score data with a model (map-only job, model in the distributed cache).",
    description = {
    "Score data with a model (map-only job, model in the distributed cache). Output: OUTPUT/part-m-*.avro",
    "records {id, label, decision, predicted}; with labelled input also OUTPUT/metrics.json and a summary.",
    "Binary kernel models score 1,024 rows at a time against one expansion (the blocks' identical support",
    "vectors merged), rows x support vectors in cache-sized blocks; bin/sodm adds the JDK's Vector API for",
    "the RBF sums (SODM_VECTOR=0: without it; README, Scoring).",
    "Uncompressed LIBSVM / CSV files are parsed by the scoring tasks themselves (one job, the ingest's ids and",
    "file:line errors); compressed or Avro files are ingested first, then scored over the cores.",
    "--text also writes OUTPUT/predictions.txt in svm-predict's output format (diff it with svm-predict's file).",
    "A row labelled with none of the model's labels is scored and counts as an error, as svm-predict counts it (a",
    "warning names each such label, its rows and its first line; evaluate shows them as an (other) row)."})
public final class PredictCommand extends SodmCommand {
  @Option(names = {"-m", "--model"}, required = true, paramLabel = "MODEL", description = "model.avro or a training output directory.")
  String model;

  @Option(names = {"-i", "--input"}, required = true, split = ",", paramLabel = "PATH", description = "Data to score (raw files or an ingest directory).")
  List<String> inputs;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Output directory.")
  String output;

  @Override
  protected List<Param> params() {
    // the input's layout, as train and ingest read it
    // (by default the model's: the layout its training data was read with); no --skip-bad-records: a skipped line would
    // leave predict --text's lines out of step with the input's
    return List.of(Param.INGEST_FORMAT, Param.INGEST_LABEL_COLUMN, Param.INGEST_DELIMITER, Param.INGEST_HEADER,
        Param.PREDICT_MODE, Param.PREDICT_TEXT, Param.OVERWRITE);
  }

  @Override
  protected String quietSays() {
    return " (predictions and metrics.json are still written)";
  }

  @Override
  protected void applyOptions(Configuration conf) {
    // every option is a table parameter
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    long t0 = System.nanoTime();
    // the model as named: a training output directory holds more than model.avro (work/, the report)
    OutputGuard.checkDisjoint(conf, new Path(output), List.of(model), "model");
    PredictJob.Result r = PredictJob.run(conf, ModelFiles.resolve(conf, model), inputs, new Path(output));
    out().printf("sodm predict: %,d rows scored (%s mode) in %.1f s -> %s%n", r.rows(), Param.PREDICT_MODE.value(conf),
        (System.nanoTime() - t0) / 1e9, r.output());
    if (r.unseenWarning() != null) System.err.println("sodm predict: warning: " + r.unseenWarning());
    if (r.unknownLabels() != null) System.err.println("sodm predict: warning: " + r.unknownLabels());
    if (r.metrics() != null) out().println(r.metrics().table(r.labels().positive(), r.labels().negative()));
    if (r.multiclass() != null) out().println(r.multiclass().table());
    return 0;
  }
}
