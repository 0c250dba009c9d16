package org.sodm.solver;

/**
 * Where one kernel solve spends its time ({@link SolverOptions#trace()}): per-phase nanoseconds,
 * printed to stderr at the end of the solve. Off, every method is a no-op and costs a branch.
 */
final class Trace {
  final boolean on;
  private final long start = System.nanoTime();
  long fill;
  long rebuild;
  long shrink;
  long select;

  Trace(boolean on) {
    this.on = on;
  }

  /** A start time for one of the phase counters (0 when off). */
  long now() {
    return on ? System.nanoTime() : 0;
  }

  /** Nanoseconds since {@code t0} from {@link #now()} (0 when off). */
  long since(long t0) {
    return on ? System.nanoTime() - t0 : 0;
  }

  void line(String fmt, Object... args) {
    if (on) System.err.printf(fmt + "%n", args);
  }

  void progress(String what, long steps, int active, double violation) {
    if (on) {
      System.err.printf("%s %d active=%d viol=%.4g t=%.2fs fill=%.2f select=%.2f%n", what, steps, active, violation,
          (System.nanoTime() - start) / 1e9, fill / 1e9, select / 1e9);
    }
  }

  void summary(int n, long steps, SolveReport rep) {
    line("solve: n=%d steps=%d fill=%.2fs rebuild=%.2fs shrink=%.2fs select=%.2fs %s",
        n, steps, fill / 1e9, rebuild / 1e9, shrink / 1e9, select / 1e9, rep);
  }
}
