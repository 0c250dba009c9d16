package org.sodm.allreduce;

import java.io.IOException;

/**
 * A group of {@link #size()} ranks that combine arrays of doubles: every rank calls the same
 * operations in the same order, and every rank gets the same result, bit for bit. The
 * combination order is {@link ReduceTree}'s (a binary tree over the ranks), whatever the
 * transport: threads in one JVM ({@link InProcessAllReduce}) or sockets between the map tasks of
 * one Hadoop job ({@code org.sodm.jobs.allreduce.SocketAllReduce}).
 */
public interface AllReduce {
  int rank();

  int size();

  /**
   * One collective operation: every rank passes its array (BROADCAST: only rank 0's counts, the
   * others may pass null) and gets the combined result, the same on every rank.
   */
  double[] reduce(ReduceTree.Op op, double[] v) throws IOException;

  /** The element-wise sum over the ranks of {@code v} (the same length on every rank); v is not modified. */
  default double[] sum(double[] v) throws IOException {
    return reduce(ReduceTree.Op.SUM, v);
  }

  /** The element-wise maximum over the ranks. */
  default double[] max(double[] v) throws IOException {
    return reduce(ReduceTree.Op.MAX, v);
  }

  /** Rank 0's {@code v} on every rank (the others may pass null). */
  default double[] broadcast(double[] v) throws IOException {
    if (rank() == 0 && v == null) throw new IllegalArgumentException("rank 0 must give the array to broadcast");
    return reduce(ReduceTree.Op.BROADCAST, v);
  }

  /** Returns when every rank has called it. */
  default void barrier() throws IOException {
    sum(new double[0]);
  }

  default double sum(double x) throws IOException {
    return sum(new double[] {x})[0];
  }

  default double max(double x) throws IOException {
    return max(new double[] {x})[0];
  }
}
