package org.sodm.solver;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One computation in phases of chunks, shared by the calling thread and helpers from a pool of daemon threads (one per core,
 * shared by every solve of the process). Each participant takes the next chunk of the current phase until none is left,
 * waits for the others' last chunks of the phase, then goes on to the next phase. The caller starts at once and does
 * whatever the helpers have not taken, so a helper that starts late (a busy pool, a core taken by another solve) costs only
 * the chunks it did not do, never a wait for it to start. Chunks must write disjoint memory, and what a chunk writes must not
 * depend on the thread that runs it.
 *
 * <p>Not {@code TaskPrograms.forEach} (a future per chunk on a pool, the caller waiting for all): that suits chunks of 2^17 rows
 * of the linear solvers, but a kernel column takes about a millisecond. A fixed half per thread handed over as a future (the
 * first version of this class) left the caller waiting for a late helper in 56-68% of the parallel steps on 20,000 MNIST rows
 * (solve 8.2-8.4 s, one thread 8.8-12.9 s); shared chunks: 7.4-7.8 s against 9.5-11.7 s (3 alternated pairs).
 */
final class Parts {
  /** Chunk {@code chunk} of phase {@code phase}. */
  interface Work {
    void run(int phase, int chunk);
  }

  private static final ExecutorService POOL = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(), r -> {
    Thread t = new Thread(r, "sodm-kernel-column");
    t.setDaemon(true);
    return t;
  });

  private Parts() {}

  /**
   * Runs {@code work} for the chunks [0, chunks[p]) of every phase p in order, on the caller and up to {@code threads - 1}
   * helpers; returns when all are done. A chunk's exception is rethrown (after every participant has left).
   */
  static void run(int threads, int[] chunks, Work work) {
    if (threads <= 1) {
      for (int p = 0; p < chunks.length; p++) for (int c = 0; c < chunks[p]; c++) work.run(p, c);
      return;
    }
    Shared s = new Shared(chunks, work);
    for (int i = 1; i < threads; i++) POOL.execute(s::help);
    s.participate();
    s.close();
    Throwable f = s.failure;
    if (f instanceof RuntimeException r) throw r;
    if (f instanceof Error e) throw e;
    if (f != null) throw new IllegalStateException(f);
  }

  private static final class Shared {
    private final int[] chunks;
    private final Work work;
    private final AtomicInteger[] next;
    private final AtomicInteger[] done;
    /** Helpers inside {@link #participate}; -1 once the caller has left (a helper starting later does nothing). */
    private final AtomicInteger inside = new AtomicInteger();
    private volatile Throwable failure;

    Shared(int[] chunks, Work work) {
      this.chunks = chunks;
      this.work = work;
      next = new AtomicInteger[chunks.length];
      done = new AtomicInteger[chunks.length];
      for (int p = 0; p < chunks.length; p++) {
        next[p] = new AtomicInteger();
        done[p] = new AtomicInteger();
      }
    }

    void help() {
      for (int n = inside.get(); ; n = inside.get()) {
        if (n < 0) return;
        if (inside.compareAndSet(n, n + 1)) break;
      }
      try {
        participate();
      } finally {
        inside.decrementAndGet();
      }
    }

    void participate() {
      for (int p = 0; p < chunks.length; p++) {
        for (int c = next[p].getAndIncrement(); c < chunks[p]; c = next[p].getAndIncrement()) {
          try {
            if (failure == null) work.run(p, c);
          } catch (Throwable t) {
            failure = t;
          } finally {
            done[p].incrementAndGet();
          }
        }
        await(done[p], chunks[p]);
      }
    }

    /** The caller's last step: waits for the helpers inside to leave (they have no chunk left) and shuts the door. */
    void close() {
      for (int spins = 0; !inside.compareAndSet(0, -1); spins++) pause(spins);
    }

    private static void await(AtomicInteger counter, int target) {
      for (int spins = 0; counter.get() < target; spins++) pause(spins);
    }

    private static void pause(int spins) {
      if (spins < 1_000) Thread.onSpinWait();
      else Thread.yield();
    }
  }
}
