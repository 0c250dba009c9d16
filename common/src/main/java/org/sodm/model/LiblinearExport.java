package org.sodm.model;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import org.sodm.solver.Loss;

/**
 * Writes a linear model in LIBLINEAR's text format, for {@code liblinear-predict}. LIBLINEAR adds a
 * constant feature of value {@code bias} (its {@code -B}) after the last of {@code nr_feature}
 * features and predicts, with {@code nr_class 2}, its first label when w'x &gt; 0, and otherwise the
 * label whose column of w gives the largest w'x, the first in its label order on a tie (one-vs-rest).
 * sodm's f = w'x + b is written with {@code bias 1} and b as the constant feature's weight, so
 * liblinear-predict computes f exactly as sodm does:
 *
 * <ul>
 *   <li>a two-class model: label line (-1 label, +1 label), one column -w, -b: LIBLINEAR predicts its first label when
 *       -f &gt; 0, so the +1 label when f &gt;= 0, as sodm does, exact ties (a row without features, b = 0) included;
 *   <li>a one-vs-rest multi-class model (the linear solvers' default): the classes in the model's label order
 *       ({@link MulticlassModel#classOrder}, whose first class wins ties in both), one column per class;
 *   <li>a two-class model with probabilities (a one-task multi-class model): its one task, signed for LIBLINEAR's first label.
 * </ul>
 *
 * Features with an index above {@code nr_feature} are ignored by liblinear-predict, as they have no weight in sodm.
 * Platt's sigmoids have no place in the format (LIBLINEAR's probabilities are logistic regression's): {@link #write}
 * returns whether it left them out. A logistic-regression model ({@code --loss logistic}) is written as {@code L2R_LR}, its
 * probabilities kept ({@code L1R_LR} for --penalty l1; an L1 squared-hinge model's is {@code L1R_L2LOSS_SVC}). A multinomial model ({@code --multiclass multinomial}: a w per class, softmax probabilities) has no LIBLINEAR
 * solver; it is written as {@code MCSVM_CS}, LIBLINEAR's one joint model with a w per class, which liblinear-predict scores the
 * same way (the class of the largest w_k'x: the most probable class of the softmax), its probabilities left out. Kernel and
 * one-vs-one multi-class models cannot be written.
 */
public final class LiblinearExport {
  /**
   * The provenance parameter of a logistic model's regulariser ("l2", the default, or "l1": LIBLINEAR's L1R_LR, written and read
   * back as such); the training option --penalty.
   */
  public static final String PENALTY = "sodm.train.penalty";

  private LiblinearExport() {}

