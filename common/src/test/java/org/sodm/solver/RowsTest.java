package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

class RowsTest {
  static SparseVector random(Random r, int d, double p) {
    double[] v = new double[d];
    for (int f = 0; f < d; f++) if (r.nextDouble() < p) v[f] = r.nextGaussian();
    return SparseVector.ofDense(v);
  }

  /**
   * Sparse high-dimensional rows (5,000 features, ~15 a row): a column over the whole range comes from the rows' feature
   * index, a column over a few positions from the scattered row; either way every entry is bit for bit the kernel of the
   * two vectors' merged dot product, also after the positions were permuted (as shrinking swaps them).
   */
  @Test
  void kernelRowsThroughTheFeatureIndexAreTheKernelOfTheSparseDotProducts() {
    Random r = new Random(11);
    int n = 400;
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) x[i] = random(r, 5000, 0.003);
    for (KernelSpec ks : new KernelSpec[] {KernelSpec.rbf(0.3), KernelSpec.poly(0.5, 1, 3), KernelSpec.linear()}) {
      Kernel k = ks.create();
      Rows rows = new Rows(k, x, true);
      assertFalse(rows.dense);
      double[] out = new double[n];
      for (int round = 0; round < 4; round++) {
        for (int t = 0; t < 30; t++) rows.swap(r.nextInt(n), r.nextInt(n));
        for (int p = 0; p < n; p += 37) {
          long before = rows.indexedColumns;
          rows.kernelRow(p, 0, n, out);
          assertEquals(before + 1, rows.indexedColumns, "the whole range through the index");
          rows.kernelRow(p, 100, 110, out); // 10 positions: fewer non-zeros than the index's n + matches
          assertEquals(before + 1, rows.indexedColumns, "a short range by the scattered row");
          for (int j = 0; j < n; j++) {
            SparseVector a = rows.vector(p);
            SparseVector b = rows.vector(j);
            double want = k.fromDot(a.dot(b), a.squaredNorm(), b.squaredNorm());
            if (j >= 100 && j < 110) assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(out[j]), ks + " short " + p + "," + j);
          }
          rows.kernelRow(p, 0, n, out);
          for (int j = 0; j < n; j++) {
            SparseVector a = rows.vector(p);
            SparseVector b = rows.vector(j);
            double want = k.fromDot(a.dot(b), a.squaredNorm(), b.squaredNorm());
            assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(out[j]), ks + " round " + round + " " + p + "," + j);
          }
        }
      }
    }
  }

  /**
   * The scattered row's inner products, computed {@link Rows#INTERLEAVE} rows side by side: every entry bit for bit the
   * merged dot product (each row's sum in its own order), for rows of 0 to 40 non-zeros in any mix (so that the shortest of
   * a group ends before the others), ranges that start anywhere and are not multiples of the group, entries outside the
   * range untouched.
   */
  @Test
  void scatteredDotsAreTheMergedDotProducts() {
    Random r = new Random(29);
    int d = 60;
    SparseVector[] x = new SparseVector[203];
    for (int i = 0; i < x.length; i++) x[i] = i % 17 == 5 ? SparseVector.EMPTY : sparse(r, d, r.nextInt(40) / (double) d);
    for (int p : new int[] {0, 5, 77, 202}) {
      double[] b = new double[d + 1];
      SparseVector a = x[p];
      for (int k = 0; k < a.nnz(); k++) b[a.indices()[k]] = a.values()[k];
      for (int[] range : new int[][] {{0, x.length}, {3, 3 + Rows.INTERLEAVE}, {1, 2 * Rows.INTERLEAVE + 6}, {190, 203},
          {40, 40}}) {
        double[] out = new double[x.length];
        java.util.Arrays.fill(out, -7.0);
        Rows.scatteredDots(b, x, range[0], range[1], out);
        for (int j = 0; j < x.length; j++) {
          double want = j >= range[0] && j < range[1] ? a.dot(x[j]) : -7.0;
          assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(out[j]), p + " [" + range[0] + ", " + range[1] + ") " + j);
        }
      }
    }
  }

  /** Low-dimensional rows take the dense copy and never the index. */
  @Test
  void lowDimensionalRowsUseTheDenseCopy() {
    Random r = new Random(3);
    SparseVector[] x = new SparseVector[200];
    for (int i = 0; i < x.length; i++) x[i] = random(r, 20, 0.5);
    Rows rows = new Rows(KernelSpec.rbf(1).create(), x, true);
    assertTrue(rows.dense);
    rows.kernelRow(0, 0, x.length, new double[x.length]);
    assertEquals(0, rows.indexedColumns);
  }

  /** About d p non-zeros at distinct random features (without drawing all d). */
  private static SparseVector sparse(Random r, int d, double p) {
    java.util.TreeMap<Integer, Double> v = new java.util.TreeMap<>();
    int want = Math.max(1, (int) Math.round(d * p));
    while (v.size() < want) v.put(1 + r.nextInt(d), r.nextGaussian());
    return new SparseVector(v.keySet().stream().mapToInt(Integer::intValue).toArray(),
        v.values().stream().mapToDouble(Double::doubleValue).toArray());
  }

  /**
   * Columns computed by several threads ({@link Rows#kernelRow}'s parts) are bit for bit the one-thread columns and the kernel
   * of the two vectors' dot product, on every path - the dense copy, the feature index, the scattered row, a kernel that is
   * not dot-based - over the whole range and over ranges that start past 0 (as shrinking leaves them), after swaps.
   */
  @Test
  void columnsComputedByThreadsAreTheOneThreadColumns() {
    Random r = new Random(5);
    Kernel pairwise = new Kernel() { // not dot-based: evaluated pair by pair
      @Override
      public double eval(SparseVector a, SparseVector b) {
        return Math.exp(-0.1 * Math.sqrt(Math.max(0, a.squaredNorm() + b.squaredNorm() - 2 * a.dot(b))));
      }

      @Override
      public KernelSpec spec() {
        return KernelSpec.rbf(0.1);
      }
    };
    record Case(String name, int n, int d, double p, Kernel k, int from, int to) {}
    Case[] cases = {
        new Case("dense copy", 9_000, 6, 1.0, KernelSpec.rbf(0.5).create(), 1_000, 9_000),
        new Case("feature index", 9_000, 20_000, 0.001, KernelSpec.rbf(0.5).create(), 1_000, 9_000),
        new Case("scattered row", 4_000, 2_000, 0.2, KernelSpec.poly(0.01, 1, 2).create(), 500, 1_200),
        new Case("pair by pair", 3_000, 100, 0.5, pairwise, 1_000, 3_000)};
    for (Case c : cases) {
      SparseVector[] x = new SparseVector[c.n()];
      for (int i = 0; i < x.length; i++) x[i] = sparse(r, c.d(), c.p());
      Rows one = new Rows(c.k(), x, true, 1);
      Rows three = new Rows(c.k(), x, true, 3);
      assertEquals(c.name().equals("dense copy"), three.dense, c.name());
      double[] a = new double[c.n()];
      double[] b = new double[c.n()];
      for (int round = 0; round < 2; round++) {
        for (int t = 0; t < 50; t++) {
          int i = r.nextInt(c.n());
          int j = r.nextInt(c.n());
          one.swap(i, j);
          three.swap(i, j);
        }
        for (int p = 0; p < c.n(); p += c.n() / 5) {
          for (int[] range : new int[][] {{0, c.n()}, {c.from(), c.to()}}) {
            long parallel = three.parallelColumns;
            long indexed = three.indexedColumns;
            java.util.Arrays.fill(a, Double.NaN);
            java.util.Arrays.fill(b, Double.NaN);
            one.kernelRow(p, range[0], range[1], a);
            three.kernelRow(p, range[0], range[1], b);
            assertEquals(parallel + 1, three.parallelColumns, c.name() + ": computed in parts");
            if (c.name().equals("scattered row") && range[0] > 0) assertEquals(indexed, three.indexedColumns, "not by the index");
            if (c.name().equals("feature index")) assertEquals(indexed + 1, three.indexedColumns, "by the index");
            for (int j = 0; j < c.n(); j++) {
              if (j < range[0] || j >= range[1]) {
                assertTrue(Double.isNaN(b[j]), c.name() + ": position " + j + " outside the range was written");
                continue;
              }
              SparseVector u = three.vector(p);
              SparseVector v = three.vector(j);
              double want = c.k().dotBased() ? c.k().fromDot(u.dot(v), u.squaredNorm(), v.squaredNorm()) : c.k().eval(u, v);
              assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(b[j]), c.name() + " " + p + "," + j);
              assertEquals(Double.doubleToLongBits(a[j]), Double.doubleToLongBits(b[j]), c.name() + " " + p + "," + j);
            }
          }
        }
      }
      assertEquals(0, one.parallelColumns, "one thread: never in parts");
    }
  }
}
