package org.sodm.linear;

import java.io.IOException;

/**
 * newGLMNET (Yuan, Ho and Lin, "An improved GLMNET for L1-regularized logistic regression", JMLR 2012; LIBLINEAR's {@code -s 6})
 * for min lambda |w|_1 + L(w), L smooth and convex, with L's Hessian formed as a dense n x n matrix: every rank of an AllReduce gets the
 * same reduced gradient and Hessian and runs this same arithmetic on them, so every rank takes the same steps. Meant for few
 * weights (the Hessian is n^2 doubles, and each row's part costs its stored values squared); {@link #prefer} is the rule.
 *
 * <p>An iteration: at w, the gradient g and Hessian H of L; the quadratic model min_d g'd + 1/2 d'(H + nu I)d + lambda |w + d|_1
 * solved by coordinate descent in a random order per pass (each coordinate's exact minimiser, LIBLINEAR's rule, its move
 * bounded by 10) until the model's minimum-norm subgradient falls to {@value #INNER} of the pseudo-gradient at w (which is the
 * model's at d = 0) or after {@value #MAX_WORK} units of work (a pass costs n, each coordinate's move n more: on a9a's 124
 * weights thousands of passes, which its ill-conditioned model needs - capped at LIBLINEAR's 100 passes it took 73 iterations
 * instead of 7); then an Armijo line search from step 1, halving: f(w + a d) - f(w) &lt;= {@value #SIGMA} a D, D = g'd +
 * lambda (|w + d|_1 - |w|_1) (Tseng and Yun's rule). The run stops as {@link Owlqn}'s: |pseudo-gradient| &lt;= tolerance
 * |pseudo-gradient at 0|, after {@code maxIterations} iterations, or when no step decreases f.
 */
public final class GlmNet extends L1Run {
  /** L, its gradient and its Hessian; {@link #derivatives} is at the w of the last {@link #value}. */
  public interface Objective {
    /** L(w), the smooth part (without |w|_1). */
    double value(double[] w) throws IOException;

    /** At the w of the last {@link #value}: grad L into {@code g}, the Hessian of L (n x n, row-major, symmetric) into {@code h}. */
    void derivatives(double[] g, double[] h) throws IOException;
  }

  /**
   * L, its gradient and its Hessian by column, for the column form (one block holding every row): at the w of the last {@link
   * #value}, H = X'DX + ridge I, of which {@link #derivatives} gives the diagonal and {@link #columns} the columns of X'DX.
   */
  public interface ByColumns {
    /** L(w), the smooth part (without |w|_1). */
    double value(double[] w) throws IOException;

    /** At the w of the last {@link #value}: grad L into {@code g}, the Hessian's diagonal (the ridge's included) into {@code diag}. */
    void derivatives(double[] g, double[] diag) throws IOException;

    /** X'DX by column at the point of the last {@link #derivatives}. */
    TronBlock.Columns columns();

    /** The l2 of L's l2 / 2 |w|^2 term (its Hessian's l2 I; 0 for L1 alone). */
    double ridge();
  }

  /** Weights up to which {@link #prefer} chooses this method (a Hessian of 8 MB). */
  public static final int AUTO_MAX_WEIGHTS = 1024;
  /** Weights up to which the method runs at all (a Hessian of 128 MB per program). */
  public static final int MAX_WEIGHTS = 4096;
  /**
   * Stored values per row (the bias's included; multinomial: times the classes) up to which {@link #prefer} chooses the dense
   * form. A row's part of the Hessian costs about p^2 / 2 for p values (times K^2); a pass of the column form's coordinate
   * descent 2p per row, of OWL-QN's evaluations 2p (times K): at p = 512 one Hessian is 128 passes by column, which that form
   * needs several of on correlated dense features. Measured (bench/linear-results.md, 2026-11-29): the dense form as fast or
   * faster than OWL-QN, and at a lower f, at 14 to 401 values per row on 11 sets (OWL-QN did not converge in 1000 iterations on
   * four of them); on 10,000 rows of 400 correlated dense features at eps 1e-3, 5.7 s (6 iterations) against 13.5 s by column
   * (89) and 94 s by OWL-QN (stopped at 5000, unconverged). Above 512 the cost model, not a measurement.
   */
  public static final double AUTO_MAX_ROW_VALUES = 512;

