package org.sodm.cli;

import java.io.IOException;
import java.io.Writer;
import org.sodm.model.LiblinearExport;
import org.sodm.model.Model;
import org.sodm.model.MulticlassModel;
import picocli.CommandLine.Command;

@Command(name = "export-liblinear",
    header = "Write a linear model in LIBLINEAR's format for liblinear-predict.",
    description = {
    "Write a --kernel linear model in LIBLINEAR's format for liblinear-predict: the weights w and, as the weight of",
    "LIBLINEAR's constant bias feature (bias 1, its -B 1), sodm's b, so liblinear-predict computes w'x + b as sodm does.",
    "A two-class model has one column of weights, a one-vs-rest multi-class model (the linear default) one per class in",
    "LIBSVM's label order; a one-vs-one or kernel model cannot be expressed (export-libsvm writes those). A --loss logistic",
    "model is written as L2R_LR, so liblinear-predict -b 1 gives its probabilities. Other models' probability estimates",
    "(Platt's) are left out, and said so (LIBLINEAR has them for logistic regression only): liblinear-predict then gives",
    "the labels of the decision values, as svm-predict without -b 1, not always the most probable class.",
    "When the model scales features, an svm-scale range file is written too (svm-scale -r RANGE test > test.scaled).",
    "An existing file is replaced only with --overwrite and only when it is an earlier export (never the model or data)."})
public final class ExportLiblinearCommand extends ExportCommand {
  public ExportLiblinearCommand() {
    super("export-liblinear", "solver_type ", "a LIBLINEAR model");
  }

  @Override
  String write(Model m, Writer w) throws IOException {
    boolean dropped = LiblinearExport.write(m, w);
    int k = m instanceof MulticlassModel mm ? mm.classes().size() : 2;
    String what = k == 2 ? " (linear model: w, and b as the bias feature's weight)" : " (" + k + " classes, one-vs-rest: one column of w per class)";
    String penalty = LiblinearExport.penalty(m);
    if (m instanceof MulticlassModel mm && !dropped && mm.hasProbabilities()) {
      what += "; logistic regression (" + ("l1".equals(penalty) ? "L1R_LR" : "L2R_LR") + "): liblinear-predict -b 1 gives its probabilities";
    } else if ("l1".equals(penalty)) {
      what += "; the L2-SVM with |w|_1 (L1R_L2LOSS_SVC, liblinear-train -s 5's type)";
    }
    if ("elasticnet".equals(penalty)) {
      what += "; an elastic net, which LIBLINEAR does not train, is written as the L2-regularised type of its loss (the type names the "
          + "loss; liblinear-predict uses w alone)";
    }
    if (m instanceof MulticlassModel mm && mm.softmax()) {
      return " (" + k + " classes, multinomial: one column of w per class, as MCSVM_CS, LIBLINEAR's joint model with a w per class, "
          + "which liblinear-predict scores as sodm does: the class of the largest w'x, the most probable); its softmax "
          + "probabilities are not in LIBLINEAR's format (liblinear-predict -b 1 refuses them)";
    }
    return dropped ? what + "; its probability estimates are not in LIBLINEAR's format: liblinear-predict gives the labels of the"
        + " decision values, which near a boundary can differ from sodm's most probable class" : what;
  }
}
