package org.sodm.solver;

/**
 * Greedy order ({@link GreedyLoop}), one instance's variables per step: the instance with the
 * largest projected-gradient violation.
 */
final class GreedyDescent implements Descent {

  @Override
  public Outcome run(SolveState s) {
    GreedyLoop loop = new GreedyLoop(s, "greedy");
    while (loop.next()) loop.moved(step(s, loop.position()));
    return loop.end();
  }

  /**
   * Updates position p's variables and G; returns the next position (its violation in
   * {@code s.best[0]}), or {@link GreedyLoop#STALLED}.
   */
  private static int step(SolveState s, int p) {
    double[] alpha = s.alpha;
    int base = p * s.vpi;
    double a0 = alpha[base];
    double a1 = s.vpi > 1 ? alpha[base + 1] : 0;
    double delta = s.prob.step(alpha, p, s.g[p], s.q.diag(p), Double.POSITIVE_INFINITY, s.info);
    s.steps++;
    if (alpha[base] == a0 && (s.vpi == 1 || alpha[base + 1] == a1)) return GreedyLoop.STALLED;
    if (delta == 0) return s.argmax();
    s.gam[p] += delta;
    int a = s.active;
    return s.prob.applyArgmax(alpha, s.g, delta, s.q.column(p, a), a, s.best);
  }
}
