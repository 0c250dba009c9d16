package org.sodm.data;

import java.util.Comparator;

/** Canonical label text, and the order in which labels are mapped to -1 / +1. */
public final class Labels {
  private Labels() {}

  /**
   * Canonical form: numbers in shortest form ({@code "+1"}, {@code "1.0"}, {@code "1e0"} all
   * become {@code "1"}; {@code "-1.0"} becomes {@code "-1"}; {@code "0.5"} stays), any other
   * text trimmed.
   *
   * @throws IllegalArgumentException for an empty label or a NaN/infinite number
   */
  public static String canonical(String raw) {
    String t = raw.trim();
    if (t.isEmpty()) throw new IllegalArgumentException("empty label");
    Double v = parseNumber(t);
    if (v == null) return t;
    if (!Double.isFinite(v)) throw new IllegalArgumentException("label is not a finite number");
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) (double) v);
    }
    return Double.toString(v);
  }

  /** The number the text denotes, or null when it is not a number. */
  static Double parseNumber(String t) {
    if (t.isEmpty()) return null;
    char c = t.charAt(0);
    if ((c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-') {
      try {
        return Double.valueOf(t);
      } catch (NumberFormatException e) {
        // maybe a signed nan/inf spelling, below
      }
    }
    String u = t.toLowerCase(java.util.Locale.ROOT);
    boolean neg = u.startsWith("-");
    if (neg || u.startsWith("+")) u = u.substring(1);
    switch (u) {
      case "nan": return Double.NaN;
      case "inf":
      case "infinity": return neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      default: return null;
    }
  }

  /** Numeric labels in numeric order, before any text label; text labels lexicographic. */
  public static final Comparator<String> ORDER = (a, b) -> {
    Double x = parseNumber(a);
    Double y = parseNumber(b);
    if (x != null && y != null) {
      int c = Double.compare(x, y);
      return c != 0 ? c : a.compareTo(b);
    }
    if (x != null) return -1;
    if (y != null) return 1;
    return a.compareTo(b);
  };
}
