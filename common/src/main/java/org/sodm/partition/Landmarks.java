package org.sodm.partition;

import org.sodm.data.SparseVector;

/**
 * Landmark points chosen by {@link LandmarkSelector} (SODM eq. 8), in pick order.
 *
 * @param points the landmarks z_1..z_S
 * @param sourceIndex for each landmark, its index in the candidate array (for
 *     {@link LandmarkSelector#selectFromUnion}, the index in the concatenation of the candidate
 *     sets in list order)
 * @param residuals the Schur-complement residual k(z,z) - K_{s,z}^T K_{s,s}^{-1} K_{s,z} of each
 *     landmark at the time it was picked (the first one is k(z_1,z_1)); non-increasing. The
 *     product of the residuals is det K_{S,S}.
 */
public record Landmarks(SparseVector[] points, int[] sourceIndex, double[] residuals) {

  public Landmarks {
    if (points.length != sourceIndex.length || points.length != residuals.length) {
      throw new IllegalArgumentException("landmark arrays differ in length");
    }
  }

  /** Number of landmarks S (may be below the number asked for, see LandmarkSelector). */
  public int size() {
    return points.length;
  }

  /** log det of the landmark Gram matrix, the sum of log residuals. */
  public double logDet() {
    double s = 0;
    for (double r : residuals) s += Math.log(r);
    return s;
  }
}
