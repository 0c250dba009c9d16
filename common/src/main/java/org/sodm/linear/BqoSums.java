package org.sodm.linear;

/**
 * The scalars one BQO iteration reduces over blocks (seed 003 eqs. 13-21, 27): each block's
 * partial sums at (alpha^t, w^t) and its direction d_J, {@link #merge}d in block order (sums
 * added, {@code minLambda} the minimum, {@code violation} the maximum; the neutral element is
 * {@link #EMPTY}).
 *
 * @param alphaSum e' alpha
 * @param sAlphaSq sum s_i alpha_i^2
 * @param loss the primal loss sum C_i xi_i(w^t) (or xi^2)
 * @param eD e' d
 * @param sAlphaD sum s_i alpha_i d_i
 * @param sDSq sum s_i d_i^2
 * @param dSq sum d_i^2
 * @param dwBlockSq sum over blocks of |X_J'Y_J d_J|^2 (eq. 13)
 * @param minLambda min_i lambda_i of (21): the largest feasible step
 * @param rows rows
 * @param violation max |projected gradient| of the full dual at alpha^t
 * @param cSum sum C_i = f^P(0) - (-f(0)), the scale of the relative gap (27)
 */
public record BqoSums(double alphaSum, double sAlphaSq, double loss, double eD, double sAlphaD, double sDSq,
    double dSq, double dwBlockSq, double minLambda, double rows, double violation, double cSum) {

  /** The neutral element of {@link #merge}. */
  public static final BqoSums EMPTY = new BqoSums(0, 0, 0, 0, 0, 0, 0, 0, Double.POSITIVE_INFINITY, 0, 0, 0);

  /** Length of {@link #toArray()}. */
  public static final int SIZE = 12;

  /** This (the sums of the earlier blocks) combined with {@code part}, in that order. */
  public BqoSums merge(BqoSums part) {
    return new BqoSums(alphaSum + part.alphaSum, sAlphaSq + part.sAlphaSq, loss + part.loss, eD + part.eD,
        sAlphaD + part.sAlphaD, sDSq + part.sDSq, dSq + part.dSq, dwBlockSq + part.dwBlockSq,
        Math.min(minLambda, part.minLambda), rows + part.rows, Math.max(violation, part.violation), cSum + part.cSum);
  }

  /** The components in declaration order (the map-to-reduce transport). */
  public double[] toArray() {
    return new double[] {alphaSum, sAlphaSq, loss, eD, sAlphaD, sDSq, dSq, dwBlockSq, minLambda, rows, violation, cSum};
  }

  /** The inverse of {@link #toArray()}. */
  public static BqoSums fromArray(double[] a) {
    if (a.length != SIZE) throw new IllegalArgumentException("BQO sums have " + SIZE + " components, got " + a.length);
    return new BqoSums(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
  }
}
