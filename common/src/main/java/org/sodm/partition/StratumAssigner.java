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
  /**
   * A dot-based kernel with landmarks of at most {@link #DENSE_DOUBLES} / S features: the landmarks feature-major,
   * {@code dense[(f - 1) S + s]}, so a row's inner products with all of them are one pass over its non-zeros; else null.
   */
  private final double[] dense;
  private final int dim;
  private final double[] norms;

  /** The largest dense copy of the landmarks, in doubles (4 MB). */
  static final int DENSE_DOUBLES = 1 << 19;

  public StratumAssigner(Kernel k, SparseVector[] landmarks) {
    if (landmarks.length == 0) throw new IllegalArgumentException("no landmarks");
    this.kernel = k;
    this.landmarks = landmarks.clone();
    int n = landmarks.length;
    this.selfs = new double[n];
    this.norms = new double[n];
    int d = 0;
    for (int s = 0; s < n; s++) {
      selfs[s] = k.self(landmarks[s]);
      norms[s] = landmarks[s].squaredNorm();
      d = Math.max(d, landmarks[s].maxIndex());
    }
    this.dim = d;
    if (k.dotBased() && (long) d * n <= DENSE_DOUBLES) {
      dense = SparseVector.featureMajor(this.landmarks, d);
    } else {
      dense = null;
    }
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
    if (dense != null) {
      // the inner products as SparseVector.dot sums them, then the kernel from them as its column does: the same values
      int n = kx.length;
      x.dotColumns(dense, n, dim, kx, 0, n);
      kernel.fromDots(kx, x.squaredNorm(), norms, 0, n);
    } else {
      kernel.column(x, landmarks, kx);
    }
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
