package org.sodm.saddle;

import java.util.ArrayList;
import java.util.List;
import org.sodm.data.SparseVector;

/**
 * One client of Saddle-DSVC (seed 002, Appendix B): its share of the points of both classes after
 * the transform (Algorithm 3), its share of eta and xi, and a copy of w, which every client updates
 * identically from the broadcast sums. The methods are the client side of the rounds of Algorithm 4,
 * each returning the O(1) scalars the client sends; {@link SaddleServer} holds the matching server
 * side. Saddle-SVC (Algorithm 2) is the same arithmetic with one client holding every point.
 */
public final class SaddleClient {
  private final ClassShard positive;
  private final ClassShard negative;
  private final double[] w;
  private int positiveTotal;
  private int negativeTotal;
  private long accumulated;

  /** Round 1's message: this client's shares of delta+ and delta- (Algorithm 4, lines 5-7). */
  public record Deltas(double positive, double negative) {}

  /**
   * Round 2's message: the local log-sum-exp pairs of the unnormalised weights (10)-(11), (max u,
   * sum exp(u - max u)) per class. The paper sends the plain sums C.Z (line 15); the pairs are the
   * same sums shifted by a local maximum so that no exponential overflows or underflows, two
   * scalars more per client.
   */
  public record LogSums(double positiveMax, double positiveSum, double negativeMax, double negativeSum) {}

  /** Round 3's broadcast: log S.Z+ and log S.Z- (Algorithm 4, line 19). */
  public record Normalizers(double positive, double negative) {}

  /**
   * The fourth round's message and broadcast: (varsigma, Omega) of (12) per class (lines 27-31),
   * Omega as a log-sum-exp pair ({@link CappedSimplex.Sums}): three scalars per class.
   */
  public record CapSums(CappedSimplex.Sums positive, CappedSimplex.Sums negative) {
    public boolean done() {
      return positive.excess() == 0 && negative.excess() == 0;
    }
  }

  /**
   * What a client sends for a duality-gap check: its share of A eta - B xi for the current eta, xi
   * and for their average over the iterations since the previous check (both feasible, both give an
   * upper bound), of eta^T A^T w and xi^T B^T w, its {@code count} extreme margins per class
   * ({@link ClassShard#extremeMargins}) and |w|^2 (the same on every client).
   */
  public record CheckReport(double[] combination, double[] averageCombination, double positiveWeightedMargin,
      double negativeWeightedMargin, double[] smallestPositiveMargins, double[] largestNegativeMargins, double wSquaredNorm) {
    /** The scalars this report carries. */
    public long scalars() {
      return 2L * combination.length + 3L + smallestPositiveMargins.length + largestNegativeMargins.length;
    }
  }

  /** A client over already transformed points (each of {@code dimension} coordinates). */
  public SaddleClient(double[][] positivePoints, double[][] negativePoints, int dimension) {
    this.positive = new ClassShard(positivePoints, dimension, 1);
    this.negative = new ClassShard(negativePoints, dimension, -1);
    this.w = new double[dimension];
  }

  /** Algorithm 3, lines 9-11: the client of the rows whose label is +1 or -1, transformed by {@code pre}. */
  public static SaddleClient of(SparseVector[] x, double[] y, Preprocessing pre) {
    if (x.length != y.length) throw new IllegalArgumentException(x.length + " rows but " + y.length + " labels");
    List<double[]> pos = new ArrayList<>();
    List<double[]> neg = new ArrayList<>();
    for (int i = 0; i < x.length; i++) {
      if (y[i] == 1) pos.add(pre.apply(x[i]));
      else if (y[i] == -1) neg.add(pre.apply(x[i]));
      else throw new IllegalArgumentException("label y[" + i + "] = " + y[i] + " is not -1 or +1");
    }
    return new SaddleClient(pos.toArray(new double[0][]), neg.toArray(new double[0][]), pre.dimension());
  }

  public int positiveCount() {
    return positive.size();
  }

  public int negativeCount() {
    return negative.size();
  }

  /** Algorithm 3, lines 12-13 and Algorithm 1, line 5: w = 0, eta = 1/n1, xi = 1/n2 (global class sizes). */
  public void initialize(int n1, int n2) {
    positiveTotal = n1;
    negativeTotal = n2;
    java.util.Arrays.fill(w, 0);
    positive.initialize(n1);
    negative.initialize(n2);
    accumulated = 0;
  }

  /** The end of an iteration: adds eta[t+1], xi[t+1] to the average the next check reports. */
  public void accumulate() {
    positive.accumulate();
    negative.accumulate();
    accumulated++;
  }

