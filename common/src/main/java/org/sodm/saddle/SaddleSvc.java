package org.sodm.saddle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.sodm.data.SparseVector;

/**
 * Saddle-SVC and in-process Saddle-DSVC (seed 002) for hard-margin SVM and nu-SVM with the
 * linear kernel.
 *
 * <p>{@link #train}: validates the data and nu, builds the transform of Algorithm 1 (scale to
 * |x| &lt;= 1, random signs D, Walsh-Hadamard W), splits the rows into {@code clients} contiguous
 * ranges (Algorithm 3), and for each beta of the options (footnote 4) runs Algorithm 2 / 4 with the
 * parameters of line 4, checking the duality gap every T iterations ({@link SaddleServer#bounds}).
 * A run stops when the relative gap is &lt;= eps or after {@code maxIterations}; the betas are
 * tried from the first, and the first run that converges is kept (another could improve the
 * certified objective by at most the gap), else the run with the largest certified margin. A run
 * also stops when {@code stallChecks} checks in a row did not bring the absolute gap below 0.9
 * times its smallest value so far: with beta above OPT the entropy terms of (4)/(8) (up to
 * eps beta, Lemma 3) keep the gap above eps however long it runs, and the next, smaller beta is
 * tried. The
 * kept w is mapped back to the input space ((W D)^T w / s) and scaled so that the margin
 * hyperplanes are f = +-1.
 */
public final class SaddleSvc {
  private SaddleSvc() {}

  /** A check makes progress when it brings the absolute gap below this fraction of the smallest so far. */
  static final double STALL_FACTOR = 0.9;

  /** A gap check, reported to the progress listener (distances in input units). */
  public record Progress(double beta, long iteration, double relativeGap, double hullDistanceLower,
      double hullDistanceUpper) {}

  public static SaddleResult train(SparseVector[] x, double[] y, SaddleOptions options) {
    return train(x, y, options, p -> {});
  }

  /**
   * Trains on rows x with labels y in {-1, +1}.
   *
   * @throws IllegalArgumentException for bad input: lengths, labels, one class only, nu infeasible
   *     for the class sizes (nu &gt; 2 min(n1, n2) / n), every point zero
   * @throws NotSeparableException when the (reduced) hulls are found to touch or no run separated them
   */
  public static SaddleResult train(SparseVector[] x, double[] y, SaddleOptions options, Consumer<Progress> progress) {
    if (x.length != y.length) throw new IllegalArgumentException(x.length + " rows but " + y.length + " labels");
    int n1 = 0;
    int n2 = 0;
    for (int i = 0; i < y.length; i++) {
      if (y[i] == 1) n1++;
      else if (y[i] == -1) n2++;
      else throw new IllegalArgumentException("label y[" + i + "] = " + y[i] + " is not -1 or +1");
    }
    Problem problem = problem(options, n1, n2);
    int n = problem.n();
    if (options.clients() > n) {
      throw new IllegalArgumentException(options.clients() + " clients for " + n + " points: at most one client per point");
    }

    Preprocessing pre = Preprocessing.of(Math.max(1, Preprocessing.inputDimension(x)), Preprocessing.maxNorm(x),
        options.seed());
    List<SaddleClient> clients = clients(x, y, pre, options.clients());
    SaddleSearch search = new SaddleSearch(options, problem, pre.dimension(), pre.scale());
    SaddleSearch.Step step = SaddleSearch.Step.NEXT_BETA;
    SaddleRun run = null;
    while (step != SaddleSearch.Step.DONE) {
      long start = System.nanoTime();
      if (step == SaddleSearch.Step.NEXT_BETA) {
        run = new SaddleRun(clients, search.params(), problem.cap(), options.projection(), options.seed(), n1, n2);
      }
      long steps = search.steps();
      for (long s = 0; s < steps; s++) run.iterate();
      SaddleServer.Bounds b = run.check();
      progress.accept(new Progress(search.beta(), run.iterations(), b.relativeGap(), b.lower() * pre.scale(), b.upper() * pre.scale()));
      SaddleRun r = run;
      step = search.check(steps, b, r::w, run.communication(), (System.nanoTime() - start) / 1e9);
    }
    return search.result(pre);
  }

  /**
   * The sizes of a problem and its nu and cap: nu as in LIBSVM ({@code svm-train -n}, NaN for hard
   * margin) and the paper's cap on eta and xi, cap = 2 / (n nu) (1 for hard margin).
   */
  public record Problem(int n1, int n2, double nu, double cap) {
    public int n() {
      return n1 + n2;
    }
  }

  /**
   * Checks the class sizes and nu of {@code options} for n1 points labelled +1 and n2 labelled -1.
   *
   * @throws IllegalArgumentException for one class only or nu infeasible for the class sizes
   *     (nu &gt; 2 min(n1, n2) / n)
   */
  public static Problem problem(SaddleOptions options, long n1, long n2) {
    if (n1 == 0 || n2 == 0) {
      throw new IllegalArgumentException("Saddle-SVC needs points of both classes; all " + (n1 + n2) + " points have label "
          + (n1 == 0 ? "-1" : "+1"));
    }
    if (n1 + n2 > Integer.MAX_VALUE) throw new IllegalArgumentException((n1 + n2) + " points: at most " + Integer.MAX_VALUE);
    int n = (int) (n1 + n2);
    long small = Math.min(n1, n2);
    double nu;
    double cap;
    if (options.variant() == SaddleOptions.Variant.HARD_MARGIN) {
      nu = Double.NaN;
      cap = 1;
    } else if (options.nu().isPresent()) {
      nu = options.nu().getAsDouble();
      double max = 2.0 * small / n;
      if (nu > max) {
        throw new IllegalArgumentException("nu = " + nu + " is infeasible for the class sizes: nu-SVM needs nu <= 2 min(n1, n2) / n = "
            + max + " (n1 = " + n1 + " points labelled +1, n2 = " + n2 + " labelled -1)");
      }
      cap = 2 / (n * nu);
    } else {
      cap = 1 / (options.alpha() * small);
      nu = 2 * options.alpha() * small / n;
    }
    return new Problem((int) n1, (int) n2, nu, cap);
  }

  /** The k clients of contiguous row ranges: client c holds rows [c n / k, (c + 1) n / k). */
  static List<SaddleClient> clients(SparseVector[] x, double[] y, Preprocessing pre, int k) {
    int n = x.length;
    List<SaddleClient> clients = new ArrayList<>(k);
    for (int c = 0; c < k; c++) {
      int from = (int) ((long) c * n / k);
      int to = (int) ((long) (c + 1) * n / k);
      clients.add(SaddleClient.of(Arrays.copyOfRange(x, from, to), Arrays.copyOfRange(y, from, to), pre));
    }
    return clients;
  }
}
