package org.sodm.saddle;

import java.io.DataInputStream;
import java.io.IOException;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.StateCodec;
import org.sodm.data.SparseVector;

/**
 * One client of Saddle-DSVC (seed 002, Algorithms 3 and 4) over an {@link AllReduce}: every rank
 * holds its rows' points, its share of eta and xi and a copy of w; the server's part of every round
 * is the AllReduce itself, whose result every rank gets, so every rank also runs the server's
 * arithmetic and the {@link SaddleSearch} identically. One {@link ResidentLoop} iteration is one
 * duality-gap check: {@link SaddleSearch#steps} iterations of Algorithm 4, then the check.
 *
 * <p>The rounds, as AllReduce operations (k ranks; the scalars counted are the doubles the k ranks
 * contribute, the results coming back being the same size):
 *
 * <ul>
 *   <li>setup (once): SUM of the class sizes, MAX of the squared norms and feature indices
 *       (Algorithm 3, lines 2-3: every rank then builds the same transform from the seed);</li>
 *   <li>per iteration, 3 rounds of 2 scalars per rank: SUM of delta+-, w_i* by (9) on every rank
 *       (Algorithm 4, lines 5-12); MAX of the local exponent maxima and SUM of the shifted local
 *       sums of (10)-(11), which together are the paper's round 2 with its sums C.Z sent as
 *       log-sum-exp pairs (no exponential overflows), and every rank normalises with the global
 *       sums (round 3's broadcast is the AllReduce's result);</li>
 *   <li>nu-SVM, per pass of the iterative projection (12): MAX of the log-mass maxima (2 scalars) and
 *       SUM of varsigma and the shifted Omega (4 scalars), Algorithm 4, lines 27-34;</li>
 *   <li>per check: SUM of the shares of A eta - B xi (current and averaged, 2d) and of the weighted
 *       margins, and a gather (a SUM of k slots) of every rank's extreme margins
 *       ({@link SaddleServer#marginCount} per class), from which every rank computes the bounds as
 *       {@link SaddleServer#bounds} does.</li>
 * </ul>
 *
 * A {@link NotSeparableException} ends the loop with the failure in the global state (every rank
 * sees the same bounds and so fails at the same check) instead of failing the tasks, which a restart
 * would only repeat.
 */
public final class SaddleRank implements ResidentLoop.Program {
  private final SparseVector[] x;
  private final double[] y;
  private final SaddleOptions options;
  private final byte[] rankState;

  private long n1;
  private long n2;
  private double maxSquaredNorm;
  private int inputDimension;
  private Preprocessing pre;
  private SaddleClient client;
  private SaddleSearch search;
  private SaddleServer server;
  private SaddleParameters params;
  private boolean fresh = true;
  private int k;
  private long iterationRounds;
  private long iterationScalars;
  private long checkRounds;
  private long checkScalars;
  private String failure;
  private double failureDistance = Double.NaN;
  private double[] progress = new double[0];

  /**
   * @param x, y this rank's rows (labels +-1)
   * @param rankState, globalState a checkpoint's states, or null to start afresh
   */
  public SaddleRank(SparseVector[] x, double[] y, SaddleOptions options, byte[] rankState, byte[] globalState) throws IOException {
    if (x.length != y.length) throw new IllegalArgumentException(x.length + " rows but " + y.length + " labels");
    this.x = x;
    this.y = y;
    this.options = options;
    this.rankState = rankState;
    if (globalState != null) restore(globalState);
  }

  /** The state shared by the ranks, as {@link #globalState} encodes it. */
  public record State(long n1, long n2, double maxSquaredNorm, int inputDimension, SaddleSearch search, String failure,
      double failureDistance) {
    /** The transform the ranks used. */
    public Preprocessing preprocessing(long seed) {
      return Preprocessing.of(Math.max(1, inputDimension), Math.sqrt(maxSquaredNorm), seed);
    }

    /**
     * The model, or the failure as a {@link NotSeparableException}.
     */
    public SaddleResult result(long seed) {
      if (failure != null) throw new NotSeparableException(failure, failureDistance, true);
      return search.result(preprocessing(seed));
    }
  }

  /** Decodes a final (or any) global state with the options it was trained with. */
  public static State decode(byte[] bytes, SaddleOptions options) throws IOException {
    SaddleRank r = new SaddleRank(new SparseVector[0], new double[0], options, null, bytes);
    return new State(r.n1, r.n2, r.maxSquaredNorm, r.inputDimension, r.search, r.failure, r.failureDistance);
  }

