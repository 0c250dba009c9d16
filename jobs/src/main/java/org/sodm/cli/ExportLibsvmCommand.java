package org.sodm.cli;

import java.io.IOException;
import java.io.Writer;
import org.sodm.model.LibsvmExport;
import org.sodm.model.LinearModel;
import org.sodm.model.Model;
import org.sodm.model.MulticlassModel;
import picocli.CommandLine.Command;

@Command(name = "export-libsvm",
    header = "Write a model in LIBSVM's format for svm-predict.",
    description = {
    "Write the model in LIBSVM's format for svm-predict (the blocks' mean as one expansion, rho = -bias),",
    "and, when the model scales features, an svm-scale range file (use: svm-scale -r RANGE test > test.scaled).",
    "A one-vs-one multi-class model is written in LIBSVM's multi-class format (each distinct support vector once",
    "with K-1 coefficients; svm-predict reproduces sodm's labels; a linear task is one support vector w), and so is",
    "a two-class --probability model (for svm-predict -b 1); ovr models cannot be expressed in it (a linear one can:",
    "export-liblinear).",
    "An existing file is replaced only with --overwrite and only when it is an earlier export (never the model or data)."})
public final class ExportLibsvmCommand extends ExportCommand {
  public ExportLibsvmCommand() {
    super("export-libsvm", "svm_type ", "a LIBSVM model");
  }

  @Override
  String write(Model m, Writer w) throws IOException {
    LibsvmExport.write(m, w);
    if (m instanceof MulticlassModel mm && mm.subModel(0) instanceof LinearModel) {
      return mm.classes().size() == 2
          ? " (linear model with probabilities: one SV = w, rho = -b, probA / probB; svm-predict -b 1)"
          : " (" + mm.classes().size() + " classes, one-vs-one, linear: one SV = w per pair)";
    }
    if (m instanceof MulticlassModel mm) {
      return " (" + mm.classes().size() + " classes, one-vs-one, " + mm.distinctSupportVectors() + " distinct SVs)";
    }
    return m instanceof LinearModel ? " (linear model: one SV = w, rho = -b)" : " (" + m.supportVectors() + " SVs)";
  }
}
