package org.sodm.jobs.train;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.sodm.jobs.phase.MulticlassKeys;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.solver.Loss;

/**
 * {@code --class-weights LABEL:W,...} (sodm.train.class.weights): LIBSVM's {@code -wLABEL W}, a weight per class that
 * scales C (ODM: lambda) for that class's rows; classes not named weigh 1. Two classes: the weights of the +1 and -1
 * labels ({@link Param#WEIGHT_POSITIVE}, {@link Param#WEIGHT_NEGATIVE}), so every binary path applies them. More
 * classes: each task weighted by {@link MulticlassKeys#taskLoss} - one-vs-one, its two classes' weights (LIBSVM's rule);
 * one-vs-rest (--multiclass ovr, the linear solvers), the class's weight and 1 for the rest (LIBLINEAR's rule); exact
 * mode's PBM solves each task with its weights. Refused: nu and hard margin (no class weights).
 */
final class ClassWeights {
  private ClassWeights() {}

  /** The weights given, in the order given; empty when none. Fails naming the option for a malformed entry. */
  static Map<String, Double> parse(String text) {
    Map<String, Double> out = new LinkedHashMap<>();
    if (text == null || text.isBlank()) return out;
    for (String entry : text.split(",", -1)) {
      String e = entry.trim();
      int colon = e.lastIndexOf(':');
      if (colon <= 0 || colon == e.length() - 1) {
        throw TrainSpec.bad(Param.CLASS_WEIGHTS, "'" + entry + "' is not LABEL:WEIGHT (e.g. --class-weights 3:5,1:0.5)");
      }
      String label = e.substring(0, colon).trim();
      double w;
      try {
        w = Double.parseDouble(e.substring(colon + 1).trim());
      } catch (NumberFormatException x) {
        throw TrainSpec.bad(Param.CLASS_WEIGHTS, "the weight of '" + label + "' is not a number: '" + e.substring(colon + 1) + "'");
      }
      if (!(w > 0) || !Double.isFinite(w)) throw TrainSpec.bad(Param.CLASS_WEIGHTS, "the weight of '" + label + "' must be > 0 and finite, got " + w);
      if (out.put(label, w) != null) throw TrainSpec.bad(Param.CLASS_WEIGHTS, "class '" + label + "' is given twice");
    }
    return out;
  }

  /**
   * What can be checked before the data is read: the weights well-formed, and a loss that takes class weights. Fails naming
   * the option.
   */
  static void check(TrainSpec spec) {
    if (parse(spec.values().get(Param.CLASS_WEIGHTS.key())).isEmpty()) return;
    if (spec.loss() instanceof Loss.Nu || spec.loss().id().equals("hard-margin")) {
      throw TrainSpec.bad(Param.CLASS_WEIGHTS, "--loss " + spec.loss().id() + " takes no class weights (it fits its offset itself)");
    }
  }

  /** Whether the text is well-formed (the parameter table's check). */
  static boolean valid(String text) {
    try {
      parse(text);
      return true;
    } catch (BadParameterException e) {
      return false;
    }
  }

  /**
   * The spec for the training data's {@code classes} (class-index order): the
   * weights of two classes as the +1 / -1 weights, or for more classes the per-class weights in {@code conf}
   * ({@link MulticlassKeys#CLASS_WEIGHTS}, class-index order). Fails naming what is wrong: a label the data does not have, both
   * this and --weight-positive / --weight-negative.
   */
  static TrainSpec apply(Configuration conf, TrainSpec spec, List<String> classes) {
    conf.unset(MulticlassKeys.CLASS_WEIGHTS);
    Map<String, Double> w = parse(spec.values().get(Param.CLASS_WEIGHTS.key()));
    if (w.isEmpty()) return spec;
    for (String label : w.keySet()) {
      if (!classes.contains(label)) {
        throw TrainSpec.bad(Param.CLASS_WEIGHTS, "class '" + label + "' is not a label of the training data (its labels: "
            + String.join(", ", classes) + ")");
      }
    }
    check(spec);
    if (!spec.loss().weights().equals(Loss.Weights.NONE)) {
      throw TrainSpec.bad(Param.CLASS_WEIGHTS, "give the weights either per class or with --weight-positive / --weight-negative, not both");
    }
    double[] byIndex = new double[classes.size()];
    for (int c = 0; c < byIndex.length; c++) byIndex[c] = w.getOrDefault(classes.get(c), 1.0);
    if (classes.size() == 2) { // the +1 label is the later in class-index order (LabelMap, Subproblems)
      // the loss's weights from here on (the tree's C B test counts them there, not a second time from the labels)
      return spec.with(Param.WEIGHT_POSITIVE, Double.toString(byIndex[1])).with(Param.WEIGHT_NEGATIVE, Double.toString(byIndex[0]))
          .with(Param.CLASS_WEIGHTS, "");
    }
    StringBuilder sb = new StringBuilder();
    for (double x : byIndex) sb.append(sb.length() == 0 ? "" : ",").append(Double.toString(x));
    conf.set(MulticlassKeys.CLASS_WEIGHTS, sb.toString());
    return spec;
  }
}
