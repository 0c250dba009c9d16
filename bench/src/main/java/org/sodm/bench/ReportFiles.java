package org.sodm.bench;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The JSON files of a run, with Jackson: {@code train-report.json} (written by {@code sodm train})
 * and {@code metrics.json} (by {@code sodm predict}) read into records that ignore fields they do not
 * name, and {@code results.json} written with NaN and infinities as {@code null} (JSON has no such
 * numbers: a median over no successful run is NaN) and integral numbers without a fraction.
 */
public final class ReportFiles {
  private ReportFiles() {}

  /** What the report uses of {@code train-report.json}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record TrainReport(List<Level> levels, Integer blocks, Long supportVectors, Double seconds) {
    public TrainReport {
      levels = levels == null ? List.of() : levels;
    }

    /** One level of the merge tree as reported. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Level(int level, int blocks, Double objective, Double wallSeconds, Double validationAccuracy) {}
  }

  /** What the report uses of {@code metrics.json}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Metrics(Double accuracy) {}

  /** Writes non-finite doubles as null and integral ones without a fraction. */
  private static final class FiniteOrNull extends StdSerializer<Double> {
    FiniteOrNull() {
      super(Double.class);
    }

    @Override
    public void serialize(Double v, JsonGenerator g, SerializerProvider p) throws IOException {
      if (!Double.isFinite(v)) g.writeNull();
      else if (v == Math.rint(v) && Math.abs(v) < 1e15) g.writeNumber(v.longValue()); // 3089, not 3089.0
      else g.writeNumber(v);
    }
  }

  /** Strict reading (no trailing content, no NaN literals), indented writing. */
  static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(SerializationFeature.INDENT_OUTPUT)
      .addModule(new SimpleModule("finite-or-null").addSerializer(Double.class, new FiniteOrNull())
          .addSerializer(Double.TYPE, new FiniteOrNull()))
      .build();

  /** Reads a JSON file into {@code type}; a malformed file fails with its path and Jackson's reason. */
  public static <T> T read(Path p, Class<T> type) throws IOException {
    try {
      return parse(Files.readString(p, StandardCharsets.UTF_8), type);
    } catch (JsonProcessingException e) {
      throw new IOException(p + ": not valid JSON for " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
    }
  }

  /** Parses JSON text into {@code type}. */
  public static <T> T parse(String text, Class<T> type) throws JsonProcessingException {
    return JSON.readValue(text, type);
  }

  /** A value (maps, lists, numbers, strings, booleans, null) as indented JSON ending with a newline. */
  public static String write(Object value) throws JsonProcessingException {
    return JSON.writeValueAsString(value) + "\n";
  }
}
