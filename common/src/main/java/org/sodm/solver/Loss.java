package org.sodm.solver;

import java.util.Locale;
import org.sodm.linear.LinearPrimal;
import org.sodm.linear.OdmPrimal;
import org.sodm.linear.SvmLoss;

/**
 * A loss with its parameters, giving its kernel dual ({@link #dual}) and its linear primal
 * ({@link #primal}); the dual is built on the primal's per-class constants, so each loss's
 * formulas exist once. Every loss has:
 *
 * <ul>
 *   <li>{@code bias}: fit a bias through the augmented kernel k + 1 (regularized bias, unlike
 *       LIBSVM's equality constraint; see {@link org.sodm.kernel.AugmentedKernel}), or the
 *       augmented constant feature of the linear primals;
 *   <li>{@code weights}: class weights w_{+1}, w_{-1}. Hinge and squared hinge use
 *       C_i = w_{y_i} C (as LIBSVM's -wi). ODM uses lambda_i = w_{y_i} lambda, i.e. the loss
 *       term of instance i is weighted by w_{y_i}; in the dual this makes
 *       c_i = (1-theta)^2 / (lambda_i v), so the diagonal terms become m c_i v (zeta) and m c_i
 *       (beta).
 * </ul>
 *
 * The textual ids ({@link #id()}: {@code hinge}, {@code squared-hinge}, {@code odm}, {@code nu},
 * {@code hard-margin}) are those of the command line, the configuration and the stored models.
 * {@code nu} (nu-SVM) and {@code hard-margin} (seed 002) fit their offset themselves and take no
 * class weights: their bias is always false and their weights 1, 1. {@code logistic} (L2-regularised logistic regression,
 * LIBLINEAR's {@code -s 0}) has a linear primal only: it is trained by the linear solver TRON.
 */
public sealed interface Loss permits Loss.Hinge, Loss.SquaredHinge, Loss.Odm, Loss.Nu, Loss.HardMargin, Loss.Logistic {

  /** Class weights w_{+1}, w_{-1} (both &gt; 0 and finite). */
  record Weights(double positive, double negative) {
    public static final Weights NONE = new Weights(1, 1);

    public Weights {
      if (!(positive > 0) || !Double.isFinite(positive)) {
        throw new IllegalArgumentException("positiveWeight must be > 0 and finite, got " + positive);
      }
      if (!(negative > 0) || !Double.isFinite(negative)) {
        throw new IllegalArgumentException("negativeWeight must be > 0 and finite, got " + negative);
      }
    }

    /** w_y. */
    public double of(double y) {
      return y > 0 ? positive : negative;
    }
  }

  /** {@code hinge}, {@code squared-hinge}, {@code odm}, {@code nu} or {@code hard-margin}. */
  String id();

  boolean bias();

  Weights weights();

  Loss withBias(boolean b);

  Loss withWeights(double wPositive, double wNegative);

  /**
   * The dual problem on labels {@code y} (+-1). {@code m} is ODM's m in m*c: the number of
   * instances of the problem being solved (the solvers pass n of the call).
   */
  DualProblem dual(double[] y, int m);

  /** The primal of the linear solvers (BQO for the hinge losses, DSVRG for ODM). */
  LinearPrimal primal();

  /** The primal of the hinge losses, BQO's (fails for the others). */
  default SvmLoss svmPrimal() {
    throw new IllegalArgumentException("BQO solves hinge and squared hinge, not " + id());
  }

  /** Logistic regression's primal, TRON's (fails for the others). */
  default org.sodm.linear.LogisticPrimal logisticPrimal() {
    throw new IllegalArgumentException("TRON solves logistic, not " + id());
  }

  /** ODM's primal, DSVRG's (fails for the others). */
  default OdmPrimal odmPrimal() {
    throw new IllegalArgumentException("DSVRG solves odm, not " + id());
  }

  /**
   * Whether the dual depends on the problem size (ODM's m c_i): then a sub-problem on a subset
   * of the instances is another problem, not a restriction of the whole one.
   */
  default boolean sizeDependent() {
    return false;
  }

  static Hinge hinge(double c) {
    return new Hinge(c, false, Weights.NONE);
  }

  static SquaredHinge squaredHinge(double c) {
    return new SquaredHinge(c, false, Weights.NONE);
  }

