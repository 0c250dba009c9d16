package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BqoSumsTest {
  private static BqoSums random(Random r) {
    double[] a = new double[BqoSums.SIZE];
    for (int k = 0; k < a.length; k++) a[k] = r.nextGaussian() * Math.pow(10, r.nextInt(7) - 3);
    a[10] = Math.abs(a[10]);
    return BqoSums.fromArray(a);
  }

  /** The fold from EMPTY in block order is, bit for bit, the component-wise loop of the array reduction it replaces. */
  @Test
  void foldEqualsTheComponentWiseReduction() {
    Random r = new Random(1);
    for (int rep = 0; rep < 50; rep++) {
      BqoSums acc = BqoSums.EMPTY;
      double[] ref = BqoSums.EMPTY.toArray();
      for (int b = 0; b < 1 + r.nextInt(9); b++) {
        BqoSums part = random(r);
        acc = acc.merge(part);
        double[] p = part.toArray();
        for (int k = 0; k < ref.length; k++) {
          if (k == 8) ref[k] = Math.min(ref[k], p[k]); // minLambda
          else if (k == 10) ref[k] = Math.max(ref[k], p[k]); // violation
          else ref[k] += p[k];
        }
      }
      assertArrayEquals(ref, acc.toArray(), 0.0);
    }
  }

  /** EMPTY is neutral on both sides; merge is associative (exactly on exactly representable sums). */
  @Test
  void mergeIsAssociativeWithNeutralEmpty() {
    Random r = new Random(2);
    for (int rep = 0; rep < 50; rep++) {
      double[][] v = new double[3][BqoSums.SIZE];
      for (double[] a : v) {
        for (int k = 0; k < a.length; k++) a[k] = r.nextInt(2001) - 1000; // integers: exact sums
        a[10] = Math.abs(a[10]); // a violation is >= 0 (EMPTY's 0 is neutral for those)
      }
      BqoSums a = BqoSums.fromArray(v[0]);
      BqoSums b = BqoSums.fromArray(v[1]);
      BqoSums c = BqoSums.fromArray(v[2]);
      assertEquals(a.merge(b).merge(c), a.merge(b.merge(c)));
      assertEquals(a, BqoSums.EMPTY.merge(a));
      assertEquals(a, a.merge(BqoSums.EMPTY));
      assertEquals(Math.min(Math.min(v[0][8], v[1][8]), v[2][8]), a.merge(b).merge(c).minLambda());
      assertEquals(Math.max(Math.max(v[0][10], v[1][10]), v[2][10]), a.merge(b).merge(c).violation());
    }
  }

  @Test
  void arrayRoundTrip() {
    BqoSums s = random(new Random(3));
    assertEquals(s, BqoSums.fromArray(s.toArray()));
    assertEquals(BqoSums.SIZE, s.toArray().length);
    assertThrows(IllegalArgumentException.class, () -> BqoSums.fromArray(new double[11]));
  }
}
