package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void roundTrip() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("s", "a \"quoted\" \\ line\n\ttab");
    m.put("n", 1.5);
    m.put("i", 3L);
    m.put("neg", -2.5e-7);
    m.put("t", true);
    m.put("z", null);
    m.put("nan", Double.NaN);
    m.put("list", Arrays.asList(1.0, null, "x"));
    m.put("nested", List.of(Map.of("k", 1.0), List.of()));
    Map<String, Object> back = Json.parseObject(Json.write(m));
    assertEquals("a \"quoted\" \\ line\n\ttab", back.get("s"));
    assertEquals(1.5, back.get("n"));
    assertEquals(3.0, back.get("i"));
    assertEquals(-2.5e-7, back.get("neg"));
    assertEquals(true, back.get("t"));
    assertEquals(null, back.get("z"));
    assertEquals(null, back.get("nan")); // not representable in JSON
    assertEquals(Arrays.asList(1.0, null, "x"), back.get("list"));
    assertEquals(List.of(Map.of("k", 1.0), List.of()), back.get("nested"));
  }

  @Test
  void readsTrainReport() {
    Map<String, Object> r = Json.parseObject("{\n  \"levels\": [\n    {\"level\": 2, \"validationAccuracy\": 0.945000}\n  ],\n"
        + "  \"blocks\": 4,\n  \"seconds\": 7.912, \"u\": \"\\u00e9\"\n}\n");
    assertEquals(4.0, r.get("blocks"));
    assertEquals(0.945, Json.num(Json.obj(Json.arr(r.get("levels")).get(0)).get("validationAccuracy")));
    assertEquals("é", r.get("u"));
  }

  @Test
  void rejectsMalformed() {
    assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\": 1,}"));
    assertThrows(IllegalArgumentException.class, () -> Json.parse("[1 2]"));
    assertThrows(IllegalArgumentException.class, () -> Json.parse("{} x"));
  }
}
