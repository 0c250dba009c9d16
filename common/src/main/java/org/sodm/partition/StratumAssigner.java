package org.sodm.partition;

import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;

/**
 * Stratum of an instance (SODM eq. 7): the landmark nearest in the RKHS,
 * argmin_s ||phi(x) - phi(z_s)||^2 = argmin_s k(z_s,z_s) - 2 k(x,z_s) (k(x,x) is common to
 * all s). Works for any kernel; ties go to the lowest s. Thread-safe.
 */
public final class StratumAssigner {
  private final Kernel kernel;
  private final SparseVector[] landmarks;
  private final double[] selfs;

  public StratumAssigner(Kernel k, SparseVector[] landmarks) {
    if (landmarks.length == 0) throw new IllegalArgumentException("no landmarks");
    this.kernel = k;
    this.landmarks = landmarks.clone();
    this.selfs = new double[landmarks.length];
    for (int s = 0; s < landmarks.length; s++) selfs[s] = k.self(landmarks[s]);
  }

  public int strata() {
    return landmarks.length;
  }

  /** The stratum index in [0, S). */
  public int assign(SparseVector x) {
    return assign(x, new double[landmarks.length]);
  }

  /** As {@link #assign(SparseVector)} with a caller-owned scratch array of length >= S. */
  public int assign(SparseVector x, double[] scratch) {
    double[] kx = scratch.length == landmarks.length ? scratch : new double[landmarks.length];
    kernel.column(x, landmarks, kx);
    int best = 0;
    double bv = selfs[0] - 2 * kx[0];
    for (int s = 1; s < kx.length; s++) {
      double v = selfs[s] - 2 * kx[s];
      if (v < bv) {
        bv = v;
        best = s;
      }
    }
    return best;
  }

  /** Strata of all rows. */
  public int[] assignAll(SparseVector[] xs) {
    int[] out = new int[xs.length];
    double[] scratch = new double[landmarks.length];
    for (int i = 0; i < xs.length; i++) out[i] = assign(xs[i], scratch);
    return out;
  }
}
