package org.sodm.solver;

/**
 * One coordinate order of the kernel solver, run on a {@link SolveState} whose gradient is
 * initialised and whose problem is not yet solved.
 */
interface Descent {

  /** How a descent ended: the exact maximal violation of the whole problem, and the epochs used. */
  record Outcome(double maxViolation, boolean converged, int epochs) {}

  Outcome run(SolveState s);

  /**
   * The order for a problem: random permutations, or greedy, pairing variables when the
   * problem supports two-variable steps ({@link DualProblem#pairs()}, or ODM's own
   * {@link GreedyOdmPairDescent}) and the options ask for them.
   */
  static Descent of(KernelDualSolver.Selection selection, DualProblem prob, SolverOptions opts) {
    if (selection == KernelDualSolver.Selection.RANDOM_PERMUTATION) return new RandomPermutationDescent();
    if (opts.pairs()) {
      PairDual pd = prob.pairs().orElse(null);
      if (pd != null) return new GreedyPairDescent(pd);
      if (prob instanceof OdmProblem odm) return new GreedyOdmPairDescent(odm);
    }
    return new GreedyDescent();
  }
}
