package org.sodm.jobs.phase;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.LevelStats;
import org.sodm.avro.ModelRecord;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.model.ModelCodec;

/**
 * The files a training run ends with: {@code model.avro} (written to a hidden temporary file and
 * renamed, so it is complete or absent) and {@code train-report.json} (the method's report,
 * written with Jackson; non-finite numbers are null).
 */
public final class TrainOutput {
  public static final String MODEL = "model.avro";
  public static final String REPORT = "train-report.json";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private TrainOutput() {}

  /** Writes the model and the report into the runner's output directory; returns the model's path. */
  public static Path write(PhaseRunner runner, Trainer.Trained t) throws IOException {
    FileSystem fs = runner.fs();
    Path modelPath = new Path(runner.out(), MODEL);
    Path tmp = new Path(runner.out(), "." + MODEL + ".tmp");
    AvroFiles.writeOne(runner.conf(), tmp, ModelRecord.getClassSchema(), ModelCodec.toAvro(t.model()));
    fs.delete(modelPath, false);
    if (!fs.rename(tmp, modelPath)) throw new IOException("cannot rename " + tmp + " to " + modelPath);
    runner.ended();
    Map<String, Object> report = new LinkedHashMap<>(t.report());
    report.put("seconds", runner.elapsed());
    try (OutputStream o = fs.create(new Path(runner.out(), REPORT), true)) {
      o.write(JSON.writeValueAsBytes(report));
    }
    return modelPath;
  }

  /** A JSON number, or null for NaN and infinities (an exact level has no initial violation). */
  public static Double number(double v) {
    return Double.isFinite(v) ? v : null;
  }

  /** The per-level statistics as report rows. */
  public static List<Map<String, Object>> levels(List<LevelStats> levels) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (LevelStats l : levels) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("level", l.getLevel());
      m.put("blocks", l.getBlocks());
      m.put("objective", number(l.getObjective()));
      m.put("maxViolation", number(l.getMaxViolation()));
      m.put("maxInitialViolation", number(l.getMaxInitialViolation()));
      m.put("supportVectors", l.getSupportVectors());
      m.put("kernelEvaluations", l.getKernelEvaluations());
      m.put("wallSeconds", l.getWallSeconds());
      m.put("maxBlockMemoryBytes", l.getMaxBlockMemoryBytes());
      m.put("validationAccuracy", l.getValidationAccuracy());
      rows.add(m);
    }
    return rows;
  }
}
