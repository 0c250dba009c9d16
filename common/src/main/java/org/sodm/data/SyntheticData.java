package org.sodm.data;

import java.io.IOException;
import java.io.Writer;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Synthetic binary data with a known nonlinear Bayes boundary: x uniform in [-1,1]^d; the
 * label is +1 inside the ball of radius r in the first k = min(3, d) coordinates, -1 outside,
 * with r chosen so that the classes are balanced (k=1: 1/2, k=2: sqrt(2/pi), k=3: (3/pi)^(1/3));
 * the other d - k coordinates are pure noise. Each label is flipped with probability
 * {@code noise}, so the Bayes accuracy is 1 - noise. Deterministic for a seed.
 */
public final class SyntheticData {
  private SyntheticData() {}

  /** Ball radius that balances the classes in k = min(3, d) informative dimensions. */
  public static double radius(int d) {
    switch (Math.min(3, d)) {
      case 1: return 0.5;
      case 2: return Math.sqrt(2 / Math.PI);
      default: return Math.cbrt(3 / Math.PI);
    }
  }

  /** The noise-free label of a point. */
  public static int bayesLabel(double[] x) {
    int k = Math.min(3, x.length);
    double s = 0;
    for (int j = 0; j < k; j++) s += x[j] * x[j];
    return s < radius(x.length) * radius(x.length) ? 1 : -1;
  }

  /** Writes {@code rows} LIBSVM lines; values rounded to 6 decimals (the label uses the rounded point). */
  public static void write(Writer out, long rows, int d, double noise, long seed) throws IOException {
    if (rows < 1) throw new IllegalArgumentException("rows must be >= 1, got " + rows);
    if (d < 1) throw new IllegalArgumentException("features must be >= 1, got " + d);
    if (!(noise >= 0 && noise < 0.5)) throw new IllegalArgumentException("noise must be in [0, 0.5), got " + noise);
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[d];
    StringBuilder sb = new StringBuilder(16 * d + 8);
    for (long i = 0; i < rows; i++) {
      for (int j = 0; j < d; j++) x[j] = Math.round((r.nextDouble() * 2 - 1) * 1e6) / 1e6;
      int y = bayesLabel(x);
      if (r.nextDouble() < noise) y = -y;
      sb.setLength(0);
      sb.append(y > 0 ? "+1" : "-1");
      for (int j = 0; j < d; j++) {
        if (x[j] != 0) sb.append(' ').append(j + 1).append(':').append(String.format(Locale.ROOT, "%.6f", x[j]));
      }
      sb.append('\n');
      out.write(sb.toString());
    }
  }
}
