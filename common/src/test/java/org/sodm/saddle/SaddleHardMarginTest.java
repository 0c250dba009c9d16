package org.sodm.saddle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;

class SaddleHardMarginTest {
  private static double[][] dense(SparseVector[] x, int d) {
    double[][] out = new double[x.length][];
    for (int i = 0; i < x.length; i++) out[i] = x[i].toDense(d);
    return out;
  }

  @Test
  void tinySetsMatchTheBruteForceQpToOneInAMillion() {
    for (int seed = 0; seed < 5; seed++) {
      int n = 6 + seed % 3;
      int d = 2 + seed % 2;
      SaddleTestData.Set s = SaddleTestData.separable(new Random(seed), n, d, 0.1);
      HardMarginReference.Qp qp = HardMarginReference.bruteForce(dense(s.x(), d), s.y());
      double exact = qp.distance();
      SaddleResult r = SaddleSvc.train(s.x(), s.y(), SaddleOptions.hardMargin().withEps(1e-6).withMaxIterations(10_000_000));
      SaddleResult.Trial t = r.best();
      String where = "seed " + seed + ": exact " + exact + ", saddle [" + t.hullDistanceLower() + ", " + t.hullDistanceUpper() + "]";
      assertTrue(t.converged(), where);
      // certified bounds bracket the exact distance, and are within 1e-6 of it
      assertTrue(t.hullDistanceLower() <= exact * (1 + 1e-12) && t.hullDistanceUpper() >= exact * (1 - 1e-12), where);
      assertTrue((t.hullDistanceUpper() - t.hullDistanceLower()) / exact <= 1e-6, where);
      // the canonical (1) solution: w and b of the QP; the objective is quadratic around its optimum,
      // so a relative gap of 1e-6 pins w down to about sqrt(1e-6)
      double wNorm = Math.sqrt(SaddleTestData.dot(qp.w(), qp.w()));
      for (int j = 0; j < d; j++) assertEquals(qp.w()[j], r.weights()[j], 3e-3 * wNorm, where + ", w_" + j);
      assertEquals(-qp.b(), r.bias(), 3e-3 * wNorm, where + ", bias");
      // footnote 2's offset agrees at the optimum
      assertEquals(r.bias(), t.hullMidpointBias(), 3e-3 * wNorm, where + ", footnote 2");
      double minMargin = Double.POSITIVE_INFINITY;
      for (int i = 0; i < n; i++) minMargin = Math.min(minMargin, s.y()[i] * (s.x()[i].dot(r.weights()) + r.bias()));
      assertEquals(1, minMargin, 1e-6, where + ": the closest points lie on f = +-1");
    }
  }

  @Test
  void theTransformLeavesTheOptimumUnchanged() {
    for (int seed = 10; seed < 14; seed++) {
      int d = 3;
      SaddleTestData.Set s = SaddleTestData.separable(new Random(seed), 7, d, 0.1);
      Preprocessing pre = Preprocessing.of(d, Preprocessing.maxNorm(s.x()), seed);
      double[][] transformed = new double[s.x().length][];
      for (int i = 0; i < transformed.length; i++) transformed[i] = pre.apply(s.x()[i]);
      double raw = HardMarginReference.bruteForce(dense(s.x(), d), s.y()).distance();
      double viaWd = HardMarginReference.bruteForce(transformed, s.y()).distance() * pre.scale();
      assertEquals(raw, viaWd, 1e-12 * raw, "seed " + seed);
    }
  }

  @Test
  void marginEqualsGilbertsAlgorithm() {
    int n = 200;
    int d = 8;
    SaddleTestData.Set s = SaddleTestData.separable(new Random(21), n, d, 0.1);
    HardMarginReference.Interval g = HardMarginReference.gilbert(dense(s.x(), d), s.y(), 1e-4, 10_000_000);
    SaddleResult r = SaddleSvc.train(s.x(), s.y(), SaddleOptions.hardMargin().withEps(1e-5).withMaxIterations(5_000_000));
    SaddleResult.Trial t = r.best();
    String where = "Gilbert [" + g.lower() + ", " + g.upper() + "] after " + g.iterations() + ", saddle [" + t.hullDistanceLower()
        + ", " + t.hullDistanceUpper() + "] after " + t.iterations();
    assertTrue(t.converged(), where);
    // both are certified intervals around the same distance: they must overlap, and the saddle's is
    // the narrower one (relative gap 1e-5 against Gilbert's 1e-4)
    assertTrue(t.hullDistanceLower() <= g.upper() && g.lower() <= t.hullDistanceUpper(), where);
    assertTrue(t.hullDistanceUpper() - t.hullDistanceLower() <= g.upper() - g.lower(), where);
    for (int i = 0; i < n; i++) assertTrue(s.y()[i] * (s.x()[i].dot(r.weights()) + r.bias()) >= 1 - 1e-4, where + ", row " + i);
  }

  @Test
  void notSeparableDataSaySoWithTheHullDistance() {
    SaddleTestData.Set s = SaddleTestData.overlapping(new Random(5), 400, 4, 0.5);
    NotSeparableException e = assertThrows(NotSeparableException.class,
        () -> SaddleSvc.train(s.x(), s.y(), SaddleOptions.hardMargin().withMaxIterations(200_000)));
    assertTrue(e.certain(), e.getMessage());
    assertTrue(e.hullDistance() <= SaddleOptions.DEFAULT_SEPARATION_TOLERANCE * Preprocessing.maxNorm(s.x()), e.getMessage());
    assertTrue(e.getMessage().contains("not linearly separable"), e.getMessage());
  }

  @Test
  void runningOutOfIterationsBeforeSeparatingIsNotAModel() {
    SaddleTestData.Set s = SaddleTestData.separable(new Random(6), 300, 8, 0.002);
    NotSeparableException e = assertThrows(NotSeparableException.class,
        () -> SaddleSvc.train(s.x(), s.y(), SaddleOptions.hardMargin().withMaxIterations(50).withCheckInterval(10)
            .withSeparationTolerance(0)));
    assertTrue(!e.certain() && e.getMessage().contains("no hyperplane separated"), e.getMessage());
  }
}
