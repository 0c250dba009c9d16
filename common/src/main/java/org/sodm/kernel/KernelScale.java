package org.sodm.kernel;

import java.util.Arrays;
import org.sodm.data.SparseVector;

/**
 * Whether an RBF kernel's gamma suits the data's scale: gamma times the median squared distance
 * between rows (the "median heuristic" of kernel methods). On the shared data sets, scaled or as
 * distributed, at LIBSVM's default gamma (1/d) and at the tuned ones, gamma x median is 0.04-8; on
 * unscaled svmguide1, pendigits and skin_nonskin at the default gamma it is 1,800-5,500:
 * exp(-gamma ||x - x'||^2) is then zero to double precision for a typical pair, the kernel matrix
 * the identity, nearly every row a support vector, and a prediction away from the training rows
 * falls to the offset (svmguide1 unscaled: svm-train 66.9% with 3,053 of 3,089 rows support
 * vectors, 95.1% scaled to [0,1]).
 */
public final class KernelScale {
  private KernelScale() {}

  /**
   * gamma x median above this: a typical pair's kernel value is below e^-100 (4e-44). Far above the
   * well-posed cases (at most 8 on the shared sets) and far below the degenerate ones (1,800 and up).
   */
  public static final double DEGENERATE = 100;

  /** The median of the squared distances over all pairs of {@code rows} (the lower median for an even count); 0 below 2 rows. */
  public static double medianSquaredDistance(SparseVector[] rows) {
    int n = rows.length;
    if (n < 2) return 0;
    double[] d = new double[n * (n - 1) / 2];
    int k = 0;
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) d[k++] = rows[i].squaredDistance(rows[j]);
    }
    Arrays.sort(d);
    return d[(d.length - 1) / 2];
  }

  /** gamma x the median squared distance of {@code rows}. */
  public static double typicalExponent(double gamma, SparseVector[] rows) {
    return gamma * medianSquaredDistance(rows);
  }

  /** True when a typical pair's RBF kernel value is below e^-{@link #DEGENERATE}. */
  public static boolean degenerate(double typicalExponent) {
    return typicalExponent > DEGENERATE;
  }
}