  static Odm odm(double lambda, double theta, double mu) {
    return new Odm(lambda, theta, mu, false, Weights.NONE);
  }

  /** nu-SVM with nu in (0, 1], or NaN for the default of seed 002 (nu = 2 alpha min(n1, n2) / n, alpha = 0.85). */
  static Nu nu(double nu) {
    return new Nu(nu);
  }

  static Logistic logistic(double c) {
    return new Logistic(c, false, Weights.NONE);
  }

  static HardMargin hardMargin() {
    return new HardMargin();
  }

  /**
   * The {@link #id()} named by {@code s}: {@code odm | hinge | squared-hinge}, also {@code l1},
   * {@code l2}, {@code squared_hinge}, any case.
   */
  static String canonicalId(String s) {
    if (s == null) throw new IllegalArgumentException("loss type is required");
    switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "odm": return "odm";
      case "hinge":
      case "l1": return "hinge";
      case "squared-hinge":
      case "squared_hinge":
      case "squaredhinge":
      case "l2": return "squared-hinge";
      case "nu":
      case "nu-svm":
      case "nu-svc": return "nu";
      case "hard-margin":
      case "hard_margin":
      case "hardmargin": return "hard-margin";
      case "logistic":
      case "lr":
      case "log":
      case "logistic-regression":
      case "logistic_regression": return "logistic";
      default:
        throw new IllegalArgumentException("unknown loss '" + s + "' (expected odm, hinge, squared-hinge, logistic, nu or hard-margin)");
    }
  }

  /**
   * The loss {@code id} (any spelling of {@link #canonicalId}) with its parameters, as the
   * configuration and the stored models give them. Every parameter is validated whatever the
   * loss (unused ones must hold harmless values, as the defaults do).
   */
  static Loss of(String id, double c, double lambda, double theta, double mu, boolean bias, double wPositive,
      double wNegative) {
    return of(id, c, lambda, theta, mu, Double.NaN, bias, wPositive, wNegative);
  }

  /**
   * As {@link #of(String, double, double, double, double, boolean, double, double)} with nu-SVM's
   * nu (NaN: the default). nu-SVM and hard margin refuse a bias and class weights other than 1.
   */
  static Loss of(String id, double c, double lambda, double theta, double mu, double nu, boolean bias, double wPositive,
      double wNegative) {
    String canonical = canonicalId(id);
    checkC(c);
    checkOdm(lambda, theta, mu);
    Weights w = new Weights(wPositive, wNegative);
    if (canonical.equals("nu") || canonical.equals("hard-margin")) {
      if (bias) {
        throw new IllegalArgumentException(canonical + " fits its offset b itself (as LIBSVM's rho): the bias option does not apply");
      }
      if (!w.equals(Weights.NONE)) {
        throw new IllegalArgumentException(canonical + " takes no class weights (got " + wPositive + ", " + wNegative + ")");
      }
      return canonical.equals("nu") ? new Nu(nu) : new HardMargin();
    }
    if (canonical.equals("odm")) return new Odm(lambda, theta, mu, bias, w);
    if (canonical.equals("logistic")) return new Logistic(c, bias, w);
    return canonical.equals("hinge") ? new Hinge(c, bias, w) : new SquaredHinge(c, bias, w);
  }

  private static void checkC(double c) {
    if (!(c > 0) || !Double.isFinite(c)) throw new IllegalArgumentException("C must be > 0 and finite, got " + c);
  }

  private static void checkOdm(double lambda, double theta, double mu) {
    if (!(lambda > 0) || !Double.isFinite(lambda)) {
      throw new IllegalArgumentException("lambda must be > 0 and finite, got " + lambda);
    }
    if (!(theta >= 0 && theta < 1)) throw new IllegalArgumentException("theta must be in [0, 1), got " + theta);
    if (!(mu > 0 && mu <= 1)) throw new IllegalArgumentException("mu must be in (0, 1], got " + mu);
  }

  /** C-SVM, L1 loss: 0 &lt;= alpha_i &lt;= C_i. */
  record Hinge(double c, boolean bias, Weights weights) implements Loss {
    public Hinge {
      checkC(c);
      if (weights == null) throw new IllegalArgumentException("weights are required");
    }

    @Override
    public String id() {
      return "hinge";
    }

    @Override
    public Hinge withBias(boolean b) {
      return new Hinge(c, b, weights);
    }

    @Override
    public Hinge withWeights(double wPositive, double wNegative) {
      return new Hinge(c, bias, new Weights(wPositive, wNegative));
    }

    @Override
    public DualProblem dual(double[] y, int m) {
      return new HingeProblem(primal(), y);
    }

    @Override
    public SvmLoss primal() {
      return new SvmLoss(false, c * weights.positive(), c * weights.negative(), bias);
    }

    /**
     * The support vectors at their upper bound, alpha_i = C w_{y_i} (within a relative 1e-9): the rows inside the margin or
     * misclassified. A block with (almost) none of them separated its rows - the hard-margin regime, in which a mean of blocks
     * is furthest from the whole problem's solution (KernelTreeTrainer's separable-blocks rule).
     */
    public int atUpperBound(double[] alpha, double[] y) {
      if (alpha.length != y.length) throw new IllegalArgumentException("alpha has " + alpha.length + " values for " + y.length + " labels");
      int k = 0;
      for (int i = 0; i < alpha.length; i++) {
        if (alpha[i] > 0 && alpha[i] >= c * weights.of(y[i]) * (1 - 1e-9)) k++;
      }
      return k;
    }

    @Override
    public SvmLoss svmPrimal() {
      return primal();
    }
  }

  /** L2 loss: 0 &lt;= alpha_i, diagonal 1/(2 C_i) added to Q. */
  record SquaredHinge(double c, boolean bias, Weights weights) implements Loss {
    public SquaredHinge {
      checkC(c);
      if (weights == null) throw new IllegalArgumentException("weights are required");
    }

    @Override
    public String id() {
      return "squared-hinge";
    }

    @Override
    public SquaredHinge withBias(boolean b) {
      return new SquaredHinge(c, b, weights);
    }

    @Override
    public SquaredHinge withWeights(double wPositive, double wNegative) {
      return new SquaredHinge(c, bias, new Weights(wPositive, wNegative));
    }

    @Override
    public DualProblem dual(double[] y, int m) {
      return new HingeProblem(primal(), y);
    }

    @Override
    public SvmLoss primal() {
      return new SvmLoss(true, c * weights.positive(), c * weights.negative(), bias);
    }

    @Override
    public SvmLoss svmPrimal() {
      return primal();
    }
  }

  /**
   * L2-regularised logistic regression (LIBLINEAR's {@code -s 0}): 1/2 |w|^2 + sum_i C_i log(1 + exp(-y_i w'x_i)). Its
   * decision values are log-odds, so its models give probabilities without a fitted sigmoid. Linear only: it has no box
   * dual for the kernel solvers.
   */
  record Logistic(double c, boolean bias, Weights weights) implements Loss {
    public Logistic {
      checkC(c);
      if (weights == null) throw new IllegalArgumentException("weights are required");
    }

    @Override
    public String id() {
      return "logistic";
    }

    @Override
    public Logistic withBias(boolean b) {
      return new Logistic(c, b, weights);
    }

    @Override
    public Logistic withWeights(double wPositive, double wNegative) {
      return new Logistic(c, bias, new Weights(wPositive, wNegative));
    }

    @Override
    public DualProblem dual(double[] y, int m) {
      throw new IllegalArgumentException("logistic regression is trained with the linear kernel only (--kernel linear, TRON)");
    }

    @Override
    public org.sodm.linear.LogisticPrimal primal() {
      return new org.sodm.linear.LogisticPrimal(c * weights.positive(), c * weights.negative(), bias);
    }

    @Override
    public org.sodm.linear.LogisticPrimal logisticPrimal() {
      return primal();
    }
  }

  /** Optimal margin distribution machine (seed 000 eq. 1; mu = v): two variables per instance. */
  record Odm(double lambda, double theta, double mu, boolean bias, Weights weights) implements Loss {
    public Odm {
      checkOdm(lambda, theta, mu);
      if (weights == null) throw new IllegalArgumentException("weights are required");
    }

    @Override
    public String id() {
      return "odm";
    }

    @Override
    public Odm withBias(boolean b) {
      return new Odm(lambda, theta, mu, b, weights);
    }

    @Override
    public Odm withWeights(double wPositive, double wNegative) {
      return new Odm(lambda, theta, mu, bias, new Weights(wPositive, wNegative));
    }

    @Override
    public DualProblem dual(double[] y, int m) {
      return new OdmProblem(primal(), y, m);
    }

    @Override
    public OdmPrimal primal() {
      return new OdmPrimal(lambda * weights.positive(), lambda * weights.negative(), theta, mu, bias);
    }

    @Override
    public OdmPrimal odmPrimal() {
      return primal();
    }

    @Override
    public boolean sizeDependent() {
      return true;
    }
  }

  /**
   * nu-SVM (Schoelkopf et al.; LIBSVM's {@code svm-train -s 1}): nu bounds the fraction of margin
   * errors from above and of support vectors from below. With the linear kernel it is trained by
   * Saddle-SVC / Saddle-DSVC (seed 002); with other kernels the merge tree solves each block with
   * {@link NuSvcSolver} (LIBSVM's Solver_NU), so {@link #dual} (a box-constrained problem) refuses. {@code nu} NaN: the default of seed 002, section 5, nu = 2 alpha min(n1, n2) / n with
   * alpha = 0.85 (the cap 1 / (alpha min(n1, n2)) on the hulls' weights).
   */
  record Nu(double nu) implements Loss {
    public static final double DEFAULT_ALPHA = 0.85;

    public Nu {
      if (!Double.isNaN(nu) && !(nu > 0 && nu <= 1)) throw new IllegalArgumentException("nu must be in (0, 1], got " + nu);
    }

    /** Whether nu is the default (resolved from the class sizes). */
    public boolean isDefault() {
      return Double.isNaN(nu);
    }

    /** nu for n1 points labelled +1 and n2 labelled -1: the given one, or the default. */
    public double resolve(long n1, long n2) {
      return isDefault() ? 2 * DEFAULT_ALPHA * Math.min(n1, n2) / (double) (n1 + n2) : nu;
    }

    @Override
    public String id() {
      return "nu";
    }

    @Override
    public boolean bias() {
      return false;
    }

    @Override
    public Weights weights() {
      return Weights.NONE;
    }

    @Override
    public Nu withBias(boolean b) {
      if (b) throw new IllegalArgumentException("nu fits its offset b itself: the bias option does not apply");
      return this;
    }

    @Override
    public Nu withWeights(double wPositive, double wNegative) {
      if (wPositive != 1 || wNegative != 1) throw new IllegalArgumentException("nu takes no class weights");
      return this;
    }

    @Override
    public DualProblem dual(double[] y, int m) {
      throw new IllegalArgumentException("nu-SVC's dual has two equality constraints, not a box: it is solved by NuSvcSolver "
          + "(kernel blocks) or Saddle-SVC (linear), not by the box-constrained solvers");
    }

    /** Its box 1/n depends on the problem size. */
    @Override
    public boolean sizeDependent() {
      return true;
    }

    @Override
    public LinearPrimal primal() {
      throw new IllegalArgumentException("nu has no BQO / DSVRG primal: with the linear kernel it is trained by Saddle-SVC "
          + "(--linear-solver saddle)");
    }
  }

  /**
   * Hard-margin SVM (seed 002, problem (1)): the widest margin between the convex hulls of the two
   * classes, for linearly separable data; trained by Saddle-SVC with the linear kernel only.
   */
  record HardMargin() implements Loss {
    @Override
    public String id() {
      return "hard-margin";
    }

    @Override
    public boolean bias() {
      return false;
    }

    @Override
    public Weights weights() {
      return Weights.NONE;
    }

    @Override
    public HardMargin withBias(boolean b) {
      if (b) throw new IllegalArgumentException("hard-margin fits its offset b itself: the bias option does not apply");
      return this;
    }

    @Override
    public HardMargin withWeights(double wPositive, double wNegative) {
      if (wPositive != 1 || wNegative != 1) throw new IllegalArgumentException("hard-margin takes no class weights");
      return this;
    }

    @Override
    public DualProblem dual(double[] y, int m) {
      throw new IllegalArgumentException("hard-margin is trained with the linear kernel only (Saddle-SVC)");
    }

    @Override
    public LinearPrimal primal() {
      throw new IllegalArgumentException("hard-margin has no BQO / DSVRG primal: it is trained by Saddle-SVC "
          + "(--linear-solver saddle)");
    }
  }
}
