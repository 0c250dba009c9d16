package org.sodm.kernel;

import java.util.Locale;
import org.sodm.data.SparseVector;

/**
 * Kernel type and parameters, as in LIBSVM: linear u'v; polynomial (gamma u'v + coef0)^degree;
 * rbf exp(-gamma |u-v|^2); sigmoid tanh(gamma u'v + coef0).
 */
public record KernelSpec(Type type, double gamma, double coef0, int degree) {

  public enum Type {
    LINEAR, POLY, RBF, SIGMOID;

    /** Parses {@code linear|poly|polynomial|rbf|gaussian|sigmoid} (case-insensitive). */
    public static Type parse(String s) {
      switch (s.trim().toLowerCase(Locale.ROOT)) {
        case "linear": return LINEAR;
        case "poly":
        case "polynomial": return POLY;
        case "rbf":
        case "gaussian": return RBF;
        case "sigmoid":
        case "tanh": return SIGMOID;
        default:
          throw new IllegalArgumentException(
              "unknown kernel '" + s + "' (expected linear, poly, rbf or sigmoid)");
      }
    }

    public String id() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public KernelSpec {
    if (type == null) throw new IllegalArgumentException("kernel type is required");
    if (type != Type.LINEAR && !(gamma > 0 && Double.isFinite(gamma))) {
      throw new IllegalArgumentException("kernel gamma must be > 0 for " + type.id() + ", got " + gamma);
    }
    if (!Double.isFinite(coef0)) {
      throw new IllegalArgumentException("kernel coef0 must be finite, got " + coef0);
    }
    if (type == Type.POLY && degree < 1) {
      throw new IllegalArgumentException("kernel degree must be >= 1, got " + degree);
    }
  }

  public static KernelSpec linear() {
    return new KernelSpec(Type.LINEAR, 0, 0, 1);
  }

  public static KernelSpec rbf(double gamma) {
    return new KernelSpec(Type.RBF, gamma, 0, 1);
  }

  public static KernelSpec poly(double gamma, double coef0, int degree) {
    return new KernelSpec(Type.POLY, gamma, coef0, degree);
  }

  public static KernelSpec sigmoid(double gamma, double coef0) {
    return new KernelSpec(Type.SIGMOID, gamma, coef0, 1);
  }

  /**
   * Whether the kernel is positive semi-definite for every input: linear, rbf, and poly with coef0 &gt;= 0 (then a sum of
   * powers of u'v with non-negative weights); not sigmoid (for no parameters), nor poly with coef0 &lt; 0.
   */
  public boolean positiveSemiDefinite() {
    return switch (type) {
      case LINEAR, RBF -> true;
      case POLY -> coef0 >= 0;
      case SIGMOID -> false;
    };
  }

  /**
   * The kernel of the landmarks and strata (a Cholesky-style selection and distances in the kernel's feature space, which a
   * kernel that is not positive semi-definite does not have: k(z,z) may be negative, as tanh(gamma |z|^2 - 1) for data in
   * [0, 1]): this kernel when it is {@link #positiveSemiDefinite}, else the linear kernel, of whose inner product u'v the
   * sigmoid and polynomial kernels are functions.
   */
  public KernelSpec strataKernel() {
    return positiveSemiDefinite() ? this : linear();
  }

  /** Builds the kernel. */
  public Kernel create() {
    switch (type) {
      case LINEAR: return new LinearKernel();
      case RBF: return new RbfKernel(gamma);
      case POLY: return new PolynomialKernel(gamma, coef0, degree);
      case SIGMOID: return new SigmoidKernel(gamma, coef0);
      default: throw new AssertionError(type);
    }
  }

  @Override
  public String toString() {
    switch (type) {
      case LINEAR: return "linear";
      case RBF: return "rbf(gamma=" + gamma + ")";
      case POLY: return "poly(gamma=" + gamma + ", coef0=" + coef0 + ", degree=" + degree + ")";
      default: return "sigmoid(gamma=" + gamma + ", coef0=" + coef0 + ")";
    }
  }

  /** Direct evaluation from the definition, for tests and one-off use (no caching). */
  public double evalReference(SparseVector a, SparseVector b) {
    return create().eval(a, b);
  }
}
