package org.sodm.solver;

/**
 * The capability of two-variable steps ({@link GreedyPairDescent}): one variable per instance
 * in the box [0, U_y], separable part d_y alpha^2 / 2 - alpha, both constants by class y
 * (hinge: U = C_y, d = 0; squared hinge: U = infinity, d = 1/(2 C_y)).
 */
interface PairDual extends DualProblem {

  /** U_y for the class of label y (+-1). */
  double upper(double y);

  /** d_y, the diagonal added to Q_ii, for the class of label y (+-1). */
  double extraDiag(double y);
}
