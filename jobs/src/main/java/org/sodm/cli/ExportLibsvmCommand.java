package org.sodm.cli;

import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.model.LibsvmExport;
import org.sodm.model.LinearModel;
import org.sodm.model.Model;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "export-libsvm", description = {
    "Write the model in LIBSVM's format for svm-predict (the blocks' mean as one expansion, rho = -bias),",
    "and, when the model scales features, an svm-scale range file (use: svm-scale -r RANGE test > test.scaled).",
    "A one-vs-one multi-class model is written in LIBSVM's multi-class format (each distinct support vector once",
    "with K-1 coefficients; svm-predict reproduces sodm's labels); ovr models cannot be expressed in it."})
public final class ExportLibsvmCommand extends SodmCommand {
  @Parameters(index = "0", paramLabel = "MODEL", description = "model.avro or a training output directory.")
  String model;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "LIBSVM model file to write.")
  String output;

  @Option(names = "--range", paramLabel = "FILE", description = "Where to write the svm-scale range file (default: OUTPUT.range when the model scales).")
  String range;

  @Override
  protected void applyOptions(Configuration conf) {}

  @Override
  protected int execute(Configuration conf) throws Exception {
    Model m = ModelFiles.read(conf, ModelFiles.resolve(conf, model));
    Path out = new Path(output);
    FileSystem fs = out.getFileSystem(conf);
    java.io.StringWriter text = new java.io.StringWriter();
    try {
      LibsvmExport.write(m, text); // before anything is written: a model LIBSVM cannot express leaves no file behind
    } catch (IllegalArgumentException e) {
      throw new org.sodm.jobs.support.SodmException("export-libsvm " + model + ": " + e.getMessage());
    }
    try (Writer w = new OutputStreamWriter(fs.create(out, true), StandardCharsets.UTF_8)) {
      w.write(text.toString());
    }
    String what = m instanceof org.sodm.model.MulticlassModel mm
        ? " (" + mm.classes().size() + " classes, one-vs-one, " + mm.distinctSupportVectors() + " distinct SVs)"
        : m instanceof LinearModel ? " (linear model: one SV = w, rho = -b)" : " (" + m.supportVectors() + " SVs)";
    out().println("sodm export-libsvm: " + fs.makeQualified(out) + what);
    if (m.scaler() != null) {
      Path r = new Path(range != null ? range : output + ".range");
      try (Writer w = new OutputStreamWriter(fs.create(r, true), StandardCharsets.UTF_8)) {
        LibsvmExport.writeRange(m.scaler(), w);
      }
      out().println("sodm export-libsvm: scale test data first: svm-scale -r " + r + " TEST > TEST.scaled");
    }
    return 0;
  }
}
