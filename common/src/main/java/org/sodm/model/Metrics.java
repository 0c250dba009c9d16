package org.sodm.model;

import java.util.Arrays;
import java.util.Locale;

/**
 * Binary classification metrics from true signed labels and decision values (prediction:
 * +1 when f >= 0): accuracy, precision, recall and F1 of the +1 class, AUC (ties counted
 * half, via the rank-sum statistic), and the confusion matrix.
 *
 * <p>A row whose label is neither of the model's two ("other": y = 0) is a class the model cannot
 * predict, as svm-predict counts it: an error in the accuracy, and a false positive of the +1 class
 * when predicted so; the AUC is over the rows of the model's two labels.
 *
 * @param n every labelled row, the other rows included
 * @param otherPositive rows of another label predicted +1
 * @param otherNegative rows of another label predicted -1
 */
public record Metrics(long n, long tp, long fp, long tn, long fn, double auc, long otherPositive, long otherNegative) {

  /** Metrics of rows that all have one of the model's labels. */
  public Metrics(long n, long tp, long fp, long tn, long fn, double auc) {
    this(n, tp, fp, tn, fn, auc, 0, 0);
  }

  /** {@code y[i]}: +1, -1, or 0 for a row whose label is not one of the model's. */
  public static Metrics of(double[] y, double[] f) {
    if (y.length != f.length) throw new IllegalArgumentException("labels and decisions differ in length");
    long tp = 0, fp = 0, tn = 0, fn = 0, op = 0, on = 0;
    int known = 0;
    for (int i = 0; i < y.length; i++) {
      boolean pred = f[i] >= 0;
      if (y[i] == 0) {
        if (pred) op++;
        else on++;
        continue;
      }
      known++;
      if (y[i] > 0) {
        if (pred) tp++;
        else fn++;
      } else {
        if (pred) fp++;
        else tn++;
      }
    }
    double[] ky = y;
    double[] kf = f;
    if (known < y.length) {
      ky = new double[known];
      kf = new double[known];
      for (int i = 0, k = 0; i < y.length; i++) {
        if (y[i] == 0) continue;
        ky[k] = y[i];
        kf[k++] = f[i];
      }
    }
    return new Metrics(y.length, tp, fp, tn, fn, auc(ky, kf), op, on);
  }

  /** Rows whose label is not one of the model's. */
  public long other() {
    return otherPositive + otherNegative;
  }

  /** Mann-Whitney AUC with midranks for ties; NaN when a class is absent. */
  static double auc(double[] y, double[] f) {
    int n = y.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) order[i] = i;
    Arrays.sort(order, (a, b) -> Double.compare(f[a], f[b]));
    double rankSumPos = 0;
    long pos = 0;
    int i = 0;
    while (i < n) {
      int j = i;
      while (j + 1 < n && f[order[j + 1]] == f[order[i]]) j++;
      double midrank = (i + j) / 2.0 + 1;
      for (int k = i; k <= j; k++) {
        if (y[order[k]] > 0) {
          rankSumPos += midrank;
          pos++;
        }
      }
      i = j + 1;
    }
    long neg = n - pos;
    if (pos == 0 || neg == 0) return Double.NaN;
    return (rankSumPos - pos * (pos + 1) / 2.0) / ((double) pos * neg);
  }

  public double accuracy() {
    return n == 0 ? Double.NaN : (double) (tp + tn) / n;
  }

  public double precision() {
    return tp + fp + otherPositive == 0 ? 0 : (double) tp / (tp + fp + otherPositive);
  }

  public double recall() {
    return tp + fn == 0 ? 0 : (double) tp / (tp + fn);
  }

  public double f1() {
    double p = precision();
    double r = recall();
    return p + r == 0 ? 0 : 2 * p * r / (p + r);
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.6f", v);
  }

  public String toJson(String positiveLabel, String negativeLabel) {
    return String.format(Locale.ROOT,
        "{\"n\": %d, \"accuracy\": %s, \"precision\": %s, \"recall\": %s, \"f1\": %s, \"auc\": %s, "
            + "\"positive\": \"%s\", \"negative\": \"%s\", "
            + "\"confusion\": {\"tp\": %d, \"fp\": %d, \"tn\": %d, \"fn\": %d}%s}",
        n, num(accuracy()), num(precision()), num(recall()), num(f1()), num(auc), positiveLabel, negativeLabel, tp, fp, tn, fn,
        other() == 0 ? "" : String.format(Locale.ROOT, ", \"other\": {\"rows\": %d, \"predictedPositive\": %d, \"predictedNegative\": %d}",
            other(), otherPositive, otherNegative));
  }

  public String table(String positiveLabel, String negativeLabel) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "instances  %,d%n", n));
    sb.append(String.format(Locale.ROOT, "accuracy   %.4f%%%n", 100 * accuracy()));
    sb.append(String.format(Locale.ROOT, "precision  %.4f   (class %s)%n", precision(), positiveLabel));
    sb.append(String.format(Locale.ROOT, "recall     %.4f%n", recall()));
    sb.append(String.format(Locale.ROOT, "F1         %.4f%n", f1()));
    sb.append(String.format(Locale.ROOT, "AUC        %s%n", Double.isNaN(auc) ? "n/a (one class)" : String.format(Locale.ROOT, "%.4f", auc)));
    int w = Math.max(10, Math.max(positiveLabel.length(), negativeLabel.length()) + 2);
    sb.append(String.format(Locale.ROOT, "confusion  %" + w + "s %" + w + "s   <- predicted%n", positiveLabel, negativeLabel));
    sb.append(String.format(Locale.ROOT, "  true %-4s%" + w + "d %" + w + "d%n", positiveLabel, tp, fn));
    sb.append(String.format(Locale.ROOT, "  true %-4s%" + w + "d %" + w + "d", negativeLabel, fp, tn));
    if (other() > 0) {
      sb.append(String.format(Locale.ROOT, "%n  other   %" + w + "d %" + w + "d   (%,d rows labelled neither %s nor %s: errors, as svm-predict counts"
          + " them; AUC without them)", otherPositive, otherNegative, other(), positiveLabel, negativeLabel));
    }
    return sb.toString();
  }
}
