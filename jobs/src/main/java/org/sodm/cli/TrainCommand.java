package org.sodm.cli;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.train.TrainPipeline;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "train", sortOptions = false,
    header = "Train a classifier: SODM's merge tree (kernel), exact mode, or a linear method (BQO, DSVRG, Saddle).",
    description = {
    "Train a kernel classifier (OUTPUT/model.avro). By default data of at most 10,000 rows",
    "(-D sodm.train.exact.below.rows) is solved in one block, as svm-train solves it; larger data is ingested (if the input is raw),",
    "stratified by landmarks into B blocks of the most rows the kernel cache holds (8,192 at --cache-mb 256), each",
    "solved in a reducer, and the model averages the blocks' decision values. --partitions, --levels and --fanout",
    "give SODM's merge tree instead: K blocks merged p at a time, warm-started from the children's solutions, down",
    "to p blocks. Several classes: a binary task per class pair or per class (--multiclass). --kernel linear: the",
    "distributed linear solvers (BQO, DSVRG, Saddle). One progress line per phase and level (with --validation: the",
    "accuracy of the model as of that level)."})
public final class TrainCommand extends SodmCommand {
  @Option(names = {"-i", "--input"}, required = true, split = ",", paramLabel = "PATH",
      description = "Training data: LIBSVM/CSV/Avro files, directories, globs, or an ingest directory.")
  List<String> inputs;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Model directory (model.avro, train-report.json, work/).")
  String output;

  @Option(names = {"-t", "--validation"}, split = ",", paramLabel = "PATH", description = "Labelled data scored after every level.")
  List<String> validation;

  @Option(names = "--resume", description = "Continue the run in OUTPUT from its last complete phase (same parameters).")
  boolean resume;

  @Option(names = "--phase", paramLabel = "NAME", description =
      "Run up to and including this phase, then stop. Kernel tree: ingest, validation, landmarks, level-N, refine, "
      + "pbm-init, pbm-N, model; linear: ingest, validation, partition, bqo or dsvrg, model. Resumes the run in OUTPUT "
      + "when there is one (as --resume), so each step of a workflow runs one phase (workflows/).")
  String phase;

  /** Every training parameter of the table, as options in table order. */
  static final List<Param> PARAMS = params(TrainSpec.parameters());

  private static List<Param> params(List<Param> spec) {
    List<Param> ps = new java.util.ArrayList<>(List.of(Param.OVERWRITE));
    for (Param p : spec) {
      if (!p.options().isEmpty()) ps.add(p);
    }
    return List.copyOf(ps);
  }

  @Override
  protected List<Param> params() {
    return PARAMS;
  }

  @Override
  protected String quietSays() {
    return "";
  }

  @Override
  protected void applyOptions(Configuration conf) {
    // every option of train is a table parameter
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    checkValidationExists(conf);
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(inputs, validation, new Path(output), resume, phase),
        line -> out().println("sodm train: " + line));
    if (r.modelPath() == null) {
      out().printf("sodm train: phase %s complete in %.1f s%n", phase, r.seconds());
    } else {
      out().printf("sodm train: done in %.1f s: %s%n", r.seconds(), r.modelPath());
    }
    return 0;
  }

  /**
   * Fails before any work when a validation input does not exist (it was found missing only after the training data's
   * ingest), saying when the path is one of svm-train's -t kernel types (-t is --validation here).
   */
  private void checkValidationExists(Configuration conf) throws java.io.IOException {
    if (validation == null) return;
    for (String v : validation) org.sodm.jobs.ingest.IngestJob.matches(conf, v, "validation input", LibsvmOptions.validationHint(v));
  }
}
