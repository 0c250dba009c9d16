package org.sodm.saddle;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.sodm.data.SparseVector;

class SaddleBadInputTest {
  private static void fails(String expected, Executable e) {
    IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, e);
    assertTrue(ex.getMessage().contains(expected), "message: " + ex.getMessage());
  }

  @Test
  void nuOutsideTheUnitInterval() {
    fails("nu must be in (0, 1], got 0.0", () -> SaddleOptions.nuSvm().withNu(0));
    fails("nu must be in (0, 1], got 1.5", () -> SaddleOptions.nuSvm().withNu(1.5));
    fails("nu must be in (0, 1], got -0.1", () -> SaddleOptions.nuSvm().withNu(-0.1));
    fails("nu applies to nu-SVM only", () -> SaddleOptions.hardMargin().withNu(0.5));
  }

  @Test
  void nuInfeasibleForTheClassSizes() {
    SaddleTestData.Set s = SaddleTestData.overlapping(new Random(1), 40, 3, 1);
    double[] y = s.y().clone();
    for (int i = 0; i < 30; i++) y[i] = -1; // n1 = 5, n2 = 35: nu <= 2 * 5 / 40 = 0.25
    for (int i = 30; i < 35; i++) y[i] = 1;
    for (int i = 35; i < 40; i++) y[i] = -1;
    fails("nu = 0.3 is infeasible for the class sizes: nu-SVM needs nu <= 2 min(n1, n2) / n = 0.25 (n1 = 5 points labelled +1, n2 = 35",
        () -> SaddleSvc.train(s.x(), y, SaddleOptions.nuSvm().withNu(0.3)));
  }

  @Test
  void oneClassOnly() {
    SparseVector[] x = {SparseVector.ofDense(1, 0), SparseVector.ofDense(0, 1)};
    fails("needs points of both classes; all 2 points have label +1", () -> SaddleSvc.train(x, new double[] {1, 1}, SaddleOptions.nuSvm()));
    fails("needs points of both classes; all 2 points have label -1",
        () -> SaddleSvc.train(x, new double[] {-1, -1}, SaddleOptions.hardMargin()));
  }

  @Test
  void otherBadInput() {
    SparseVector[] x = {SparseVector.ofDense(1, 0), SparseVector.ofDense(0, 1)};
    fails("label y[1] = 0.0 is not -1 or +1", () -> SaddleSvc.train(x, new double[] {1, 0}, SaddleOptions.hardMargin()));
    fails("2 rows but 1 labels", () -> SaddleSvc.train(x, new double[] {1}, SaddleOptions.hardMargin()));
    SparseVector[] zeros = {SparseVector.EMPTY, SparseVector.EMPTY};
    fails("every point is zero", () -> SaddleSvc.train(zeros, new double[] {1, -1}, SaddleOptions.hardMargin()));
    fails("the sorting projection rule needs all of eta and xi on one client",
        () -> SaddleOptions.nuSvm().withProjection(SaddleOptions.ProjectionRule.SORTING).withClients(2));
    fails("3 clients for 2 points", () -> SaddleSvc.train(x, new double[] {1, -1}, SaddleOptions.hardMargin().withClients(3)));
    fails("eps must be in (0, 1)", () -> SaddleOptions.hardMargin().withEps(0));
    fails("alpha must be in (0, 1]", () -> SaddleOptions.nuSvm().withAlpha(1.2));
  }
}
