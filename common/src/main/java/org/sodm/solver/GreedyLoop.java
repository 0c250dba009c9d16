package org.sodm.solver;

/**
 * The bookkeeping of the greedy orders (Gauss-Southwell, as LIBSVM's working-set selection
 * without the equality constraint): the position with the largest projected-gradient violation
 * (ties: lowest position) is the next to update; shrinking every min(n, 1000) steps; when the
 * active problem is solved the whole one is checked and descent resumes on everything if needed;
 * the step guard of maxEpochs * n. Each greedy {@link Descent} runs its own loop
 * {@code while (loop.next()) { ...step at loop.position()...; loop.moved(next); }}: the JIT
 * compiles each loop with its own step (one loop shared by both orders through a virtual step ran
 * ODM about 30% slower after a hinge solve in the same JVM; see bench/PROFILE.md).
 */
final class GreedyLoop {
  /** What a step returns when it made no representable progress. */
  static final int STALLED = -2;

  private final SolveState s;
  private final String name;
  private final long limit;
  private final int interval;
  private int counter;
  private int p;
  private double bestV;
  private Descent.Outcome end;

  GreedyLoop(SolveState s, String name) {
    this.s = s;
    this.name = name;
    this.limit = (long) s.opts.maxEpochs() * s.n;
    this.interval = Math.min(s.n, 1000);
    this.counter = interval;
    this.p = s.argmax();
    this.bestV = s.best[0];
  }

  /** Shrinks when due and checks for the end; true when a step is to be taken at {@link #position()}. */
  boolean next() {
    if (end != null) return false;
    while (s.steps < limit) {
      if (--counter == 0) {
        counter = interval;
        if (s.opts.shrinking()) {
          s.shrink(bestV);
          p = s.argmax();
          bestV = s.best[0];
        }
      }
      if (bestV > s.eps) return true;
      double v = s.unshrunkCheck();
      s.trace.line("%s: active set solved at step %d, full violation %s", name, s.steps, v);
      if (v <= s.eps) {
        end = new Descent.Outcome(v, true, s.stepEpochs());
        return false;
      }
      p = s.argmax();
      bestV = s.best[0];
      counter = 1; // shrink the re-activated instances again right away
    }
    end = new Descent.Outcome(s.unshrunkCheck(), false, s.stepEpochs());
    return false;
  }

  /** The position of the largest violation. */
  int position() {
    return p;
  }

  /**
   * Records a step's result: the next position (its violation in {@code s.best[0]}), or
   * {@link #STALLED}, which ends the descent (converged only if the whole problem is within eps).
   */
  void moved(int next) {
    if (next == STALLED) {
      end = s.stalled();
      return;
    }
    p = next;
    bestV = s.best[0];
    if (s.trace.on && s.steps % 10000 < 2) s.trace.progress(name + " step", s.steps, s.active, bestV);
  }

  /** How the descent ended (after {@link #next()} returned false). */
  Descent.Outcome end() {
    return end;
  }
}