  static final double INNER = 0.01;
  /** Work one direction may spend (a pass costs n, a coordinate's move n more): at most ~0.5 s. */
  static final double MAX_WORK = 1e8;
  /**
   * The column form's {@link #INNER}: a pass costs a pass over the stored values, as much as a gradient, so its model is solved
   * less far (LIBLINEAR's own inner stop is looser still). Measured at -c 1 (2026-11-29): 0.1 against 0.01 took the same
   * Newton iterations on a9a and ijcnn1 in half the time, two more on a dense 100-feature set.
   */
  static final double INNER_COLUMNS = 0.1;
  /**
   * The column form's passes per direction at most, and its work (stored values read) at most: {@value #MAX_WORK} or {@value
   * #COLUMN_PASSES_OF_WORK} passes over every column, whichever is more.
   */
  static final int MAX_COLUMN_PASSES = 1000;
  static final double COLUMN_PASSES_OF_WORK = 20;
  static final double SIGMA = 0.01;
  private static final double NU = 1e-12;
  private static final double MAX_MOVE = 10;
  private static final int MAX_HALVINGS = 30;

  /** A checkpoint: w, |pseudo-gradient at 0|, the iterations and steps so far, the status (g and H follow from w). */
  public record Point(double[] w, double gradientNorm0, int iterations, int trials, Tron.Status status) {}

  private final Objective fun; // the dense form's, or null
  private final ByColumns byColumns; // the column form's, or null
  private final double[] hess; // dense: H; by column: its diagonal
  private int lastPasses;
  private int lastActive;

  /**
   * The rule of {@code --l1-solver auto} for the dense form: the weights at most {@value #AUTO_MAX_WEIGHTS} and the rows hold at
   * most {@value #AUTO_MAX_ROW_VALUES} stored values on average (the bias's counted; multinomial: times the classes); else the
   * column form where it applies, else {@link Owlqn}.
   */
  public static boolean prefer(int weights, double meanRowValues) {
    return weights <= AUTO_MAX_WEIGHTS && meanRowValues <= AUTO_MAX_ROW_VALUES;
  }

  /** Starts at {@code w} (copied; zeros for a fresh run), or resumes {@code from} a point when it is not null. */
  public GlmNet(Objective fun, double[] w, double tolerance, int maxIterations, Point from) throws IOException {
    this(fun, 1, w, tolerance, maxIterations, from);
  }

  /** As above for min lambda |w|_1 + L(w). */
  public GlmNet(Objective fun, double lambda, double[] w, double tolerance, int maxIterations, Point from) throws IOException {
    super(w, lambda, tolerance, maxIterations, from == null ? null : from.w());
    if (n > MAX_WEIGHTS) {
      throw new IllegalArgumentException("newGLMNET forms the dense Hessian: at most " + MAX_WEIGHTS + " weights, got " + n);
    }
    this.fun = fun;
    this.byColumns = null;
    this.hess = new double[n * n];
    start(from);
  }

  /**
   * The column form (LIBLINEAR's own, for any number of weights): the quadratic model's coordinate descent reads each
   * coordinate's column of X'DX through q = X d ({@link ByColumns}), so it needs every row in one place - one block.
   * Coordinates at 0 whose gradient is well inside (-lambda, lambda) sit out the step (LIBLINEAR's shrinking); the stop still
   * takes the pseudo-gradient over every weight.
   */
  public GlmNet(ByColumns fun, double lambda, double[] w, double tolerance, int maxIterations, Point from) throws IOException {
    super(w, lambda, tolerance, maxIterations, from == null ? null : from.w());
    this.fun = null;
    this.byColumns = fun;
    this.hess = new double[n];
    start(from);
  }

  private void start(Point from) throws IOException {
    if (from != null) {
      begin(true, from.gradientNorm0(), from.iterations(), from.trials(), from.status());
    } else {
      begin(false, 0, 0, 0, null);
    }
  }

  @Override
  double smooth(double[] x) throws IOException {
    return fun != null ? fun.value(x) : byColumns.value(x);
  }

  /** Keeps the Hessian (the column form: its diagonal) at that point too. */
  @Override
  void derivatives(double[] g) throws IOException {
    if (fun != null) {
      fun.derivatives(g, hess);
    } else {
      byColumns.derivatives(g, hess);
    }
  }

  /** Coordinate-descent passes of the last step's quadratic model. */
  public int lastPasses() {
    return lastPasses;
  }

