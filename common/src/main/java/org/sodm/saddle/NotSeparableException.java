package org.sodm.saddle;

/**
 * Thrown instead of a model when no hyperplane separates the two (reduced) convex hulls: hard
 * margin on data that are not linearly separable, or nu-SVM with a nu so small that the reduced
 * hulls of (6) intersect. {@link #hullDistance()} is the measured upper bound on the distance
 * between the hulls, in input units.
 */
public final class NotSeparableException extends RuntimeException {
  private final double hullDistance;
  private final boolean certain;

  NotSeparableException(String message, double hullDistance, boolean certain) {
    super(message);
    this.hullDistance = hullDistance;
    this.certain = certain;
  }

  /** |A eta - B xi| of the last iterate: the hulls are at most this far apart (input units). */
  public double hullDistance() {
    return hullDistance;
  }

  /**
   * True when the distance is within the separation tolerance (the hulls touch or overlap); false
   * when the iterations ran out before any hyperplane separated the points.
   */
  public boolean certain() {
    return certain;
  }
}
