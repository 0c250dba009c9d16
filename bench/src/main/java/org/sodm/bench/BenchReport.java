package org.sodm.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.knowm.xchart.XYChart;

/**
 * Turns a harness output directory (written by {@code bench/run.sh}) into {@code results.md},
 * {@code results.json} and one {@code plot-SET.png} per data set (plus {@code scaling.png}).
 *
 * <pre>
 * DIR/config.txt                         key=value: run-level facts (date, host, cpus, versions, pairs, sets order)
 * DIR/sets/SET.txt                       key=value: rows, parameters, commands, data preparation
 * DIR/runs/SET/VARIANT/PAIR/meta.txt     key=value: side (ours|peer), pair, first (which side ran first in the pair),
 *                                        train_seconds, train_cpu_seconds (user + sys of the process tree), train_rss_kb,
 *                                        train_exit, predict_seconds, predict_cpu_seconds, predict_rss_kb, predict_exit, commands
 * DIR/runs/SET/VARIANT/PAIR/train.log    stdout+stderr of the train command (svm-train / sodm train)
 * DIR/runs/SET/VARIANT/PAIR/predict.log  stdout+stderr of the predict command
 * DIR/runs/SET/VARIANT/PAIR/train-report.json, metrics.json   (ours) copied from the model / predictions
 * DIR/scaling/ROWS/REP/meta.txt (+ the same files)             the scaling series, ours only
 * </pre>
 */
public final class BenchReport {
  private BenchReport() {}

  /** One timed run (one side of one pair). */
  static final class Run {
    String set;
    String variant;
    boolean peer;
    int pair;
    Path dir;
    Map<String, String> meta;
    Double trainSeconds;
    Double trainCpuSeconds;
    Double predictSeconds;
    Double predictCpuSeconds;
    Double trainRssMb;
    Double predictRssMb;
    boolean ok;
    String failure;
    Double accuracy;
    Long supportVectors;
    Integer blocks;
    Double objective;
    Double pipelineSeconds;
    List<ToolOutput.Level> levels = List.of();
    ToolOutput.SvmTrain svm;

    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("pair", pair);
      m.put("ok", ok);
      if (failure != null) m.put("failure", failure);
      m.put("trainSeconds", trainSeconds);
      m.put("trainCpuSeconds", trainCpuSeconds);
      m.put("predictSeconds", predictSeconds);
      m.put("predictCpuSeconds", predictCpuSeconds);
      if (meta.containsKey("first")) m.put("firstInPair", meta.get("first"));
      m.put("trainPeakRssMb", trainRssMb);
      m.put("predictPeakRssMb", predictRssMb);
      m.put("testAccuracy", accuracy);
      m.put("supportVectors", supportVectors);
      if (blocks != null) m.put("finalBlocks", blocks);
      m.put("dualObjective", objective);
      if (pipelineSeconds != null) m.put("pipelineSeconds", pipelineSeconds);
      if (svm != null) {
        m.put("iterations", svm.iterations());
        m.put("rho", svm.rho());
        m.put("boundedSupportVectors", svm.nBSV());
      }
      if (!levels.isEmpty()) {
        List<Object> ls = new ArrayList<>();
        for (ToolOutput.Level l : levels) {
          Map<String, Object> o = new LinkedHashMap<>();
          o.put("level", l.level());
          o.put("blocks", l.blocks());
          o.put("secondsSinceCommandStart", sinceStart(l));
          o.put("validationAccuracy", l.accuracy());
          ls.add(o);
        }
        m.put("levels", ls);
      }
      m.put("trainCommand", meta.get("train_cmd"));
      m.put("predictCommand", meta.get("predict_cmd"));
      return m;
    }

