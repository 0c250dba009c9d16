package org.sodm.jobs.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;
import org.sodm.solver.SolverOptions;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;

/**
 * The training parameters, read from the configuration (sodm-default.xml, -D, options) and
 * validated before any job starts: every failure names the parameter and its option.
 */
public final class TrainConfig {
  public enum Partitioner { STRATIFIED, KMEANS, RANDOM }

  public enum Merge { WARM, CASCADE }

  public final Loss loss;
  public final KernelSpec.Type kernelType;
  /** gamma as configured; 0 = 1 / dimension (resolved by {@link #kernel(int)}). */
  public final double gamma;
  public final double coef0;
  public final int degree;
  public final int partitions;
  public final int fanout;
  public final int landmarks;
  public final int candidates;
  public final Partitioner partitioner;
  public final Merge merge;
  public final boolean earlyStop;
  /** Largest block (rows) a merge may create; 0 = no limit. */
  public final long maxBlockRows;
  public final SolverOptions solver;
  public final long seed;
  public final boolean exact;
  /** Without --exact, data of at most this many rows is still finished with one exact block (0 = never). */
  public final long exactBelowRows;
  public final double exactTolerance;
  public final int exactMaxIterations;
  public final int exactInnerEpochs;
  public final org.sodm.solver.PbmStep.Rule exactLineSearch;
  public final boolean exactRefine;
  public final String exactSingle;
  /** NaN when not given. */
  public final double exactReference;
  public final double exactGap;

