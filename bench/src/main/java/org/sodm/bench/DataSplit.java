package org.sodm.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The seeded train/test split for data sets without a test file (skin_nonskin, phishing): a
 * Fisher-Yates permutation of the data lines drawn from {@code SplittableRandom(seed)} puts the first
 * round(n * fraction) permuted lines in the test file; both files keep the input's line order. The
 * same input, fraction and seed give the same files byte for byte on any machine (SplittableRandom's
 * sequence is specified). Blank lines and '#' comment lines are dropped.
 *
 * <p>{@link #dedupSplit} first removes duplicate rows (phishing and skin_nonskin hold many: without
 * it most of their test rows are copies of training rows): two rows are the same when their label
 * and their features are equal as numbers ({@link #canonical}: "1:0.50" equals "1:0.5", a zero value
 * equals an absent feature, the order of the indices does not matter). The first occurrence is kept,
 * as written. Rows with equal features and different labels are kept (they are different examples)
 * and counted.
 */
public final class DataSplit {
  private DataSplit() {}

  /** For each data line: true if it goes to the test side. */
  public static boolean[] testMask(int n, double testFraction, long seed) {
    if (!(testFraction > 0 && testFraction < 1)) throw new IllegalArgumentException("test fraction must be in (0,1): " + testFraction);
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) perm[i] = i;
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    boolean[] test = new boolean[n];
    int nTest = (int) Math.round(n * testFraction);
    for (int k = 0; k < nTest; k++) test[perm[k]] = true;
    return test;
  }

  /** What {@link #dedupSplit} did: rows read, duplicates removed, rows written to each side, conflicting feature vectors. */
  public record Result(int read, int duplicates, int train, int test, int conflicting) {
    public String describe() {
      return String.format(Locale.ROOT, "read %d rows, removed %d duplicates (%.1f%%), train %d test %d, %d feature vectors with two labels",
          read, duplicates, read == 0 ? 0.0 : 100.0 * duplicates / read, train, test, conflicting);
    }
  }

  /**
   * A row's canonical form: the label as a number, then index:value for every non-zero feature in
   * increasing index order, values as numbers ({@link Double#toString}). Throws on a malformed row.
   */
  public static String canonical(String line) {
    String[] tok = line.strip().split("\\s+");
    StringBuilder b = new StringBuilder(features(tok, line));
    return Double.toString(Double.parseDouble(tok[0])) + b;
  }

  /** The canonical features of a row (the part of {@link #canonical} after the label). */
  static String features(String[] tok, String line) {
    TreeMap<Integer, Double> f = new TreeMap<>();
    for (int i = 1; i < tok.length; i++) {
      int c = tok[i].indexOf(':');
      if (c <= 0) throw new IllegalArgumentException("not a LIBSVM row (token '" + tok[i] + "'): " + line);
      double v = Double.parseDouble(tok[i].substring(c + 1));
      if (v != 0) f.put(Integer.parseInt(tok[i].substring(0, c)), v);
    }
    StringBuilder b = new StringBuilder();
    for (Map.Entry<Integer, Double> e : f.entrySet()) b.append(' ').append(e.getKey()).append(':').append(e.getValue());
    return b.toString();
  }

  /** The data lines of a file (stripped; blank and '#' lines dropped). */
  static List<String> dataLines(Path in) throws IOException {
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(in, StandardCharsets.UTF_8)) {
      for (String l; (l = r.readLine()) != null;) {
        String t = l.strip();
        if (!t.isEmpty() && !t.startsWith("#")) lines.add(t);
      }
    }
    return lines;
  }

  /** The lines without duplicates ({@link #canonical}), first occurrences in input order. */
  public static List<String> dedup(List<String> lines, int[] conflictingOut) {
    Set<String> seen = new HashSet<>();
    Map<String, String> labelOf = new HashMap<>();
    Set<String> conflicting = new HashSet<>();
    List<String> out = new ArrayList<>();
    for (String l : lines) {
      String[] tok = l.split("\\s+");
      String feats = features(tok, l);
      String label = Double.toString(Double.parseDouble(tok[0]));
      if (!seen.add(label + feats)) continue;
      String prev = labelOf.putIfAbsent(feats, label);
      if (prev != null && !prev.equals(label)) conflicting.add(feats);
      out.add(l);
    }
    if (conflictingOut != null) conflictingOut[0] = conflicting.size();
    return out;
  }

  /**
   * Removes duplicate rows, then splits what is left as {@link #split} does (seeded permutation of
   * the unique rows). No test row equals a training row.
   */
  public static Result dedupSplit(Path in, Path train, Path test, double testFraction, long seed) throws IOException {
    List<String> lines = dataLines(in);
    int[] conflicting = new int[1];
    List<String> unique = dedup(lines, conflicting);
    int[] n = write(unique, train, test, testFraction, seed);
    return new Result(lines.size(), lines.size() - unique.size(), n[0], n[1], conflicting[0]);
  }

  /** Splits {@code in} into {@code train} and {@code test}, duplicates kept; returns {train rows, test rows}. */
  public static int[] split(Path in, Path train, Path test, double testFraction, long seed) throws IOException {
    return write(dataLines(in), train, test, testFraction, seed);
  }

  private static int[] write(List<String> lines, Path train, Path test, double testFraction, long seed) throws IOException {
    boolean[] mask = testMask(lines.size(), testFraction, seed);
    int nTest = 0;
    try (BufferedWriter wTrain = Files.newBufferedWriter(train, StandardCharsets.UTF_8);
        BufferedWriter wTest = Files.newBufferedWriter(test, StandardCharsets.UTF_8)) {
      for (int i = 0; i < lines.size(); i++) {
        BufferedWriter w = mask[i] ? wTest : wTrain;
        w.write(lines.get(i));
        w.write('\n');
        if (mask[i]) nTest++;
      }
    }
    return new int[] {lines.size() - nTest, nTest};
  }
}
