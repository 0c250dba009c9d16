package org.sodm.solver;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Epochs over the active instances in a fresh permutation each, drawn from one
 * {@link SplittableRandom} seeded with {@link SolverOptions#seed()}; instances found shrinkable
 * during an epoch leave the active set after it.
 */
final class RandomPermutationDescent implements Descent {

  @Override
  public Outcome run(SolveState s) {
    SolverOptions opts = s.opts;
    DualProblem prob = s.prob;
    double[] alpha = s.alpha;
    double[] g = s.g;
    double[] info = s.info;
    double eps = s.eps;
    SplittableRandom rng = new SplittableRandom(opts.seed());
    int[] perm = new int[s.n];
    int[] shrinkList = new int[s.n];
    double mbar = Double.POSITIVE_INFINITY;
    int epochs = 0;
    while (epochs < opts.maxEpochs()) {
      int a = s.active;
      for (int t = 0; t < a; t++) perm[t] = t;
      org.sodm.data.Seeds.shuffle(perm, a, rng);
      double viol = 0;
      int nShrink = 0;
      double thr = opts.shrinking() ? mbar : Double.POSITIVE_INFINITY;
      for (int t = 0; t < a; t++) {
        int p = perm[t];
        double delta = prob.step(alpha, p, g[p], s.q.diag(p), thr, info);
        if (info[0] > viol) viol = info[0];
        if (delta != 0) {
          s.steps++;
          s.apply(p, delta);
        } else if (info[1] != 0) {
          shrinkList[nShrink++] = p;
        }
      }
      epochs++;
      if (nShrink > 0) {
        Arrays.sort(shrinkList, 0, nShrink);
        for (int k = nShrink - 1; k >= 0; k--) {
          s.swap(shrinkList[k], s.active - 1);
          s.active--;
        }
      }
      if (epochs % 100 == 0) s.trace.line("epoch %d active=%d viol=%s", epochs, s.active, viol);
      if (viol <= eps) {
        double v = s.unshrunkCheck();
        if (v <= eps) return new Outcome(v, true, epochs);
        mbar = Double.POSITIVE_INFINITY;
      } else {
        mbar = viol;
      }
    }
    return new Outcome(s.unshrunkCheck(), false, epochs);
  }
}
