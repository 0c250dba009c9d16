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
}
