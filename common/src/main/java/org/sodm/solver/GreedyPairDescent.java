package org.sodm.solver;

/**
 * Greedy ({@link GreedyLoop}) with two-variable working sets for the problems of {@link PairDual}
 * (hinge, squared hinge), as the "2D" solvers of Steinwart, Hush and Scovel (JMLR 2011, SVMs without offset):
 * i = the largest violation, j = the violating instance whose joint unconstrained step with i
 * gains most (second-order, from column i), then the exact minimiser of the objective over the
 * 2-D box.
 */
final class GreedyPairDescent implements Descent {
  private final double uPos;
  private final double uNeg;
  private final double dPos;
  private final double dNeg;

  GreedyPairDescent(PairDual pd) {
    uPos = pd.upper(1);
    uNeg = pd.upper(-1);
    dPos = pd.extraDiag(1);
    dNeg = pd.extraDiag(-1);
  }

  @Override
  public Outcome run(SolveState s) {
    GreedyLoop loop = new GreedyLoop(s, "greedy2");
    while (loop.next()) loop.moved(step(s, loop.position()));
    return loop.end();
  }

  /** Updates i (the largest violation) and its best partner, and G; returns as {@link GreedyDescent}'s step. */
  private int step(SolveState s, int i) {
    double[] alpha = s.alpha;
    double[] g = s.g;
    QMatrix q = s.q;
    int a = s.active;
    float[] fi = q.columnToKeep(i, a);
    boolean posI = s.y[i] > 0;
    double ai = alpha[i];
    double di = posI ? dPos : dNeg;
    double gi = g[i] + di * ai - 1;
    double hi = q.diag(i) + di;
    double ui = posI ? uPos : uNeg;
    long t = s.trace.now();
    int j = select(s, i, fi, gi, hi);
    s.trace.select += s.trace.since(t);
    double xi;
    double xj = 0;
    if (j < 0) {
      xi = s.prob.step(alpha, i, g[i], q.diag(i), Double.POSITIVE_INFINITY, s.info);
      s.steps++;
    } else {
      boolean posJ = s.y[j] > 0;
      double aj = alpha[j];
      double dj = posJ ? dPos : dNeg;
      double gj = g[j] + dj * aj - 1;
      double hj = q.diag(j) + dj;
      double uj = posJ ? uPos : uNeg;
      Move d = solve2(gi, gj, hi, hj, fi[j], -ai, ui - ai, -aj, uj - aj);
      double nai = clamp(ai + d.di, 0, ui);
      double naj = clamp(aj + d.dj, 0, uj);
      xi = nai - ai;
      xj = naj - aj;
      alpha[i] = nai;
      alpha[j] = naj;
      s.steps += 2;
    }
    if (xi == 0 && xj == 0) return GreedyLoop.STALLED; // the same pair would be selected forever
    s.gam[i] += xi;
    if (xj != 0) s.gam[j] += xj;
    float[] fj = xj != 0 ? q.column(j, a) : fi;
    return update(s, xi, fi, xj, fj, a);
  }

  /** A step (di, dj) of the two variables. */
  private record Move(double di, double dj) {}

  /** Exact minimiser of 1/2 d'Hd + g'd over the box [loI, hiI] x [loJ, hiJ] (H positive definite). */
  private static Move solve2(double gi, double gj, double hi, double hj, double q,
      double loI, double hiI, double loJ, double hiJ) {
    double det = hi * hj - q * q;
    double xi = -(hj * gi - q * gj) / det;
    double xj = -(hi * gj - q * gi) / det;
    if (xi >= loI && xi <= hiI && xj >= loJ && xj <= hiJ) return new Move(xi, xj);
    // the optimum is on an edge: the best of the clipped 1-D minimisers on the four edges
    double bestF = Double.POSITIVE_INFINITY;
    double bi = 0;
    double bj = 0;
    for (int e = 0; e < 4; e++) {
      double yi;
      double yj;
      if (e < 2) {
        yi = e == 0 ? loI : hiI;
        if (Double.isInfinite(yi)) continue;
        yj = clamp(-(gj + q * yi) / hj, loJ, hiJ);
      } else {
        yj = e == 2 ? loJ : hiJ;
        if (Double.isInfinite(yj)) continue;
        yi = clamp(-(gi + q * yj) / hi, loI, hiI);
      }
      double f = 0.5 * (hi * yi * yi + 2 * q * yi * yj + hj * yj * yj) + gi * yi + gj * yj;
      if (f < bestF) {
        bestF = f;
        bi = yi;
        bj = yj;
      }
    }
    return new Move(bi, bj);
  }

  private static double clamp(double v, double lo, double hi) {
    return v < lo ? lo : (v > hi ? hi : v);
  }

  /**
   * The second variable: among violating j != i, the largest unconstrained 2-D gain
   * (h_j g_i^2 - 2 q g_i g_j + h_i g_j^2) / (h_i h_j - q^2), compared without division.
   */
  private int select(SolveState s, int i, float[] col, double gi, double hi) {
    double[] alpha = s.alpha;
    double[] g = s.g;
    double[] y = s.y;
    double[] qd = s.q.diagonal();
    int bj = -1;
    double bNum = 0;
    double bDet = 1;
    double gi2 = gi * gi;
    for (int j = 0, a = s.active; j < a; j++) {
      double aj = alpha[j];
      boolean pos = y[j] > 0;
      double dj = pos ? dPos : dNeg;
      double gj = g[j] + dj * aj - 1;
      boolean viol = aj <= 0 ? gj < 0 : (aj >= (pos ? uPos : uNeg) ? gj > 0 : gj != 0);
      if (!viol || j == i) continue;
      double hj = qd[j] + dj;
      double qij = col[j];
      double det = hi * hj - qij * qij;
      if (det <= 1e-12 * hi * hj) continue;
      double num = hj * gi2 - 2 * qij * gi * gj + hi * gj * gj;
      if (num * bDet > bNum * det) {
        bNum = num;
        bDet = det;
        bj = j;
      }
    }
    return bj;
  }

  /** G += xi ci + xj cj over the active set, fused with the next argmax of the violation. */
  private int update(SolveState s, double xi, float[] ci, double xj, float[] cj, int a) {
    double[] alpha = s.alpha;
    double[] gg = s.g;
    double[] y = s.y;
    int bp = -1;
    double bv = 0;
    for (int j = 0; j < a; j++) {
      double gj = gg[j] + xi * ci[j] + xj * cj[j];
      gg[j] = gj;
      double aj = alpha[j];
      boolean pos = y[j] > 0;
      double gr = gj + (pos ? dPos : dNeg) * aj - 1;
      double v = aj <= 0 ? -gr : (aj >= (pos ? uPos : uNeg) ? gr : Math.abs(gr));
      if (v > bv) {
        bv = v;
        bp = j;
      }
    }
    s.best[0] = bv;
    return bp;
  }
}
