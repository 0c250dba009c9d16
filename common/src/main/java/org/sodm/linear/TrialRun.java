package org.sodm.linear;

import java.io.IOException;

/** A run of trial steps toward a minimum ({@link Tron}, {@link Owlqn}), as {@link TronRank} drives it. */
public interface TrialRun {
  Tron.Trial step() throws IOException;

  boolean done();

  Tron.Status status();

  /** f at the current point. */
  double value();

  double gradientNorm();

  int iterations();

  /** The current point. */
  double[] w();

  /** |gradient| (l1: |pseudo-gradient|) at 0, the stop's reference. */
  double initialGradientNorm();
}