  /** The coordinates the last step's coordinate descent took (all n in the dense form; the column form's after shrinking). */
  public int lastActive() {
    return lastActive;
  }

  public Point point() {
    return new Point(w.clone(), pgNorm0, iterations, trials, status);
  }

  /** One iteration: the quadratic model's minimiser d, the line search, the derivatives at the new w ({@link L1Run#ended}'s trial). */
  @Override
  public Tron.Trial step() throws IOException {
    if (done()) throw new IllegalStateException("the run has ended: " + status);
    double[] d = fun != null ? direction() : directionByColumns();
    double[] wNew = new double[n];
    for (int j = 0; j < n; j++) wNew[j] = w[j] + d[j];
    double delta = Vectors.dot(grad, d) + l1(wNew) - l1(w);
    double alpha = 1;
    double fNew = f;
    int evals = 0;
    boolean taken = false;
    if (delta < 0) {
      for (int h = 0; h < MAX_HALVINGS; h++) {
        for (int j = 0; j < n; j++) wNew[j] = w[j] + alpha * d[j];
        evals++;
        fNew = smooth(wNew) + l1(wNew);
        if (fNew - f <= SIGMA * alpha * delta) {
          taken = true;
          break;
        }
        alpha /= 2;
      }
    }
    double fOld = f;
    if (taken) {
      System.arraycopy(wNew, 0, w, 0, n);
      f = fNew;
      derivatives(grad);
      pseudo();
    }
    return ended(taken, fOld, alpha, evals);
  }

  /**
   * The quadratic model's minimiser by coordinate descent from d = 0, each pass in a random order (LIBLINEAR's; seeded by the
   * iteration and the pass, so every rank and a resumed run take the same order: on 10,000 rows of 400 correlated features 6
   * iterations instead of the cyclic order's 63), keeping Hd: coordinate j's model is G z + 1/2 H_jj z^2 + lambda |w_j + d_j +
   * z|, G = g_j + (Hd)_j, minimised in closed form. A pass's measure is the model's minimum-norm subgradient
   * taken coordinate by coordinate just before each one's move.
   */
  double[] direction() {
    double[] d = new double[n];
    double[] hd = new double[n];
    double target = INNER * pgNorm;
    lastActive = n;
    lastPasses = 0;
    double work = 0;
    int[] order = new int[n];
    for (int j = 0; j < n; j++) order[j] = j;
    while (work < MAX_WORK) {
      lastPasses++;
      work += n;
      shuffle(order, new java.util.SplittableRandom(((long) iterations << 32) ^ lastPasses));
      double violation = 0;
      for (int j : order) {
        double hjj = hess[j * n + j] + NU;
        double g = grad[j] + hd[j] + NU * d[j];
        double wpd = w[j] + d[j];
        double v = wpd > 0 ? g + lambda : wpd < 0 ? g - lambda : Math.max(0, Math.max(g - lambda, -g - lambda));
        violation += v * v;
        double z = move(j, hjj, g, d);
        if (z == 0) continue;
        work += n;
        for (int k = 0, row = j * n; k < n; k++) hd[k] += z * hess[row + k];
      }
      if (Math.sqrt(violation) <= target) break;
    }
    return d;
  }

