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
 * @param cacheBytes byte budget of the kernel-column cache (default 256 MB)
 * @param seed seed of the per-epoch random permutations of
 *     {@link KernelDualSolver.Selection#RANDOM_PERMUTATION} and of {@link LinearDualCd} (same
 *     inputs + seed = bit-identical result); the default greedy kernel order is deterministic
 *     without it
 * @param pairs two-variable working sets in the greedy order for the problems that support
 *     them ({@link DualProblem#pairs()}: hinge, squared hinge; and ODM, {@link GreedyOdmPairDescent};
 *     default on)
 * @param trace print where each kernel solve spends its time to stderr (default off)
 * @param threads threads that compute a kernel column of the kernel solvers (default 1: the caller's); the columns, and so
 *     the solution, are bit for bit the same at any count ({@code Rows})
 */
public record SolverOptions(double eps, int maxEpochs, boolean shrinking, long cacheBytes, long seed, boolean pairs,
    boolean trace, int threads) {
  public static final double DEFAULT_EPS = 1e-3;
  public static final int DEFAULT_MAX_EPOCHS = 5000;
  public static final long DEFAULT_CACHE_MB = 256;

  public SolverOptions {
    if (!(eps > 0)) throw new IllegalArgumentException("eps must be > 0, got " + eps);
    if (maxEpochs < 1) throw new IllegalArgumentException("maxEpochs must be >= 1, got " + maxEpochs);
    if (cacheBytes < 0) throw new IllegalArgumentException("cacheBytes must be >= 0, got " + cacheBytes);
    if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, got " + threads);
  }

  /** The given settings with pairs on and trace off. */
  public SolverOptions(double eps, int maxEpochs, boolean shrinking, long cacheBytes, long seed) {
    this(eps, maxEpochs, shrinking, cacheBytes, seed, true, false, 1);
  }

  public static SolverOptions defaults() {
    return new SolverOptions(DEFAULT_EPS, DEFAULT_MAX_EPOCHS, true, DEFAULT_CACHE_MB << 20, 1L);
  }

  public SolverOptions withEps(double e) {
    return new SolverOptions(e, maxEpochs, shrinking, cacheBytes, seed, pairs, trace, threads);
  }

  public SolverOptions withMaxEpochs(int e) {
    return new SolverOptions(eps, e, shrinking, cacheBytes, seed, pairs, trace, threads);
  }

  public SolverOptions withShrinking(boolean s) {
    return new SolverOptions(eps, maxEpochs, s, cacheBytes, seed, pairs, trace, threads);
  }

  public SolverOptions withCacheBytes(long b) {
    return new SolverOptions(eps, maxEpochs, shrinking, b, seed, pairs, trace, threads);
  }

  public SolverOptions withSeed(long s) {
    return new SolverOptions(eps, maxEpochs, shrinking, cacheBytes, s, pairs, trace, threads);
  }

  public SolverOptions withPairs(boolean p) {
    return new SolverOptions(eps, maxEpochs, shrinking, cacheBytes, seed, p, trace, threads);
  }

  public SolverOptions withTrace(boolean t) {
    return new SolverOptions(eps, maxEpochs, shrinking, cacheBytes, seed, pairs, t, threads);
  }

  public SolverOptions withThreads(int t) {
    return new SolverOptions(eps, maxEpochs, shrinking, cacheBytes, seed, pairs, trace, t);
  }
}
