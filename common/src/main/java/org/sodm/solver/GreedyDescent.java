package org.sodm.solver;

/**
 * Greedy order (Gauss-Southwell, as LIBSVM's working-set selection without the equality
 * constraint): each step updates the instance with the largest projected-gradient violation
 * (ties: lowest position). Shrinking is checked every min(n, 1000) steps; when the active
 * problem is solved the whole one is checked and descent resumes on everything if needed.
 * Subclasses choose what one step updates; this class updates one instance's variables.
 */
class GreedyDescent implements Descent {
  /** What {@link #step} returns when it made no representable progress. */
  static final int STALLED = -2;

  @Override
  public final Outcome run(SolveState s) {
    long limit = (long) s.opts.maxEpochs() * s.n;
    int interval = Math.min(s.n, 1000);
    int counter = interval;
    int p = s.argmax();
    double bestV = s.best[0];
    while (s.steps < limit) {
      if (--counter == 0) {
        counter = interval;
        if (s.opts.shrinking()) {
          s.shrink(bestV);
          p = s.argmax();
          bestV = s.best[0];
        }
      }
      if (bestV <= s.eps) {
        double v = s.unshrunkCheck();
        s.trace.line("%s: active set solved at step %d, full violation %s", name(), s.steps, v);
        if (v <= s.eps) return new Outcome(v, true, s.stepEpochs());
        p = s.argmax();
        bestV = s.best[0];
        counter = 1; // shrink the re-activated instances again right away
        continue;
      }
      long t = s.trace.now();
      p = step(s, p);
      if (p == STALLED) {
        // no representable progress (rounding): the same choice would be made forever
        return s.stalled();
      }
      bestV = s.best[0];
      s.trace.apply += s.trace.since(t);
      if (s.steps % 10000 < 2) s.trace.progress(name() + " step", s.steps, s.active, bestV);
    }
    return new Outcome(s.unshrunkCheck(), false, s.stepEpochs());
  }

  String name() {
    return "greedy";
  }

  /**
   * Updates the variables chosen from position p (the largest violation) and G; returns the
   * next position (its violation in {@code s.best[0]}), or {@link #STALLED}.
   */
  int step(SolveState s, int p) {
    double[] alpha = s.alpha;
    int base = p * s.vpi;
    double a0 = alpha[base];
    double a1 = s.vpi > 1 ? alpha[base + 1] : 0;
    double delta = s.prob.step(alpha, p, s.g[p], s.q.diag(p), Double.POSITIVE_INFINITY, s.info);
    s.steps++;
    if (alpha[base] == a0 && (s.vpi == 1 || alpha[base + 1] == a1)) return STALLED;
    if (delta == 0) return s.argmax();
    s.gam[p] += delta;
    int a = s.active;
    return s.prob.applyArgmax(alpha, s.g, delta, s.q.column(p, a), a, s.best);
  }
}