  private void restore(byte[] bytes) throws IOException {
    DataInputStream in = StateCodec.decode(bytes);
    n1 = in.readLong();
    n2 = in.readLong();
    maxSquaredNorm = in.readDouble();
    inputDimension = in.readInt();
    fresh = in.readBoolean();
    k = in.readInt();
    iterationRounds = in.readLong();
    iterationScalars = in.readLong();
    checkRounds = in.readLong();
    checkScalars = in.readLong();
    failure = in.readBoolean() ? in.readUTF() : null;
    failureDistance = in.readDouble();
    pre = Preprocessing.of(Math.max(1, inputDimension), Math.sqrt(maxSquaredNorm), options.seed());
    search = new SaddleSearch(options, SaddleSvc.problem(options, n1, n2), pre.dimension(), pre.scale());
    search.read(in);
  }

  private void setup(AllReduce ar) throws IOException {
    double[] local = new double[2];
    double[] max = new double[2];
    for (int i = 0; i < x.length; i++) {
      if (y[i] == 1) local[0]++;
      else if (y[i] == -1) local[1]++;
      else throw new IllegalArgumentException("label y[" + i + "] = " + y[i] + " is not -1 or +1");
      max[0] = Math.max(max[0], x[i].squaredNorm());
      max[1] = Math.max(max[1], x[i].maxIndex());
    }
    double[] sizes = ar.sum(local);
    double[] m = ar.max(max);
    k = ar.size();
    n1 = (long) sizes[0];
    n2 = (long) sizes[1];
    maxSquaredNorm = m[0];
    inputDimension = (int) m[1];
    pre = Preprocessing.of(Math.max(1, inputDimension), Math.sqrt(maxSquaredNorm), options.seed());
    search = new SaddleSearch(options, SaddleSvc.problem(options, n1, n2), pre.dimension(), pre.scale());
  }

  private void checkTopology(AllReduce ar) {
    if (options.projection() == SaddleOptions.ProjectionRule.SORTING && ar.size() > 1) {
      throw new IllegalArgumentException("the sorting projection rule needs every point on one client; Saddle-DSVC with "
          + ar.size() + " clients uses the iterative rule (12)");
    }
  }

