package org.sodm.model;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.Labels;
import org.sodm.data.Scaler;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.LibsvmImport.BadModelException;
import org.sodm.solver.Loss;

/**
 * Reads a model file written by LIBLINEAR's {@code liblinear-train} (or {@code sodm export-liblinear}) into a sodm model, the
 * inverse of {@link LiblinearExport}, so that sodm predicts what {@code liblinear-predict} predicts on the same rows: its
 * classifiers (the SVM solvers, logistic regression, Crammer and Singer's multi-class SVM), any number of classes.
 *
 * <p>LIBLINEAR's model: {@code nr_feature} weights per column and, when {@code bias} &gt;= 0, one more for a constant feature
 * of that value (sodm's b = that weight times bias); features above {@code nr_feature} are ignored, as sodm ignores (and
 * counts, {@link Model#dimension}) features above a model's dimension, which the provenance is given. With two classes (not Crammer-Singer) one column: the first label when w'x &gt; 0; otherwise one
 * column per label, the first largest w'x (one-vs-rest; Crammer-Singer predicts the same way). Two classes become a binary
 * model whose +1 label is the one LIBLINEAR predicts on a tie (w'x = 0, as a row without features and without a bias
 * gives): its second label (f = -w'x), or Crammer-Singer's first; so, unlike a model sodm trains, the +1 label need not be
 * the later in {@link Labels#ORDER}. More classes: a one-vs-rest model whose ties go to the first in LIBLINEAR's label
 * order ({@link MulticlassModel#CLASS_ORDER}). Logistic
 * regression's probabilities (liblinear-predict -b 1: 1 / (1 + exp(-w'x)) per class, normalised over more than two) are
 * the sigmoid A = -1, B = 0 of each task.
 */
public final class LiblinearImport {
  private LiblinearImport() {}

  /** LIBLINEAR's classifiers (solver_type names of its linear.cpp); the others are regression or one-class. */
  private static final Set<String> CLASSIFIERS = Set.of("L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL",
      "MCSVM_CS", "L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL");
  private static final Set<String> LOGISTIC = Set.of("L2R_LR", "L1R_LR", "L2R_LR_DUAL");

