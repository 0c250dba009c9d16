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
    "and, when the model scales features, an svm-scale range file (use: svm-scale -r RANGE test > test.scaled)."})
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
    try (Writer w = new OutputStreamWriter(fs.create(out, true), StandardCharsets.UTF_8)) {
      LibsvmExport.write(m, w);
    }
    out().println("sodm export-libsvm: " + fs.makeQualified(out) + (m instanceof LinearModel ? " (linear model: one SV = w, rho = -b)"
        : " (" + m.supportVectors() + " SVs)"));
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
