package org.sodm.model;

import java.util.List;
import java.util.Locale;

/**
 * Metrics of a classifier over K classes from the confusion matrix ({@code confusion[true][predicted]}):
 * accuracy, per-class precision, recall and F1, their macro averages (unweighted mean over
 * classes) and micro averages (from the summed counts: for single-label prediction micro
 * precision = micro recall = micro F1 = accuracy). With probability estimates also the log-loss
 * (mean of -ln p(true class), p clipped to [1e-15, 1]) and a calibration table: the rows binned
 * by the predicted class's probability (10 equal bins of [0, 1]), per bin the rows, their mean
 * probability and their accuracy (a reliability diagram's points).
 *
 * <p>Rows whose true label is none of the model's classes ({@code otherPredicted[predicted class]}) are a class the model cannot predict,
 * as svm-predict counts them: errors in the accuracy, false positives of the class they are predicted as, wrong
 * predictions in the calibration table; the log-loss, which needs the probability of the true class, is over the rows of the model's classes.
 *
 * <p>Two classes with probabilities (a logistic model, or --probability's): also the AUC of the second class's probability
 * ({@link #auc}, Mann-Whitney with midranks, as the binary {@link Metrics}'), over the rows of the two classes; NaN otherwise.
 */
public record MulticlassMetrics(List<String> classes, long[][] confusion, double logLoss, long[][] calibrationCounts,
    double[] calibrationConfidence, long[] otherPredicted, double auc) {

  /** Metrics of rows that all have one of the model's classes. */
  public MulticlassMetrics(List<String> classes, long[][] confusion, double logLoss, long[][] calibrationCounts,
      double[] calibrationConfidence) {
    this(classes, confusion, logLoss, calibrationCounts, calibrationConfidence, new long[classes.size()], Double.NaN);
  }

  /** Calibration bins. */
  public static final int BINS = 10;

  /** Accumulates rows. */
  public static final class Builder {
    private final List<String> classes;
    private final long[][] confusion;
    private double logLoss;
    private long probRows;
    private final long[][] cal = new long[BINS][2]; // rows, correct
    private final double[] conf = new double[BINS];
    private final long[] other;
    private long otherProbRows;
    private double[] aucY = new double[0]; // two classes with probabilities: +1 for the second class, and its probability
    private double[] aucF = new double[0];
    private int aucRows;

    public Builder(List<String> classes) {
      this.classes = List.copyOf(classes);
      this.confusion = new long[classes.size()][classes.size()];
      this.other = new long[classes.size()];
    }

    /** A row whose true label is none of the classes: the predicted class index and the class probabilities (or null). */
    public Builder addOther(int predicted, double[] p) {
      other[predicted]++;
      if (p != null) {
        otherProbRows++;
        calibrate(p[predicted], false);
      }
      return this;
    }

    private void calibrate(double c, boolean correct) {
      int bin = Math.min(BINS - 1, (int) Math.floor(c * BINS));
      cal[bin][0]++;
      if (correct) cal[bin][1]++;
      conf[bin] += c;
    }

    /** A row: true and predicted class index, and the class probabilities (or null). */
    public Builder add(int truth, int predicted, double[] p) {
      confusion[truth][predicted]++;
      if (p != null) {
        logLoss += -Math.log(Math.max(p[truth], 1e-15));
        probRows++;
        calibrate(p[predicted], truth == predicted);
        if (classes.size() == 2) {
          if (aucRows == aucY.length) {
            aucY = java.util.Arrays.copyOf(aucY, Math.max(1024, 2 * aucRows));
            aucF = java.util.Arrays.copyOf(aucF, aucY.length);
          }
          aucY[aucRows] = truth == 1 ? 1 : -1;
          aucF[aucRows++] = p[1];
        }
      }
      return this;
    }

    public MulticlassMetrics build() {
      long n = 0;
      for (long[] r : confusion) for (long v : r) n += v;
      long others = 0;
      for (long v : other) others += v;
      boolean probs = probRows + otherProbRows > 0;
      if (probs && (probRows != n || otherProbRows != others)) {
        throw new IllegalStateException("probabilities for " + (probRows + otherProbRows) + " of " + (n + others) + " rows");
      }
      double loss = probRows > 0 ? logLoss / probRows : Double.NaN;
      double auc = aucRows > 0 ? Metrics.auc(java.util.Arrays.copyOf(aucY, aucRows), java.util.Arrays.copyOf(aucF, aucRows)) : Double.NaN;
      return new MulticlassMetrics(classes, confusion, loss, probs ? cal : null, probs ? conf : null, other, auc);
    }
  }

  /** Every labelled row, the other rows included. */
  public long n() {
    long n = other();
    for (long[] r : confusion) for (long v : r) n += v;
    return n;
  }

  /** Rows whose true label is none of the model's classes. */
  public long other() {
    long s = 0;
    for (long v : otherPredicted) s += v;
    return s;
  }

  public long correct() {
    long c = 0;
    for (int i = 0; i < confusion.length; i++) c += confusion[i][i];
    return c;
  }

  public double accuracy() {
    long n = n();
    return n == 0 ? Double.NaN : (double) correct() / n;
  }

  private long predictedAs(int c) {
    long s = otherPredicted[c];
    for (long[] r : confusion) s += r[c];
    return s;
  }

  private long trueOf(int c) {
    long s = 0;
    for (long v : confusion[c]) s += v;
    return s;
  }

  /** Precision of class c (0 when nothing was predicted as c). */
  public double precision(int c) {
    long p = predictedAs(c);
    return p == 0 ? 0 : (double) confusion[c][c] / p;
  }

  /** Recall of class c (0 when c does not occur). */
  public double recall(int c) {
    long t = trueOf(c);
    return t == 0 ? 0 : (double) confusion[c][c] / t;
  }

  public double f1(int c) {
    double p = precision(c);
    double r = recall(c);
    return p + r == 0 ? 0 : 2 * p * r / (p + r);
  }

  public double macroPrecision() {
    double s = 0;
    for (int c = 0; c < classes.size(); c++) s += precision(c);
    return s / classes.size();
  }

  public double macroRecall() {
    double s = 0;
    for (int c = 0; c < classes.size(); c++) s += recall(c);
    return s / classes.size();
  }

  public double macroF1() {
    double s = 0;
    for (int c = 0; c < classes.size(); c++) s += f1(c);
    return s / classes.size();
  }

  /** Micro precision = micro recall = micro F1: summed true positives over summed predictions (= accuracy). */
  public double micro() {
    return accuracy();
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.6f", v);
  }

  private static String q(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public String toJson() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "{\"n\": %d, \"accuracy\": %s, \"classes\": [", n(), num(accuracy())));
    for (int c = 0; c < classes.size(); c++) {
      sb.append(c == 0 ? "" : ", ").append(String.format(Locale.ROOT,
          "{\"class\": %s, \"support\": %d, \"precision\": %s, \"recall\": %s, \"f1\": %s}", q(classes.get(c)), trueOf(c),
          num(precision(c)), num(recall(c)), num(f1(c))));
    }
    sb.append(String.format(Locale.ROOT, "], \"macro\": {\"precision\": %s, \"recall\": %s, \"f1\": %s}, "
        + "\"micro\": {\"precision\": %s, \"recall\": %s, \"f1\": %s}, \"confusion\": [", num(macroPrecision()), num(macroRecall()),
        num(macroF1()), num(micro()), num(micro()), num(micro())));
    for (int i = 0; i < confusion.length; i++) {
      sb.append(i == 0 ? "[" : ", [");
      for (int j = 0; j < confusion.length; j++) sb.append(j == 0 ? "" : ", ").append(confusion[i][j]);
      sb.append(']');
    }
    sb.append(']');
    if (other() > 0) {
      sb.append(", \"other\": {\"rows\": ").append(other()).append(", \"predicted\": [");
      for (int j = 0; j < otherPredicted.length; j++) sb.append(j == 0 ? "" : ", ").append(otherPredicted[j]);
      sb.append("]}");
    }
    if (!Double.isNaN(auc)) sb.append(", \"auc\": ").append(num(auc));
    if (calibrationCounts != null) {
      sb.append(", \"logLoss\": ").append(num(logLoss)).append(", \"calibration\": [");
      boolean first = true;
      for (int b = 0; b < BINS; b++) {
        long rows = calibrationCounts[b][0];
        if (rows == 0) continue;
        sb.append(first ? "" : ", ").append(String.format(Locale.ROOT,
            "{\"from\": %.1f, \"to\": %.1f, \"rows\": %d, \"confidence\": %s, \"accuracy\": %s}", b / (double) BINS,
            (b + 1) / (double) BINS, rows, num(calibrationConfidence[b] / rows), num((double) calibrationCounts[b][1] / rows)));
        first = false;
      }
      sb.append(']');
    }
    return sb.append('}').toString();
  }

  public String table() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "instances  %,d%n", n()));
    sb.append(String.format(Locale.ROOT, "accuracy   %.4f%%  (%d classes)%n", 100 * accuracy(), classes.size()));
    int w = 8;
    for (String c : classes) w = Math.max(w, c.length() + 2);
    sb.append(String.format(Locale.ROOT, "%-" + w + "s %10s %10s %10s %10s%n", "class", "support", "precision", "recall", "F1"));
    for (int c = 0; c < classes.size(); c++) {
      sb.append(String.format(Locale.ROOT, "%-" + w + "s %10d %10.4f %10.4f %10.4f%n", classes.get(c), trueOf(c), precision(c),
          recall(c), f1(c)));
    }
    sb.append(String.format(Locale.ROOT, "%-" + w + "s %10s %10.4f %10.4f %10.4f%n", "macro", "", macroPrecision(), macroRecall(),
        macroF1()));
    sb.append(String.format(Locale.ROOT, "%-" + w + "s %10s %10.4f %10.4f %10.4f%n", "micro", "", micro(), micro(), micro()));
    sb.append("confusion (rows: true class, columns: predicted)\n");
    sb.append(String.format(Locale.ROOT, "%-" + w + "s", ""));
    for (String c : classes) sb.append(String.format(Locale.ROOT, " %" + w + "s", c));
    sb.append('\n');
    for (int i = 0; i < confusion.length; i++) {
      sb.append(String.format(Locale.ROOT, "%-" + w + "s", classes.get(i)));
      for (int j = 0; j < confusion.length; j++) sb.append(String.format(Locale.ROOT, " %" + w + "d", confusion[i][j]));
      sb.append('\n');
    }
    if (other() > 0) {
      sb.append(String.format(Locale.ROOT, "%-" + w + "s", "(other)"));
      for (long v : otherPredicted) sb.append(String.format(Locale.ROOT, " %" + w + "d", v));
      sb.append(String.format(Locale.ROOT, "%n(other): %,d rows labelled with none of the model's classes: errors, as svm-predict counts them%s%n",
          other(), calibrationCounts != null ? "; log-loss without them" : ""));
    }
    if (!Double.isNaN(auc)) {
      sb.append(String.format(Locale.ROOT, "AUC        %.4f   (P(%s) as the score)%n", auc, classes.get(1)));
    }
    if (calibrationCounts != null) {
      sb.append(String.format(Locale.ROOT, "log-loss   %.6f%n", logLoss));
      sb.append("calibration (rows binned by the predicted class's probability)\n");
      sb.append(String.format(Locale.ROOT, "%-12s %8s %12s %10s%n", "bin", "rows", "mean prob", "accuracy"));
      for (int b = 0; b < BINS; b++) {
        long rows = calibrationCounts[b][0];
        if (rows == 0) continue;
        sb.append(String.format(Locale.ROOT, "[%.1f, %.1f%s %8d %12.4f %10.4f%n", b / (double) BINS, (b + 1) / (double) BINS,
            b == BINS - 1 ? "]" : ")", rows, calibrationConfidence[b] / rows, (double) calibrationCounts[b][1] / rows));
      }
    }
    return sb.toString().stripTrailing();
  }
}
