package org.sodm.saddle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;

class HadamardTest {
  /** The Sylvester Walsh-Hadamard matrix entry, normalised: (-1)^popcount(i & j) / sqrt(d). */
  private static double entry(int i, int j, int d) {
    return (Integer.bitCount(i & j) % 2 == 0 ? 1 : -1) / Math.sqrt(d);
  }

  @Test
  void fastTransformEqualsTheMatrixProduct() {
    Random r = new Random(7);
    for (int d = 1; d <= 256; d <<= 1) {
      double[] v = new double[d];
      for (int j = 0; j < d; j++) v[j] = r.nextGaussian();
      double[] naive = new double[d];
      for (int i = 0; i < d; i++) {
        for (int j = 0; j < d; j++) naive[i] += entry(i, j, d) * v[j];
      }
      double[] fast = v.clone();
      Hadamard.transform(fast);
      for (int i = 0; i < d; i++) assertEquals(naive[i], fast[i], 1e-12, "d = " + d + ", entry " + i);
    }
  }

  @Test
  void transformIsOrthogonalAndItsOwnInverse() {
    Random r = new Random(8);
    double[] v = new double[64];
    for (int j = 0; j < v.length; j++) v[j] = r.nextGaussian();
    double[] t = v.clone();
    Hadamard.transform(t);
    assertEquals(norm(v), norm(t), 1e-12);
    Hadamard.transform(t);
    for (int j = 0; j < v.length; j++) assertEquals(v[j], t[j], 1e-12);
  }

  @Test
  void paddingAndBadLengths() {
    assertEquals(1, Hadamard.paddedLength(1));
    assertEquals(4, Hadamard.paddedLength(3));
    assertEquals(4, Hadamard.paddedLength(4));
    assertEquals(128, Hadamard.paddedLength(112));
    assertThrows(IllegalArgumentException.class, () -> Hadamard.transform(new double[6]));
  }

  @Test
  void preprocessingKeepsDistancesUpToTheScaleAndMapsBackByTheAdjoint() {
    Random r = new Random(9);
    int dim = 13;
    SparseVector[] x = new SparseVector[20];
    for (int i = 0; i < x.length; i++) {
      double[] p = new double[dim];
      for (int j = 0; j < dim; j++) p[j] = r.nextDouble() < 0.5 ? 0 : 3 * r.nextGaussian();
      x[i] = SparseVector.ofDense(p);
    }
    Preprocessing pre = Preprocessing.of(Preprocessing.inputDimension(x), Preprocessing.maxNorm(x), 5);
    assertEquals(16, pre.dimension());
    double maxTransformed = 0;
    for (int i = 0; i < x.length; i++) {
      double[] a = pre.apply(x[i]);
      maxTransformed = Math.max(maxTransformed, norm(a));
      assertEquals(Math.sqrt(x[i].squaredNorm()) / pre.scale(), norm(a), 1e-12);
      for (int k = 0; k < i; k++) {
        double[] b = pre.apply(x[k]);
        double dd = 0;
        for (int j = 0; j < a.length; j++) dd += (a[j] - b[j]) * (a[j] - b[j]);
        assertEquals(Math.sqrt(x[i].squaredDistance(x[k])) / pre.scale(), Math.sqrt(dd), 1e-12);
      }
    }
    assertEquals(1, maxTransformed, 1e-12);
    // <w, W D x / s> = <(W D)^T w / s, x>
    double[] w = new double[pre.dimension()];
    for (int j = 0; j < w.length; j++) w[j] = r.nextGaussian();
    double[] back = pre.toInputSpace(w);
    for (SparseVector v : x) assertEquals(SaddleTestData.dot(w, pre.apply(v)), v.dot(back), 1e-12);
  }

  @Test
  void signsComeFromTheSeed() {
    SparseVector e1 = SparseVector.ofDense(1, 0, 0, 0);
    double[] a = Preprocessing.of(4, 1, 3).apply(e1);
    double[] b = Preprocessing.of(4, 1, 3).apply(e1);
    assertEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(b));
  }

  private static double norm(double[] v) {
    return Math.sqrt(SaddleTestData.dot(v, v));
  }
}
