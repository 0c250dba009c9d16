package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;

/** CSR rows give exactly what the per-row {@link Vectors} operations give, including features beyond w's dimension. */
class CsrTest {
  @Test
  void dotAxpyAndNormsEqualThePerRowOperations() {
    Random r = new Random(5);
    int n = 300;
    int dim = 40;
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      double[] dense = new double[dim + 5]; // some rows reach beyond dim: dot ignores them
      for (int f = 0; f < dense.length; f++) if (r.nextDouble() < 0.2) dense[f] = r.nextGaussian();
      if (i % 7 != 0) for (int f = dim; f < dense.length; f++) dense[f] = 0;
      x[i] = SparseVector.ofDense(dense);
    }
    Csr c = Csr.of(x);
    assertEquals(n, c.rows());
    double[] w = new double[dim + 1];
    for (int f = 0; f <= dim; f++) w[f] = r.nextGaussian();
    for (double bf : new double[] {0, 1}) {
      for (int i = 0; i < n; i++) {
        assertEquals(Vectors.dot(x[i], w, bf), c.dot(i, w, bf), 0.0, "row " + i);
        assertEquals(x[i].squaredNorm(), c.squaredNorm[i], 0.0);
        if (x[i].maxIndex() <= dim) {
          double[] a = w.clone();
          double[] b = w.clone();
          Vectors.axpy(0.37, x[i], a, bf);
          c.axpy(0.37, i, b, bf);
          assertArrayEquals(a, b, 0.0);
        } else {
          int row = i;
          assertThrows(IllegalArgumentException.class, () -> c.axpy(1, row, w.clone(), 1));
        }
      }
    }
  }
}
