package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON files of a run (Jackson): results.json written, train-report.json and metrics.json read. */
class ReportFilesTest {
  @TempDir Path tmp;

  @Test
  void writtenValuesRoundTripAndNonFiniteNumbersBecomeNull() throws Exception {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("s", "a \"quoted\" \\ line\n\ttab é");
    m.put("n", 1.5);
    m.put("i", 3L);
    m.put("neg", -2.5e-7);
    m.put("t", true);
    m.put("z", null);
    m.put("nan", Double.NaN);
    m.put("inf", Double.NEGATIVE_INFINITY);
    m.put("list", Arrays.asList(1.0, null, "x", Double.POSITIVE_INFINITY));
    m.put("nested", List.of(Map.of("k", 1.0), List.of()));
    String text = ReportFiles.write(m);
    assertTrue(text.endsWith("\n"));
    assertFalse(text.contains("NaN") || text.contains("Infinity"), text);
    // strict parsing: the output is standard JSON
    JsonNode back = ReportFiles.parse(text, JsonNode.class);
    assertEquals("a \"quoted\" \\ line\n\ttab é", back.get("s").asText());
    assertEquals(1.5, back.get("n").doubleValue(), 0);
    assertEquals(3, back.get("i").longValue());
    assertTrue(text.contains("\"i\" : 3,"), text);
    assertTrue(ReportFiles.write(Map.of("d", 3089.0)).contains("\"d\" : 3089\n"), "an integral double keeps no fraction");
    assertEquals(-2.5e-7, back.get("neg").doubleValue(), 0);
    assertTrue(back.get("t").booleanValue());
    assertTrue(back.get("z").isNull());
    assertTrue(back.get("nan").isNull());
    assertTrue(back.get("inf").isNull());
    assertEquals(4, back.get("list").size());
    assertEquals(1.0, back.get("list").get(0).doubleValue(), 0);
    assertTrue(back.get("list").get(1).isNull());
    assertEquals("x", back.get("list").get(2).asText());
    assertTrue(back.get("list").get(3).isNull());
    assertEquals(1.0, back.get("nested").get(0).get("k").doubleValue(), 0);
    assertEquals(0, back.get("nested").get(1).size());
  }

  @Test
  void readsTrainReportAndIgnoresFieldsItDoesNotUse() throws Exception {
    Path p = tmp.resolve("train-report.json");
    // as TrainPipeline writes it: more fields than the report uses, null for a missing initial violation
    Files.writeString(p, "{\n  \"levels\": [\n    {\"level\": 2, \"blocks\": 16, \"objective\": -1444.43, \"maxViolation\": 9.98e-04, "
        + "\"maxInitialViolation\": null, \"supportVectors\": 990, \"kernelEvaluations\": 123, \"wallSeconds\": 2.800, "
        + "\"maxBlockMemoryBytes\": 0, \"validationAccuracy\": 0.945000},\n"
        + "    {\"level\": 1, \"blocks\": 4, \"objective\": -1016.76, \"wallSeconds\": 2.6, \"validationAccuracy\": null}\n  ],\n"
        + "  \"blocks\": 4,\n  \"supportVectors\": 657,\n  \"seconds\": 7.912\n}\n");
    ReportFiles.TrainReport r = ReportFiles.read(p, ReportFiles.TrainReport.class);
    assertEquals(4, r.blocks());
    assertEquals(657L, r.supportVectors());
    assertEquals(7.912, r.seconds(), 0);
    assertEquals(2, r.levels().size());
    assertEquals(new ReportFiles.TrainReport.Level(2, 16, -1444.43, 2.8, 0.945), r.levels().get(0));
    assertNull(r.levels().get(1).validationAccuracy());
    assertEquals(-1016.76, r.levels().get(1).objective(), 0);

    // an interrupted run's report without levels: an empty list, not null
    assertEquals(List.of(), ReportFiles.parse("{\"blocks\": 1}", ReportFiles.TrainReport.class).levels());
    assertEquals(0.9623, ReportFiles.parse("{\"n\": 4000, \"accuracy\": 0.9623}", ReportFiles.Metrics.class).accuracy(), 0);
  }

  @Test
  void rejectsMalformedFilesNamingThem() throws Exception {
    assertThrows(JsonProcessingException.class, () -> ReportFiles.parse("{\"accuracy\": 1,}", ReportFiles.Metrics.class));
    assertThrows(JsonProcessingException.class, () -> ReportFiles.parse("{\"accuracy\": NaN}", ReportFiles.Metrics.class));
    assertThrows(JsonProcessingException.class, () -> ReportFiles.parse("{} x", ReportFiles.Metrics.class));
    Path p = tmp.resolve("metrics.json");
    Files.writeString(p, "[1 2]");
    IOException e = assertThrows(IOException.class, () -> ReportFiles.read(p, ReportFiles.Metrics.class));
    assertTrue(e.getMessage().startsWith(p + ": not valid JSON for Metrics"), e.getMessage());
  }
}
