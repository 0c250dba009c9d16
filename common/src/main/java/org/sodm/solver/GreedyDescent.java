package org.sodm.solver;

/**
 * Greedy order ({@link GreedyLoop}), one instance's variables per step: the instance with the
 * largest projected-gradient violation. The step is written in the loop (as it was before the
 * strategies were split out): as a separate method the ODM solves of the profile ran 30% slower.
 */
final class GreedyDescent implements Descent {

  @Override
  public Outcome run(SolveState s) {
    GreedyLoop loop = new GreedyLoop(s, "greedy");
    double[] alpha = s.alpha;
    int vpi = s.vpi;
    while (loop.next()) {
      int p = loop.position();
      int base = p * vpi;
      double a0 = alpha[base];
      double a1 = vpi > 1 ? alpha[base + 1] : 0;
      double delta = s.prob.step(alpha, p, s.g[p], s.q.diag(p), Double.POSITIVE_INFINITY, s.info);
      s.steps++;
      if (alpha[base] == a0 && (vpi == 1 || alpha[base + 1] == a1)) {
        loop.moved(GreedyLoop.STALLED); // no representable progress: the same instance would be selected forever
      } else if (delta == 0) {
        loop.moved(s.argmax());
      } else {
        s.gam[p] += delta;
        int a = s.active;
        loop.moved(s.prob.applyArgmax(alpha, s.g, delta, s.q.column(p, a), a, s.best));
      }
    }
    return loop.end();
  }
}
