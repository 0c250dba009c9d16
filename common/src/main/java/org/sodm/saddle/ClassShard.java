package org.sodm.saddle;

import java.util.Arrays;

/**
 * The points of one class held by one client and their weights: eta over P (sign +1) or xi over Q
 * (sign -1) restricted to this client (seed 002, Algorithm 3, lines 9-13). The transformed points
 * are stored by coordinate (coordinate i of point j at x[i * size + j]) so that the coordinate
 * row X_i* of Algorithm 2, lines 2-3 is contiguous. Besides eta[t] and eta[t-1] it keeps log eta[t]
 * (the exponent of (11)) and the margins p_j = &lt;w[t], x_j&gt;, updated by the one changed
 * coordinate of w, so an iteration costs O(size) instead of O(size d).
 */
final class ClassShard {
  private final int size;
  private final int dimension;
  private final double sign;
  private final double[] x;
  private double[] weight;
  private double[] previous;
  private final double[] log;
  private final double[] margin;
  /** The sum of the weights since the last {@link #resetAverage} (for the averaged upper bound). */
  private final double[] weightSum;
  /** The largest exponent of the last {@link #exponentiate}, the shift of its local sum. */
  private double localMax;

  ClassShard(double[][] points, int dimension, double sign) {
    this.size = points.length;
    this.dimension = dimension;
    this.sign = sign;
    this.x = new double[dimension * size];
    for (int j = 0; j < size; j++) {
      if (points[j].length != dimension) {
        throw new IllegalArgumentException("point " + j + " has " + points[j].length + " coordinates, not " + dimension);
      }
      for (int i = 0; i < dimension; i++) x[i * size + j] = points[j][i];
    }
    this.weight = new double[size];
    this.previous = new double[size];
    this.log = new double[size];
    this.margin = new double[size];
    this.weightSum = new double[size];
  }

  int size() {
    return size;
  }

  /** Algorithm 3, lines 12-13: eta[-1] = eta[0] = 1 / classSize, w[0] = 0 (margins 0). */
  void initialize(int classSize) {
    double w0 = 1.0 / classSize;
    Arrays.fill(weight, w0);
    Arrays.fill(previous, w0);
    Arrays.fill(log, Math.log(w0));
    Arrays.fill(margin, 0);
    Arrays.fill(weightSum, 0);
  }

  /** Adds the weights of the iteration just finished to the running sum. */
  void accumulate() {
    for (int j = 0; j < size; j++) weightSum[j] += weight[j];
  }

  void resetAverage() {
    Arrays.fill(weightSum, 0);
  }

  /** Algorithm 2, lines 2-3 on this shard: &lt;X_i, eta[t] + theta (eta[t] - eta[t-1])&gt;. */
  double momentumDot(int coordinate, double theta) {
    int off = coordinate * size;
    double s = 0;
    for (int j = 0; j < size; j++) {
      double e = weight[j];
      s += x[off + j] * (e + theta * (e - previous[j]));
    }
    return s;
  }

  /**
   * The unnormalised step (10)-(11) after w_i changed by {@code step}: the exponent
   * u_j = a (c log eta_j[t] - sign &lt;w[t] + d (w[t+1] - w[t]), x_j&gt;) with
   * a = 1/(gamma + d/tau), c = d/tau, and the margins moved to w[t+1]. Leaves u in the log array
   * and exp(u_j - max u) in the weight array (eta[t] becomes eta[t-1]); returns the local
   * log-sum-exp pair (max u, sum exp(u - max u)).
   */
  LogSum exponentiate(int coordinate, double step, SaddleParameters p) {
    int off = coordinate * size;
    double a = p.exponentScale();
    double c = p.previousWeight();
    double momentum = dimension * step;
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < size; j++) {
      double xij = x[off + j];
      double extrapolated = margin[j] + momentum * xij;
      margin[j] += step * xij;
      double u = a * (c * log[j] - sign * extrapolated);
      log[j] = u;
      if (u > max) max = u;
    }
    double[] t = previous;
    previous = weight;
    weight = t;
    double sum = 0;
    for (int j = 0; j < size; j++) {
      double e = Math.exp(log[j] - max);
      weight[j] = e;
      sum += e;
    }
    localMax = max;
    return new LogSum(max, sum);
  }

  /** Algorithm 4, line 21: divides by the global normaliser Z = exp(logNormalizer). */
  void normalize(double logNormalizer) {
    double factor = Math.exp(localMax - logNormalizer);
    for (int j = 0; j < size; j++) {
      weight[j] *= factor;
      log[j] -= logNormalizer;
    }
  }

  CappedSimplex.Sums capSums(double cap) {
    return CappedSimplex.sums(weight, log, size, cap);
  }

  void cap(double cap, CappedSimplex.Sums total) {
    CappedSimplex.apply(weight, log, size, cap, total);
  }

  void projectBySorting(double cap) {
    CappedSimplex.projectBySorting(weight, log, cap);
  }

  /** Adds sign * sum_j eta_j x_j (this shard's share of A eta - B xi) to {@code acc}. */
  void addCombination(double[] acc) {
    addCombination(weight, sign, acc);
  }

  /** The same with the average of the weights over {@code count} accumulated iterations. */
  void addAverageCombination(long count, double[] acc) {
    addCombination(weightSum, sign / count, acc);
  }

  private void addCombination(double[] weights, double factor, double[] acc) {
    for (int i = 0; i < dimension; i++) {
      int off = i * size;
      double s = 0;
      for (int j = 0; j < size; j++) s += x[off + j] * weights[j];
      acc[i] += factor * s;
    }
  }

  /** sum_j eta_j p_j. */
  double weightedMargin() {
    double s = 0;
    for (int j = 0; j < size; j++) s += weight[j] * margin[j];
    return s;
  }

  /**
   * The {@code count} margins that bound the class on its side of w (at most the shard's size):
   * the smallest ascending for P, the largest descending for Q.
   */
  double[] extremeMargins(int count) {
    double[] m = margin.clone();
    Arrays.sort(m);
    int k = Math.min(count, size);
    double[] out = new double[k];
    for (int i = 0; i < k; i++) out[i] = sign > 0 ? m[i] : m[size - 1 - i];
    return out;
  }

  double[] weights() {
    return weight.clone();
  }

  /** The iterate's state (not the points), for a checkpoint. */
  void write(java.io.DataOutputStream out) throws java.io.IOException {
    out.writeInt(size);
    for (double[] a : new double[][] {weight, previous, log, margin, weightSum}) org.sodm.allreduce.StateCodec.writeArray(out, a);
    out.writeDouble(localMax);
  }

  /** Restores what {@link #write} wrote for a shard of the same points. */
  void read(java.io.DataInputStream in) throws java.io.IOException {
    int n = in.readInt();
    if (n != size) throw new java.io.IOException("checkpoint of a shard of " + n + " points, this shard has " + size);
    weight = org.sodm.allreduce.StateCodec.readArray(in);
    previous = org.sodm.allreduce.StateCodec.readArray(in);
    double[][] into = {log, margin, weightSum};
    for (double[] a : into) {
      double[] v = org.sodm.allreduce.StateCodec.readArray(in);
      System.arraycopy(v, 0, a, 0, size);
    }
    localMax = in.readDouble();
  }

  double[] margins() {
    return margin.clone();
  }

  /** A local log-sum-exp pair. */
  record LogSum(double max, double sum) {}
}
