package org.sodm.cli;

import java.io.BufferedReader;
import java.io.IOException;
import org.sodm.avro.Provenance;
import org.sodm.model.LibsvmImport;
import org.sodm.model.Model;
import org.sodm.model.MulticlassModel;
import picocli.CommandLine.Command;

@Command(name = "import-libsvm",
    header = "Read a LIBSVM model file (svm-train's) into a sodm model for sodm predict.",
    description = {
    "Read a model file written by svm-train (C-SVC or nu-SVC; linear, polynomial, rbf or sigmoid kernel; two or more",
    "classes; with -b 1's probability estimates or without) into OUTPUT/model.avro, so that sodm predict scores data in",
    "HDFS with it as svm-predict would: predict --text writes svm-predict's output file, with -b 1 models svm-predict -b 1's",
    "(the pairwise probabilities coupled as LIBSVM couples them). With --range (svm-scale's range file) the model scales rows as svm-scale -r does and takes the raw",
    "data; without it, give it data scaled as svm-predict's was. The inverse of export-libsvm."})
public final class ImportLibsvmCommand extends ImportCommand {
  /** The provenance parameter naming the LIBSVM model file a model was imported from. */
  static final String SOURCE = "sodm.import.libsvm";

  public ImportLibsvmCommand() {
    super("import-libsvm", SOURCE);
  }

  @Override
  Model read(BufferedReader r, String qualified, Provenance provenance, org.sodm.data.Scaler scaler) throws IOException {
    return LibsvmImport.read(r, qualified, provenance, scaler);
  }

  @Override
  String describe(Model m) {
    return m instanceof MulticlassModel mm
        ? mm.classes().size() + " classes, one-vs-one, " + mm.distinctSupportVectors() + " support vectors"
            + (mm.hasProbabilities() ? ", with probabilities" : "")
        : "2 classes, " + m.supportVectors() + " support vectors";
  }
}
