package org.sodm.saddle;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.sodm.allreduce.StateCodec;

/**
 * The beta search and the stopping rule of Saddle-SVC / Saddle-DSVC ({@link SaddleSvc}), as a
 * state machine that whatever runs the rounds drives: the in-process {@link SaddleRun} and the
 * AllReduce ranks ({@link SaddleRank}) alike, so both choose the same betas, stop at the same
 * check and keep the same run. Per check: {@link #steps} iterations of Algorithm 2 / 4 with
 * {@link #params}, then the bounds go to {@link #check}, which says whether the run goes on,
 * a new run (the next beta) starts, or the search is over; {@link #result} maps the kept run to the
 * input space.
 */
public final class SaddleSearch {
  /** What {@link #check} decided. */
  public enum Step { CONTINUE, NEXT_BETA, DONE }

  private final SaddleOptions options;
  private final SaddleSvc.Problem problem;
  private final int dimension;
  private final double scale;

  private int betaIndex;
  private long iterations;
  private double smallestGap = Double.POSITIVE_INFINITY;
  private int checksWithoutProgress;
  private double runSeconds;
  private final List<SaddleResult.Trial> trials = new ArrayList<>();
  private SaddleResult.Trial best;
  private double[] bestW;
  private SaddleServer.Bounds bestBounds;
  private double closest = Double.POSITIVE_INFINITY;
  private boolean done;

  /**
   * @param dimension the transformed dimension d
   * @param scale the transform's scale s (distances are reported in input units: times s)
   */
  public SaddleSearch(SaddleOptions options, SaddleSvc.Problem problem, int dimension, double scale) {
    this.options = options;
    this.problem = problem;
    this.dimension = dimension;
    this.scale = scale;
  }

  public SaddleOptions options() {
    return options;
  }

  public SaddleSvc.Problem problem() {
    return problem;
  }

  /** The beta of the current run. */
  public double beta() {
    return options.betas().get(betaIndex);
  }

  /** The parameters of line 4 for the current run. */
  public SaddleParameters params() {
    return SaddleParameters.of(options.eps(), beta(), problem.n(), dimension);
  }

  /** Iterations between checks in the current run (the option, or the paper's T). */
  public long interval() {
    return options.checkInterval() > 0 ? options.checkInterval() : params().paperCheckInterval();
  }

  /** The iterations to run before the next check. */
  public long steps() {
    return Math.min(interval(), options.maxIterations() - iterations);
  }

  /** Iterations of the current run so far. */
  public long iterations() {
    return iterations;
  }

  public boolean done() {
    return done;
  }

  public List<SaddleResult.Trial> trials() {
    return List.copyOf(trials);
  }

  /**
   * The bounds of the check after {@code steps} more iterations of the current run.
   *
   * @param w the current w (copied only when this run becomes the best)
   * @param comm the run's communication so far
   * @param seconds the time the run's iterations and checks took since the previous check
   * @throws NotSeparableException when the hulls are within the separation tolerance
   */
  public Step check(long steps, SaddleServer.Bounds b, java.util.function.Supplier<double[]> w, SaddleResult.Communication comm,
      double seconds) {
    if (done) throw new IllegalStateException("the search is over");
    iterations += steps;
    runSeconds += seconds;
    if (b.lower() <= 0 && b.upper() <= options.separationTolerance()) throw notSeparable(b.upper() * scale);
    boolean converged = b.relativeGap() <= options.eps();
    double gap = b.absoluteGap();
    if (gap < SaddleSvc.STALL_FACTOR * smallestGap) {
      smallestGap = gap;
      checksWithoutProgress = 0;
    } else {
      checksWithoutProgress++;
    }
    boolean stalled = options.stallChecks() > 0 && checksWithoutProgress >= options.stallChecks();
    if (!converged && !stalled && iterations < options.maxIterations()) return Step.CONTINUE;
    closest = Math.min(closest, b.upper());
    double midpointBias = b.halfGap() > 0 ? -b.hullMidpointOffset() / b.halfGap() : Double.NaN;
    SaddleResult.Trial t = new SaddleResult.Trial(beta(), iterations, converged, b.relativeGap(), b.lower() * scale,
        b.upper() * scale, midpointBias, comm, runSeconds);
    trials.add(t);
    if (best == null || b.lower() > bestBounds.lower()) {
      best = t;
      bestW = w.get().clone();
      bestBounds = b;
    }
    if (converged || betaIndex == options.betas().size() - 1) {
      done = true;
      return Step.DONE;
    }
    betaIndex++;
    iterations = 0;
    smallestGap = Double.POSITIVE_INFINITY;
    checksWithoutProgress = 0;
    runSeconds = 0;
    return Step.NEXT_BETA;
  }

