package org.sodm.model;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;

/**
 * The lines of {@code svm-predict}'s output file (LIBSVM 3.x's svm-predict.c), so that {@code sodm predict --text} can be
 * compared with it by {@code diff} and read by the scripts written for it: one predicted label a line, printed with C's
 * {@code "%.17g"}; with probability estimates ({@code -b 1}) a first line {@code "labels"} followed by each class
 * ({@code " %d"}), then a line per row of the predicted label ({@code "%g"}) and each class's probability ({@code " %g"}).
 *
 * <p>LIBSVM's labels are numbers (it stores them as ints). A sodm label that is a number prints as LIBSVM prints that number
 * ({@code +1} as {@code 1}, {@code 2.0} as {@code 2}); any other label (CSV's {@code spam}) prints as it is.
 */
public final class SvmPredictText {
  private SvmPredictText() {}

  /** The header line of a model with probabilities: {@code labels} and its classes in the model's order (no newline). */
  public static String header(List<String> classes) {
    StringBuilder sb = new StringBuilder("labels");
    for (String c : classes) sb.append(' ').append(integerLabel(c));
    return sb.toString();
  }

  /** A row's line (no newline): the predicted label, and with {@code probabilities} (may be null) each class's. */
  public static String line(String predicted, double[] probabilities) {
    if (probabilities == null) return label(predicted, 17);
    StringBuilder sb = new StringBuilder(label(predicted, 6));
    for (double p : probabilities) sb.append(' ').append(g(p, 6));
    return sb.toString();
  }

  /** A label as {@code "%.{precision}g"} prints it when it is a number, else as it is. */
  static String label(String label, int precision) {
    Double v = number(label);
    return v == null ? label : g(v, precision);
  }

  /** A label as {@code " %d"} prints LIBSVM's int label when it is a whole number, else as it is. */
  static String integerLabel(String label) {
    Double v = number(label);
    return v != null && v == Math.rint(v) && Math.abs(v) < 1e18 ? Long.toString((long) (double) v) : label;
  }

  private static Double number(String s) {
    String t = s.trim();
    if (t.isEmpty() || !(Character.isDigit(t.charAt(t.length() - 1)) || t.charAt(t.length() - 1) == '.')) return null; // no NaN, Infinity, 1d
    try {
      double v = Double.parseDouble(t);
      return Double.isFinite(v) ? v : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * C's {@code printf("%.{p}g", v)} (glibc): v rounded to p significant digits (half to even on its exact binary value), in
   * fixed notation when the decimal exponent X of the rounded value satisfies -4 <= X < p, else as d.ddde+XX; trailing zeros
   * of the fraction removed, and the point with them.
   */
  public static String g(double v, int p) {
    if (Double.isNaN(v)) return (Double.doubleToRawLongBits(v) < 0 ? "-" : "") + "nan";
    if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
    int precision = Math.max(1, p);
    if (v == 0) return (1 / v < 0) ? "-0" : "0";
    BigDecimal r = new BigDecimal(v).round(new MathContext(precision, RoundingMode.HALF_EVEN));
    int x = r.precision() - r.scale() - 1;
    if (x >= -4 && x < precision) return stripZeros(r.setScale(precision - 1 - x, RoundingMode.UNNECESSARY).toPlainString());
    String mantissa = stripZeros(r.movePointLeft(x).setScale(precision - 1, RoundingMode.UNNECESSARY).toPlainString());
    int e = Math.abs(x);
    return mantissa + "e" + (x < 0 ? "-" : "+") + (e < 10 ? "0" : "") + e;
  }

  private static String stripZeros(String s) {
    if (s.indexOf('.') < 0) return s;
    int end = s.length();
    while (s.charAt(end - 1) == '0') end--;
    if (s.charAt(end - 1) == '.') end--;
    return s.substring(0, end);
  }
}
