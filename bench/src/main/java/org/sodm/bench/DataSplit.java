package org.sodm.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The seeded train/test split for data sets without a test file (skin_nonskin, phishing): a
 * Fisher-Yates permutation of the data lines drawn from {@code SplittableRandom(seed)} puts the first
 * round(n * fraction) permuted lines in the test file; both files keep the input's line order. The
 * same input, fraction and seed give the same files byte for byte on any machine (SplittableRandom's
 * sequence is specified). Blank lines and '#' comment lines are dropped.
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

  /** Splits {@code in} into {@code train} and {@code test}; returns {train rows, test rows}. */
  public static int[] split(Path in, Path train, Path test, double testFraction, long seed) throws IOException {
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(in, StandardCharsets.UTF_8)) {
      for (String l; (l = r.readLine()) != null;) {
        String t = l.strip();
        if (!t.isEmpty() && !t.startsWith("#")) lines.add(t);
      }
    }
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
