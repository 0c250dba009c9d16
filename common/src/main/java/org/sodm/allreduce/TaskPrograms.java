package org.sodm.allreduce;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * Several independent programs (the binary tasks of a multi-class problem, or (task, fold) sub-problems) run as one resident
 * program: every iteration advances every program that has not stopped, in program order, each through its own AllReduce calls
 * and with its own iteration count. A program's arithmetic, seeds and stopping rule are those of its own run, so each one ends
 * with the state a run of it alone ends with; the whole run ends when every program has stopped. All ranks agree on which
 * programs still run (each program's stop is agreed by its own run's rule).
 *
 * <p>Threads: with a group of one rank (every row in one block: each program's reductions are its own values) and {@code threads}
 * above 1, the round's programs run on up to that many threads at once, each with its own one-rank group; each program's
 * arithmetic is unchanged, and the round's results are gathered in program order, so the run ends bit for bit as on one thread.
 * Over several ranks the programs take turns, as their reductions share the group's one channel.
 *
 * <p>Progress: {@code width} values per program (its own {@link ResidentLoop.Program#progress}, padded with NaN), NaN for a
 * program that did not iterate in the round. Checkpoints: every program's rank state, and per program whether it stopped, its
 * iteration count and its global state.
 */
public final class TaskPrograms implements ResidentLoop.Program {
  /** Builds program k from its part of a checkpoint (nulls when starting afresh). */
  public interface Factory<P extends ResidentLoop.Program> {
    P create(int k, byte[] rankState, byte[] globalState) throws IOException;
  }

  private final ResidentLoop.Program[] programs;
  private final boolean[] done;
  private final int[] iterations;
  private final int width;
  private final double[] progress;
  private final int threads;
  private java.util.concurrent.ThreadPoolExecutor pool;

  /** On one thread: {@link #TaskPrograms(int, int, Factory, byte[], byte[], int)} with 1. */
  public TaskPrograms(int count, int width, Factory<?> factory, byte[] rankState, byte[] globalState) throws IOException {
    this(count, width, factory, rankState, globalState, 1);
  }

  /**
   * @param width the progress values per program (at least the longest {@code progress()} of a program)
   * @param rankState this rank's checkpointed state ({@link #rankState}), or null
   * @param globalState the checkpointed shared state ({@link #globalState}), or null
   * @param threads the programs of a round that may run at once in a group of one rank (see the class comment)
   */
  public TaskPrograms(int count, int width, Factory<?> factory, byte[] rankState, byte[] globalState, int threads) throws IOException {
    if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    this.threads = threads;
    programs = new ResidentLoop.Program[count];
    done = new boolean[count];
    iterations = new int[count];
    this.width = width;
    byte[][] ranks = rankState == null ? new byte[count][] : split(rankState, count);
    byte[][] globals = new byte[count][];
    if (globalState != null) {
      DataInputStream in = StateCodec.decode(globalState);
      int n = in.readInt();
      if (n != count) throw new IOException("a checkpoint of " + n + " tasks for a run of " + count);
      for (int k = 0; k < count; k++) {
        done[k] = in.readBoolean();
        iterations[k] = in.readInt();
        globals[k] = new byte[in.readInt()];
        in.readFully(globals[k]);
      }
    }
    for (int k = 0; k < count; k++) programs[k] = factory.create(k, nullIfEmpty(ranks[k]), globals[k]);
    progress = new double[count * width];
  }

  /** Program k (to read its final state). */
  public ResidentLoop.Program program(int k) {
    return programs[k];
  }

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    Arrays.fill(progress, Double.NaN);
    int live = 0;
    for (boolean d : done) live += d ? 0 : 1;
    if (ar.size() == 1 && threads > 1 && live > 1) return iterateAtOnce();
    boolean all = true;
    for (int k = 0; k < programs.length; k++) {
      if (done[k]) continue;
      done[k] = programs[k].iterate(iterations[k]++, ar);
      report(k);
      all &= done[k];
    }
    return all;
  }

  private void report(int k) {
    double[] p = programs[k].progress();
    if (p.length > width) throw new IllegalStateException("task " + k + " reports " + p.length + " progress values, above " + width);
    System.arraycopy(p, 0, progress, k * width, p.length);
  }

  /** A group of one rank of its own: what a one-rank group returns, a copy of the values (broadcast included). */
  private static final AllReduce ALONE = new AllReduce() {
    @Override
    public int rank() {
      return 0;
    }

    @Override
    public int size() {
      return 1;
    }

    @Override
    public double[] reduce(ReduceTree.Op op, double[] v) {
      return v.clone();
    }
  };

  /**
   * A pool of {@code threads} daemon threads named {@code name} + n that end when idle for 5 s: between runs nothing is left to
   * shut down.
   */
  public static java.util.concurrent.ThreadPoolExecutor pool(int threads, String name) {
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(threads, threads, 5,
        java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
          Thread th = new Thread(r, name + n.incrementAndGet());
          th.setDaemon(true);
          return th;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Runs {@code body} for 0..count-1 on {@code pool} (null: in turn on the caller's thread) and waits for all; the first failure,
   * in index order, is thrown.
   */
  public static void forEach(java.util.concurrent.ExecutorService pool, int count, java.util.function.IntConsumer body) throws IOException {
    if (pool == null || count == 1) {
      for (int c = 0; c < count; c++) body.accept(c);
      return;
    }
    List<java.util.concurrent.Future<?>> futures = new java.util.ArrayList<>();
    for (int c = 0; c < count; c++) {
      int k = c;
      futures.add(pool.submit(() -> body.accept(k)));
    }
    Throwable failed = null;
    for (java.util.concurrent.Future<?> f : futures) {
      try {
        f.get();
      } catch (java.util.concurrent.ExecutionException e) {
        if (failed == null) failed = e.getCause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        if (failed == null) failed = new java.io.InterruptedIOException("interrupted");
      }
    }
    if (failed instanceof RuntimeException re) throw re;
    if (failed instanceof Error er) throw er;
    if (failed != null) throw new IOException(failed);
  }

  /** The round's live programs on up to {@link #threads} threads; results, progress and the first failure in program order. */
  private boolean iterateAtOnce() throws IOException {
    if (pool == null) pool = pool(threads, "sodm-task-programs-");
    List<java.util.concurrent.Future<Boolean>> futures = new java.util.ArrayList<>();
    List<Integer> which = new java.util.ArrayList<>();
    for (int k = 0; k < programs.length; k++) {
      if (done[k]) continue;
      ResidentLoop.Program p = programs[k];
      int it = iterations[k]++;
      futures.add(pool.submit(() -> p.iterate(it, ALONE)));
      which.add(k);
    }
    Throwable failed = null;
    boolean all = true;
    for (int j = 0; j < futures.size(); j++) {
      int k = which.get(j);
      try {
        done[k] = futures.get(j).get();
        report(k);
      } catch (java.util.concurrent.ExecutionException e) {
        if (failed == null) failed = e.getCause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        if (failed == null) failed = new java.io.InterruptedIOException("interrupted while task " + k + " iterated");
      }
      all &= done[k];
    }
    if (failed instanceof IOException io) throw io;
    if (failed instanceof RuntimeException re) throw re;
    if (failed instanceof Error er) throw er;
    if (failed != null) throw new IOException(failed);
    return all;
  }

  /** Per program {@code width} values of the iteration it took in the last round (NaN for programs that had stopped). */
  @Override
  public double[] progress() {
    return progress.clone();
  }

  /** Program k's values of a {@link #progress} array, or null when it did not iterate in that round. */
  public static double[] progressOf(double[] values, int k, int width) {
    double[] v = Arrays.copyOfRange(values, k * width, (k + 1) * width);
    return Double.isNaN(v[0]) ? null : v;
  }

  @Override
  public byte[] rankState() throws IOException {
    return StateCodec.encode(out -> {
      out.writeInt(programs.length);
      for (ResidentLoop.Program p : programs) {
        byte[] r = p.rankState();
        out.writeInt(r == null ? 0 : r.length);
        if (r != null) out.write(r);
      }
    });
  }

  @Override
  public byte[] globalState() throws IOException {
    return StateCodec.encode(out -> {
      out.writeInt(programs.length);
      for (int k = 0; k < programs.length; k++) {
        byte[] g = programs[k].globalState();
        out.writeBoolean(done[k]);
        out.writeInt(iterations[k]);
        out.writeInt(g.length);
        out.write(g);
      }
    });
  }

  /** Program k's own global state in a {@link #globalState}, for every k. */
  public static byte[][] programStates(byte[] globalState) throws IOException {
    DataInputStream in = StateCodec.decode(globalState);
    int n = in.readInt();
    byte[][] out = new byte[n][];
    for (int k = 0; k < n; k++) {
      in.readBoolean();
      in.readInt();
      out[k] = new byte[in.readInt()];
      in.readFully(out[k]);
    }
    return out;
  }

  private static byte[] nullIfEmpty(byte[] b) {
    return b == null || b.length == 0 ? null : b;
  }

  private static byte[][] split(byte[] bytes, int count) throws IOException {
    DataInputStream in = StateCodec.decode(bytes);
    int n = in.readInt();
    if (n != count) throw new IOException("a checkpoint of " + n + " tasks for a run of " + count);
    byte[][] out = new byte[n][];
    for (int k = 0; k < n; k++) {
      out[k] = new byte[in.readInt()];
      in.readFully(out[k]);
    }
    return out;
  }
}
