package org.sodm.partition;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;

class StratumAssignerTest {

  /** argmin_s ||phi(x) - phi(z_s)||^2 = k(x,x) + k(z,z) - 2 k(x,z), first minimum. */
  private static int reference(SparseVector x, SparseVector[] z, KernelSpec spec) {
    int best = -1;
    double bv = Double.POSITIVE_INFINITY;
    for (int s = 0; s < z.length; s++) {
      double d = spec.evalReference(x, x) + spec.evalReference(z[s], z[s]) - 2 * spec.evalReference(x, z[s]);
      if (d < bv) {
        bv = d;
        best = s;
      }
    }
    return best;
  }

  /** For RBF and linear kernels the RKHS-nearest landmark is the Euclidean-nearest one. */
  private static int euclidean(SparseVector x, SparseVector[] z) {
    int best = -1;
    double bv = Double.POSITIVE_INFINITY;
    double[] xd = x.toDense(10);
    for (int s = 0; s < z.length; s++) {
      double[] zd = z[s].toDense(10);
      double d = 0;
      for (int f = 0; f < 10; f++) d += (xd[f] - zd[f]) * (xd[f] - zd[f]);
      if (d < bv) {
        bv = d;
        best = s;
      }
    }
    return best;
  }

  @Test
  void equalsDirectRkhsDistance() {
    SparseVector[] x = TestData.random(300, 5, 1);
    SparseVector[] z = TestData.random(17, 5, 2);
    for (KernelSpec spec : new KernelSpec[] {KernelSpec.rbf(0.7), KernelSpec.linear(),
        KernelSpec.poly(0.3, 1, 3), KernelSpec.rbf(0.05)}) {
      StratumAssigner a = new StratumAssigner(spec.create(), z);
      int[] all = a.assignAll(x);
      for (int i = 0; i < x.length; i++) {
        assertEquals(reference(x[i], z, spec), a.assign(x[i]), spec + " row " + i);
        assertEquals(all[i], a.assign(x[i]));
        if (spec.type() != KernelSpec.Type.POLY) assertEquals(euclidean(x[i], z), all[i]);
      }
    }
  }

  @Test
  void tiesGoToLowestStratum() {
    SparseVector z = SparseVector.ofDense(1, 2);
    SparseVector[] lm = {SparseVector.ofDense(5, 5), z, z, SparseVector.ofDense(1, 2.0000001)};
    StratumAssigner a = new StratumAssigner(KernelSpec.rbf(0.5).create(), lm);
    assertEquals(1, a.assign(SparseVector.ofDense(1, 2)));
    assertEquals(1, a.assign(SparseVector.ofDense(1, 1.9)));
    assertEquals(4, a.strata());
  }

  /** The strata from the kernel's own column (the definition the dense copy replaces): k(z,z) - 2 k(x,z), first minimum. */
  private static int byColumn(org.sodm.kernel.Kernel k, SparseVector x, SparseVector[] z) {
    double[] kx = new double[z.length];
    k.column(x, z, kx);
    int best = 0;
    double bv = k.self(z[0]) - 2 * kx[0];
    for (int s = 1; s < z.length; s++) {
      double v = k.self(z[s]) - 2 * kx[s];
      if (v < bv) {
        bv = v;
        best = s;
      }
    }
    return best;
  }

  /**
   * The landmarks' dense copy gives the strata of the kernel's column for every row, sparse rows with features the landmarks
   * lack and beyond their last, empty rows, rows equal to a landmark, and duplicate landmarks (ties); and landmarks too
   * wide for the copy take the column path.
   */
  @Test
  void theDenseCopyGivesTheStrataOfTheKernelsColumn() {
    java.util.Random r = new java.util.Random(11);
    SparseVector[] z = new SparseVector[64];
    for (int s = 0; s < z.length; s++) z[s] = s % 9 == 8 ? z[s - 3] : sparse(r, 30, 0.3);
    SparseVector[] x = new SparseVector[2000];
    for (int i = 0; i < x.length; i++) x[i] = i % 50 == 0 ? SparseVector.EMPTY : i % 7 == 0 ? z[i % z.length] : sparse(r, 36, 0.3);
    for (KernelSpec spec : new KernelSpec[] {KernelSpec.rbf(0.7), KernelSpec.rbf(0.02), KernelSpec.linear(),
        KernelSpec.poly(0.3, 1, 3), KernelSpec.sigmoid(0.05, -0.5)}) {
      org.sodm.kernel.Kernel k = spec.create();
      StratumAssigner a = new StratumAssigner(k, z);
      for (int i = 0; i < x.length; i++) assertEquals(byColumn(k, x[i], z), a.assign(x[i]), spec + " row " + i);
    }
    SparseVector[] wide = new SparseVector[64];
    for (int s = 0; s < wide.length; s++) wide[s] = sparse(r, (StratumAssigner.DENSE_DOUBLES / 64) + 10, 0.001);
    org.sodm.kernel.Kernel k = KernelSpec.rbf(0.5).create();
    StratumAssigner a = new StratumAssigner(k, wide);
    for (int i = 0; i < 50; i++) {
      SparseVector xi = i % 2 == 0 ? wide[i] : sparse(r, StratumAssigner.DENSE_DOUBLES / 64, 0.001);
      assertEquals(byColumn(k, xi, wide), a.assign(xi), "wide row " + i);
    }
  }

  private static SparseVector sparse(java.util.Random r, int dim, double density) {
    double[] d = new double[dim];
    for (int f = 0; f < dim; f++) if (r.nextDouble() < density) d[f] = r.nextDouble() * 2 - 1;
    return SparseVector.ofDense(d);
  }
}
