package org.sodm.solver;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link OdmProblem#applyArgmax}'s loop over whole lane groups with the JDK's Vector API (loaded only when the module is
 * present). Every lane computes what the scalar loop computes, operation for operation (a product then a sum, never a fused
 * multiply-add; the float column widened exactly), and the argmax keeps per lane the first position of its largest
 * violation, then takes the largest over the lanes and, among equal ones, the lowest position: the scalar loop's position and
 * value, bit for bit.
 */
final class OdmArgmaxVector {
  private OdmArgmaxVector() {}

  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Float> F = VectorSpecies.of(float.class, VectorShape.forBitSize(S.vectorBitSize() / 2));
  private static final int L = S.length();
  /** zeta's and beta's offsets in a lane group's 2L interleaved variables, and the lanes' offsets from the group's start. */
  private static final int[] ZETA = new int[L];
  private static final int[] BETA = new int[L];
  private static final double[] LANE = new double[L];

  static {
    for (int k = 0; k < L; k++) {
      ZETA[k] = 2 * k;
      BETA[k] = 2 * k + 1;
      LANE[k] = k;
    }
  }

  /** The end of the positions below {@code to} that whole lane groups cover. */
  static int end(int to) {
    return S.loopBound(to);
  }

  /** Lanes per group. */
  static int lanes() {
    return L;
  }

  /**
   * Over [0, end): qg += delta col, and the first position of the largest violation above 0 (-1 if none), its value in
   * best[0]. {@code mcz*} are m c v per class, {@code mc*} m c, {@code tm} theta - 1, {@code tp} theta + 1.
   */
  static int applyArgmax(double[] alpha, double[] qg, double delta, float[] col, int end, double[] best, double[] y,
      double mczPos, double mczNeg, double mcPos, double mcNeg, double tm, double tp) {
    DoubleVector mczP = DoubleVector.broadcast(S, mczPos);
    DoubleVector mczN = DoubleVector.broadcast(S, mczNeg);
    DoubleVector mcP = DoubleVector.broadcast(S, mcPos);
    DoubleVector mcN = DoubleVector.broadcast(S, mcNeg);
    DoubleVector lane = DoubleVector.fromArray(S, LANE, 0);
    DoubleVector bestV = DoubleVector.zero(S);
    DoubleVector bestI = DoubleVector.broadcast(S, -1);
    for (int i = 0; i < end; i += L) {
      DoubleVector c = (DoubleVector) FloatVector.fromArray(F, col, i).convertShape(VectorOperators.F2D, S, 0);
      DoubleVector q = DoubleVector.fromArray(S, qg, i).add(c.mul(delta));
      q.intoArray(qg, i);
      DoubleVector z = DoubleVector.fromArray(S, alpha, 2 * i, ZETA, 0);
      DoubleVector b = DoubleVector.fromArray(S, alpha, 2 * i, BETA, 0);
      VectorMask<Double> positive = DoubleVector.fromArray(S, y, i).compare(VectorOperators.GT, 0);
      DoubleVector gz = q.add(mczN.blend(mczP, positive).mul(z)).add(tm);
      DoubleVector gb = q.neg().add(mcN.blend(mcP, positive).mul(b)).add(tp);
      DoubleVector vz = gz.abs().blend(gz.neg(), z.compare(VectorOperators.LE, 0));
      DoubleVector vb = gb.abs().blend(gb.neg(), b.compare(VectorOperators.LE, 0));
      DoubleVector vv = vb.blend(vz, vz.compare(VectorOperators.GT, vb));
      VectorMask<Double> up = vv.compare(VectorOperators.GT, bestV);
      bestV = bestV.blend(vv, up);
      bestI = bestI.blend(lane.add(i), up);
    }
    double bv = 0;
    int bp = -1;
    for (int k = 0; k < L; k++) {
      double v = bestV.lane(k);
      int p = (int) bestI.lane(k);
      if (v > bv || v == bv && p >= 0 && p < bp) {
        bv = v;
        bp = p;
      }
    }
    best[0] = bv;
    return bp;
  }
}
