package org.sodm.saddle;

import java.util.List;

/**
 * A trained linear classifier f(x) = weights . x + bias (weights[f - 1] is the weight of feature
 * f, input space) in the canonical scaling of the (reduced) hulls' margin hyperplanes: f = +1 and
 * -1 on them, as LIBSVM's nu-SVC and the hard-margin problem (1) scale it. With diagnostics of
 * every beta tried.
 *
 * @param nu nu as in LIBSVM ({@code svm-train -n}); NaN for hard margin
 * @param cap the paper's nu, the cap on eta and xi (1 for hard margin)
 * @param best the run whose model this is
 * @param trials every run, in the order tried
 */
public record SaddleResult(double[] weights, double bias, double nu, double cap, Trial best, List<Trial> trials) {

  /**
   * One run of Saddle-SVC / Saddle-DSVC with one beta.
   *
   * @param converged whether the relative gap reached eps
   * @param relativeGap (upper^2 - lower^2) / upper^2 at the last check: the gap between the
   *     bounds on OPT (the duality gap of (5) relative to its dual objective)
   * @param hullDistanceLower the distance between the supporting hyperplanes of the returned
   *     direction (input units): the model's certified margin
   * @param hullDistanceUpper |A eta - B xi| (input units)
   * @param hullMidpointBias footnote 2's offset b* = w^T (A eta + B xi) / 2 in the same scaling as
   *     the bias (equal to it at the hard-margin optimum; not the nu-SVM offset)
   */
  public record Trial(double beta, long iterations, boolean converged, double relativeGap, double hullDistanceLower,
      double hullDistanceUpper, double hullMidpointBias, Communication communication, double seconds) {}

  /**
   * What the clients and the server exchanged (seed 002, Theorem 13), counted in scalars both ways:
   * per iteration 3 rounds of 11 k scalars (round 1: i*, 2 deltas; round 2: 2 deltas, 4 log-sum-exp
   * scalars; round 3: 2 normalisers) plus, for nu-SVM, a round of 12 k per pass of (12) (varsigma and Omega as a log-sum-exp pair
   * per class, both ways); per gap check one
   * round of the clients' reports and the server's stop flag.
   */
  public record Communication(int clients, long iterationRounds, long iterationScalars, long checkRounds,
      long checkScalars) {}
}
