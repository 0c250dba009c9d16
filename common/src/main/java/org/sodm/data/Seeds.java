package org.sodm.data;

/**
 * Every way sodm derives a seed from the user's seed and a position (file, split, iteration,
 * block), in one place. Each rule is fixed: changing one changes the models trained with every
 * seed, so a new use adds a rule rather than altering one.
 */
public final class Seeds {
  private Seeds() {}

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /** Fisher-Yates shuffle of {@code a[0..length)} in place, drawing from {@code rnd} (the one shuffle every solver and partitioner uses). */
  public static void shuffle(int[] a, int length, java.util.SplittableRandom rnd) {
    for (int t = length - 1; t > 0; t--) {
      int r = rnd.nextInt(t + 1);
      int tmp = a[t];
      a[t] = a[r];
      a[r] = tmp;
    }
  }

  /** SplitMix64's finaliser: a bijection that spreads every input bit over the output. */
  public static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** A well-mixed combination of two longs (order matters): the partitioners' streams. */
  public static long mix(long a, long b) {
    return mix64(mix64(a + GOLDEN) ^ (b * 0xc2b2ae3d27d4eb4fL + 0x165667b19e3779f9L));
  }

  /** seed * golden + salt: the seed of one input file or split (ingest's samples, the landmark job's reservoirs). */
  public static long offset(long seed, long salt) {
    return seed * GOLDEN + salt;
  }

  /** The seed of input file {@code ordinal}'s sample at ingest (its rows' ranks: {@link #ingestSampleRank}). */
  public static long ingestFile(long seed, int ordinal) {
    return offset(seed, 0x632BE59BD9B4E019L * (ordinal + 1));
  }

  /**
   * The rank of instance {@code id} in the ingest sample of its file ({@code fileSeed} from
   * {@link #ingestFile}): the sample keeps the rows of smallest rank (a bottom-k sample), so it
   * does not depend on how the file was split into tasks. Distinct ids have distinct ranks.
   */
  public static long ingestSampleRank(long fileSeed, long id) {
    return mix64(id ^ mix64(fileSeed + GOLDEN));
  }

  /** The reservoir seed of a landmark job's split (file name and start offset). */
  public static long split(long seed, String fileName, long start) {
    return offset(seed, fileName.hashCode() * 31L + start);
  }

  /** The seed of block {@code k}'s pass at iteration {@code t} of an iterative solver (BQO, DSVRG). */
  public static long pass(long seed, int t, int k) {
    long h = seed * GOLDEN + t * 0xBF58476D1CE4E5B9L + k * 0x94D049BB133111EBL;
    return h ^ (h >>> 31);
  }

  /**
   * The cross-validation fold in [0, folds) of instance {@code id}: a seeded hash of the id (no
   * data moved; the same row is in the same fold whatever the splits), for the internal
   * cross-validation of the probability estimates.
   */
  public static int fold(long seed, long id, int folds) {
    return (int) Long.remainderUnsigned(mix(seed ^ 0x43564F4C44L, id), folds);
  }

  /**
   * The rank of instance {@code id} in the adaptive k-means sample of tree level {@code level}
   * (DC-SVM's multilevel clustering): the sample keeps the support vectors of smallest rank (a
   * bottom-k sample, independent of the order the rows are read in).
   */
  public static long levelSampleRank(long seed, int level, long id) {
    return mix64(id ^ mix(seed ^ 0x4C564C534D504CL, level));
  }

  /** The rank of instance {@code id} in exact mode's k-means sample (PBM's partition, seed 004 section 4.3): a bottom-k sample of the rows. */
  public static long exactSampleRank(long seed, long id) {
    return mix64(id ^ mix(seed ^ 0x455853414D504CL, 1));
  }

  /** The seed of exact mode's kernel k-means (PBM's partition). */
  public static long exactKMeans(long seed) {
    return mix(seed ^ 0x45584B4D4EL, 1);
  }

  /** The seed of tree level {@code level}'s kernel k-means (k-means++ initialisation) in DC-SVM's multilevel clustering. */
  public static long levelKMeans(long seed, int level) {
    return mix(seed ^ 0x4C564C4B4D4EL, level);
  }
}