  /**
   * Writes {@code m} as a LIBLINEAR model file.
   *
   * @return true when the model's probability estimates were left out (the format has none for these solvers)
   * @throws IllegalArgumentException for a model LIBLINEAR cannot express (kernel, one-vs-one over more than two classes, a
   *     label that is not an integer)
   */
  public static boolean write(Model m, Writer w) throws IOException {
    List<String> labels;
    double[][] columns; // columns[c] = the weights of label c, then b
    Loss loss;
    boolean droppedProbabilities = false;
    boolean softmax = false;
    boolean l1 = "l1".equals(penalty(m));
    if (m instanceof LinearModel lin) {
      // LIBLINEAR predicts its first label when dec > 0, sodm +1 when f >= 0: the -1 label first and dec = -f decide the
      // ties (f = 0, as a row without features gives without a bias) as sodm does
      labels = List.of(lin.labels().negative(), lin.labels().positive());
      double[] col = withBias(lin.w(), lin.bias());
      for (int f = 0; f < col.length; f++) col[f] = -col[f] + 0.0;
      columns = new double[][] {col};
      loss = lin.loss();
    } else if (m instanceof MulticlassModel mm) {
      Subproblems plan = mm.plan();
      int k = mm.classes().size();
      for (int t = 0; t < plan.tasks(); t++) {
        if (!(mm.subModel(t) instanceof LinearModel)) {
          throw new IllegalArgumentException("LIBLINEAR's format holds linear models; task " + t + " of this model is "
              + mm.kernelSpec().type().id() + " (use export-libsvm for kernel models)");
        }
      }
      int[] order = mm.classOrder();
      loss = ((LinearModel) mm.subModel(0)).loss();
      // logistic regression's are LIBLINEAR's, but for the softmax of a multinomial model, which LIBLINEAR does not compute
      droppedProbabilities = mm.hasProbabilities() && (!(loss instanceof Loss.Logistic) || mm.softmax());
      softmax = mm.softmax();
      labels = new java.util.ArrayList<>();
      for (int c : order) labels.add(mm.classes().get(c));
      if (k == 2 && plan.tasks() == 1) {
        LinearModel lin = (LinearModel) mm.subModel(0);
        double sign = order[0] == plan.positiveClass(0) ? 1 : -1; // LIBLINEAR's dec is for its first label
        double[] col = withBias(lin.w(), lin.bias());
        for (int f = 0; f < col.length; f++) col[f] = sign * col[f] + 0.0;
        columns = new double[][] {col};
      } else if (plan.scheme() == Subproblems.Scheme.OVR) {
        int[] taskOf = new int[k];
        for (int t = 0; t < plan.tasks(); t++) taskOf[plan.positiveClass(t)] = t;
        int d = 0;
        for (int t = 0; t < plan.tasks(); t++) d = Math.max(d, ((LinearModel) mm.subModel(t)).w().length);
        columns = new double[k][];
        for (int p = 0; p < k; p++) {
          LinearModel lin = (LinearModel) mm.subModel(taskOf[order[p]]);
          columns[p] = withBias(java.util.Arrays.copyOf(lin.w(), d), lin.bias());
        }
      } else {
        throw new IllegalArgumentException("LIBLINEAR's multi-class format is one-vs-rest; this model is " + plan.scheme().id()
            + " over " + k + " classes (train with --multiclass ovr, the linear default, or use export-libsvm)");
      }
    } else {
      throw new IllegalArgumentException("LIBLINEAR's format holds linear models; this model is " + m.kernelSpec().type().id()
          + " (use export-libsvm for kernel models)");
    }
    List<String> bad = labels.stream().filter(l -> !LibsvmExport.isInt(l)).toList();
    if (!bad.isEmpty()) {
      throw new IllegalArgumentException("LIBLINEAR's model file holds integer labels (liblinear-predict reads them as int); this model's label"
          + (bad.size() == 1 ? " " : "s ") + String.join(", ", bad) + (bad.size() == 1 ? " is" : " are")
          + " not: train on data labelled with integers to export it");
    }
    int rows = columns[0].length; // nr_feature weights, then the bias feature's
    w.write("solver_type " + (softmax ? "MCSVM_CS" : l1 ? l1SolverType(loss) : solverType(loss)) + "\n");
    w.write("nr_class " + labels.size() + "\n");
    w.write("label " + String.join(" ", labels) + "\n");
    w.write("nr_feature " + (rows - 1) + "\n");
    w.write("bias 1\n");
    w.write("w\n");
    StringBuilder line = new StringBuilder();
    for (int f = 0; f < rows; f++) {
      line.setLength(0);
      for (double[] col : columns) line.append(LibsvmExport.fmt(col[f])).append(' ');
      w.write(line.append('\n').toString());
    }
    return droppedProbabilities;
  }

  /**
   * LIBLINEAR's name of the solver of this loss; liblinear-predict reads only whether it is logistic regression (then -b 1 gives
   * the sigmoids of the decision values, normalised over the classes, as sodm's logistic models do).
   */
  /** The regulariser a model was trained with (its provenance's {@link #PENALTY}): "l2" (also when none is recorded), "l1", "elasticnet". */
  public static String penalty(Model m) {
    Object p = m.provenance() == null || m.provenance().getParameters() == null ? null : m.provenance().getParameters().get(PENALTY);
    return p == null ? "l2" : String.valueOf(p);
  }

  /** LIBLINEAR's name of an L1-regularised model's solver: L1R_LR (-s 6) or L1R_L2LOSS_SVC (-s 5). */
  static String l1SolverType(Loss loss) {
    if (loss instanceof Loss.Logistic) return "L1R_LR";
    if (loss instanceof Loss.SquaredHinge) return "L1R_L2LOSS_SVC";
    throw new IllegalArgumentException("an L1-regularised " + loss.id() + " model");
  }

  static String solverType(Loss loss) {
    if (loss instanceof Loss.Logistic) return "L2R_LR";
    return loss instanceof Loss.Hinge ? "L2R_L1LOSS_SVC_DUAL" : "L2R_L2LOSS_SVC_DUAL";
  }

  private static double[] withBias(double[] w, double b) {
    double[] out = java.util.Arrays.copyOf(w, w.length + 1);
    out[w.length] = b;
    return out;
  }
}
