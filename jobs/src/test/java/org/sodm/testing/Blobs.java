package org.sodm.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Random;

/**
 * Gaussian blobs for multi-class tests, written as LIBSVM text: class c (label c + 1) is centred at {@code centre} e_c in
 * {@code sizes.length} dimensions, each coordinate with standard deviation {@code spread}.
 */
public final class Blobs {
  private Blobs() {}

  /**
   * @param sizes rows per class
   * @param interleave rows dealt round-robin over the classes (else class by class)
   * @param digits decimals written per value
   */
  public static Path write(Path file, int[] sizes, double centre, double spread, long seed, boolean interleave, int digits)
      throws IOException {
    Random r = new Random(seed);
    int k = sizes.length;
    int[] left = sizes.clone();
    StringBuilder b = new StringBuilder();
    String fmt = "%." + digits + "f";
    int c = 0;
    for (int total = java.util.Arrays.stream(sizes).sum(); total > 0; total--) {
      if (interleave) {
        while (left[c % k] == 0) c++;
      } else {
        while (left[c] == 0) c++;
      }
      int cls = c % k;
      left[cls]--;
      b.append(cls + 1);
      for (int j = 1; j <= k; j++) {
        b.append(' ').append(j).append(':').append(String.format(Locale.ROOT, fmt, (j == cls + 1 ? centre : 0) + spread * r.nextGaussian()));
      }
      b.append('\n');
      if (interleave) c++;
    }
    Files.writeString(file, b);
    return file;
  }
}
