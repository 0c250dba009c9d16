package org.sodm.data;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses delimited text: one column is the label, every other column a numeric feature
 * (feature index = position among the non-label columns, 1-based; zeros are not stored).
 * A field may be quoted as RFC 4180 quotes it ({@code "setosa"}, {@code "0.9"}, {@code "a ""b"""}, a delimiter inside
 * the quotes kept): R's {@code write.csv} quotes every string, header and labels included, and spreadsheet exports quote
 * what holds a delimiter. A quoted field spanning lines is refused (each line is one row). Not thread-safe.
 */
public final class CsvParser {
  private final char delimiter;
  private final int labelColumn;
  private int expectedColumns;
  private boolean expectedFromFirst;

  /**
   * @param labelColumn 0-based label column, or a negative number counting from the end
   *     (-1 = last column)
   * @param expectedColumns number of columns every row must have, or 0 to take it from the first row
   *     parsed (or from the header, {@link #expectColumnsOf})
   */
  public CsvParser(char delimiter, int labelColumn, int expectedColumns) {
    this.delimiter = delimiter;
    this.labelColumn = labelColumn;
    this.expectedColumns = expectedColumns;
  }

  /** Expects every following row to have the header's number of columns. */
  public void expectColumnsOf(String header) throws RecordException {
    expectedColumns = split(header).size();
    expectedFromFirst = false;
  }

  /**
   * Splits a line into trimmed fields, a quoted one without its quotes ({@code ""} inside it one quote).
   *
   * @throws RecordException for a quote left open at the end of the line, or text after a field's closing quote
   */
  public List<String> split(String line) throws RecordException {
    List<String> out = new ArrayList<>();
    int n = line.length();
    int i = 0;
    while (true) {
      int s = i;
      while (s < n && line.charAt(s) != delimiter && Character.isWhitespace(line.charAt(s))) s++;
      if (s < n && line.charAt(s) == '"') {
        StringBuilder b = new StringBuilder();
        int j = s + 1;
        while (true) {
          if (j >= n) {
            throw new RecordException("column " + (out.size() + 1) + ": a quote opened and not closed on this line (sodm reads a row per "
                + "line: a field cannot span lines)", line.substring(s));
          }
          char c = line.charAt(j++);
          if (c != '"') {
            b.append(c);
          } else if (j < n && line.charAt(j) == '"') {
            b.append('"');
            j++;
          } else {
            break;
          }
        }
        int k = j;
        while (k < n && line.charAt(k) != delimiter && Character.isWhitespace(line.charAt(k))) k++;
        if (k < n && line.charAt(k) != delimiter) {
          throw new RecordException("column " + (out.size() + 1) + ": text after the closing quote", line.substring(s));
        }
        out.add(b.toString().trim());
        if (k >= n) return out;
        i = k + 1;
      } else {
        int d = line.indexOf(delimiter, i);
        out.add((d < 0 ? line.substring(i) : line.substring(i, d)).trim());
        if (d < 0) return out;
        i = d + 1;
      }
    }
  }

  /** True when no feature field of the line parses as a number (so it is a header); false for a line that does not split. */
  public boolean looksLikeHeader(String line) {
    List<String> f;
    try {
      f = split(line);
    } catch (RecordException e) {
      return false; // parsed as a row, it fails naming the quote
    }
    int lc = resolve(f.size());
    for (int c = 0; c < f.size(); c++) {
      if (c != lc && Labels.parseNumber(f.get(c)) != null) return false;
    }
    return true;
  }

  private int resolve(int columns) {
    return labelColumn >= 0 ? labelColumn : columns + labelColumn;
  }

  /**
   * Parses one row; null for a blank line. A row whose number of columns differs from the
   * header's or the first row's is a bad record (a missing cell would otherwise become 0 and an
   * extra one a new feature).
   */
  public Row parse(String line) throws RecordException {
    if (line.isBlank()) return null;
    List<String> f = split(line);
    if (expectedColumns > 0 && f.size() != expectedColumns) {
      throw new RecordException("expected " + expectedColumns + " columns (as the " + (expectedFromFirst ? "first row" : "header")
          + "), found " + f.size(), line);
    }
    int lc = resolve(f.size());
    if (lc < 0 || lc >= f.size()) {
      throw new RecordException("label column " + (labelColumn >= 0 ? labelColumn + 1 : labelColumn) + " does not exist in a row of "
          + f.size() + " columns", line);
    }
    if (expectedColumns == 0) {
      expectedColumns = f.size();
      expectedFromFirst = true;
    }
    String rawLabel = f.get(lc);
    if (rawLabel.isEmpty()) throw new RecordException("missing label", line);
    String label = Labels.canonical(rawLabel);
    int[] idx = new int[f.size() - 1];
    double[] val = new double[f.size() - 1];
    int k = 0;
    int feature = 0;
    for (int c = 0; c < f.size(); c++) {
      if (c == lc) continue;
      feature++;
      String t = f.get(c);
      if (t.isEmpty()) {
        throw new RecordException("column " + (c + 1) + " is empty: a missing value (sodm has none; fill it in, or "
            + "--skip-bad-records N skips such rows)", t);
      }
      Double parsed = Labels.parseNumber(t);
      if (parsed == null) throw new RecordException("column " + (c + 1) + " is not a number", t);
      double v = parsed;
      if (!Double.isFinite(v)) throw new RecordException("column " + (c + 1) + " is NaN or infinite", t);
      if (v != 0) {
        idx[k] = feature;
        val[k++] = v;
      }
    }
    return new Row(label, new SparseVector(java.util.Arrays.copyOf(idx, k), java.util.Arrays.copyOf(val, k)));
  }
}
