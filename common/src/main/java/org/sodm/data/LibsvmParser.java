package org.sodm.data;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Parses LIBSVM text lines {@code label index:value index:value ...} with 1-based, strictly
 * ascending indices. A trailing {@code # comment} is ignored; a blank or comment-only line
 * yields null. Not thread-safe (reuses buffers); one instance per thread.
 *
 * <p>{@link #parse(byte[], int, int)} reads UTF-8 bytes directly (no String, no regex, no
 * split): indices as ints, values by Clinger's exact fast path (at most 18 significant digits
 * and a power of ten up to 22: one correctly rounded multiplication or division, so the same
 * double as {@link Double#parseDouble}), {@code Double.parseDouble} of the token otherwise.
 * Anything unusual (non-ASCII, a malformed token, hex or nan/inf spellings, a bad index) is
 * handed to {@link #parse(String)}, so results and error messages are those of the String parser.
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

  private static final double[] POW10 = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

  /** Raw label bytes -> canonical label, for the few distinct labels a file has. */
  private final byte[][] labelRaw = new byte[8][];
  private final String[] labelCanon = new String[8];
  private int labelsCached;

  /** Parses one line of UTF-8 bytes {@code b[off, off+len)}; null for blank/comment lines. */
  public Row parse(byte[] b, int off, int len) throws RecordException {
    int n = off + len;
    for (int i = off; i < n; i++) {
      byte c = b[i];
      if (c < 0) return parse(new String(b, off, len, StandardCharsets.UTF_8)); // non-ASCII
      if (c == '#') {
        n = i;
        break;
      }
    }
    int p = skipSpace(b, off, n);
    if (p >= n) return null;
    String label = null;
    if (labelled) {
      int e = tokenEnd(b, p, n);
      label = cachedLabel(b, p, e);
      if (label == null) {
        String tok = new String(b, p, e - p, StandardCharsets.ISO_8859_1);
        if (tok.indexOf(':') >= 0 || Labels.parseNumber(tok) == null) return parse(new String(b, off, len, StandardCharsets.UTF_8));
        try {
          label = Labels.canonical(tok);
        } catch (IllegalArgumentException ex) {
          return parse(new String(b, off, len, StandardCharsets.UTF_8));
        }
        if (labelsCached < labelRaw.length) {
          labelRaw[labelsCached] = Arrays.copyOfRange(b, p, e);
          labelCanon[labelsCached++] = label;
        }
      }
      p = skipSpace(b, e, n);
    }
    int k = 0;
    int prev = 0;
    while (p < n) {
      // index: [+]digits, as Integer.parseInt reads it; anything else goes the slow way
      int q = p;
      if (b[q] == '+') q++;
      long index = 0;
      int d0 = q;
      while (q < n && b[q] >= '0' && b[q] <= '9' && q - d0 < 10) index = index * 10 + (b[q++] - '0');
      if (q == d0 || q >= n || b[q] != ':' || index <= prev || index > Integer.MAX_VALUE) {
        return parse(new String(b, off, len, StandardCharsets.UTF_8));
      }
      q++; // the colon
      int vs = q;
      boolean neg = false;
      if (q < n && (b[q] == '-' || b[q] == '+')) neg = b[q++] == '-';
      long m = 0;
      int digits = 0;
      int exp10 = 0;
      int mantissaDigits = 0;
      while (q < n && b[q] >= '0' && b[q] <= '9') {
        if (m != 0 || b[q] != '0') digits++;
        if (digits <= 18) m = m * 10 + (b[q] - '0');
        else exp10++;
        q++;
        mantissaDigits++;
      }
      if (q < n && b[q] == '.') {
        q++;
        while (q < n && b[q] >= '0' && b[q] <= '9') {
          if (m != 0 || b[q] != '0') digits++;
          if (digits <= 18) {
            m = m * 10 + (b[q] - '0');
            exp10--;
          }
          q++;
          mantissaDigits++;
        }
      }
      if (mantissaDigits == 0) return parse(new String(b, off, len, StandardCharsets.UTF_8));
      if (q < n && (b[q] == 'e' || b[q] == 'E')) {
        q++;
        boolean eneg = false;
        if (q < n && (b[q] == '-' || b[q] == '+')) eneg = b[q++] == '-';
        int es = q;
        int e = 0;
        while (q < n && b[q] >= '0' && b[q] <= '9') {
          if (e < 100000) e = e * 10 + (b[q] - '0');
          q++;
        }
        if (q == es) return parse(new String(b, off, len, StandardCharsets.UTF_8));
        exp10 += eneg ? -e : e;
      }
      if (q < n && !isSpace(b[q])) return parse(new String(b, off, len, StandardCharsets.UTF_8));
      double v;
      if (m == 0) {
        v = 0;
      } else if (digits <= 18 && m < (1L << 53) && exp10 >= -22 && exp10 <= 22) {
        v = exp10 >= 0 ? m * POW10[exp10] : m / POW10[-exp10];
        if (neg) v = -v;
      } else {
        v = Double.parseDouble(new String(b, vs, q - vs, StandardCharsets.ISO_8859_1));
        if (!Double.isFinite(v)) return parse(new String(b, off, len, StandardCharsets.UTF_8));
      }
      if (k == idx.length) {
        idx = Arrays.copyOf(idx, 2 * k);
        val = Arrays.copyOf(val, 2 * k);
      }
      if (v != 0) {
        idx[k] = (int) index;
        val[k++] = v;
      }
      prev = (int) index;
      p = skipSpace(b, q, n);
    }
    return new Row(label, new SparseVector(Arrays.copyOf(idx, k), Arrays.copyOf(val, k)));
  }

  private String cachedLabel(byte[] b, int p, int e) {
    for (int i = 0; i < labelsCached; i++) {
      if (Arrays.equals(labelRaw[i], 0, labelRaw[i].length, b, p, e)) return labelCanon[i];
    }
    return null;
  }

  /** Character.isWhitespace for an ASCII byte. */
  private static boolean isSpace(byte c) {
    return c == ' ' || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
  }

  private static int skipSpace(byte[] b, int p, int n) {
    while (p < n && isSpace(b[p])) p++;
    return p;
  }

  private static int tokenEnd(byte[] b, int p, int n) {
    while (p < n && !isSpace(b[p])) p++;
    return p;
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