  private void ensureClient() throws IOException {
    if (client != null) return;
    client = SaddleClient.of(x, y, pre);
    if (rankState != null && !fresh) {
      DataInputStream in = StateCodec.decode(rankState);
      client.read(in);
      server = new SaddleServer(pre.dimension(), options.seed());
      for (long i = 0; i < search.iterations(); i++) server.nextCoordinate();
      params = search.params();
    }
  }

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    checkTopology(ar);
    if (search == null) setup(ar);
    if (ar.size() != k) throw new IllegalStateException("Saddle-DSVC state of " + k + " ranks resumed on " + ar.size());
    ensureClient();
    long t0 = System.nanoTime();
    if (fresh) {
      client.initialize((int) n1, (int) n2);
      server = new SaddleServer(pre.dimension(), options.seed());
      params = search.params();
      iterationRounds = 0;
      iterationScalars = 0;
      checkRounds = 0;
      checkScalars = 0;
      fresh = false;
    }
    double cap = search.problem().cap();
    long steps = search.steps();
    for (long s = 0; s < steps; s++) step(ar, cap);
    SaddleServer.Bounds b = check(ar, cap);
    long iterations = search.iterations() + steps;
    progress = new double[] {search.beta(), iterations, b.relativeGap(), b.lower() * pre.scale(), b.upper() * pre.scale()};
    SaddleSearch.Step next;
    try {
      next = search.check(steps, b, client::w, communication(), (System.nanoTime() - t0) / 1e9);
    } catch (NotSeparableException e) {
      failure = e.getMessage();
      failureDistance = e.hullDistance();
      return true;
    }
    if (next == SaddleSearch.Step.NEXT_BETA) fresh = true;
    return next == SaddleSearch.Step.DONE;
  }

  /** One iteration of Algorithm 4 (and of Algorithm 2 when k = 1). */
  private void step(AllReduce ar, double cap) throws IOException {
    int i = server.nextCoordinate();
    SaddleClient.Deltas local = client.momentumDots(i, params.theta());
    double[] d = ar.sum(new double[] {local.positive(), local.negative()});
    SaddleClient.LogSums ls = client.exponentiate(i, new SaddleClient.Deltas(d[0], d[1]), params);
    double[] m = ar.max(new double[] {ls.positiveMax(), ls.negativeMax()});
    double[] s = ar.sum(new double[] {shifted(ls.positiveSum(), ls.positiveMax(), m[0]), shifted(ls.negativeSum(), ls.negativeMax(), m[1])});
    client.normalize(new SaddleClient.Normalizers(m[0] + Math.log(s[0]), m[1] + Math.log(s[1])));
    iterationRounds += 3;
    iterationScalars += 6L * k;
    if (cap < 1) project(ar, cap);
    client.accumulate();
  }

  private static double shifted(double sum, double localMax, double globalMax) {
    return sum > 0 ? sum * Math.exp(localMax - globalMax) : 0;
  }

  private void project(AllReduce ar, double cap) throws IOException {
    if (options.projection() == SaddleOptions.ProjectionRule.SORTING) {
      client.projectBySorting(cap);
      return;
    }
    while (true) {
      SaddleClient.CapSums c = client.capSums(cap);
      double[] m = ar.max(new double[] {c.positive().massMax(), c.negative().massMax()});
      double[] s = ar.sum(new double[] {c.positive().excess(), shifted(c.positive().massScaled(), c.positive().massMax(), m[0]),
          c.negative().excess(), shifted(c.negative().massScaled(), c.negative().massMax(), m[1])});
      iterationRounds += 2;
      iterationScalars += 6L * k;
      SaddleClient.CapSums total = new SaddleClient.CapSums(new CappedSimplex.Sums(s[0], m[0], s[1]),
          new CappedSimplex.Sums(s[2], m[1], s[3]));
      if (total.done()) return;
      client.cap(cap, total);
    }
  }

  /** A duality-gap check: the sums and the gather of the extreme margins; the bounds as {@link SaddleServer#bounds}. */
  private SaddleServer.Bounds check(AllReduce ar, double cap) throws IOException {
    int count = SaddleServer.marginCount(cap);
    SaddleClient.CheckReport r = client.report(count);
    int d = r.combination().length;
    double[] sums = new double[2 * d + 2];
    System.arraycopy(r.combination(), 0, sums, 0, d);
    System.arraycopy(r.averageCombination(), 0, sums, d, d);
    sums[2 * d] = r.positiveWeightedMargin();
    sums[2 * d + 1] = r.negativeWeightedMargin();
    double[] total = ar.sum(sums);
    double[] slots = new double[2 * k * count];
    int rank = ar.rank();
    java.util.Arrays.fill(slots, 0, k * count, Double.POSITIVE_INFINITY);
    java.util.Arrays.fill(slots, k * count, 2 * k * count, Double.NEGATIVE_INFINITY);
    for (int j = 0; j < k; j++) {
      if (j != rank) {
        java.util.Arrays.fill(slots, j * count, (j + 1) * count, 0);
        java.util.Arrays.fill(slots, k * count + j * count, k * count + (j + 1) * count, 0);
      }
    }
    double[] pos = r.smallestPositiveMargins();
    double[] neg = r.largestNegativeMargins();
    System.arraycopy(pos, 0, slots, rank * count, pos.length);
    System.arraycopy(neg, 0, slots, k * count + rank * count, neg.length);
    double[] gathered = ar.sum(slots);
    checkRounds += 2;
    checkScalars += (long) k * (sums.length + slots.length);
    double[] allPos = java.util.Arrays.stream(gathered, 0, k * count).filter(Double::isFinite).toArray();
    double[] allNeg = java.util.Arrays.stream(gathered, k * count, 2 * k * count).filter(Double::isFinite).toArray();
    double[] comb = java.util.Arrays.copyOfRange(total, 0, d);
    double[] avg = java.util.Arrays.copyOfRange(total, d, 2 * d);
    SaddleClient.CheckReport all = new SaddleClient.CheckReport(comb, avg, total[2 * d], total[2 * d + 1], allPos, allNeg,
        r.wSquaredNorm());
    return SaddleServer.bounds(java.util.List.of(all), cap);
  }

  /** The largest array an AllReduce of k ranks carries for these class sizes and transformed dimension d. */
  public static int maxDoubles(int k, int dimension, double cap) {
    long count = SaddleServer.marginCount(cap);
    return (int) Math.min(Integer.MAX_VALUE, Math.max(2L * dimension + 2, 2L * k * count) + 8);
  }

  /** The current run's communication. */
  private SaddleResult.Communication communication() {
    return new SaddleResult.Communication(k, iterationRounds, iterationScalars, checkRounds, checkScalars);
  }

  /** Rank 0: beta, iterations of the run, relative gap, lower and upper hull distance (input units). */
  @Override
  public double[] progress() {
    return progress.clone();
  }

  @Override
  public byte[] rankState() throws IOException {
    if (client == null) return null;
    return StateCodec.encode(client::write);
  }

  @Override
  public byte[] globalState() throws IOException {
    return StateCodec.encode(out -> {
      out.writeLong(n1);
      out.writeLong(n2);
      out.writeDouble(maxSquaredNorm);
      out.writeInt(inputDimension);
      out.writeBoolean(fresh);
      out.writeInt(k);
      out.writeLong(iterationRounds);
      out.writeLong(iterationScalars);
      out.writeLong(checkRounds);
      out.writeLong(checkScalars);
      out.writeBoolean(failure != null);
      if (failure != null) out.writeUTF(failure);
      out.writeDouble(failureDistance);
      search.write(out);
    });
  }
}