  /**
   * The kept run's model in the input space, scaled so that the margin hyperplanes are f = +-1.
   *
   * @throws NotSeparableException when no run separated the hulls
   */
  public SaddleResult result(Preprocessing pre) {
    if (!done) throw new IllegalStateException("the search is not over");
    if (!(bestBounds.lower() > 0) || !(bestBounds.halfGap() > 0)) {
      throw new NotSeparableException("no hyperplane separated the " + hulls() + " in " + options.maxIterations()
          + " iterations for each beta " + options.betas() + "; they are at most " + closest * scale + " apart", closest * scale,
          false);
    }
    double[] weights = pre.toInputSpace(bestW);
    for (int j = 0; j < weights.length; j++) weights[j] /= bestBounds.halfGap();
    double bias = -bestBounds.offset() / bestBounds.halfGap();
    return new SaddleResult(weights, bias, problem.nu(), problem.cap(), best, List.copyOf(trials));
  }

  private String hulls() {
    return options.variant() == SaddleOptions.Variant.HARD_MARGIN ? "convex hulls of the two classes"
        : "reduced convex hulls (6) of the two classes";
  }

  private NotSeparableException notSeparable(double distance) {
    String advice = options.variant() == SaddleOptions.Variant.HARD_MARGIN
        ? "the data are not linearly separable: use nu-SVM or a soft-margin loss"
        : "nu is too small for these data: increase nu (or alpha)";
    return new NotSeparableException("the " + hulls() + " are within " + distance + " of each other after " + iterations
        + " iterations (separation tolerance " + options.separationTolerance() + " of the largest point norm): " + advice, distance,
        true);
  }

  /** The search's state (everything but the options, problem and transform), for a checkpoint. */
  public void write(DataOutputStream out) throws IOException {
    out.writeInt(betaIndex);
    out.writeLong(iterations);
    out.writeDouble(smallestGap);
    out.writeInt(checksWithoutProgress);
    out.writeDouble(runSeconds);
    out.writeInt(trials.size());
    for (SaddleResult.Trial t : trials) writeTrial(out, t);
    out.writeBoolean(best != null);
    if (best != null) {
      writeTrial(out, best);
      StateCodec.writeArray(out, bestW);
      StateCodec.writeArray(out, new double[] {bestBounds.upper(), bestBounds.lower(), bestBounds.offset(), bestBounds.halfGap(),
          bestBounds.hullMidpointOffset(), bestBounds.wNorm()});
    }
    out.writeDouble(closest);
    out.writeBoolean(done);
  }

  /** Restores what {@link #write} wrote into a fresh search of the same options and problem. */
  public void read(DataInputStream in) throws IOException {
    betaIndex = in.readInt();
    iterations = in.readLong();
    smallestGap = in.readDouble();
    checksWithoutProgress = in.readInt();
    runSeconds = in.readDouble();
    int n = in.readInt();
    trials.clear();
    for (int i = 0; i < n; i++) trials.add(readTrial(in));
    if (in.readBoolean()) {
      best = readTrial(in);
      bestW = StateCodec.readArray(in);
      double[] b = StateCodec.readArray(in);
      bestBounds = new SaddleServer.Bounds(b[0], b[1], b[2], b[3], b[4], b[5]);
    } else {
      best = null;
      bestW = null;
      bestBounds = null;
    }
    closest = in.readDouble();
    done = in.readBoolean();
  }

  private static void writeTrial(DataOutputStream out, SaddleResult.Trial t) throws IOException {
    SaddleResult.Communication c = t.communication();
    StateCodec.writeArray(out, new double[] {t.beta(), t.iterations(), t.converged() ? 1 : 0, t.relativeGap(), t.hullDistanceLower(),
        t.hullDistanceUpper(), t.hullMidpointBias(), t.seconds(), c.clients(), c.iterationRounds(), c.iterationScalars(),
        c.checkRounds(), c.checkScalars()});
  }

  private static SaddleResult.Trial readTrial(DataInputStream in) throws IOException {
    double[] a = StateCodec.readArray(in);
    return new SaddleResult.Trial(a[0], (long) a[1], a[2] != 0, a[3], a[4], a[5], a[6],
        new SaddleResult.Communication((int) a[8], (long) a[9], (long) a[10], (long) a[11], (long) a[12]), a[7]);
  }
}
