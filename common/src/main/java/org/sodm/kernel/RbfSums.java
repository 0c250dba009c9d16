package org.sodm.kernel;

/**
 * The fused RBF step of batched scoring: {@code sum_j coef[j] exp(-gamma max(0, xn + norms[j] - 2 dots[j]))}
 * over {@code j in [from, to)}, from the inner products {@code dots[j] = x's_j}, the cached squared
 * norms of the support vectors and {@code xn = |x|^2}. Two implementations of the same sum:
 * {@link #scalar} (Math.exp per term) and {@link #vector} (the JDK's Vector API, whose lanewise exp
 * is within an ulp of Math.exp and about 6x faster; used when the JVM was started with
 * {@code --add-modules jdk.incubator.vector}, as {@code bin/sodm predict} does). They differ only in
 * the rounding of exp and the order of the additions (a few ulps of the sum of |terms|).
 */
public final class RbfSums {
  private RbfSums() {}

  /** Property that turns the Vector API path off ({@code -Dsodm.vector=false}). */
  public static final String PROPERTY = "sodm.vector";

  private static final boolean MODULE = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
  private static final boolean VECTOR = MODULE && !"false".equals(System.getProperty(PROPERTY));

  /** True when the JVM has the Vector API module ({@link #vector} and {@link #denseChunk} work). */
  public static boolean available() {
    return MODULE;
  }

  /** True when batched scoring uses the Vector API (the module is in the boot layer and -Dsodm.vector=false is not set). */
  public static boolean vectorized() {
    return VECTOR;
  }

  /** The Vector API path; fails with {@link IllegalStateException} when the module is absent. */
  public static double vector(double[] dots, double xn, double[] norms, double[] coef, int from, int to, double gamma) {
    if (!MODULE) {
      throw new IllegalStateException("the JVM was started without --add-modules jdk.incubator.vector");
    }
    return RbfSumsVector.sum(dots, xn, norms, coef, from, to, gamma);
  }

  /** Math.exp per term, summed in index order. */
  public static double scalar(double[] dots, double xn, double[] norms, double[] coef, int from, int to, double gamma) {
    double g = -gamma;
    double s = 0;
    for (int j = from; j < to; j++) {
      double d2 = xn + norms[j] - 2 * dots[j];
      s += coef[j] * Math.exp(g * (d2 > 0 ? d2 : 0));
    }
    return s;
  }

  /**
   * Fused inner products and RBF sums over a chunk of dense support vectors (feature-major,
   * {@code dense[(f-1) m + j]} for features {@code f <= dim}) on the Vector API path:
   * {@code acc[r] += sum_{j in [c0, c1)} coef[j] exp(-gamma max(0, xn[r] + norms[j] - 2 x_r's_j))}
   * for the rows {@code r < rows} given by their sparse indices and values. Callers check
   * {@link #vectorized()} first.
   */
  public static void denseChunk(double[] dense, int m, int dim, int[][] idx, double[][] val, int rows, double[] xn, double[] norms,
      double[] coef, int c0, int c1, double gamma, double[] acc) {
    if (!MODULE) throw new IllegalStateException("the JVM was started without --add-modules jdk.incubator.vector");
    RbfSumsVector.dense(dense, m, dim, idx, val, rows, xn, norms, coef, c0, c1, gamma, acc);
  }
}
