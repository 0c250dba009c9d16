package org.sodm.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsers for what the benchmarked commands print: svm-train, svm-predict and {@code sodm train}. */
public final class ToolOutput {
  private ToolOutput() {}

  /** What svm-train reports for a two-class problem (null when absent). */
  public record SvmTrain(Long iterations, Double objective, Double rho, Long nSV, Long nBSV, Long totalSV) {}

  /** One level line of {@code sodm train}: level, blocks, validation accuracy (0..1 or null), seconds since the pipeline started. */
  public record Level(int level, int blocks, Double accuracy, double totalSeconds) {}

  private static final Pattern ITER = Pattern.compile("#iter\\s*=\\s*(\\d+)");
  private static final Pattern OBJ = Pattern.compile("(?m)^obj\\s*=\\s*([-+0-9.eE]+)\\s*,\\s*rho\\s*=\\s*([-+0-9.eE]+)");
  private static final Pattern NSV = Pattern.compile("(?m)^nSV\\s*=\\s*(\\d+)\\s*,\\s*nBSV\\s*=\\s*(\\d+)");
  private static final Pattern TOTAL = Pattern.compile("(?m)^Total nSV\\s*=\\s*(\\d+)");
  private static final Pattern ACC = Pattern.compile("Accuracy\\s*=\\s*([0-9.]+)%\\s*\\((\\d+)/(\\d+)\\)");
  private static final Pattern LEVEL = Pattern.compile(
      "(?m)^sodm train: level (\\d+)\\*?\\s+(\\d+) blocks.*?(?:acc\\s+([0-9.]+)%(?:\\s+\\(scored in [0-9.]+ s\\))?)?\\s+[0-9.]+ s\\s+\\(total ([0-9.]+) s\\)");
  private static final Pattern DONE = Pattern.compile("(?m)^sodm train: done in ([0-9.]+) s");

  /** Parses svm-train's output (one-vs-one with two classes: one block of figures). */
  public static SvmTrain parseSvmTrain(String out) {
    Matcher it = ITER.matcher(out);
    Matcher ob = OBJ.matcher(out);
    Matcher sv = NSV.matcher(out);
    Matcher tot = TOTAL.matcher(out);
    boolean hasObj = ob.find();
    boolean hasSv = sv.find();
    return new SvmTrain(it.find() ? Long.valueOf(it.group(1)) : null,
        hasObj ? Double.valueOf(ob.group(1)) : null, hasObj ? Double.valueOf(ob.group(2)) : null,
        hasSv ? Long.valueOf(sv.group(1)) : null, hasSv ? Long.valueOf(sv.group(2)) : null,
        tot.find() ? Long.valueOf(tot.group(1)) : null);
  }

  /** svm-predict's (or liblinear's) accuracy as a fraction, or null. */
  public static Double parsePredictAccuracy(String out) {
    Matcher m = ACC.matcher(out);
    if (!m.find()) return null;
    return Double.parseDouble(m.group(2)) / Double.parseDouble(m.group(3));
  }

  /** The per-level progress lines of {@code sodm train}, in the order printed. */
  public static List<Level> parseSodmLevels(String out) {
    List<Level> r = new ArrayList<>();
    Matcher m = LEVEL.matcher(out);
    while (m.find()) {
      r.add(new Level(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
          m.group(3) == null ? null : Double.parseDouble(m.group(3)) / 100, Double.parseDouble(m.group(4))));
    }
    return r;
  }

  /** The pipeline's own total ("done in X s"), or null. */
  public static Double parseSodmDone(String out) {
    Matcher m = DONE.matcher(out);
    return m.find() ? Double.valueOf(m.group(1)) : null;
  }

  /**
   * Levels from train-report.json when the progress lines are missing: the end of level j counted
   * from the pipeline start is the report's total minus the wall time of the levels after it.
   */
  public static List<Level> levelsFromReport(ReportFiles.TrainReport report) {
    List<Level> r = new ArrayList<>();
    List<ReportFiles.TrainReport.Level> levels = report.levels();
    Double total = report.seconds();
    if (total == null) return r;
    double after = 0;
    double[] ends = new double[levels.size()];
    for (int j = levels.size() - 1; j >= 0; j--) {
      ends[j] = total - after;
      Double w = levels.get(j).wallSeconds();
      after += w == null ? 0 : w;
    }
    for (int j = 0; j < levels.size(); j++) {
      ReportFiles.TrainReport.Level l = levels.get(j);
      r.add(new Level(l.level(), l.blocks(), l.validationAccuracy(), ends[j]));
    }
    return r;
  }

  /** Reads a {@code key=value} file (first '=' splits; blank lines and '#' comments ignored). */
  public static Map<String, String> parseKeyValues(String text) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) continue;
      int eq = line.indexOf('=');
      if (eq > 0) m.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
    }
    return m;
  }
}