  /** Round 1 (Algorithm 4, lines 5-7; Algorithm 2, lines 2-3 on this client's points). */
  public Deltas momentumDots(int coordinate, double theta) {
    return new Deltas(positive.momentumDot(coordinate, theta), negative.momentumDot(coordinate, theta));
  }

  /**
   * Round 2 (Algorithm 4, lines 12-16): w_i* by (9) from the global deltas, then the unnormalised
   * multiplicative-weights step (10)-(11) of this client's eta and xi.
   */
  public LogSums exponentiate(int coordinate, Deltas global, SaddleParameters p) {
    double next = p.coordinateStep(w[coordinate], global.positive(), global.negative());
    double step = next - w[coordinate];
    w[coordinate] = next;
    ClassShard.LogSum a = positive.exponentiate(coordinate, step, p);
    ClassShard.LogSum b = negative.exponentiate(coordinate, step, p);
    return new LogSums(a.max(), a.sum(), b.max(), b.sum());
  }

  /** Round 3 (Algorithm 4, line 21): normalise by the global sums. */
  public void normalize(Normalizers global) {
    positive.normalize(global.positive());
    negative.normalize(global.negative());
  }

  /** The fourth round's message (Algorithm 4, lines 27-29). */
  public CapSums capSums(double cap) {
    return new CapSums(positive.capSums(cap), negative.capSums(cap));
  }

  /** The fourth round's update (Algorithm 4, lines 33-34) with the global sums. */
  public void cap(double cap, CapSums global) {
    positive.cap(cap, global.positive());
    negative.cap(cap, global.negative());
  }

  /**
   * The sorting rule (Rule 2 of Lemma 11) instead of the fourth round; only valid when this client
   * holds every point (it sorts the whole of eta and xi).
   */
  public void projectBySorting(double cap) {
    if (positive.size() != positiveTotal || negative.size() != negativeTotal) {
      throw new IllegalStateException("the sorting rule needs every point on one client: this one holds "
          + positive.size() + " of " + positiveTotal + " and " + negative.size() + " of " + negativeTotal);
    }
    positive.projectBySorting(cap);
    negative.projectBySorting(cap);
  }

  /**
   * The check message with the {@code count} extreme margins per class; restarts the average (with
   * no iteration since the last check the average is the current iterate).
   */
  public CheckReport report(int count) {
    double[] comb = new double[w.length];
    positive.addCombination(comb);
    negative.addCombination(comb);
    double[] avg;
    if (accumulated == 0) {
      avg = comb.clone();
    } else {
      avg = new double[w.length];
      positive.addAverageCombination(accumulated, avg);
      negative.addAverageCombination(accumulated, avg);
    }
    positive.resetAverage();
    negative.resetAverage();
    accumulated = 0;
    double ww = 0;
    for (double v : w) ww += v * v;
    return new CheckReport(comb, avg, positive.weightedMargin(), negative.weightedMargin(), positive.extremeMargins(count),
        negative.extremeMargins(count), ww);
  }

  /** The client's iterate (w, eta, xi and what they are kept with; not the points), for a checkpoint. */
  public void write(java.io.DataOutputStream out) throws java.io.IOException {
    org.sodm.allreduce.StateCodec.writeArray(out, w);
    out.writeInt(positiveTotal);
    out.writeInt(negativeTotal);
    out.writeLong(accumulated);
    positive.write(out);
    negative.write(out);
  }

  /** Restores what {@link #write} wrote for a client of the same points. */
  public void read(java.io.DataInputStream in) throws java.io.IOException {
    double[] v = org.sodm.allreduce.StateCodec.readArray(in);
    if (v.length != w.length) throw new java.io.IOException("checkpoint of w in dimension " + v.length + ", not " + w.length);
    System.arraycopy(v, 0, w, 0, w.length);
    positiveTotal = in.readInt();
    negativeTotal = in.readInt();
    accumulated = in.readLong();
    positive.read(in);
    negative.read(in);
  }

  /** w[t] in the transformed space (a copy). */
  public double[] w() {
    return w.clone();
  }

  /** This client's eta (a copy, in its row order). */
  public double[] positiveWeights() {
    return positive.weights();
  }

  /** This client's xi (a copy, in its row order). */
  public double[] negativeWeights() {
    return negative.weights();
  }

  /** This client's incrementally kept margins &lt;w[t], x_j&gt; of P (a copy). */
  double[] positiveMargins() {
    return positive.margins();
  }

  /** This client's incrementally kept margins &lt;w[t], x_j&gt; of Q (a copy). */
  double[] negativeMargins() {
    return negative.margins();
  }
}
