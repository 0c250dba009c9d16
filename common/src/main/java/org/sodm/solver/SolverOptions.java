package org.sodm.solver;

/**
 * Solver settings.
 *
 * @param eps stop when the maximal projected-gradient violation max_i |PG_i| over all variables
 *     (checked on the unshrunk problem) is &lt;= eps. Default 1e-3, as LIBSVM's -e (LIBSVM
 *     bounds the gap m(alpha) - M(alpha) of its equality-constrained dual, about twice our
 *     measure, so ours is the slightly stricter rule).
 * @param maxEpochs guard on passes over the active set (default 5000); reaching it logs a warning
 *     and the report says {@code converged = false}
 * @param shrinking LIBLINEAR/LIBSVM-style shrinking of variables stuck at a bound (default on)
 * @param cacheBytes byte budget of the kernel-column cache (default: system property
 *     {@code sodm.cache.mb}, else 256 MB)
 * @param seed seed of the per-epoch random permutations of
 *     {@link KernelDualSolver.Selection#RANDOM_PERMUTATION} and of {@link LinearDualCd} (same
 *     inputs + seed = bit-identical result); the default greedy kernel order is deterministic
 *     without it
 */
public record SolverOptions(double eps, int maxEpochs, boolean shrinking, long cacheBytes, long seed) {
  public static final double DEFAULT_EPS = 1e-3;
  public static final int DEFAULT_MAX_EPOCHS = 5000;
  public static final long DEFAULT_CACHE_MB = 256;

  public SolverOptions {
    if (!(eps > 0)) throw new IllegalArgumentException("eps must be > 0, got " + eps);
    if (maxEpochs < 1) throw new IllegalArgumentException("maxEpochs must be >= 1, got " + maxEpochs);
    if (cacheBytes < 0) throw new IllegalArgumentException("cacheBytes must be >= 0, got " + cacheBytes);
  }

  public static SolverOptions defaults() {
    long mb = DEFAULT_CACHE_MB;
    String p = System.getProperty("sodm.cache.mb");
    if (p != null && !p.isBlank()) mb = Long.parseLong(p.trim());
    return new SolverOptions(DEFAULT_EPS, DEFAULT_MAX_EPOCHS, true, mb << 20, 1L);
  }

  public SolverOptions withEps(double e) {
    return new SolverOptions(e, maxEpochs, shrinking, cacheBytes, seed);
  }

  public SolverOptions withMaxEpochs(int e) {
    return new SolverOptions(eps, e, shrinking, cacheBytes, seed);
  }

  public SolverOptions withShrinking(boolean s) {
    return new SolverOptions(eps, maxEpochs, s, cacheBytes, seed);
  }

  public SolverOptions withCacheBytes(long b) {
    return new SolverOptions(eps, maxEpochs, shrinking, b, seed);
  }

  public SolverOptions withSeed(long s) {
    return new SolverOptions(eps, maxEpochs, shrinking, cacheBytes, s);
  }
}
