package org.sodm.data;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The byte parser gives exactly what the String parser gives: the same doubles, bit for bit, and the same errors. */
class LibsvmParserBytesTest {
  private static final String[] VALUES = {
    "0.5", "-2", "1e-3", "+1.5", ".5", "5.", "1E5", "1e-320", "4.9e-324", "1e400", "-1e400", "0x1p3", "nan", "-inf",
    "1.5d", "2f", "1234567890123456789012345", "0.1234567890123456789012", "-0", "0.0", "000123.4500",
    "9007199254740993", "9007199254740992", "1e22", "1e23", "1e-22", "1e-23", "3.14159e+00", "1e", "1e+", ".", "-",
    "1..2", "1e5.5", "12345678901234567890", "0.30000000000000004", "179769313486231570000000000000000000000e270"};
  private static final String[] INDICES = {"1", "2", "+3", "04", "0", "-1", "x", "99999999999", "2147483647", "2147483648"};
  private static final String[] LABELS = {"+1", "-1", "1.0", "0", "a", "nan", "1:2", "+", "1e0", "-1.000"};

  private static void same(String line) {
    LibsvmParser s = new LibsvmParser();
    LibsvmParser b = new LibsvmParser();
    byte[] bytes = ("xx" + line + "yy").getBytes(StandardCharsets.UTF_8);
    int len = line.getBytes(StandardCharsets.UTF_8).length;
    Row want;
    try {
      want = s.parse(line);
    } catch (RecordException e) {
      RecordException got = assertThrows(RecordException.class, () -> b.parse(bytes, 2, len), line);
      assertEquals(e.getMessage(), got.getMessage(), line);
      assertEquals(e.offending(), got.offending(), line);
      return;
    }
    Row got;
    try {
      got = b.parse(bytes, 2, len);
    } catch (RecordException e) {
      throw new AssertionError(line + ": " + e.getMessage());
    }
    if (want == null) {
      assertNull(got, line);
      return;
    }
    assertEquals(want.label(), got.label(), line);
    assertArrayEquals(want.features().indices(), got.features().indices(), line);
    double[] w = want.features().values();
    double[] g = got.features().values();
    assertEquals(w.length, g.length, line);
    for (int i = 0; i < w.length; i++) {
      assertEquals(Double.doubleToRawLongBits(w[i]), Double.doubleToRawLongBits(g[i]), line + " value " + i);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "# c", "+1 1:0.5 3:-2 10:1e-3  # comment", "0\t1:0\t2:7", "-1.0", "1 2:1 1:1",
      "1 1:1 1:2", "1 1:1:1", "1 a:1", "1 1:", "1 :1", "1 1:1\u00a02:3", "1 1:1\u20032:3", "é 1:1", "1 1:1 \r",
      "1\u001f1:2", "1 1:2x 3:4", "1 1 2", "2:1 3:1"})
  void edgeCases(String line) {
    same(line);
  }

  @Test
  void everyValueIndexAndLabel() {
    for (String v : VALUES) same("1 1:" + v + " 5:2");
    for (String i : INDICES) same("1 " + i + ":2.5");
    for (String l : LABELS) same(l + " 1:2");
  }

  @Test
  void randomLinesAndNumbers() {
    Random r = new Random(1);
    for (int t = 0; t < 20000; t++) {
      StringBuilder sb = new StringBuilder(LABELS[r.nextInt(4)]);
      int idx = 0;
      int n = r.nextInt(12);
      for (int j = 0; j < n; j++) {
        idx += 1 + r.nextInt(r.nextInt(50) == 0 ? 1 : 1000);
        if (r.nextInt(200) == 0) idx -= 2;
        double x = switch (r.nextInt(4)) {
          case 0 -> r.nextGaussian();
          case 1 -> r.nextGaussian() * Math.pow(10, r.nextInt(60) - 30);
          case 2 -> Double.longBitsToDouble(r.nextLong());
          default -> r.nextInt(1000) - 500;
        };
        String v = switch (r.nextInt(5)) {
          case 0 -> Double.toString(x);
          case 1 -> String.format(Locale.ROOT, "%.6g", x);
          case 2 -> String.format(Locale.ROOT, "%." + r.nextInt(25) + "e", x);
          case 3 -> String.format(Locale.ROOT, "%." + r.nextInt(20) + "f", x);
          default -> r.nextInt(30) == 0 ? VALUES[r.nextInt(VALUES.length)] : Long.toString((long) x);
        };
        sb.append(r.nextInt(10) == 0 ? "\t" : " ").append(idx).append(':').append(v);
      }
      if (r.nextInt(20) == 0) sb.append(" # tail");
      same(sb.toString());
    }
  }
}
