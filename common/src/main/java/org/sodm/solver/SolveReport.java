package org.sodm.solver;

/**
 * What one solve did. Objectives are of the minimised dual and of the primal of the same
 * problem (NaN where undefined); {@code dualityGap = primal + dual} (&gt;= 0, 0 at the optimum).
 * {@code initialViolation} is the maximal projected-gradient violation at the starting point
 * (the warm start) before any update: the merge rounds stop early on it.
 */
public record SolveReport(double dualObjective, double primalObjective, double dualityGap,
    double initialViolation, double maxViolation, int epochs, int supportVectors,
    long kernelEvaluations, long cacheHits, long cacheMisses, double seconds, boolean converged) {

  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT,
        "dual=%.6f primal=%.6f gap=%.3g viol0=%.3g viol=%.3g epochs=%d nSV=%d kevals=%d "
            + "cache=%d/%d %.3fs%s",
        dualObjective, primalObjective, dualityGap, initialViolation, maxViolation, epochs,
        supportVectors, kernelEvaluations, cacheHits, cacheMisses, seconds,
        converged ? "" : " NOT CONVERGED");
  }
}