  private TrainConfig(Configuration conf) {
    String lt = parse(() -> Loss.canonicalId(SodmConf.require(conf, SodmConf.LOSS)), SodmConf.LOSS, "--loss");
    double c = positive(conf, SodmConf.C, "-c");
    double lambda = positive(conf, SodmConf.LAMBDA, "--lambda");
    double theta = number(conf, SodmConf.THETA);
    if (!(theta >= 0 && theta < 1)) throw bad(SodmConf.THETA, "--theta", "must be in [0, 1), got " + theta);
    double mu = number(conf, SodmConf.MU);
    if (!(mu > 0 && mu <= 1)) throw bad(SodmConf.MU, "--mu", "must be in (0, 1], got " + mu);
    double wp = positive(conf, SodmConf.WEIGHT_POSITIVE, "--weight-positive");
    double wn = positive(conf, SodmConf.WEIGHT_NEGATIVE, "--weight-negative");
    loss = Loss.of(lt, c, lambda, theta, mu, conf.getBoolean(SodmConf.BIAS, false), wp, wn);

    kernelType = parse(() -> KernelSpec.Type.parse(SodmConf.require(conf, SodmConf.KERNEL)), SodmConf.KERNEL, "--kernel");
    gamma = number(conf, SodmConf.GAMMA);
    if (!(gamma >= 0) || !Double.isFinite(gamma)) {
      throw bad(SodmConf.GAMMA, "--gamma", "must be > 0 (or 0 for 1/number of features), got " + gamma);
    }
    coef0 = number(conf, SodmConf.COEF0);
    degree = (int) integer(conf, SodmConf.DEGREE);
    if (kernelType == KernelSpec.Type.POLY && degree < 1) throw bad(SodmConf.DEGREE, "--degree", "must be >= 1, got " + degree);

    fanout = (int) integer(conf, SodmConf.FANOUT);
    if (fanout < 2) throw bad(SodmConf.FANOUT, "--fanout", "must be >= 2, got " + fanout);
    long k = integer(conf, SodmConf.PARTITIONS);
    if (k < 0) throw bad(SodmConf.PARTITIONS, "--partitions", "must be >= 1 (or 0 to use --levels), got " + k);
    if (k == 0) {
      long levels = integer(conf, SodmConf.LEVELS);
      if (levels < 0 || levels > 20) throw bad(SodmConf.LEVELS, "--levels", "must be in [0, 20], got " + levels);
      k = 1;
      for (int l = 0; l < levels; l++) k *= fanout;
    }
    if (k > 1_000_000) throw bad(SodmConf.PARTITIONS, "--partitions", "must be <= 1000000, got " + k);
    partitions = (int) k;
    landmarks = (int) integer(conf, SodmConf.LANDMARKS);
    if (landmarks < 1) throw bad(SodmConf.LANDMARKS, "--landmarks", "must be >= 1, got " + landmarks);
    candidates = (int) integer(conf, SodmConf.LANDMARK_CANDIDATES);
    if (candidates < 1) throw bad(SodmConf.LANDMARK_CANDIDATES, "--landmark-candidates", "must be >= 1, got " + candidates);
    partitioner = parse(() -> Partitioner.valueOf(SodmConf.require(conf, SodmConf.PARTITIONER).trim().toUpperCase(Locale.ROOT)),
        SodmConf.PARTITIONER, "--partitioner");
    merge = parse(() -> Merge.valueOf(SodmConf.require(conf, SodmConf.MERGE).trim().toUpperCase(Locale.ROOT)),
        SodmConf.MERGE, "--merge");
    earlyStop = conf.getBoolean(SodmConf.EARLY_STOP, true);
    maxBlockRows = integer(conf, SodmConf.MAX_BLOCK_ROWS);
    if (maxBlockRows < 0) throw bad(SodmConf.MAX_BLOCK_ROWS, "--max-block-rows", "must be >= 0, got " + maxBlockRows);

    double eps = positive(conf, SodmConf.EPS, "--eps");
    long maxEpochs = integer(conf, SodmConf.MAX_EPOCHS);
    if (maxEpochs < 1) throw bad(SodmConf.MAX_EPOCHS, "--max-epochs", "must be >= 1, got " + maxEpochs);
    long cacheMb = integer(conf, SodmConf.CACHE_MB);
    if (cacheMb < 1) throw bad(SodmConf.CACHE_MB, "--cache-mb", "must be >= 1, got " + cacheMb);
    seed = integer(conf, SodmConf.SEED);
    solver = new SolverOptions(eps, (int) Math.min(Integer.MAX_VALUE, maxEpochs), conf.getBoolean(SodmConf.SHRINKING, true),
        cacheMb << 20, seed);

    exact = conf.getBoolean(SodmConf.EXACT, false);
    exactBelowRows = integer(conf, SodmConf.EXACT_BELOW_ROWS);
    if (exactBelowRows < 0) throw bad(SodmConf.EXACT_BELOW_ROWS, "-D " + SodmConf.EXACT_BELOW_ROWS, "must be >= 0, got " + exactBelowRows);
    exactTolerance = positive(conf, SodmConf.EXACT_TOLERANCE, "--exact-tolerance");
    long mi = integer(conf, SodmConf.EXACT_MAX_ITERATIONS);
    if (mi < 0) throw bad(SodmConf.EXACT_MAX_ITERATIONS, "--exact-max-iterations", "must be >= 0, got " + mi);
    exactMaxIterations = (int) Math.min(Integer.MAX_VALUE, mi);
    long ie = integer(conf, SodmConf.EXACT_INNER_EPOCHS);
    if (ie < 1) throw bad(SodmConf.EXACT_INNER_EPOCHS, "-D " + SodmConf.EXACT_INNER_EPOCHS, "must be >= 1, got " + ie);
    exactInnerEpochs = (int) Math.min(Integer.MAX_VALUE, ie);
    exactLineSearch = parse(() -> org.sodm.solver.PbmStep.Rule.valueOf(SodmConf.require(conf, SodmConf.EXACT_LINE_SEARCH).trim()
        .toUpperCase(Locale.ROOT)), SodmConf.EXACT_LINE_SEARCH, "-D " + SodmConf.EXACT_LINE_SEARCH);
    exactRefine = conf.getBoolean(SodmConf.EXACT_REFINE, false);
    exactSingle = conf.getTrimmed(SodmConf.EXACT_SINGLE, "auto").toLowerCase(Locale.ROOT);
    if (!List.of("auto", "always", "never").contains(exactSingle)) {
      throw bad(SodmConf.EXACT_SINGLE, "-D " + SodmConf.EXACT_SINGLE, "must be auto, always or never, got " + exactSingle);
    }
    String ref = conf.getTrimmed(SodmConf.EXACT_REFERENCE, "");
    exactReference = ref.isEmpty() ? Double.NaN : number(conf, SodmConf.EXACT_REFERENCE);
    exactGap = number(conf, SodmConf.EXACT_GAP);
  }

