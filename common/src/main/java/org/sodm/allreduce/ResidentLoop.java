package org.sodm.allreduce;

import java.io.IOException;

/**
 * The iteration loop every rank of a resident solver runs, the same in-process and in a Hadoop
 * job: iterate (the per-block work, the AllReduce, the global step), report the iteration's
 * values from rank 0, and checkpoint the solver state every {@link Policy#everyIterations} or
 * {@link Policy#everySeconds} (rank 0's clock, agreed through the AllReduce) and at the end.
 * A checkpoint is written by every rank ({@link Checkpoints#write}), then committed by rank 0
 * after a barrier ({@link Checkpoints#commit}): a run resumed from it continues at its next
 * iteration with exactly the state the ranks had, so it ends with the identical model.
 */
public final class ResidentLoop {
  private ResidentLoop() {}

  /** One rank's solver. Its randomness must depend only on (seed, iteration, block). */
  public interface Program {
    /** Iteration t; true when the loop ends after it (every rank must return the same). */
    boolean iterate(int t, AllReduce ar) throws IOException;

    /** Rank 0: the values of the last iteration for the progress line. */
    double[] progress();

    /** This rank's part of the state after the last iteration (null: none). */
    byte[] rankState() throws IOException;

    /** Rank 0: the state every rank shares (w, step history, pocket...) after the last iteration. */
    byte[] globalState() throws IOException;
  }

  /** Where checkpoints go. */
  public interface Checkpoints {
    /** Writes rank {@code rank}'s state (and rank 0's global state) of the checkpoint taken before iteration {@code next}. */
    void write(int next, int rank, byte[] rankState, byte[] globalState) throws IOException;

    /** Rank 0, once every rank has written: makes checkpoint {@code next} the one to resume from (atomically). */
    void commit(int next, boolean done) throws IOException;
  }

  /** Receives rank 0's iteration values. */
  public interface Listener {
    void iteration(int t, double[] values) throws IOException;
  }

  /**
   * @param everyIterations checkpoint after every this many iterations (0: never by count)
   * @param everySeconds checkpoint when this many seconds passed since the last one (0: never by time)
   * @param failRank, failIteration a planted fault for tests: that rank throws before that
   *     iteration (failIteration &lt; 0: none)
   */
  public record Policy(int everyIterations, double everySeconds, int failRank, int failIteration) {
    public static Policy none() {
      return new Policy(0, 0, -1, -1);
    }
  }

  /** A fault planted by a test ({@link Policy#failIteration}). */
  public static final class PlantedFault extends IllegalStateException {
    PlantedFault(String msg) {
      super(msg);
    }
  }

  /** Runs iterations {@code start, start + 1, ...} until the program stops; the final state is checkpointed as done. */
  public static int run(Program p, int start, AllReduce ar, Policy policy, Checkpoints ckpt, Listener listener) throws IOException {
    long last = System.nanoTime();
    for (int t = start; ; t++) {
      if (t == policy.failIteration() && ar.rank() == policy.failRank()) {
        throw new PlantedFault("planted fault: rank " + ar.rank() + " fails before iteration " + t);
      }
      boolean done = p.iterate(t, ar);
      if (ar.rank() == 0 && listener != null) listener.iteration(t, p.progress());
      if (done) {
        checkpoint(p, t + 1, true, ar, ckpt);
        return t + 1;
      }
      boolean due = policy.everyIterations() > 0 && (t + 1) % policy.everyIterations() == 0;
      if (policy.everySeconds() > 0) {
        boolean late = ar.rank() == 0 && (System.nanoTime() - last) / 1e9 >= policy.everySeconds();
        due |= ar.max(late ? 1 : 0) > 0;
      }
      if (due) {
        checkpoint(p, t + 1, false, ar, ckpt);
        last = System.nanoTime();
      }
    }
  }

  private static void checkpoint(Program p, int next, boolean done, AllReduce ar, Checkpoints ckpt) throws IOException {
    if (ckpt == null) return;
    ckpt.write(next, ar.rank(), p.rankState(), ar.rank() == 0 ? p.globalState() : null);
    ar.barrier();
    if (ar.rank() == 0) ckpt.commit(next, done);
  }
}
