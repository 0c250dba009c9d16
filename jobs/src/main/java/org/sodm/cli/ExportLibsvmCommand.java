package org.sodm.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.OutputGuard;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.LibsvmExport;
import org.sodm.model.LinearModel;
import org.sodm.model.Model;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "export-libsvm",
    header = "Write a model in LIBSVM's format for svm-predict.",
    description = {
    "Write the model in LIBSVM's format for svm-predict (the blocks' mean as one expansion, rho = -bias),",
    "and, when the model scales features, an svm-scale range file (use: svm-scale -r RANGE test > test.scaled).",
    "A one-vs-one multi-class model is written in LIBSVM's multi-class format (each distinct support vector once",
    "with K-1 coefficients; svm-predict reproduces sodm's labels), and so is a two-class --probability model (for",
    "svm-predict -b 1); ovr models cannot be expressed in it.",
    "An existing file is replaced only with --overwrite and only when it is an earlier export (never the model or data)."})
public final class ExportLibsvmCommand extends SodmCommand {
  @Parameters(index = "0", paramLabel = "MODEL", description = "model.avro or a training output directory.")
  String model;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "LIBSVM model file to write.")
  String output;

  @Option(names = "--range", paramLabel = "FILE", description = "Where to write the svm-scale range file (default: OUTPUT.range when the model scales).")
  String range;

  @Override
  protected List<Param> params() {
    return List.of(Param.OVERWRITE);
  }

  @Override
  protected void applyOptions(Configuration conf) {}

  /** What a file written by this command starts with: a LIBSVM model, an svm-scale range file. */
  private static final String MODEL_START = "svm_type ";
  private static final String RANGE_START = "x";

  @Override
  protected int execute(Configuration conf) throws Exception {
    Path modelFile = ModelFiles.resolve(conf, model);
    Model m = ModelFiles.read(conf, modelFile);
    Path out = new Path(output);
    FileSystem fs = out.getFileSystem(conf);
    Path r = m.scaler() == null ? null : new Path(range != null ? range : output + ".range");
    // both targets are checked before anything is written
    boolean overwrite = Param.OVERWRITE.booleanValue(conf);
    checkTarget(conf, fs, out, modelFile, overwrite, MODEL_START, "a LIBSVM model");
    if (r != null) {
      if (fs.makeQualified(r).equals(fs.makeQualified(out))) throw new SodmException("--range " + r + " is the model file -o " + out);
      checkTarget(conf, fs, r, modelFile, overwrite, RANGE_START, "an svm-scale range file");
    }
    java.io.StringWriter text = new java.io.StringWriter();
    try {
      LibsvmExport.write(m, text); // before anything is written: a model LIBSVM cannot express leaves no file behind
    } catch (IllegalArgumentException e) {
      throw new SodmException("export-libsvm " + model + ": " + e.getMessage());
    }
    write(fs, out, w -> w.write(text.toString()));
    String what = m instanceof org.sodm.model.MulticlassModel mm && mm.subModel(0) instanceof LinearModel
        ? " (linear model with probabilities: one SV = w, rho = -b, probA / probB; svm-predict -b 1)"
        : m instanceof org.sodm.model.MulticlassModel mm
        ? " (" + mm.classes().size() + " classes, one-vs-one, " + mm.distinctSupportVectors() + " distinct SVs)"
        : m instanceof LinearModel ? " (linear model: one SV = w, rho = -b)" : " (" + m.supportVectors() + " SVs)";
    out().println("sodm export-libsvm: " + fs.makeQualified(out) + what);
    if (r != null) {
      write(fs, r, w -> LibsvmExport.writeRange(m.scaler(), w));
      out().println("sodm export-libsvm: scale test data first: svm-scale -r " + r + " TEST > TEST.scaled");
    }
    return 0;
  }

  /**
   * Refuses a target that is the model, or that exists and either --overwrite was not given or
   * it is not a file this command wrote (it does not start as one): never replace the user's data.
   */
  private static void checkTarget(Configuration conf, FileSystem fs, Path target, Path modelFile, boolean overwrite, String start,
      String what) throws IOException {
    OutputGuard.checkDisjoint(conf, target, List.of(modelFile.toString()), "model");
    if (!fs.exists(target)) return;
    if (!fs.getFileStatus(target).isFile()) {
      throw new SodmException(fs.makeQualified(target) + " exists and is a directory: refusing to write " + what + " there");
    }
    if (!overwrite) {
      throw new SodmException("output " + fs.makeQualified(target) + " already exists (remove it or pass --overwrite)");
    }
    byte[] head = new byte[start.length()];
    int n;
    try (InputStream in = fs.open(target)) {
      n = in.readNBytes(head, 0, head.length);
    }
    if (n < head.length || !new String(head, StandardCharsets.UTF_8).equals(start)) {
      throw new SodmException("--overwrite: " + fs.makeQualified(target) + " is not " + what + " written by sodm export-libsvm"
          + " (it does not start with '" + start.trim() + "'); refusing to replace it: remove it yourself or choose another output");
    }
  }

  private interface Body {
    void write(Writer w) throws IOException;
  }

  /** Writes {@code target} under a temporary name first, so a failure leaves no partial file. */
  private static void write(FileSystem fs, Path target, Body body) throws IOException {
    OutputGuard.writeAtomically(fs, target, o -> {
      Writer w = new OutputStreamWriter(o, StandardCharsets.UTF_8);
      body.write(w);
      w.flush();
    });
  }
}