  /** Reads and validates; throws {@link SodmException} naming the first bad parameter. */
  public static TrainConfig from(Configuration conf) {
    return new TrainConfig(conf);
  }

  /** The kernel, with gamma = 1/dimension when configured as 0. */
  public KernelSpec kernel(int dimension) {
    double g = gamma > 0 ? gamma : 1.0 / Math.max(1, dimension);
    return new KernelSpec(kernelType, kernelType == KernelSpec.Type.LINEAR ? 0 : g, coef0, degree);
  }

  /** Block counts per level from the bottom up: K, ceil(K/p), ..., down to <= p blocks (at least one level). */
  public List<Integer> levelBlocks() {
    List<Integer> out = new ArrayList<>();
    int b = partitions;
    out.add(b);
    while (b > fanout) {
      b = (b + fanout - 1) / fanout;
      out.add(b);
    }
    return out;
  }

  /**
   * The levels actually run on {@code rows} rows: {@link #levelBlocks()}, cut before the first
   * merge whose blocks would exceed {@link #maxBlockRows} rows on average (the bottom level is
   * always run). With a fixed bottom block size this keeps the work per block, and so the
   * training time per row, independent of n.
   */
  public List<Integer> levelBlocks(long rows) {
    List<Integer> all = levelBlocks();
    if (maxBlockRows <= 0) return all;
    int keep = 1;
    while (keep < all.size() && (rows + all.get(keep) - 1) / all.get(keep) <= maxBlockRows) keep++;
    return all.subList(0, keep);
  }

  /**
   * True when a run on {@code rows} rows whose last level has {@code lastBlocks} blocks ends with
   * the one-block exact solve although --exact was not given: small data, for which averaging a
   * few blocks of n/p rows costs accuracy (0.3-0.8 point on phishing's 8,844 rows) and one block
   * of n rows costs little.
   */
  public boolean exactBySize(long rows, int lastBlocks) {
    return !exact && exactBelowRows > 0 && rows <= exactBelowRows && lastBlocks > 1;
  }

  /** Fails naming --partitions when K exceeds the number of rows. */
  public void checkRows(long rows) {
    if (partitions > rows) {
      throw bad(SodmConf.PARTITIONS, "--partitions", "K = " + partitions + " blocks is more than the " + rows + " training rows");
    }
  }

  private interface Parse<T> {
    T get();
  }

  private static <T> T parse(Parse<T> p, String key, String option) {
    try {
      return p.get();
    } catch (IllegalArgumentException e) {
      throw bad(key, option, e.getMessage());
    }
  }

  static SodmException bad(String key, String option, String what) {
    return new SodmException("bad parameter " + option + " (" + key + "): " + what);
  }

  private static double number(Configuration conf, String key) {
    String v = SodmConf.require(conf, key);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new SodmException("bad parameter " + key + ": not a number: '" + v + "'");
    }
  }

  private static long integer(Configuration conf, String key) {
    String v = SodmConf.require(conf, key);
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new SodmException("bad parameter " + key + ": not an integer: '" + v + "'");
    }
  }

  private static double positive(Configuration conf, String key, String option) {
    double v = number(conf, key);
    if (!(v > 0) || !Double.isFinite(v)) throw bad(key, option, "must be > 0, got " + v);
    return v;
  }
}
