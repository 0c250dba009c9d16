package org.sodm.solver;

/**
 * Greedy ({@link GreedyLoop}) with two-instance working sets for ODM ({@link OdmProblem}): the
 * "2D" steps of {@link GreedyPairDescent} on ODM's dual written in gamma = zeta - beta.
 *
 * <p>For a fixed gamma_i the best (zeta_i, beta_i) is (max(gamma_i, 0), max(-gamma_i, 0)) (the
 * separable part grows with beta_i along zeta_i - beta_i = gamma_i, by m c_i (v zeta_i + beta_i)
 * + 2 theta &gt;= 0), so the dual is min over gamma of 1/2 gamma'Q gamma + sum_i h_i(gamma_i), an
 * unconstrained problem whose separable part has one kink at 0:
 * h_i(t) = (m c_i v / 2) t^2 - (1 - theta) t for t &gt;= 0 and (m c_i / 2) t^2 - (1 + theta) t for
 * t &lt;= 0. A step takes i = the largest violation, j = the violating instance whose joint Newton
 * step with i on their current pieces gains most (from column i, compared without division), and
 * sets (gamma_i, gamma_j) to the exact minimiser of the objective over both: the best of the nine
 * faces' stationary points (each of gamma_i, gamma_j positive, negative or zero), which contains
 * the minimiser because the objective is a strictly convex quadratic on each face.
 *
 * <p>Why: the single-variable greedy steps zig-zag where RBF columns are strongly correlated. On
 * 4,000-8,000 ijcnn1 rows at the default gamma and lambda a dense reference of both orders needed
 * 4.1-6.7 passes over the rows (one column update each) to reach the 1e-3 violation, the pairs
 * 1.2 (two passes per pair: the choice of j and the update); on a9a 11.4 against 2.4; at lambda
 * 1e6 98.6 against 3.5.
 */
final class GreedyOdmPairDescent implements Descent {
  private final OdmProblem odm;
  private final double lo; // 1 - theta: the slope of -h at 0 from the right
  private final double hiSlope; // 1 + theta: from the left
  private final double v;

  GreedyOdmPairDescent(OdmProblem odm) {
    this.odm = odm;
    this.lo = 1 - odm.theta();
    this.hiSlope = 1 + odm.theta();
    this.v = odm.v();
  }

  @Override
  public Outcome run(SolveState s) {
    normalise(s.alpha, s.n);
    GreedyLoop loop = new GreedyLoop(s, "greedy2");
    while (loop.next()) loop.moved(step(s, loop.position()));
    return loop.end();
  }

  /**
   * Sets each instance's (zeta, beta) to (max(gamma, 0), max(-gamma, 0)): the same gamma (so G
   * stands), a lower objective where a warm start had both positive, and the form every step keeps.
   */
  static void normalise(double[] alpha, int n) {
    for (int i = 0; i < n; i++) {
      double z = alpha[2 * i];
      double b = alpha[2 * i + 1];
      if (z > 0 && b > 0) {
        double gm = z - b;
        alpha[2 * i] = gm > 0 ? gm : 0;
        alpha[2 * i + 1] = gm < 0 ? -gm : 0;
      }
    }
  }

  private int step(SolveState s, int i) {
    double[] alpha = s.alpha;
    double[] g = s.g;
    QMatrix q = s.q;
    int a = s.active;
    float[] fi = q.columnToKeep(i, a);
    double gmI = alpha[2 * i] - alpha[2 * i + 1];
    double mcI = odm.mc(i);
    double gi = gradient(gmI, g[i], mcI);
    double hi = q.diag(i) + curvature(gmI, gi, mcI);
    long t = s.trace.now();
    int j = select(s, i, fi, gi, hi);
    s.trace.select += s.trace.since(t);
    double xi = 0;
    double xj = 0;
    if (j >= 0) {
      double gmJ = alpha[2 * j] - alpha[2 * j + 1];
      double[] nt = minimise(q.diag(i), q.diag(j), fi[j], gmI, gmJ, g[i], g[j], mcI, odm.mc(j));
      xi = set(alpha, i, nt[0]) - gmI;
      xj = set(alpha, j, nt[1]) - gmJ;
      s.steps += 2;
    }
    if (xi == 0 && xj == 0) { // no partner, or the pair did not move: the single-variable step
      xi = odm.step(alpha, i, g[i], q.diag(i), Double.POSITIVE_INFINITY, s.info);
      s.steps++;
      if (xi == 0) return GreedyLoop.STALLED; // the same instance would be selected forever
    }
    if (xi != 0) s.gam[i] += xi;
    if (xj != 0) s.gam[j] += xj;
    float[] fj = xj != 0 ? q.column(j, a) : fi;
    return odm.applyArgmax2(alpha, g, xi, fi, xj, fj, a, s.best);
  }

  /** Writes gamma = t into instance i's (zeta, beta); returns the gamma they now hold. */
  private static double set(double[] alpha, int i, double t) {
    double z = t > 0 ? t : 0;
    double b = t < 0 ? -t : 0;
    alpha[2 * i] = z;
    alpha[2 * i + 1] = b;
    return z - b;
  }

