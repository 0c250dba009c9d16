package org.sodm.cli;

import java.io.BufferedReader;
import java.io.IOException;
import org.sodm.avro.Provenance;
import org.sodm.model.LiblinearImport;
import org.sodm.model.LinearModel;
import org.sodm.model.Model;
import org.sodm.model.MulticlassModel;
import picocli.CommandLine.Command;

@Command(name = "import-liblinear",
    header = "Read a LIBLINEAR model file (liblinear-train's) into a sodm model for sodm predict.",
    description = {
    "Read a model file written by liblinear-train (its classifiers: the SVM solvers -s 1, 2, 3, 5, logistic regression",
    "-s 0, 6, 7, Crammer and Singer's -s 4; any number of classes; with or without -B) into OUTPUT/model.avro, so that",
    "sodm predict scores data in HDFS with it as liblinear-predict would: predict --text writes liblinear-predict's output",
    "file, and for logistic regression liblinear-predict -b 1's probabilities. Features above the model's nr_feature are",
    "ignored, as liblinear-predict ignores them. With --range (svm-scale's range file) the model scales rows as svm-scale -r",
    "does and takes the raw data. The inverse of export-liblinear. Regression and one-class models are refused."})
public final class ImportLiblinearCommand extends ImportCommand {
  /** The provenance parameter naming the LIBLINEAR model file a model was imported from. */
  static final String SOURCE = "sodm.import.liblinear";

  public ImportLiblinearCommand() {
    super("import-liblinear", SOURCE);
  }

  @Override
  Model read(BufferedReader r, String qualified, Provenance provenance, org.sodm.data.Scaler scaler) throws IOException {
    return LiblinearImport.read(r, qualified, provenance, scaler);
  }

  @Override
  String describe(Model m) {
    if (m instanceof MulticlassModel mm) {
      int d = ((LinearModel) mm.subModel(0)).w().length;
      return mm.plan().tasks() == 1 ? "2 classes, " + d + " weights, with probabilities"
          : mm.classes().size() + " classes, one-vs-rest, " + d + " weights a class" + (mm.hasProbabilities() ? ", with probabilities" : "");
    }
    return "2 classes, " + ((LinearModel) m).w().length + " weights";
  }
}