    /** A level's end, counted from the command's start: the pipeline's clock plus the JVM start-up before it. */
    double sinceStart(ToolOutput.Level l) {
      double offset = trainSeconds != null && pipelineSeconds != null ? Math.max(0, trainSeconds - pipelineSeconds) : 0;
      return l.totalSeconds() + offset;
    }
  }

  /** Summary of our variant against the peer on one set. */
  static final class Row {
    String set;
    String variant;
    List<Run> ours = new ArrayList<>();
    List<Run> peer = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    List<Double> cpuRatios = new ArrayList<>();
    Run oursMedian;
    Run peerMedian;
  }

  static Map<String, String> readKv(Path p) throws IOException {
    return Files.exists(p) ? ToolOutput.parseKeyValues(Files.readString(p, StandardCharsets.UTF_8)) : new LinkedHashMap<>();
  }

  static String read(Path p) throws IOException {
    return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
  }

  static Double dbl(String s) {
    if (s == null || s.isBlank()) return null;
    try {
      return Double.valueOf(s.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static Run readRun(Path dir) throws IOException {
    Run r = new Run();
    r.dir = dir;
    r.meta = readKv(dir.resolve("meta.txt"));
    r.set = r.meta.getOrDefault("set", dir.getParent().getParent().getFileName().toString());
    r.variant = r.meta.getOrDefault("variant", dir.getParent().getFileName().toString());
    r.peer = "peer".equals(r.meta.get("side"));
    r.pair = (int) (double) java.util.Optional.ofNullable(dbl(r.meta.get("pair"))).orElse(0.0);
    r.trainSeconds = dbl(r.meta.get("train_seconds"));
    r.predictSeconds = dbl(r.meta.get("predict_seconds"));
    r.trainCpuSeconds = dbl(r.meta.get("train_cpu_seconds"));
    r.predictCpuSeconds = dbl(r.meta.get("predict_cpu_seconds"));
    Double kb = dbl(r.meta.get("train_rss_kb"));
    r.trainRssMb = kb == null ? null : kb / 1024;
    kb = dbl(r.meta.get("predict_rss_kb"));
    r.predictRssMb = kb == null ? null : kb / 1024;
    String te = r.meta.getOrDefault("train_exit", "0");
    String pe = r.meta.getOrDefault("predict_exit", "0");
    r.ok = "0".equals(te) && ("0".equals(pe) || "skipped".equals(pe));
    if (!"0".equals(te)) r.failure = "train exit " + te;
    else if (!r.ok) r.failure = "predict exit " + pe;
    String trainLog = read(dir.resolve("train.log"));
    String predictLog = read(dir.resolve("predict.log"));
    if (r.peer) {
      r.svm = ToolOutput.parseSvmTrain(trainLog);
      r.objective = r.svm.objective();
      r.supportVectors = r.svm.totalSV();
      r.accuracy = ToolOutput.parsePredictAccuracy(predictLog);
    } else {
      r.pipelineSeconds = ToolOutput.parseSodmDone(trainLog);
      r.levels = ToolOutput.parseSodmLevels(trainLog);
      Path rep = dir.resolve("train-report.json");
      if (Files.exists(rep)) {
        ReportFiles.TrainReport report = ReportFiles.read(rep, ReportFiles.TrainReport.class);
        r.supportVectors = report.supportVectors();
        r.blocks = report.blocks();
        if (!report.levels().isEmpty()) r.objective = report.levels().get(report.levels().size() - 1).objective();
        if (r.levels.isEmpty()) r.levels = ToolOutput.levelsFromReport(report);
        if (r.pipelineSeconds == null) r.pipelineSeconds = report.seconds();
      }
      Path metrics = dir.resolve("metrics.json");
      if (Files.exists(metrics)) r.accuracy = ReportFiles.read(metrics, ReportFiles.Metrics.class).accuracy();
      if (r.accuracy == null && !r.levels.isEmpty()) r.accuracy = r.levels.get(r.levels.size() - 1).accuracy();
    }
    return r;
  }

  static List<Path> subdirs(Path p) throws IOException {
    if (!Files.isDirectory(p)) return List.of();
    try (Stream<Path> s = Files.list(p)) {
      return s.filter(Files::isDirectory).sorted(Comparator.comparing(BenchReport::naturalKey)).collect(Collectors.toList());
    }
  }

  /** Sorts "pair-10" after "pair-9" and "800000" after "100000". */
  private static String naturalKey(Path p) {
    String n = p.getFileName().toString();
    String digits = n.replaceAll("\\D", "");
    return digits.isEmpty() ? n : String.format("%s%020d", n.replaceAll("\\d", ""), Long.parseLong(digits.length() > 18 ? digits.substring(0, 18) : digits));
  }

  /**
   * ours / peer, or null when either is unknown or the peer's figure is not positive. CPU seconds
   * from /usr/bin/time have a 0.01 s resolution: a peer below it gives no ratio rather than infinity.
   */
  static Double ratio(Double ours, Double peer) {
    if (ours == null || peer == null || !Double.isFinite(ours) || !Double.isFinite(peer) || peer <= 0) return null;
    return ours / peer;
  }

  static double median(List<Double> xs) {
    double[] a = xs.stream().filter(x -> x != null && Double.isFinite(x)).mapToDouble(Double::doubleValue).sorted().toArray();
    if (a.length == 0) return Double.NaN;
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  /** The run whose train time is the (lower) median of the successful runs. */
  static Run medianRun(List<Run> runs) {
    List<Run> ok = runs.stream().filter(r -> r.ok && r.trainSeconds != null)
        .sorted(Comparator.comparingDouble(r -> r.trainSeconds)).collect(Collectors.toList());
    if (ok.isEmpty()) return runs.isEmpty() ? null : runs.get(0);
    return ok.get((ok.size() - 1) / 2);
  }

  /** Everything read from an output directory. */
  static final class Data {
    Map<String, String> config;
    Map<String, Map<String, String>> sets = new LinkedHashMap<>();
    List<Row> rows = new ArrayList<>();
    Map<String, List<Run>> peerBySet = new LinkedHashMap<>();
    Map<String, List<Run>> oursBySetVariant = new LinkedHashMap<>();
    List<Run> scaling = new ArrayList<>();
    Map<String, String> scalingConfig;
  }

  static Data load(Path out) throws IOException {
    Data d = new Data();
    d.config = readKv(out.resolve("config.txt"));
    List<String> order = new ArrayList<>();
    if (d.config.containsKey("sets")) order.addAll(Arrays.asList(d.config.get("sets").split(",")));
    for (Path s : subdirs(out.resolve("runs"))) {
      if (!order.contains(s.getFileName().toString())) order.add(s.getFileName().toString());
    }
    for (String set : order) {
      if (set.isBlank()) continue;
      d.sets.put(set, readKv(out.resolve("sets").resolve(set + ".txt")));
      List<Run> peer = new ArrayList<>();
      Map<String, List<Run>> ours = new LinkedHashMap<>();
      List<Path> variants = new ArrayList<>(subdirs(out.resolve("runs").resolve(set)));
      String vorder = d.config.getOrDefault("variants", "");
      List<String> vo = Arrays.asList(vorder.split(","));
      variants.sort(Comparator.comparingInt(p -> {
        int k = vo.indexOf(p.getFileName().toString());
        return k < 0 ? Integer.MAX_VALUE : k;
      }));
      for (Path v : variants) {
        for (Path pairDir : subdirs(v)) {
          Run r = readRun(pairDir);
          if (r.peer) peer.add(r);
          else ours.computeIfAbsent(r.variant, k -> new ArrayList<>()).add(r);
        }
      }
      d.peerBySet.put(set, peer);
      for (Map.Entry<String, List<Run>> e : ours.entrySet()) {
        d.oursBySetVariant.put(set + "/" + e.getKey(), e.getValue());
        Row row = new Row();
        row.set = set;
        row.variant = e.getKey();
        row.ours = e.getValue();
        row.peer = peer;
        for (Run o : row.ours) {
          Run p = peer.stream().filter(x -> x.pair == o.pair).findFirst().orElse(null);
          boolean both = o.ok && p != null && p.ok;
          row.ratios.add(both ? ratio(o.trainSeconds, p.trainSeconds) : null);
          row.cpuRatios.add(both ? ratio(o.trainCpuSeconds, p.trainCpuSeconds) : null);
        }
        row.oursMedian = medianRun(row.ours);
        row.peerMedian = medianRun(peer);
        d.rows.add(row);
      }
      if (ours.isEmpty() && !peer.isEmpty()) { // peer only (e.g. a failed build): still report it
        Row row = new Row();
        row.set = set;
        row.variant = "-";
        row.peer = peer;
        row.peerMedian = medianRun(peer);
        d.rows.add(row);
      }
    }
    d.scalingConfig = readKv(out.resolve("scaling").resolve("scaling.txt"));
    for (Path n : subdirs(out.resolve("scaling"))) {
      for (Path rep : subdirs(n)) d.scaling.add(readRun(rep));
    }
    return d;
  }

  // ---------------------------------------------------------------- formatting

  static String f(Double v, String fmt) {
    return v == null || !Double.isFinite(v) ? "–" : String.format(Locale.ROOT, fmt, v);
  }

  static String secs(Double v) {
    if (v == null || !Double.isFinite(v)) return "–";
    return v < 1 ? String.format(Locale.ROOT, "%.3f", v) : v < 100 ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%.1f", v);
  }

  static String pct(Double v) {
    return v == null ? "–" : String.format(Locale.ROOT, "%.2f%%", 100 * v);
  }

  static String count(Long v) {
    return v == null ? "–" : String.format(Locale.ROOT, "%,d", v);
  }

  static List<Double> okTimes(List<Run> runs, boolean train) {
    List<Double> r = new ArrayList<>();
    for (Run x : runs) if (x.ok) r.add(train ? x.trainSeconds : x.predictSeconds);
    return r;
  }

  static List<Double> okCpu(List<Run> runs) {
    List<Double> r = new ArrayList<>();
    for (Run x : runs) if (x.ok) r.add(x.trainCpuSeconds);
    return r;
  }

  static List<Double> okRss(List<Run> runs) {
    List<Double> r = new ArrayList<>();
    for (Run x : runs) if (x.ok) r.add(x.trainRssMb);
    return r;
  }

  /** Accuracy of the median run, with the spread when runs disagree (they should not: training is deterministic). */
  static String accCell(List<Run> runs, Run med) {
    if (med == null || med.accuracy == null) return "–";
    double lo = runs.stream().filter(r -> r.ok && r.accuracy != null).mapToDouble(r -> r.accuracy).min().orElse(med.accuracy);
    double hi = runs.stream().filter(r -> r.ok && r.accuracy != null).mapToDouble(r -> r.accuracy).max().orElse(med.accuracy);
    return pct(med.accuracy) + (hi - lo > 1e-9 ? String.format(Locale.ROOT, " (%.2f–%.2f)", 100 * lo, 100 * hi) : "");
  }

  static String failures(List<Run> runs) {
    long bad = runs.stream().filter(r -> !r.ok).count();
    return bad == 0 ? "" : " [" + bad + " failed]";
  }

  static String markdown(Data d, Path out) {
    StringBuilder b = new StringBuilder();
    Map<String, String> c = d.config;
    b.append("# sodm vs LIBSVM: benchmark run ").append(c.getOrDefault("timestamp", out.getFileName().toString())).append("\n\n");
    b.append("Machine: ").append(c.getOrDefault("host", "?")).append(", ").append(c.getOrDefault("cpus", "?")).append(" CPUs (")
        .append(c.getOrDefault("cpu_model", "?")).append("), ").append(c.getOrDefault("mem", "?")).append(" memory, load average at start ")
        .append(c.getOrDefault("load_start", "?")).append(".  \n");
    b.append(c.getOrDefault("sodm_version", "sodm ?")).append(" (commit ").append(c.getOrDefault("sodm_commit", "?"))
        .append("), ").append(c.getOrDefault("java", "?")).append(", JVM options `").append(c.getOrDefault("java_opts", "")).append("`; peer ")
        .append(c.getOrDefault("libsvm", "LIBSVM")).append(".  \n");
    b.append("Load average at the end ").append(c.getOrDefault("load_end", "?"))
        .append(" (other work on the machine inflates and scatters the seconds; the ratios of one run are what count).  \n");
    if (!d.rows.isEmpty()) {
      b.append("Protocol: ").append(c.getOrDefault("pairs", "?")).append(" pairs; ").append(c.getOrDefault("order", "ours then LIBSVM")).append(".  \n");
    }
    b.append("Command: `").append(c.getOrDefault("command", "bench/run.sh")).append("`\n\n");

    if (!d.rows.isEmpty()) {
      b.append("## Results\n\n");
      b.append("| set | ours | train s ours | train s LIBSVM | ratio per pair | **ratio** | CPU s ours / LIBSVM | CPU ratio per pair | **CPU ratio** | predict s ours / LIBSVM | test acc ours | test acc LIBSVM | Δ pts | SV ours | SV LIBSVM | dual obj ours | dual obj LIBSVM | peak RSS MB ours / LIBSVM |\n");
      b.append("|---|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Row r : d.rows) {
        Run om = r.oursMedian;
        Run pm = r.peerMedian;
        String ratios = r.ratios.stream().map(x -> x == null ? "–" : String.format(Locale.ROOT, "%.2f", x)).collect(Collectors.joining(", "));
        double medRatio = median(r.ratios);
        Double dAcc = om != null && pm != null && om.accuracy != null && pm.accuracy != null ? 100 * (om.accuracy - pm.accuracy) : null;
        String objOurs = "–";
        if (om != null && om.objective != null) {
          objOurs = String.format(Locale.ROOT, "%.2f", om.objective);
          if (om.blocks != null && om.blocks > 1) objOurs += " (sum of " + om.blocks + " blocks)";
          else if (pm != null && pm.objective != null && om.blocks != null && om.blocks == 1 && isHinge(d, r)) {
            objOurs += String.format(Locale.ROOT, " (rel. %+.1e)", (om.objective - pm.objective) / Math.abs(pm.objective));
          }
          if (!isHinge(d, r)) objOurs += " (ODM dual)";
        }
        b.append("| ").append(r.set).append(" | ").append(r.variant).append(failures(r.ours))
            .append(" | ").append(secs(median(okTimes(r.ours, true))))
            .append(" | ").append(secs(median(okTimes(r.peer, true)))).append(failures(r.peer))
            .append(" | ").append(ratios)
            .append(" | **").append(f(medRatio, "%.2f")).append("×**")
            .append(" | ").append(secs(median(okCpu(r.ours)))).append(" / ").append(secs(median(okCpu(r.peer))))
            .append(" | ").append(r.cpuRatios.stream().map(x -> x == null ? "–" : String.format(Locale.ROOT, "%.2f", x)).collect(Collectors.joining(", ")))
            .append(" | **").append(f(median(r.cpuRatios), "%.2f")).append("×**")
            .append(" | ").append(secs(median(okTimes(r.ours, false)))).append(" / ").append(secs(median(okTimes(r.peer, false))))
            .append(" | ").append(accCell(r.ours, om))
            .append(" | ").append(accCell(r.peer, pm))
            .append(" | ").append(dAcc == null ? "–" : String.format(Locale.ROOT, "%+.2f", dAcc))
            .append(" | ").append(om == null ? "–" : count(om.supportVectors))
            .append(" | ").append(pm == null ? "–" : count(pm.supportVectors))
            .append(" | ").append(objOurs)
            .append(" | ").append(pm == null ? "–" : f(pm.objective, "%.2f"))
            .append(" | ").append(f(median(okRss(r.ours)), "%.0f")).append(" / ").append(f(median(okRss(r.peer)), "%.0f"))
            .append(" |\n");
      }
      b.append("\n");
      boolean validation = !"no".equals(c.get("validation"));
      b.append("Times are wall seconds, medians over the pairs (failed runs excluded). *ours* = the whole `bin/sodm train ...")
          .append(validation ? " --validation TEST` command (JVM start, ingest of train and test, every job, per-level scoring of the test set)"
              : "` command without --validation (JVM start, ingest, every job)")
          .append("; *LIBSVM* = `svm-train` alone. "
          + "*ratio* = ours / LIBSVM train time of the same pair; the bold one is the median of the per-pair ratios (< 1: ours is faster). "
          + "*CPU* = user + system CPU seconds of the whole process tree (`/usr/bin/time`), the same ratios: sodm uses every core, "
          + "`svm-train` one, so the CPU ratio is the work done and the wall ratio what a user waits; the two sides alternate which runs "
          + "first in a pair. "
          + "Predict: `bin/sodm predict` (JVM included) vs `svm-predict`. Accuracy on the test file (the seeded 20% for sets without one); "
          + "Δ = ours − LIBSVM in points. SV: support vectors of the final model (ours: over all final blocks). "
          + "Dual objective: ours is the last level's, summed over its blocks; it is the whole problem's only when the final model has one block, "
          + "and even then LIBSVM's dual has the equality constraint Σ y_i α_i = 0 of its bias while ours (no bias) does not, so ours ≤ LIBSVM's "
          + "(rel. = (ours − LIBSVM)/|LIBSVM|). Peak RSS: maximum resident set of the train command (`/usr/bin/time -f %M`), ours includes the "
          + "JVM's heap as it grew.\n\n");
    }

    String targets = targetsMarkdown(d);
    if (!targets.isEmpty()) b.append(targets);

    if (!d.sets.isEmpty()) {
      b.append("## Parameters and data\n\n");
      b.append("| set | train / test rows | C | gamma | LIBSVM | sodm | data |\n|---|---:|---:|---:|---|---|---|\n");
      for (Map.Entry<String, Map<String, String>> e : d.sets.entrySet()) {
        Map<String, String> s = e.getValue();
        b.append("| ").append(e.getKey()).append(" | ").append(s.getOrDefault("train_rows", "?")).append(" / ").append(s.getOrDefault("test_rows", "?"))
            .append(" | ").append(s.getOrDefault("c", "?")).append(" | ").append(s.getOrDefault("gamma", "?"))
            .append(" | `").append(s.getOrDefault("peer_cmd", "")).append("`")
            .append(" | ").append(variantsCell(d, e.getKey()))
            .append(" | ").append(s.getOrDefault("prep", "")).append(s.containsKey("params_note") ? "; parameters: " + s.get("params_note") : "")
            .append(" |\n");
      }
      b.append("\n");
    }

    boolean anyPlot = false;
    for (String set : d.sets.keySet()) {
      if (Files.exists(out.resolve("plot-" + set + ".png"))) {
        if (!anyPlot) b.append("## Accuracy vs. time over the levels\n\n");
        anyPlot = true;
        b.append("![").append(set).append("](plot-").append(set).append(".png)\n\n");
      }
    }
    if (anyPlot) {
      b.append("Each curve is our median-time run of a variant: one point per tree level at the moment the level finished "
          + "(seconds since the command started, JVM start-up included), with the test accuracy of the model as of that level "
          + "(early prediction); \"L2 (16)\" = level 2, 16 blocks. The unlabelled last point of a curve is the end of the command (same model as the last level). The diamond is LIBSVM: median `svm-train` seconds and its test accuracy.\n\n");
    }

    if (!d.scaling.isEmpty()) b.append(scalingMarkdown(d));
    return b.toString();
  }

  /** BENCHMARKS.md's time target (ours / svm-train) for a set and mode, or null. */
  static Double timeTarget(String set, String variant) {
    if ("exact".equals(variant)) return 1.0;
    if ("block".equals(variant)) {
      if (set.startsWith("ijcnn1")) return 0.5;
      if (set.startsWith("a9a")) return 0.2;
    }
    return null;
  }

  /** BENCHMARKS.md's accuracy target (max points below LIBSVM) for a mode, or null. */
  static Double accuracyTarget(String variant) {
    if ("block".equals(variant)) return 0.3;
    if ("exact".equals(variant)) return 0.05;
    return null; // (a nested ?: with null would unbox and throw)
  }

  /** The rows with a target in BENCHMARKS.md (modes block and exact), met or not. */
  static String targetsMarkdown(Data d) {
    StringBuilder b = new StringBuilder();
    for (Row r : d.rows) {
      Double tt = timeTarget(r.set, r.variant);
      Double at = accuracyTarget(r.variant);
      if ((tt == null && at == null) || !isHinge(d, r)) continue;
      if (b.length() == 0) {
        b.append("## Against the targets of BENCHMARKS.md\n\n| set | ours | time ratio | target | accuracy Δ pts | target | dual gap | target |\n");
        b.append("|---|---|---:|---|---:|---|---:|---|\n");
      }
      double ratio = median(r.ratios);
      Run om = r.oursMedian;
      Run pm = r.peerMedian;
      Double dAcc = om != null && pm != null && om.accuracy != null && pm.accuracy != null ? 100 * (om.accuracy - pm.accuracy) : null;
      String gap = "–";
      String gapTarget = "";
      if ("exact".equals(r.variant)) {
        gapTarget = "≤ 1e-3 " + mark(om != null && pm != null && om.objective != null && pm.objective != null
            && Math.abs(om.objective - pm.objective) / Math.abs(pm.objective) <= 1e-3);
        if (om != null && pm != null && om.objective != null && pm.objective != null) {
          gap = String.format(Locale.ROOT, "%.1e", Math.abs(om.objective - pm.objective) / Math.abs(pm.objective));
        }
      }
      b.append("| ").append(r.set).append(" | ").append(r.variant)
          .append(" | ").append(f(ratio, "%.2f×"))
          .append(" | ").append(tt == null ? "–" : String.format(Locale.ROOT, "≤ %.1f× ", tt) + mark(Double.isFinite(ratio) && ratio <= tt))
          .append(" | ").append(dAcc == null ? "–" : String.format(Locale.ROOT, "%+.2f", dAcc))
          .append(" | ").append(at == null ? "–" : "≥ −" + plain(at) + " " + mark(dAcc != null && dAcc >= -at - 1e-9))
          .append(" | ").append(gap).append(" | ").append(gapTarget.isEmpty() ? "–" : gapTarget).append(" |\n");
    }
    if (b.length() > 0) {
      b.append("\nTime targets apply to ijcnn1 and a9a in block mode and to every set in exact mode; accuracy within 0.3 point "
          + "(block) / 0.05 point (exact) of LIBSVM; relative dual gap in exact mode (ours has no bias, so part of the gap is the bias "
          + "constraint, see above).\n\n");
    }
    return b.toString();
  }

  /** A target such as 0.3 or 0.05 as written: no exponent, no trailing zeros. */
  static String plain(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  private static String mark(boolean met) {
    return met ? "met" : "**not met**";
  }

  static boolean isHinge(Data d, Row r) {
    Run any = r.ours.isEmpty() ? null : r.ours.get(0);
    String opts = any == null ? "" : any.meta.getOrDefault("sodm_opts", "");
    return !opts.contains("--loss odm");
  }

  static String variantsCell(Data d, String set) {
    List<String> cells = new ArrayList<>();
    for (Map.Entry<String, List<Run>> e : d.oursBySetVariant.entrySet()) {
      if (!e.getKey().startsWith(set + "/") || e.getValue().isEmpty()) continue;
      cells.add(e.getKey().substring(set.length() + 1) + ": `" + e.getValue().get(0).meta.getOrDefault("sodm_opts", "") + "`");
    }
    return String.join("<br>", cells);
  }

  /** Scaling series rows, by size: [rows, partitions, median seconds, ratio to the previous size, per doubling, acc, rss]. */
  static List<Map<String, Object>> scalingRows(Data d) {
    Map<Long, List<Run>> bySize = new java.util.TreeMap<>();
    for (Run r : d.scaling) {
      Double n = dbl(r.meta.get("rows"));
      if (n != null) bySize.computeIfAbsent(n.longValue(), k -> new ArrayList<>()).add(r);
    }
    List<Map<String, Object>> out = new ArrayList<>();
    Double prevT = null;
    Long prevN = null;
    for (Map.Entry<Long, List<Run>> e : bySize.entrySet()) {
      List<Run> runs = e.getValue();
      double t = median(okTimes(runs, true));
      Run med = medianRun(runs);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("rows", e.getKey());
      m.put("partitions", dbl(runs.get(0).meta.get("partitions")));
      m.put("rowsPerBlock", dbl(runs.get(0).meta.get("block_rows")));
      m.put("runs", runs.size());
      m.put("failed", runs.stream().filter(r -> !r.ok).count());
      m.put("trainSeconds", runs.stream().map(r -> r.trainSeconds).collect(Collectors.toList()));
      m.put("trainSecondsMedian", t);
      m.put("trainCpuSecondsMedian", median(okCpu(runs)));
      if (prevT != null && Double.isFinite(t) && prevT > 0) {
        double ratio = t / prevT;
        double doublings = Math.log((double) e.getKey() / prevN) / Math.log(2);
        m.put("ratioToPrevious", ratio);
        m.put("timePerDoubling", doublings > 0 ? Math.pow(ratio, 1 / doublings) : null);
      }
      m.put("testAccuracy", med == null ? null : med.accuracy);
      m.put("supportVectors", med == null ? null : med.supportVectors);
      m.put("finalBlocks", med == null ? null : med.blocks);
      m.put("trainPeakRssMb", median(okRss(runs)));
      out.add(m);
      if (Double.isFinite(t)) {
        prevT = t;
        prevN = e.getKey();
      }
    }
    return out;
  }

  static String scalingMarkdown(Data d) {
    StringBuilder b = new StringBuilder("## Scaling series (synthetic, ours only)\n\n");
    Map<String, String> s = d.scalingConfig;
    b.append("Data: `").append(s.getOrDefault("generate", "sodm generate")).append("` at each size (test set: ")
        .append(s.getOrDefault("test_rows", "?")).append(" rows, another seed); training: `").append(s.getOrDefault("sodm_opts", ""))
        .append("` with `--partitions rows / ").append(s.getOrDefault("block_rows", "?")).append("` (fixed rows per bottom block, K grows with n).\n\n");
    b.append("| rows | K | train s (median) | runs | × previous size | time per doubling | test acc | SV | final blocks | peak RSS MB |\n");
    b.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map<String, Object> m : scalingRows(d)) {
      b.append("| ").append(String.format(Locale.ROOT, "%,d", (Long) m.get("rows")))
          .append(" | ").append(f((Double) m.get("partitions"), "%.0f"))
          .append(" | ").append(secs((Double) m.get("trainSecondsMedian")))
          .append(" | ").append(m.get("runs")).append(((Long) m.get("failed")) > 0 ? " (" + m.get("failed") + " failed)" : "")
          .append(" | ").append(f((Double) m.get("ratioToPrevious"), "%.2f×"))
          .append(" | ").append(m.get("timePerDoubling") == null ? "–" : String.format(Locale.ROOT, "**%.2f×**", (Double) m.get("timePerDoubling")))
          .append(" | ").append(pct((Double) m.get("testAccuracy")))
          .append(" | ").append(count((Long) m.get("supportVectors")))
          .append(" | ").append(m.get("finalBlocks") == null ? "–" : m.get("finalBlocks"))
          .append(" | ").append(f((Double) m.get("trainPeakRssMb"), "%.0f"))
          .append(" |\n");
    }
    b.append("\nTime per doubling = (t(n) / t(previous n))^(1 / log2(n / previous n)); target ≤ 2.3×. Times are the whole `bin/sodm train` command.\n\n");
    if (d.scaling.stream().anyMatch(r -> r.ok)) b.append("![scaling](scaling.png)\n\n");
    return b.toString();
  }

  private static final java.util.Set<String> NUMERIC = java.util.Set.of("train_rows", "test_rows", "c", "gamma", "pairs", "cpus", "seed",
      "block_rows");

  /** key=value facts for JSON: the numeric ones as numbers. */
  static Map<String, Object> typed(Map<String, String> kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : kv.entrySet()) {
      Double v = NUMERIC.contains(e.getKey()) ? dbl(e.getValue()) : null;
      m.put(e.getKey(), v != null ? v : e.getValue());
    }
    return m;
  }

  static Map<String, Object> json(Data d) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("config", typed(d.config));
    List<Object> sets = new ArrayList<>();
    for (Map.Entry<String, Map<String, String>> e : d.sets.entrySet()) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("set", e.getKey());
      s.put("setup", typed(e.getValue()));
      List<Run> peer = d.peerBySet.getOrDefault(e.getKey(), List.of());
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("trainSecondsMedian", median(okTimes(peer, true)));
      p.put("predictSecondsMedian", median(okTimes(peer, false)));
      p.put("trainCpuSecondsMedian", median(okCpu(peer)));
      p.put("runs", peer.stream().map(Run::toJson).collect(Collectors.toList()));
      s.put("libsvm", p);
      List<Object> variants = new ArrayList<>();
      for (Row r : d.rows) {
        if (!r.set.equals(e.getKey()) || r.variant.equals("-")) continue;
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("variant", r.variant);
        v.put("trainSecondsMedian", median(okTimes(r.ours, true)));
        v.put("predictSecondsMedian", median(okTimes(r.ours, false)));
        v.put("ratioPerPair", r.ratios);
        v.put("ratioMedian", median(r.ratios));
        v.put("cpuRatioPerPair", r.cpuRatios);
        v.put("cpuRatioMedian", median(r.cpuRatios));
        v.put("trainCpuSecondsMedian", median(okCpu(r.ours)));
        v.put("testAccuracy", r.oursMedian == null ? null : r.oursMedian.accuracy);
        v.put("peerTestAccuracy", r.peerMedian == null ? null : r.peerMedian.accuracy);
        v.put("trainPeakRssMbMedian", median(okRss(r.ours)));
        v.put("runs", r.ours.stream().map(Run::toJson).collect(Collectors.toList()));
        variants.add(v);
      }
      s.put("ours", variants);
      sets.add(s);
    }
    root.put("sets", sets);
    if (!d.scaling.isEmpty()) {
      Map<String, Object> sc = new LinkedHashMap<>();
      sc.put("setup", typed(d.scalingConfig));
      sc.put("sizes", scalingRows(d));
      sc.put("runs", d.scaling.stream().map(r -> {
        Map<String, Object> m = r.toJson();
        m.put("rows", dbl(r.meta.get("rows")));
        return m;
      }).collect(Collectors.toList()));
      root.put("scaling", sc);
    }
    return root;
  }

  /** The accuracy-vs-time plot of one set: a curve per variant of ours, the peer as a point. */
  static XYChart setPlot(Data d, String set) {
    List<Charts.Series> series = new ArrayList<>();
    int k = 0;
    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    for (Row r : d.rows) {
      if (!r.set.equals(set) || r.oursMedian == null || !r.oursMedian.ok) continue;
      Run m = r.oursMedian;
      List<double[]> pts = new ArrayList<>();
      List<String> labels = new ArrayList<>();
      for (ToolOutput.Level l : m.levels) {
        if (l.accuracy() == null) continue;
        double t = m.sinceStart(l);
        pts.add(new double[] {t, 100 * l.accuracy()});
        labels.add("L" + l.level() + " (" + l.blocks() + ")");
        lo = Math.min(lo, t);
        hi = Math.max(hi, t);
      }
      if (m.trainSeconds != null && m.accuracy != null) {
        pts.add(new double[] {m.trainSeconds, 100 * m.accuracy});
        labels.add(null); // the command's end: same accuracy as the last level, unlabelled
        hi = Math.max(hi, m.trainSeconds);
      }
      if (pts.isEmpty()) continue;
      series.add(new Charts.Series("sodm " + r.variant, Charts.PALETTE[k++ % Charts.PALETTE.length], pts, true, labels));
    }
    List<Run> peer = d.peerBySet.getOrDefault(set, List.of());
    Run pm = medianRun(peer);
    if (pm != null && pm.ok && pm.trainSeconds != null && pm.accuracy != null) {
      double t = Math.max(median(okTimes(peer, true)), 1e-3);
      series.add(new Charts.Series("LIBSVM svm-train", Charts.PEER, List.<double[]>of(new double[] {t, 100 * pm.accuracy}), false,
          List.of(String.format(Locale.ROOT, "%.2f%%", 100 * pm.accuracy))));
      lo = Math.min(lo, t);
      hi = Math.max(hi, t);
    }
    Charts.Axes axes = Charts.Axes.of(set + ": test accuracy vs. training time", "seconds since the train command started",
        "test accuracy (%)").yCap(100).logX(hi > 0 && lo > 0 && hi / lo > 30);
    return Charts.chart(axes, series);
  }

  static XYChart scalingPlot(Data d) {
    List<double[]> pts = new ArrayList<>();
    List<double[]> lin = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    List<Map<String, Object>> rows = scalingRows(d);
    Double t0 = null;
    Long n0 = null;
    for (Map<String, Object> m : rows) {
      Double t = (Double) m.get("trainSecondsMedian");
      if (t == null || !Double.isFinite(t)) continue;
      long n = (Long) m.get("rows");
      pts.add(new double[] {n, t});
      labels.add(secs(t) + " s");
      if (t0 == null) {
        t0 = t;
        n0 = n;
      }
      lin.add(new double[] {n, t0 * n / n0});
    }
    List<double[]> l23 = new ArrayList<>();
    if (t0 != null) for (double[] q : lin) l23.add(new double[] {q[0], t0 * Math.pow(q[0] / n0, Math.log(2.3) / Math.log(2))});
    return Charts.chart(Charts.Axes.of("scaling: sodm train time vs. rows (fixed rows per block)", "rows", "train seconds").logX(true).logY(true),
        List.of(new Charts.Series("sodm train (median)", Charts.PALETTE[0], pts, true, labels),
            new Charts.Series("linear from the first size", new java.awt.Color(0x999999), lin, true, null),
            new Charts.Series("2.3× per doubling (target bound)", new java.awt.Color(0xff7f0e), l23, true, null)));
  }

  /** Writes results.md, results.json and the plots into {@code out}; returns the Markdown. */
  public static String generate(Path out) throws IOException {
    Data d = load(out);
    for (String set : d.sets.keySet()) {
      try {
        Charts.writePng(setPlot(d, set), out.resolve("plot-" + set + ".png"));
      } catch (Throwable t) {
        System.err.println("bench report: no plot for " + set + ": " + t);
      }
    }
    if (!d.scaling.isEmpty()) {
      try {
        Charts.writePng(scalingPlot(d), out.resolve("scaling.png"));
      } catch (Throwable t) {
        System.err.println("bench report: no scaling plot: " + t);
      }
    }
    String md = markdown(d, out);
    Files.writeString(out.resolve("results.md"), md, StandardCharsets.UTF_8);
    Files.writeString(out.resolve("results.json"), ReportFiles.write(json(d)), StandardCharsets.UTF_8);
    return md;
  }
}
