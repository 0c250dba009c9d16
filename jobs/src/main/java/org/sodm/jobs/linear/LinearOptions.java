package org.sodm.jobs.linear;

import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.linear.BqoBlock;
import org.sodm.linear.BqoState;
import org.sodm.solver.Loss;

/** The linear solvers' parameters (sodm.train.linear.*), validated, each failure naming its key and option. */
public record LinearOptions(Solver solver, int blocks, double eps, int maxIterations, int innerPasses, double tau,
    BqoState.LineSearch lineSearch, int epochs, double step) {

  /** Which solver trains a linear-kernel model. */
  public enum Solver {
    AUTO, BQO, DSVRG, KERNEL;

    static Solver parse(String s) {
      return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }
  }

  public static LinearOptions from(Configuration conf) {
    Solver solver = parse(conf, SodmConf.LINEAR_SOLVER, "--linear-solver", () -> Solver.parse(conf.get(SodmConf.LINEAR_SOLVER, "auto")));
    int blocks = conf.getInt(SodmConf.LINEAR_BLOCKS, 4);
    if (blocks < 1) throw bad(SodmConf.LINEAR_BLOCKS, "--linear-blocks", "must be >= 1, got " + blocks);
    double eps = conf.getDouble(SodmConf.LINEAR_EPS, 1e-3);
    if (!(eps > 0)) throw bad(SodmConf.LINEAR_EPS, "--linear-eps", "must be > 0, got " + eps);
    int maxIt = conf.getInt(SodmConf.LINEAR_MAX_ITERATIONS, 1000);
    if (maxIt < 1) throw bad(SodmConf.LINEAR_MAX_ITERATIONS, "--max-iterations", "must be >= 1, got " + maxIt);
    int passes = conf.getInt(SodmConf.LINEAR_INNER_PASSES, 1);
    if (passes < 1) throw bad(SodmConf.LINEAR_INNER_PASSES, "--inner-passes", "must be >= 1, got " + passes);
    double tau = conf.getDouble(SodmConf.LINEAR_TAU, 1e-3);
    if (!(tau > 0)) throw bad(SodmConf.LINEAR_TAU, "--tau", "must be > 0, got " + tau);
    BqoState.LineSearch ls = parse(conf, SodmConf.LINEAR_LINE_SEARCH, "--line-search",
        () -> BqoState.LineSearch.valueOf(conf.get(SodmConf.LINEAR_LINE_SEARCH, "exact").trim().toUpperCase(Locale.ROOT)));
    int epochs = conf.getInt(SodmConf.LINEAR_EPOCHS, 30);
    if (epochs < 1) throw bad(SodmConf.LINEAR_EPOCHS, "--epochs", "must be >= 1, got " + epochs);
    double step = conf.getDouble(SodmConf.LINEAR_STEP, 0);
    if (!(step >= 0 && step < 1)) throw bad(SodmConf.LINEAR_STEP, "--step", "must be in [0, 1) (0 = 0.5 / L_max), got " + step);
    return new LinearOptions(solver, blocks, eps, maxIt, passes, tau, ls, epochs, step);
  }

  /** The solver for a loss: auto is BQO for hinge and squared hinge, DSVRG for ODM. */
  public Solver resolve(Loss loss) {
    boolean odm = loss instanceof Loss.Odm;
    if (solver != Solver.AUTO) {
      if (solver == Solver.BQO && odm) {
        throw bad(SodmConf.LINEAR_SOLVER, "--linear-solver", "bqo solves hinge and squared-hinge, not odm (use dsvrg or auto)");
      }
      if (solver == Solver.DSVRG && !odm) {
        throw bad(SodmConf.LINEAR_SOLVER, "--linear-solver", "dsvrg solves odm, not " + loss.id() + " (use bqo or auto)");
      }
      return solver;
    }
    return odm ? Solver.DSVRG : Solver.BQO;
  }

  public BqoBlock.Options inner() {
    return new BqoBlock.Options(innerPasses, tau, 1e-4);
  }

  public BqoState.Options outer() {
    return new BqoState.Options(lineSearch, eps, maxIterations, 0.1, 0.5, 0);
  }

  private interface Parse<T> {
    T get();
  }

  private static <T> T parse(Configuration conf, String key, String option, Parse<T> p) {
    try {
      return p.get();
    } catch (IllegalArgumentException e) {
      throw bad(key, option, "'" + conf.get(key) + "' is not one of the allowed values");
    }
  }

  static SodmException bad(String key, String option, String what) {
    return new SodmException("bad parameter " + option + " (" + key + "): " + what);
  }
}
