package org.sodm.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A real data set's pattern enlarged to any row count for the scaling series (bench/scale.sh):
 * output row j is input row perm(j mod n0) (a fresh seeded permutation for every pass over the
 * input) with its label and its sparsity pattern, and Gaussian noise of standard deviation
 * {@code sigma} added to every non-zero value (then clipped to [lo, hi], the input's value range,
 * so scaled data stays scaled). Every output row is noisy, the first pass too, so no output row
 * repeats an input row exactly unless all its values sit at the range's bounds. Same input, rows,
 * sigma and seed: the same file.
 */
public final class Enlarge {
  private Enlarge() {}

  /** Writes {@code rows} rows to {@code out}; returns the input's row count. */
  public static int enlarge(Path in, Path out, long rows, double sigma, long seed) throws IOException {
    List<String> lines = DataSplit.dataLines(in);
    int n0 = lines.size();
    if (n0 == 0) throw new IllegalArgumentException(in + ": no data rows");
    if (rows <= 0) throw new IllegalArgumentException("rows must be positive: " + rows);
    if (!(sigma >= 0)) throw new IllegalArgumentException("sigma must be >= 0: " + sigma);
    String[] labels = new String[n0];
    int[][] idx = new int[n0][];
    double[][] val = new double[n0][];
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n0; i++) {
      String[] tok = lines.get(i).split("\\s+");
      labels[i] = tok[0];
      idx[i] = new int[tok.length - 1];
      val[i] = new double[tok.length - 1];
      for (int t = 1; t < tok.length; t++) {
        int c = tok[t].indexOf(':');
        if (c <= 0) throw new IllegalArgumentException(in + " line " + (i + 1) + ": not a LIBSVM token '" + tok[t] + "'");
        idx[i][t - 1] = Integer.parseInt(tok[t].substring(0, c));
        val[i][t - 1] = Double.parseDouble(tok[t].substring(c + 1));
        lo = Math.min(lo, val[i][t - 1]);
        hi = Math.max(hi, val[i][t - 1]);
      }
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] perm = new int[n0];
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      StringBuilder b = new StringBuilder();
      for (long j = 0; j < rows; j++) {
        int k = (int) (j % n0);
        if (k == 0) { // a new pass: a new permutation
          for (int i = 0; i < n0; i++) perm[i] = i;
          for (int i = n0 - 1; i > 0; i--) {
            int r = rnd.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[r];
            perm[r] = t;
          }
        }
        int r = perm[k];
        b.setLength(0);
        b.append(labels[r]);
        for (int t = 0; t < idx[r].length; t++) {
          double v = val[r][t] + sigma * gaussian(rnd);
          v = Math.max(lo, Math.min(hi, v));
          b.append(' ').append(idx[r][t]).append(':').append(String.format(Locale.ROOT, "%.6g", v));
        }
        b.append('\n');
        w.write(b.toString());
      }
    }
    return n0;
  }

  /** A standard normal deviate (Box-Muller) from the seeded generator (Random.nextGaussian is not specified for SplittableRandom). */
  static double gaussian(SplittableRandom rnd) {
    double u = 1 - rnd.nextDouble(); // (0, 1]
    double v = rnd.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
