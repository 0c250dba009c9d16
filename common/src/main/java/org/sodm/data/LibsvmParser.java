package org.sodm.data;

import java.util.Arrays;

/**
 * Parses LIBSVM text lines {@code label index:value index:value ...} with 1-based, strictly
 * ascending indices. A trailing {@code # comment} is ignored; a blank or comment-only line
 * yields null. Not thread-safe (reuses buffers); one instance per thread.
 */
public final class LibsvmParser {
  private int[] idx = new int[64];
  private double[] val = new double[64];
  private final boolean labelled;

  /** @param labelled whether the first token is a label (false: every token is index:value) */
  public LibsvmParser(boolean labelled) {
    this.labelled = labelled;
  }

  public LibsvmParser() {
    this(true);
  }

  /** Parses one line; null for blank/comment lines. */
  public Row parse(String line) throws RecordException {
    int hash = line.indexOf('#');
    String s = hash >= 0 ? line.substring(0, hash) : line;
    int n = s.length();
    int p = skipSpace(s, 0);
    if (p >= n) return null;
    String label = null;
    if (labelled) {
      int e = tokenEnd(s, p);
      String tok = s.substring(p, e);
      if (tok.indexOf(':') >= 0) throw new RecordException("missing label", tok);
      try {
        label = Labels.canonical(tok);
      } catch (IllegalArgumentException ex) {
        throw new RecordException("bad label: " + ex.getMessage(), tok);
      }
      if (Labels.parseNumber(tok) == null) throw new RecordException("label is not a number", tok);
      p = skipSpace(s, e);
    }
    int k = 0;
    int prev = 0;
    while (p < n) {
      int e = tokenEnd(s, p);
      int colon = s.indexOf(':', p);
      if (colon < 0 || colon >= e) throw new RecordException("feature is not index:value", s.substring(p, e));
      int index;
      try {
        index = Integer.parseInt(s, p, colon, 10);
      } catch (NumberFormatException ex) {
        throw new RecordException("feature index is not an integer", s.substring(p, e));
      }
      if (index <= 0) throw new RecordException("feature index must be >= 1", s.substring(p, e));
      if (index <= prev) {
        throw new RecordException("feature indices must ascend (" + index + " after " + prev + ")", s.substring(p, e));
      }
      Double parsed = Labels.parseNumber(s.substring(colon + 1, e));
      if (parsed == null) throw new RecordException("feature value is not a number", s.substring(p, e));
      double v = parsed;
      if (!Double.isFinite(v)) throw new RecordException("feature value is NaN or infinite", s.substring(p, e));
      if (k == idx.length) {
        idx = Arrays.copyOf(idx, 2 * k);
        val = Arrays.copyOf(val, 2 * k);
      }
      if (v != 0) {
        idx[k] = index;
        val[k++] = v;
      }
      prev = index;
      p = skipSpace(s, e);
    }
    return new Row(label, new SparseVector(Arrays.copyOf(idx, k), Arrays.copyOf(val, k)));
  }

  private static int skipSpace(String s, int p) {
    while (p < s.length() && Character.isWhitespace(s.charAt(p))) p++;
    return p;
  }

  private static int tokenEnd(String s, int p) {
    while (p < s.length() && !Character.isWhitespace(s.charAt(p))) p++;
    return p;
  }
}