  /**
   * The derivative of the objective along gamma_i at its current value, on the piece a step
   * would enter: at the kink the one-sided slope that points to descent, 0 when neither does.
   */
  private double gradient(double gm, double qg, double mc) {
    if (gm > 0) return qg + mc * v * gm - lo;
    if (gm < 0) return qg + mc * gm - hiSlope;
    double right = qg - lo;
    if (right < 0) return right;
    double left = qg - hiSlope;
    return left > 0 ? left : 0;
  }

  /** The separable part's curvature on that piece: m c_i v (gamma_i growing) or m c_i. */
  private double curvature(double gm, double grad, double mc) {
    return gm > 0 || (gm == 0 && grad < 0) ? mc * v : mc;
  }

  /**
   * The second instance: among violating j != i, the largest unconstrained 2-D gain
   * (h_j g_i^2 - 2 q g_i g_j + h_i g_j^2) / (h_i h_j - q^2), compared without division.
   */
  private int select(SolveState s, int i, float[] col, double gi, double hi) {
    double[] alpha = s.alpha;
    double[] g = s.g;
    double[] y = s.y;
    double[] qd = s.q.diagonal();
    double mcPos = odm.mcOf(1);
    double mcNeg = odm.mcOf(-1);
    int bj = -1;
    double bNum = 0;
    double bDet = 1;
    double gi2 = gi * gi;
    for (int j = 0, a = s.active; j < a; j++) {
      double gm = alpha[2 * j] - alpha[2 * j + 1];
      double mc = y[j] > 0 ? mcPos : mcNeg;
      double gj;
      double cj;
      if (gm > 0) {
        gj = g[j] + mc * v * gm - lo;
        cj = mc * v;
      } else if (gm < 0) {
        gj = g[j] + mc * gm - hiSlope;
        cj = mc;
      } else if (g[j] < lo) {
        gj = g[j] - lo;
        cj = mc * v;
      } else if (g[j] > hiSlope) {
        gj = g[j] - hiSlope;
        cj = mc;
      } else {
        continue;
      }
      if (gj == 0 || j == i) continue;
      double hj = qd[j] + cj;
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

  /**
   * The exact minimiser (t_i, t_j) of 1/2 d'[qii qij; qij qjj]d + qgI d_i + qgJ d_j + h_i(t_i) +
   * h_j(t_j), d = t - gamma: the lowest of the faces' stationary points that lie on their face
   * (the current point when none is lower).
   */
  double[] minimise(double qii, double qjj, double qij, double gmI, double gmJ, double qgI, double qgJ,
      double mcI, double mcJ) {
    double bi = gmI;
    double bj = gmJ;
    double bestF = pairObjective(qii, qjj, qij, gmI, gmJ, qgI, qgJ, mcI, mcJ, gmI, gmJ);
    // the stationarity of face (si, sj): (qii + c_i) t_i + qij t_j = r_i + l_i, the same for j
    double ri = qii * gmI + qij * gmJ - qgI;
    double rj = qij * gmI + qjj * gmJ - qgJ;
    for (int si = -1; si <= 1; si++) {
      for (int sj = -1; sj <= 1; sj++) {
        double ti = 0;
        double tj = 0;
        double ai = qii + (si > 0 ? mcI * v : mcI);
        double aj = qjj + (sj > 0 ? mcJ * v : mcJ);
        double ui = ri + (si > 0 ? lo : hiSlope);
        double uj = rj + (sj > 0 ? lo : hiSlope);
        if (si != 0 && sj != 0) {
          double det = ai * aj - qij * qij;
          if (!(det > 0)) continue;
          ti = (aj * ui - qij * uj) / det;
          tj = (ai * uj - qij * ui) / det;
        } else if (si != 0) {
          ti = ui / ai;
        } else if (sj != 0) {
          tj = uj / aj;
        }
        if (sign(ti) != si || sign(tj) != sj) continue;
        double f = pairObjective(qii, qjj, qij, gmI, gmJ, qgI, qgJ, mcI, mcJ, ti, tj);
        if (f <= bestF) {
          bestF = f;
          bi = ti;
          bj = tj;
        }
      }
    }
    return new double[] {bi, bj};
  }

  private static int sign(double t) {
    return t > 0 ? 1 : (t < 0 ? -1 : 0);
  }

  private double pairObjective(double qii, double qjj, double qij, double gmI, double gmJ, double qgI, double qgJ,
      double mcI, double mcJ, double ti, double tj) {
    double di = ti - gmI;
    double dj = tj - gmJ;
    return 0.5 * (qii * di * di + 2 * qij * di * dj + qjj * dj * dj) + qgI * di + qgJ * dj + h(ti, mcI) + h(tj, mcJ);
  }

  /** h_i(t) with m c_i = mc. */
  private double h(double t, double mc) {
    return t >= 0 ? (0.5 * mc * v * t - lo) * t : (0.5 * mc * t - hiSlope) * t;
  }
}
