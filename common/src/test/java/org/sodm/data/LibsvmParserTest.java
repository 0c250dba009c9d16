package org.sodm.data;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LibsvmParserTest {
  private final LibsvmParser p = new LibsvmParser();

  @Test
  void parsesLabelAndFeatures() throws Exception {
    Row r = p.parse("+1 1:0.5 3:-2 10:1e-3  # comment");
    assertEquals("1", r.label());
    assertArrayEquals(new int[] {1, 3, 10}, r.features().indices());
    assertArrayEquals(new double[] {0.5, -2, 1e-3}, r.features().values());
    assertEquals(0.25 + 4 + 1e-6, r.features().squaredNorm(), 1e-15);
  }

  @Test
  void dropsExplicitZerosAndAcceptsTabs() throws Exception {
    Row r = p.parse("0\t1:0\t2:7");
    assertEquals("0", r.label());
    assertArrayEquals(new int[] {2}, r.features().indices());
  }

  @Test
  void labelOnlyLineHasNoFeatures() throws Exception {
    Row r = p.parse("-1.0");
    assertEquals("-1", r.label());
    assertEquals(0, r.features().nnz());
  }

  @Test
  void blankAndCommentLinesAreSkipped() throws Exception {
    assertNull(p.parse("   "));
    assertNull(p.parse("# just a comment"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "1 0:1|feature index must be >= 1|0:1",
      "1 -3:1|feature index must be >= 1|-3:1",
      "1 3:1 2:1|feature indices must ascend|2:1",
      "1 3:1 3:2|feature indices must ascend|3:2",
      "1 2:nan|NaN or infinite|2:nan",
      "1 2:Infinity|NaN or infinite|2:Infinity",
      "1 2:abc|not a number|2:abc",
      "1 x:1|not an integer|x:1",
      "1 2|not index:value|2",
      "3:1 4:2|missing label|3:1",
      "abc 1:1|label is not a number|abc",
      "nan 1:1|bad label|nan",
  })
  void rejectsMalformedLines(String line, String message, String offending) {
    RecordException e = assertThrows(RecordException.class, () -> p.parse(line));
    assertTrue(e.getMessage().contains(message), e.getMessage());
    assertEquals(offending, e.offending());
    String d = e.describe("data.txt", 17);
    assertTrue(d.startsWith("data.txt:17: "), d);
    assertTrue(d.contains("'" + offending + "'"), d);
  }

  @Test
  void canonicalLabels() {
    assertEquals("1", Labels.canonical("+1"));
    assertEquals("1", Labels.canonical("1.0"));
    assertEquals("-1", Labels.canonical("-1.000"));
    assertEquals("2", Labels.canonical("2e0"));
    assertEquals("0.5", Labels.canonical("0.5"));
    assertEquals("yes", Labels.canonical(" yes "));
    assertTrue(Labels.ORDER.compare("2", "10") < 0, "numeric, not lexicographic");
    assertTrue(Labels.ORDER.compare("-1", "1") < 0);
  }

  @Test
  void labelMapSmallerIsNegative() {
    LabelMap m = LabelMap.of(java.util.List.of("2", "1"));
    assertEquals(-1.0, m.signed("1"));
    assertEquals(1.0, m.signed("2"));
    assertEquals("2", m.original(0.3));
    assertEquals("1", m.original(-0.3));
    assertThrows(IllegalArgumentException.class, () -> m.signed("3"));
    assertThrows(IllegalArgumentException.class, () -> LabelMap.of(java.util.List.of("1", "2", "3")));
  }
}
