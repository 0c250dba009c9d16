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
import org.sodm.model.Model;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What export-libsvm and export-liblinear share: the model read, both targets (the model file and, when the model scales,
 * an svm-scale range file) checked before anything is written, the text built in memory first (a model the format cannot
 * express leaves no file behind), each file written under a temporary name, and an existing file replaced only with
 * --overwrite and only when it starts as a file of this command.
 */
abstract class ExportCommand extends SodmCommand {
  @Parameters(index = "0", paramLabel = "MODEL", description = "model.avro or a training output directory.")
  String model;

  @Option(names = "--range", paramLabel = "FILE", description = "Where to write the svm-scale range file (default: OUTPUT.range when the model scales).")
  String range;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "The model file to write.")
  String output;

  /** What a range file written by an export starts with. */
  private static final String RANGE_START = "x";

  private final String name;
  private final String modelStart;
  private final String format;

  /**
   * @param name the command's name, for messages
   * @param modelStart what a model file this command writes starts with (the first keyword of the format)
   * @param format what the format is called in messages ("a LIBSVM model")
   */
  ExportCommand(String name, String modelStart, String format) {
    this.name = name;
    this.modelStart = modelStart;
    this.format = format;
  }

  /**
   * Writes {@code m} in the format.
   *
   * @return what to say after the file name on the summary line
   * @throws IllegalArgumentException when the format cannot express the model
   */
  abstract String write(Model m, Writer w) throws IOException;

  @Override
  protected List<Param> params() {
    return List.of(Param.OVERWRITE);
  }

  @Override
  protected void applyOptions(Configuration conf) {}

  @Override
  protected int execute(Configuration conf) throws Exception {
    Path modelFile = ModelFiles.resolve(conf, model);
    Model m = ModelFiles.read(conf, modelFile);
    Path out = new Path(output);
    FileSystem fs = out.getFileSystem(conf);
    Path r = m.scaler() == null ? null : new Path(range != null ? range : output + ".range");
    // both targets are checked before anything is written
    boolean overwrite = Param.OVERWRITE.booleanValue(conf);
    checkTarget(conf, fs, out, modelFile, overwrite, modelStart, format);
    if (r != null) {
      if (fs.makeQualified(r).equals(fs.makeQualified(out))) throw new SodmException("--range " + r + " is the model file -o " + out);
      checkTarget(conf, fs, r, modelFile, overwrite, RANGE_START, "an svm-scale range file");
    }
    java.io.StringWriter text = new java.io.StringWriter();
    String what;
    try {
      what = write(m, text); // before anything is written: a model the format cannot express leaves no file behind
    } catch (IllegalArgumentException e) {
      throw new SodmException(name + " " + model + ": " + e.getMessage());
    }
    write(fs, out, w -> w.write(text.toString()));
    out().println("sodm " + name + ": " + fs.makeQualified(out) + what);
    if (r != null) {
      write(fs, r, w -> LibsvmExport.writeRange(m.scaler(), w));
      out().println("sodm " + name + ": scale test data first: svm-scale -r " + r + " TEST > TEST.scaled");
    }
    return 0;
  }

  /**
   * Refuses a target that is the model, or that exists and either --overwrite was not given or
   * it is not a file this command wrote (it does not start as one): never replace the user's data.
   */
  private void checkTarget(Configuration conf, FileSystem fs, Path target, Path modelFile, boolean overwrite, String start,
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
      throw new SodmException("--overwrite: " + fs.makeQualified(target) + " is not " + what + " written by sodm " + name
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