  /**
   * The model in {@code in}; {@code name} (the file) for messages; {@code provenance} (may be null) is given the classes'
   * LIBLINEAR order; {@code scaler} (may be null) scales rows first (an svm-scale range file, {@link LibsvmImport#readRange}).
   *
   * @throws BadModelException naming the file (and line) for a malformed file or a model that is not a classifier
   */
  public static Model read(BufferedReader in, String name, Provenance provenance, Scaler scaler) throws IOException {
    Map<String, String[]> header = new HashMap<>();
    int lineNo = LibsvmImport.header(in, "w", header, name + ": no 'w' line (is this a LIBLINEAR model file?)");
    String line;
    String solver = LibsvmImport.one(header, "solver_type", name);
    if (!CLASSIFIERS.contains(solver)) {
      throw new BadModelException(name + ": solver_type " + solver + " is not a classifier sodm can score (" + String.join(", ",
          CLASSIFIERS.stream().sorted().toList()) + " are)");
    }
    if (header.containsKey("rho")) throw new BadModelException(name + ": a model with rho (one-class SVM) is not a classifier sodm can score");
    int k = LibsvmImport.integer(LibsvmImport.one(header, "nr_class", name), "nr_class", name);
    if (k < 2) throw new BadModelException(name + ": nr_class " + k + " (a classifier needs 2 or more)");
    String[] label = LibsvmImport.values(header, "label", k, name);
    int n = LibsvmImport.integer(LibsvmImport.one(header, "nr_feature", name), "nr_feature", name);
    if (n < 0) throw new BadModelException(name + ": nr_feature " + n + " is negative");
    double bias = LibsvmImport.number(LibsvmImport.one(header, "bias", name), "bias", name);
    int cols = k == 2 && !solver.equals("MCSVM_CS") ? 1 : k;
    int rows = bias >= 0 ? n + 1 : n;
    double[][] w = new double[cols][rows];
    for (int f = 0; f < rows; f++) {
      line = in.readLine();
      lineNo++;
      if (line == null) throw new BadModelException(name + ": " + rows + " weight lines announced (nr_feature " + n + (bias >= 0 ? " and the bias" : "")
          + "), " + f + " found");
      String[] v = line.trim().split("\\s+");
      if (v.length != cols || v[0].isEmpty()) {
        throw new BadModelException(name + ":" + lineNo + ": " + cols + " weight" + (cols == 1 ? "" : "s") + " expected, got '" + line + "'");
      }
      for (int c = 0; c < cols; c++) w[c][f] = LibsvmImport.number(v[c], "weight", name + ":" + lineNo);
    }
    for (String l; (l = in.readLine()) != null; ) {
      lineNo++;
      if (!l.isBlank()) throw new BadModelException(name + ":" + lineNo + ": more than the " + rows + " weight lines: '" + l + "'");
    }
    List<String> classes = new ArrayList<>(List.of(label));
    classes.sort(Labels.ORDER);
    for (int c = 1; c < k; c++) {
      if (classes.get(c).equals(classes.get(c - 1))) throw new BadModelException(name + ": label " + classes.get(c) + " is given twice");
    }
    if (provenance != null) { // liblinear-predict ignores features above nr_feature: sodm's unseen features (ignored, counted)
      provenance = Provenance.newBuilder(provenance).setDimension(n).build();
      if (solver.startsWith("L1R_")) { // an export writes it back as L1R_LR or L1R_L2LOSS_SVC
        Map<String, String> params = new HashMap<>(provenance.getParameters());
        params.put(LiblinearExport.PENALTY, "l1");
        provenance = Provenance.newBuilder(provenance).setParameters(params).build();
      }
    }
    boolean logistic = LOGISTIC.contains(solver);
    Loss loss = logistic ? Loss.logistic(1) : solver.contains("L2LOSS") ? Loss.squaredHinge(1) : Loss.hinge(1);
    String from = "liblinear " + solver;
    if (cols == 1 && !logistic) {
      // LIBLINEAR: the second label when dec <= 0; sodm: +1 when f >= 0. So +1 is the second label and f = -dec, which
      // keeps exact ties (dec = 0: a row without features and no bias) as liblinear-predict decides them
      double[] wt = new double[n];
      for (int f = 0; f < n; f++) wt[f] = -w[0][f] + 0.0;
      double b = bias >= 0 ? -w[0][n] * bias + 0.0 : 0.0;
      return new LinearModel(loss, new LabelMap(label[0], label[1]), scaler, wt, b, from, provenance);
    }
    if (cols == 1) {
      // logistic regression over two classes: one task whose +1 class is the later in Labels.ORDER, P(+1) = 1 / (1 + exp(-f))
      double sign = classes.get(1).equals(label[0]) ? 1 : -1; // f = sign * dec
      double[] wt = new double[n];
      for (int f = 0; f < n; f++) wt[f] = sign * w[0][f] + 0.0;
      double b = bias >= 0 ? sign * w[0][n] * bias + 0.0 : 0.0;
      Subproblems plan = new Subproblems(2, Subproblems.Scheme.OVO);
      LinearModel task = new LinearModel(loss, new LabelMap(classes.get(0), classes.get(1)), scaler, wt, b, from, null);
      return new MulticlassModel(KernelSpec.linear(), loss, scaler, classes, plan, new Model[] {task}, new Platt[] {new Platt(-1, 0)},
          ordered(provenance, classes, label));
    }
    if (k == 2) {
      // Crammer-Singer over two classes: LIBLINEAR's first label when w0'x >= w1'x (a tie to the first): +1 is the first
      // label and f = (w0 - w1)'x
      double[] wt = new double[n];
      for (int f = 0; f < n; f++) wt[f] = w[0][f] - w[1][f] + 0.0;
      double b = bias >= 0 ? (w[0][n] - w[1][n]) * bias + 0.0 : 0.0;
      return new LinearModel(loss, new LabelMap(label[1], label[0]), scaler, wt, b, from, provenance);
    }
    Subproblems plan = new Subproblems(k, Subproblems.Scheme.OVR);
    Model[] sub = new Model[k];
    for (int p = 0; p < k; p++) {
      int c = classes.indexOf(label[p]);
      double[] wt = Arrays.copyOf(w[p], n);
      double b = bias >= 0 ? w[p][n] * bias : 0.0;
      sub[c] = new LinearModel(loss, ModelCodec.taskLabels(classes, plan, c), scaler, wt, b, from, null);
    }
    Platt[] platt = null;
    if (logistic) {
      platt = new Platt[k];
      Arrays.fill(platt, new Platt(-1, 0));
    }
    return new MulticlassModel(KernelSpec.linear(), loss, scaler, classes, plan, sub, platt, ordered(provenance, classes, label));
  }

  /** {@code provenance} with the classes' LIBLINEAR order (the label line), which breaks ties of decision values. */
  private static Provenance ordered(Provenance provenance, List<String> classes, String[] label) {
    if (provenance == null) return null;
    StringBuilder b = new StringBuilder();
    for (String l : label) b.append(b.length() == 0 ? "" : ",").append(classes.indexOf(l));
    Map<String, String> params = new HashMap<>(provenance.getParameters());
    params.put(MulticlassModel.CLASS_ORDER, b.toString());
    params.put(MulticlassModel.COUPLING, MulticlassModel.LIBLINEAR_COUPLING); // liblinear-predict -b 1's numbers
    return Provenance.newBuilder(provenance).setParameters(params).build();
  }
}
