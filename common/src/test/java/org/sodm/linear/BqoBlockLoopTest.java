package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.sodm.data.SparseVector;

/**
 * {@link BqoBlock#solve}'s coordinate loop (per-row state packed in one array, loads started ahead) gives exactly what the
 * plain loop gives - separate arrays, {@link Csr#dot} and {@link Csr#axpy} - coordinate for coordinate: the same d, the
 * same u, the same passes, bit for bit, with shrinking and its unshrink, squared hinge, the bias feature, unequal class
 * weights, empty rows and a warm alpha.
 */
class BqoBlockLoopTest {

  /** The loop as written before the packing (and as LIBLINEAR writes it). */
  static BqoBlock.Result plain(BqoBlock.Start start, Csr x, double[] y, double[] alpha, SvmLoss loss, BqoBlock.Options opts, long seed) {
    int n = x.rows();
    double bf = loss.biasFeature();
    double tauT = loss.squared() ? 0 : opts.tau();
    double[] g0 = start.g0();
    double[] qd = start.qd();
    double[] d = new double[n];
    double[] u = new double[start.width()];
    int[] order = new int[n];
    for (int i = 0; i < n; i++) order[i] = i;
    SplittableRandom rng = new SplittableRandom(seed);
    int pass = 0;
    int active = n;
    double shrinkAbove = Double.POSITIVE_INFINITY;
    double shrinkBelow = Double.NEGATIVE_INFINITY;
    while (pass < opts.passes()) {
      org.sodm.data.Seeds.shuffle(order, active, rng);
      double maxPg = 0;
      double pgMax = Double.NEGATIVE_INFINITY;
      double pgMin = Double.POSITIVE_INFINITY;
      for (int t = 0; t < active; t++) {
        int i = order[t];
        double yi = y[i];
        double g = g0[i] + yi * x.dot(i, u, bf) + (loss.s(yi) + tauT) * d[i];
        double lo = -alpha[i];
        double hi = loss.upper(yi) - alpha[i];
        double pg = g;
        if (d[i] <= lo) {
          if (g > shrinkAbove) {
            order[t--] = order[--active];
            order[active] = i;
            continue;
          }
          pg = Math.min(g, 0);
        } else if (d[i] >= hi) {
          if (g < shrinkBelow) {
            order[t--] = order[--active];
            order[active] = i;
            continue;
          }
          pg = Math.max(g, 0);
        }
        maxPg = Math.max(maxPg, Math.abs(pg));
        pgMax = Math.max(pgMax, pg);
        pgMin = Math.min(pgMin, pg);
        if (pg != 0) {
          double nd = Math.min(Math.max(d[i] - g / qd[i], lo), hi);
          if (nd != d[i]) {
            x.axpy((nd - d[i]) * yi, i, u, bf);
            d[i] = nd;
          }
        }
      }
      pass++;
      if (maxPg <= opts.innerEps()) {
        if (active == n) break;
        active = n;
        shrinkAbove = Double.POSITIVE_INFINITY;
        shrinkBelow = Double.NEGATIVE_INFINITY;
        continue;
      }
      shrinkAbove = pgMax > 0 ? pgMax : Double.POSITIVE_INFINITY;
      shrinkBelow = pgMin < 0 ? pgMin : Double.NEGATIVE_INFINITY;
    }
    return new BqoBlock.Result(d, u, null, pass);
  }

  @Test
  void packedLoopEqualsThePlainLoopBitForBit() {
    Random r = new Random(3);
    int n = 700;
    int dim = 60;
    SparseVector[] rows = new SparseVector[n];
    double[] y = new double[n];
    double[] truth = new double[dim];
    for (int j = 0; j < dim; j++) truth[j] = r.nextGaussian();
    for (int i = 0; i < n; i++) {
      int nnz = i % 50 == 7 ? 0 : 1 + r.nextInt(12); // some empty rows, the last among them
      java.util.TreeMap<Integer, Double> m = new java.util.TreeMap<>();
      while (m.size() < nnz) m.put(1 + r.nextInt(dim), r.nextGaussian());
      int[] idx = m.keySet().stream().mapToInt(Integer::intValue).toArray();
      double[] val = m.values().stream().mapToDouble(Double::doubleValue).toArray();
      rows[i] = new SparseVector(idx, val);
      double s = 0;
      for (int k = 0; k < idx.length; k++) s += truth[idx[k] - 1] * val[k];
      y[i] = (s + 0.7 * r.nextGaussian() > 0) ? 1 : -1;
    }
    rows[n - 1] = new SparseVector(new int[0], new double[0]);
    Csr x = Csr.of(rows);
    int cases = 0;
    for (boolean squared : new boolean[] {false, true}) {
      for (boolean bias : new boolean[] {false, true}) {
        for (double cNeg : new double[] {1, 3.5}) {
          SvmLoss loss = new SvmLoss(squared, 2, cNeg, bias);
          for (boolean warm : new boolean[] {false, true}) {
            double[] alpha = new double[n];
            if (warm) for (int i = 0; i < n; i++) alpha[i] = i % 3 == 0 ? 0 : Math.min(loss.upper(y[i]), r.nextDouble());
            double[] w = new double[dim + 1];
            for (int i = 0; i < n; i++) {
              if (alpha[i] != 0) x.axpy(alpha[i] * y[i], i, w, loss.biasFeature());
            }
            BqoBlock.Options opts = new BqoBlock.Options(3000, 1e-3, 0.02, 0.1);
            BqoBlock.Start start = BqoBlock.start(x, y, alpha, w, loss, opts);
            BqoBlock.Result want = plain(start, x, y, alpha, loss, opts, 11);
            BqoBlock.Result got = BqoBlock.solve(start, x, y, alpha, loss, opts, 11);
            String what = "squared " + squared + ", bias " + bias + ", C- " + cNeg + ", warm " + warm;
            assertEquals(want.passes(), got.passes(), what);
            assertTrue(got.passes() > 2 && got.passes() < 3000, what + ": shrinking and its unshrink ran (" + got.passes() + " passes)");
            assertArrayEquals(want.d(), got.d(), 0.0, what);
            assertArrayEquals(want.dw(), got.dw(), 0.0, what);
            cases++;
          }
        }
      }
    }
    assertEquals(16, cases);
  }
}
