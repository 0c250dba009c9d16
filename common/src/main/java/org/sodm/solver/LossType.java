package org.sodm.solver;

import java.util.Locale;

/** The dual problems the kernel solvers handle (see DESIGN.md section 3). */
public enum LossType {
  /** Optimal margin distribution machine (seed 000 eq. 1): two variables per instance. */
  ODM,
  /** C-SVM, L1 loss: 0 &lt;= alpha_i &lt;= C_i. */
  HINGE,
  /** L2 loss: 0 &lt;= alpha_i, diagonal 1/(2 C_i) added to Q. */
  SQUARED_HINGE;

  /** Parses {@code odm | hinge | squared-hinge} (also {@code l1}, {@code l2}, {@code squared_hinge}). */
  public static LossType parse(String s) {
    switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "odm": return ODM;
      case "hinge":
      case "l1": return HINGE;
      case "squared-hinge":
      case "squared_hinge":
      case "squaredhinge":
      case "l2": return SQUARED_HINGE;
      default:
        throw new IllegalArgumentException("unknown loss '" + s + "' (expected odm, hinge or squared-hinge)");
    }
  }

  public String id() {
    return this == SQUARED_HINGE ? "squared-hinge" : name().toLowerCase(Locale.ROOT);
  }
}
