package org.sodm.data;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class CsvParserTest {
  @Test
  void labelInAnyColumn() throws Exception {
    Row first = new CsvParser(',', 0, 0).parse("1, 0.5, 0, 2");
    assertEquals("1", first.label());
    assertArrayEquals(new int[] {1, 3}, first.features().indices());
    assertArrayEquals(new double[] {0.5, 2}, first.features().values());

    Row last = new CsvParser(',', -1, 0).parse("0.5,0,2,yes");
    assertEquals("yes", last.label());
    assertArrayEquals(new int[] {1, 3}, last.features().indices());

    Row mid = new CsvParser(';', 1, 0).parse("3;-1;4");
    assertEquals("-1", mid.label());
    assertArrayEquals(new int[] {1, 2}, mid.features().indices());
    assertArrayEquals(new double[] {3, 4}, mid.features().values());
  }

  @Test
  void headerDetection() {
    CsvParser p = new CsvParser(',', -1, 0);
    assertTrue(p.looksLikeHeader("b,g,r,class"));
    assertFalse(p.looksLikeHeader("1,2,3,class"));
  }

  @Test
  void rejectsBadRows() {
    CsvParser p = new CsvParser(',', 0, 3);
    assertTrue(assertThrows(RecordException.class, () -> p.parse("1,2")).getMessage().contains("expected 3 columns"));
    assertTrue(assertThrows(RecordException.class, () -> p.parse("1,x,2")).getMessage().contains("column 2"));
    assertTrue(assertThrows(RecordException.class, () -> p.parse("1,NaN,2")).getMessage().contains("NaN"));
    assertTrue(assertThrows(RecordException.class, () -> p.parse(",1,2")).getMessage().contains("missing label"));
    assertTrue(assertThrows(RecordException.class, () -> p.parse("1,,2")).getMessage().contains("column 2 is empty: a missing value"),
        "an empty field is named as such, not as a number it is not");
  }

  @Test
  void raggedRowsAreBadRecordsWhetherTheCountComesFromTheFirstRowOrTheHeader() throws Exception {
    CsvParser p = new CsvParser(',', 0, 0);
    assertNotNull(p.parse("1,0.5,0.25"));
    RecordException missing = assertThrows(RecordException.class, () -> p.parse("0,0.5"));
    assertTrue(missing.getMessage().contains("expected 3 columns (as the first row), found 2"), missing.getMessage());
    assertThrows(RecordException.class, () -> p.parse("0,0.5,0.1,9"), "an extra cell is no new feature");
    CsvParser h = new CsvParser(',', 0, 0);
    h.expectColumnsOf("label,a,b,c");
    RecordException e = assertThrows(RecordException.class, () -> h.parse("1,2,3"));
    assertTrue(e.getMessage().contains("expected 4 columns (as the header)"), e.getMessage());
    assertNotNull(h.parse("1,2,3,4"));
    RecordException col = assertThrows(RecordException.class, () -> new CsvParser(',', 98, 0).parse("1,2,3"));
    assertTrue(col.getMessage().contains("label column 99 does not exist"), "1-based, as the user gave it: " + col.getMessage());
  }

  /**
   * Quoted fields as RFC 4180 writes them and R's write.csv (every string quoted) or a spreadsheet (a field holding the
   * delimiter) produce them: the quotes go, "" inside is one quote, a delimiter inside stays in the field; the rows
   * parse as their unquoted twins. A quote left open or text after a closing quote is a bad record naming the column.
   */
  @Test
  void quotedFields() throws Exception {
    CsvParser p = new CsvParser(',', -1, 0);
    assertEquals(java.util.List.of("a,b", "2", "x \"y\"", "", "z"), p.split("\"a,b\",2, \"x \"\"y\"\"\" ,\"\",z"));
    assertEquals(java.util.List.of("1", "", ""), p.split("1,,"), "unquoted fields as before, empty ones kept");
    assertTrue(p.looksLikeHeader("\"Sepal.Length\",\"Petal.Width\",\"Species\""));
    assertFalse(p.looksLikeHeader("\"5.1\",0.2,\"setosa\""));
    Row quoted = p.parse("\"5.1\", 0.2 ,\"setosa\"");
    Row plain = new CsvParser(',', -1, 0).parse("5.1,0.2,setosa");
    assertEquals(plain.label(), quoted.label());
    assertArrayEquals(plain.features().indices(), quoted.features().indices());
    assertArrayEquals(plain.features().values(), quoted.features().values());
    assertEquals("versicolor, big", p.parse("1,2,\"versicolor, big\"").label(), "a delimiter inside the quotes");
    RecordException open = assertThrows(RecordException.class, () -> p.parse("1,\"2,3"));
    assertTrue(open.getMessage().contains("column 2: a quote opened and not closed on this line (sodm reads a row per line: a field cannot span lines)"), open.getMessage());
    assertEquals("\"2,3", open.offending());
    RecordException after = assertThrows(RecordException.class, () -> p.parse("\"1\"x,2,3"));
    assertTrue(after.getMessage().contains("column 1: text after the closing quote"), after.getMessage());
    CsvParser tabs = new CsvParser('\t', 0, 0);
    assertEquals(java.util.List.of("1", "a\tb", ""), tabs.split("1\t\"a\tb\"\t"), "a tab delimiter is no space to skip");
  }
}
