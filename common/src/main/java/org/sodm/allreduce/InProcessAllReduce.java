package org.sodm.allreduce;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link AllReduce} among threads of one JVM: each operation meets at the group's monitor,
 * where the last rank to arrive combines the posted arrays with {@link ReduceTree#reduce}, the order the socket transport uses.
 * For tests and for running a resident solver without Hadoop ({@link #run}).
 */
public final class InProcessAllReduce implements AllReduce {
  /** How many times a waiting rank checks for the round's end before it blocks. */
  private static final int SPINS = 1 << 14;

  /** The shared state of one group; every operation is one generation, completed by the last rank to arrive. */
  private static final class Group {
    final int size;
    final double[][] posted;
    final ReduceTree.Op[] ops;
    int arrived;
    /** Advanced under the monitor by the last rank to arrive, after {@link #result} and {@link #error} are set. */
    volatile long generation;
    double[] result;
    RuntimeException error;
    volatile boolean broken;

    Group(int size) {
      this.size = size;
      this.posted = new double[size][];
      this.ops = new ReduceTree.Op[size];
    }

    double[] exchange(int rank, ReduceTree.Op op, double[] v) throws IOException {
      long gen;
      synchronized (this) {
        if (broken) throw new BrokenGroupException("AllReduce group broken (another rank failed) on rank " + rank);
        posted[rank] = v == null ? null : v.clone();
        ops[rank] = op;
        gen = generation;
        if (++arrived == size) {
          combine();
          arrived = 0;
          generation = gen + 1;
          notifyAll();
        }
      }
      // A round of a resident solver is microseconds of arithmetic: the waiting ranks spin a little (yielding the core now
      // and then, for more ranks than cores) before they block on the monitor, whose wake-up costs tens of microseconds.
      for (int i = 0; i < SPINS && generation == gen && !broken; i++) {
        if ((i & 63) == 63) Thread.yield();
        else Thread.onSpinWait();
      }
      if (generation == gen) {
        synchronized (this) {
          while (generation == gen && !broken) {
            try {
              wait();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new InterruptedIOException("AllReduce interrupted on rank " + rank);
            }
          }
        }
        if (generation == gen) throw new BrokenGroupException("AllReduce group broken (another rank failed) on rank " + rank);
      }
      // the volatile read of generation orders the reads below after the last rank's writes; the next generation cannot
      // complete before this rank posts again, so result is still this one's
      if (error != null) throw error;
      return result.clone();
    }

    synchronized void breakGroup() {
      broken = true;
      notifyAll();
    }

    private void combine() {
      result = null;
      error = null;
      for (int r = 1; r < size; r++) {
        if (ops[r] != ops[0]) {
          error = new IllegalStateException("AllReduce out of step: rank 0 called " + ops[0] + ", rank " + r + " called " + ops[r]);
          return;
        }
      }
      try {
        result = ReduceTree.reduce(ops[0], posted);
      } catch (RuntimeException e) {
        error = e;
      }
    }
  }

  private final Group group;
  private final int rank;

  private InProcessAllReduce(Group group, int rank) {
    this.group = group;
    this.rank = rank;
  }

  /** The {@code size} members of a new group, one per rank. */
  public static List<InProcessAllReduce> group(int size) {
    if (size < 1) throw new IllegalArgumentException("an AllReduce group needs at least one rank, got " + size);
    Group g = new Group(size);
    List<InProcessAllReduce> out = new ArrayList<>();
    for (int r = 0; r < size; r++) out.add(new InProcessAllReduce(g, r));
    return out;
  }

  /** What one rank runs. */
  public interface RankTask<T> {
    T run(AllReduce ar) throws Exception;
  }

  /**
   * Runs {@code task} on {@code size} threads, one per rank, and returns the ranks' results; the
   * first failure breaks the group (the other ranks fail too) and is thrown.
   */
  public static <T> List<T> run(int size, RankTask<T> task) throws Exception {
    List<InProcessAllReduce> members = group(size);
    List<T> results = new ArrayList<>();
    Exception[] errors = new Exception[size];
    List<Thread> threads = new ArrayList<>();
    for (int r = 0; r < size; r++) results.add(null);
    for (int r = 0; r < size; r++) {
      final int rank = r;
      Thread t = new Thread(() -> {
        try {
          results.set(rank, task.run(members.get(rank)));
        } catch (Exception e) {
          errors[rank] = e;
          members.get(rank).group.breakGroup();
        }
      }, "allreduce-rank-" + r);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) t.join();
    Exception first = null;
    for (Exception e : errors) {
      if (e != null && (first == null || first instanceof BrokenGroupException)) first = e;
    }
    if (first != null) throw first;
    return results;
  }

  /** A rank saw the group break because another rank failed. */
  public static final class BrokenGroupException extends IOException {
    BrokenGroupException(String msg) {
      super(msg);
    }
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return group.size;
  }

  @Override
  public double[] reduce(ReduceTree.Op op, double[] v) throws IOException {
    return group.exchange(rank, op, v);
  }
}
