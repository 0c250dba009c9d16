package org.sodm.jobs.phase;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.model.Subproblems;

/**
 * Internal configuration keys of a multi-class (or --probability) run, set by the training
 * driver for every trainer and its tasks: the classes in class-index order, the scheme, the
 * folds of the internal cross-validation and whether the full problems are trained.
 */
public final class MulticlassKeys {
  private MulticlassKeys() {}

  public static final String CLASSES = "sodm.internal.train.classes";
  public static final String SCHEME = "sodm.internal.train.scheme";
  public static final String FOLDS = "sodm.internal.train.folds";
  public static final String FULL = "sodm.internal.train.full";
  /** sodm cv: the file of every row's fold ({@link FoldFile}). */
  public static final String CV_FOLDS_FILE = "sodm.internal.train.cv.folds.file";

  /** Sets the sub-problems of a run (the classes in class-index order). */
  public static void setPlan(Configuration conf, Subproblems plan, List<String> classes) {
    conf.setInt(CLASSES + ".count", classes.size());
    for (int c = 0; c < classes.size(); c++) conf.set(CLASSES + "." + c, classes.get(c));
    conf.set(SCHEME, plan.scheme().id());
    conf.setInt(FOLDS, plan.folds());
    conf.setBoolean(FULL, plan.full());
  }

  /** The sub-problems of a run, or null for a binary run without them (the label map decides +-1). */
  public static Subproblems plan(Configuration conf) {
    int k = conf.getInt(CLASSES + ".count", 0);
    if (k == 0) return null;
    return new Subproblems(k, Subproblems.Scheme.parse(conf.get(SCHEME)), conf.getInt(FOLDS, 0), conf.getBoolean(FULL, true));
  }

  /** Per-class weights of a run of more than two classes (--class-weights), in class-index order; unset without them. */
  public static final String CLASS_WEIGHTS = "sodm.internal.train.class.weights";

  /**
   * Task {@code t}'s loss under the run's per-class weights ({@link #CLASS_WEIGHTS}; {@code loss} itself without them): one
   * against one, the task's two classes' weights (LIBSVM's rule); one against the rest, the class's weight and 1 for the
   * rest (LIBLINEAR's rule: the rest mixes classes, and LIBLINEAR weighs it with C).
   */
  public static org.sodm.solver.Loss taskLoss(Configuration conf, org.sodm.solver.Loss loss, int t) {
    String weights = conf.get(CLASS_WEIGHTS);
    if (weights == null || weights.isEmpty()) return loss;
    Subproblems plan = plan(conf);
    String[] p = weights.split(",");
    int pos = plan == null ? -1 : plan.positiveClass(t);
    int neg = plan == null ? -1 : plan.negativeClass(t);
    if (plan == null || p.length != plan.classes() || pos < 0 || pos >= p.length || neg >= p.length) {
      throw new IllegalStateException(String.format(java.util.Locale.ROOT, "class weights %s for task %d of %s", weights, t, plan));
    }
    return loss.withWeights(Double.parseDouble(p[pos]), neg < 0 ? 1.0 : Double.parseDouble(p[neg]));
  }

  /** Each class's weight (--class-weights; 1 without), in class-index order: the multinomial model's C_i = C w_{y_i}. */
  public static double[] classWeights(Configuration conf, int classes) {
    double[] w = new double[classes];
    java.util.Arrays.fill(w, 1.0);
    String weights = conf.get(CLASS_WEIGHTS);
    if (weights == null || weights.isEmpty()) return w;
    String[] p = weights.split(",");
    if (p.length != classes) throw new IllegalStateException("class weights " + weights + " for " + classes + " classes");
    for (int c = 0; c < classes; c++) w[c] = Double.parseDouble(p[c]);
    return w;
  }

  /**
   * Task {@code t}'s spec: {@code spec} itself without per-class weights, else {@code spec} with the task's +1 / -1 weights
   * ({@link #taskLoss}) as --weight-positive / --weight-negative, for a task solved as the binary problem it is.
   */
  public static TrainSpec taskSpec(Configuration conf, TrainSpec spec, int t) {
    String weights = conf.get(CLASS_WEIGHTS);
    if (weights == null || weights.isEmpty()) return spec;
    org.sodm.solver.Loss.Weights w = taskLoss(conf, spec.loss(), t).weights();
    return spec.with(Param.WEIGHT_POSITIVE, Double.toString(w.positive())).with(Param.WEIGHT_NEGATIVE, Double.toString(w.negative()))
        .with(Param.CLASS_WEIGHTS, "");
  }

  /** The classes of {@link #setPlan}. */
  public static List<String> classes(Configuration conf) {
    int k = conf.getInt(CLASSES + ".count", 0);
    List<String> out = new ArrayList<>();
    for (int c = 0; c < k; c++) out.add(conf.get(CLASSES + "." + c));
    return out;
  }
}
