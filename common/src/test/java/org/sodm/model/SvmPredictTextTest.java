package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

/** svm-predict's output lines: C's %g and %.17g (the expected texts printed by C's printf semantics: Python's '%g' % v). */
class SvmPredictTextTest {
  private static final Object[][] PRINTF = {
    {0.0, "0", "0"},
    {-0.0, "-0", "-0"},
    {1.0, "1", "1"},
    {-1.0, "-1", "-1"},
    {0.5, "0.5", "0.5"},
    {0.1, "0.1", "0.10000000000000001"},
    {1e-05, "1e-05", "1.0000000000000001e-05"},
    {0.0001, "0.0001", "0.0001"},
    {0.00012345678, "0.000123457", "0.00012345678000000001"},
    {123456.0, "123456", "123456"},
    {1234567.0, "1.23457e+06", "1234567"},
    {123456.5, "123456", "123456.5"},
    {999999.5, "1e+06", "999999.5"},
    {9.9999995, "10", "9.9999994999999995"},
    {2.5e-300, "2.5e-300", "2.5e-300"},
    {1e+100, "1e+100", "1e+100"},
    {-3.75, "-3.75", "-3.75"},
    {0.30000000000000004, "0.3", "0.30000000000000004"},
    {1.7976931348623157e+308, "1.79769e+308", "1.7976931348623157e+308"},
    {5e-324, "4.94066e-324", "4.9406564584124654e-324"},
    {100.0, "100", "100"},
    {9.9999996e-05, "0.0001", "9.9999995999999994e-05"},
    {0.125, "0.125", "0.125"},
    {0.00167039, "0.00167039", "0.0016703899999999999"},
    {1.0 / 3, "0.333333", "0.33333333333333331"},
    {2.0 / 3, "0.666667", "0.66666666666666663"},
    {3.3333333333333334e-301, "3.33333e-301", "3.3333333333333334e-301"},
    {0.9999995, "1", "0.99999950000000004"},
    {0.99999949999999, "0.999999", "0.99999949999999005"},
  };

  @Test
  void formatsAsCsPrintf() {
    for (Object[] row : PRINTF) {
      double v = (Double) row[0];
      assertEquals(row[1], SvmPredictText.g(v, 6), "%g of " + v);
      assertEquals(row[2], SvmPredictText.g(v, 17), "%.17g of " + v);
    }
    assertEquals("nan", SvmPredictText.g(Double.NaN, 6));
    assertEquals("-inf", SvmPredictText.g(Double.NEGATIVE_INFINITY, 17));
  }

  @Test
  void labelsPrintAsLibsvmPrintsItsNumbers() {
    assertEquals("1", SvmPredictText.line("+1", null));
    assertEquals("-1", SvmPredictText.line("-1", null));
    assertEquals("2", SvmPredictText.line("2.0", null));
    assertEquals("0.5", SvmPredictText.line("0.5", null), "a fractional label keeps its value");
    assertEquals("1000000", SvmPredictText.line("1e6", null), "%.17g");
    assertEquals("1e+06 0.25 0.75", SvmPredictText.line("1e6", new double[] {0.25, 0.75}), "%g with probabilities");
    assertEquals("spam", SvmPredictText.line("spam", null), "not a number: as it is");
    assertEquals("NaN", SvmPredictText.line("NaN", null));
    assertEquals("Infinity", SvmPredictText.line("Infinity", null));
    assertEquals("labels 1 -1 7 spam", SvmPredictText.header(List.of("+1", "-1", "7.0", "spam")));
    assertEquals("3 0.1 0.3 0.6", SvmPredictText.line("3", new double[] {0.1, 0.3, 0.6}));
  }
}