  /**
   * {@link #direction}'s model by column (LIBLINEAR's {@code solve_l1r_lr} inner loop): coordinate j's (Hd)_j = sum_i D_ii x_ij
   * q_i + ridge d_j with q = X d kept over the rows, each move z adding z x_j to q. Shrinking as LIBLINEAR's: a coordinate at 0
   * whose gradient lies inside (-lambda + m, lambda - m), m = max |pseudo-gradient| / rows at w, sits out the step (a
   * pure function of w, so a resumed run shrinks the same); within the step, one at 0 whose model gradient lies inside the band
   * of the last pass's largest violation / rows sits out the next passes, and all come back once the rest meet the stop, which
   * then must hold over all of them.
   */
  double[] directionByColumns() {
    TronBlock.Columns cols = byColumns.columns();
    double ridge = byColumns.ridge();
    int rows = Math.max(1, cols.rows());
    double[] d = new double[n];
    double[] q = new double[cols.scratch()];
    double target = INNER_COLUMNS * pgNorm;
    double m = 0;
    for (double v : pg) m = Math.max(m, Math.abs(v));
    m /= rows;
    int[] order = new int[n];
    int active = 0;
    double passWork = 0;
    for (int j = 0; j < n; j++) {
      if (w[j] == 0 && grad[j] + lambda > m && grad[j] - lambda < -m) continue;
      order[active++] = j;
      passWork += cols.size(j);
    }
    lastActive = active;
    double budget = Math.max(MAX_WORK, COLUMN_PASSES_OF_WORK * passWork);
    int size = active;
    double bandOld = Double.POSITIVE_INFINITY;
    double work = 0;
    lastPasses = 0;
    while (lastPasses < MAX_COLUMN_PASSES && work < budget) {
      lastPasses++;
      shuffle(order, size, new java.util.SplittableRandom(((long) iterations << 32) ^ lastPasses));
      double violation = 0;
      double largest = 0;
      for (int s = 0; s < size; s++) {
        int j = order[s];
        work += cols.size(j);
        double hjj = hess[j] + NU;
        double g = grad[j] + cols.hessianDot(j, q) + ridge * d[j] + NU * d[j];
        double wpd = w[j] + d[j];
        double v;
        if (wpd > 0) {
          v = Math.abs(g + lambda);
        } else if (wpd < 0) {
          v = Math.abs(g - lambda);
        } else if (g + lambda < 0) {
          v = -(g + lambda);
        } else if (g - lambda > 0) {
          v = g - lambda;
        } else if (g + lambda > bandOld && g - lambda < -bandOld) { // well inside the band: out of the next passes
          order[s--] = order[--size];
          order[size] = j;
          continue;
        } else {
          v = 0;
        }
        violation += v * v;
        largest = Math.max(largest, v);
        double z = move(j, hjj, g, d);
        if (z == 0) continue;
        work += cols.size(j);
        cols.add(j, z, q);
      }
      if (Math.sqrt(violation) <= target) {
        if (size == active) break;
        size = active; // every coordinate of the step back for a last check
        bandOld = Double.POSITIVE_INFINITY;
        continue;
      }
      bandOld = largest / rows;
    }
    return d;
  }

  /**
   * Coordinate j's move in the model G z + 1/2 H z^2 + lambda |w_j + d_j + z|: its exact minimiser (LIBLINEAR's rule), bounded by
   * {@value #MAX_MOVE}, applied to d_j; returns the change of d_j, 0 for none.
   */
  private double move(int j, double h, double g, double[] d) {
    double wpd = w[j] + d[j];
    double z;
    boolean toZero = false;
    if (g + lambda <= h * wpd) {
      z = -(g + lambda) / h;
    } else if (g - lambda >= h * wpd) {
      z = -(g - lambda) / h;
    } else {
      z = -wpd;
      toZero = true;
    }
    if (toZero ? z == 0 : Math.abs(z) < 1e-12) return 0;
    if (toZero) { // w_j + d_j = 0 exactly: w_j + (d_j - (w_j + d_j)) rounds to 1e-17, whose pseudo-gradient no step lowers
      z = -w[j] - d[j];
      d[j] = -w[j];
    } else {
      z = Math.max(-MAX_MOVE, Math.min(MAX_MOVE, z));
      d[j] += z;
    }
    return z;
  }

  /** Fisher-Yates: every rank draws the same order from the same seed. */
  private static void shuffle(int[] order, java.util.SplittableRandom random) {
    shuffle(order, order.length, random);
  }

  /** Fisher-Yates over the first {@code size} of {@code order}. */
  private static void shuffle(int[] order, int size, java.util.SplittableRandom random) {
    for (int q = size - 1; q > 0; q--) {
      int r = random.nextInt(q + 1);
      int t = order[q];
      order[q] = order[r];
      order[r] = t;
    }
  }

  /**
   * Folds the sums of a Hessian's pairs ({@link LogisticBlock#hessianPairs}: each pair of a row's stored values once, at (a, b)
   * or at (b, a)) into the symmetric matrix: H_ab = M_ab + M_ba off the diagonal, H_aa = M_aa.
   */
  public static void symmetrize(double[] m, int n) {
    for (int a = 0; a < n; a++) {
      for (int b = a + 1; b < n; b++) {
        double s = m[a * n + b] + m[b * n + a];
        m[a * n + b] = s;
        m[b * n + a] = s;
      }
    }
  }
}
