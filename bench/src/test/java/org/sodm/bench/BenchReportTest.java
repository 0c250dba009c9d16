package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/** The report renderer on a hand-made output directory: medians, ratios, cells, JSON, PNGs. */
class BenchReportTest {
  @TempDir Path out;

  @BeforeAll
  static void headless() {
    System.setProperty("java.awt.headless", "true");
  }

  private void write(String rel, String text) throws Exception {
    Path p = out.resolve(rel);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  private void ours(String set, String v, int pair, double train, double predict, double acc, String opts) throws Exception {
    String d = "runs/" + set + "/" + v + "/pair-" + pair + "/";
    write(d + "meta.txt", "set=" + set + "\nvariant=" + v + "\nside=ours\npair=" + pair + "\nsodm_opts=" + opts
        + "\ntrain_cmd=bin/sodm train x\ntrain_seconds=" + train + "\ntrain_cpu_seconds=" + (1.5 * train) + "\ntrain_rss_kb=512000\ntrain_exit=0\npredict_seconds=" + predict
        + "\npredict_rss_kb=256000\npredict_exit=0\n");
    write(d + "train.log", String.join("\n",
        "sodm train: level 2        16 blocks  obj     -1444.43  viol 9.98e-04  SV     990  acc 94.50%       2.8 s  (total " + (train - 4) + " s)",
        "sodm train: level 1         4 blocks  obj     -1016.76  viol 9.99e-04  SV     657  acc " + (100 * acc) + "%       2.6 s  (total " + (train - 1.5) + " s)",
        "sodm train: done in " + (train - 1) + " s: file:/m/model.avro", ""));
    write(d + "train-report.json", "{\n  \"levels\": [\n    {\"level\": 2, \"blocks\": 16, \"objective\": -1444.4, \"wallSeconds\": 2.8, "
        + "\"validationAccuracy\": 0.945},\n    {\"level\": 1, \"blocks\": 4, \"objective\": -1016.76, \"wallSeconds\": 2.6, "
        + "\"validationAccuracy\": " + acc + "}\n  ],\n  \"blocks\": 4,\n  \"supportVectors\": 657,\n  \"seconds\": " + (train - 1) + "\n}\n");
    write(d + "metrics.json", "{\"n\": 4000, \"accuracy\": " + acc + "}");
  }

  private void peer(String set, int pair, double train, int exit) throws Exception {
    String d = "runs/" + set + "/libsvm/pair-" + pair + "/";
    write(d + "meta.txt", "set=" + set + "\nvariant=libsvm\nside=peer\npair=" + pair + "\ntrain_seconds=" + train
        + "\ntrain_cpu_seconds=" + train + "\ntrain_rss_kb=10240\ntrain_exit=" + exit + "\npredict_seconds=0.1\npredict_rss_kb=8000\npredict_exit=0\n");
    write(d + "train.log", ToolOutputTest.SVM_TRAIN);
    write(d + "predict.log", "Accuracy = 96.475% (3859/4000) (classification)\n");
  }

  @Test
  void writesTableJsonAndPlots() throws Exception {
    write("config.txt", "timestamp=T\npairs=3\nsets=svmguide1\nvariants=block\ncommand=bench/run.sh --sets svmguide1\n");
    write("sets/svmguide1.txt", "train_rows=3089\ntest_rows=4000\nc=2\ngamma=2\nprep=scaled\n");
    ours("svmguide1", "block", 1, 10, 5, 0.9623, "--loss hinge -c 2 -g 2");
    ours("svmguide1", "block", 2, 12, 5, 0.9623, "--loss hinge -c 2 -g 2");
    ours("svmguide1", "block", 3, 8, 6, 0.9623, "--loss hinge -c 2 -g 2");
    peer("svmguide1", 1, 0.05, 0);
    peer("svmguide1", 2, 0.04, 0);
    peer("svmguide1", 3, 0.10, 0);
    String md = BenchReport.generate(out);
    // ratios per pair 200, 300, 80; median 200
    String row = md.lines().filter(l -> l.startsWith("| svmguide1 | block")).findFirst().orElseThrow();
    assertTrue(row.contains("| 10.00 | 0.050 | 200.00, 300.00, 80.00 | **200.00×** |"), row);
    // CPU: ours 15, 18, 12 s, LIBSVM 0.05, 0.04, 0.10 s: per pair 300, 450, 120, median of the ratios 300 (not 15 / 0.05 of the medians by chance:
    // pair 2's ratio 450 is not the ratio of any medians)
    assertTrue(row.contains("| 15.00 / 0.050 | 300.00, 450.00, 120.00 | **300.00×** |"), row);
    assertTrue(row.contains("| 96.23% | 96.48% | -0.24 | 657 | 455 |"), row);
    assertTrue(row.contains("-1016.76 (sum of 4 blocks) | -757.11 | 500 / 10 |"), row);
    assertTrue(md.contains("![svmguide1](plot-svmguide1.png)"));
    assertTrue(md.contains("| svmguide1 | block | 200.00× | – | -0.24 | ≥ −0.3 met | – | – |"), md);

    JsonNode json = ReportFiles.read(out.resolve("results.json"), JsonNode.class);
    JsonNode set = json.get("sets").get(0);
    assertEquals("svmguide1", set.get("set").asText());
    assertEquals(3089, set.get("setup").get("train_rows").intValue()); // numeric facts as numbers
    JsonNode v = set.get("ours").get(0);
    assertEquals(200.0, v.get("ratioMedian").doubleValue(), 1e-9);
    assertEquals(300.0, v.get("cpuRatioMedian").doubleValue(), 1e-9);
    assertEquals(450.0, v.get("cpuRatioPerPair").get(1).doubleValue(), 1e-9);
    assertEquals(15.0, v.get("trainCpuSecondsMedian").doubleValue(), 1e-9);
    assertEquals(10.0, v.get("trainSecondsMedian").doubleValue(), 1e-9);
    assertEquals(0.05, set.get("libsvm").get("trainSecondsMedian").doubleValue(), 1e-12);
    JsonNode run1 = v.get("runs").get(0);
    assertEquals(657, run1.get("supportVectors").longValue());
    assertEquals(4, run1.get("finalBlocks").intValue());
    assertEquals(-1016.76, run1.get("dualObjective").doubleValue(), 1e-9); // the last level's objective from train-report.json
    JsonNode lvl = run1.get("levels").get(0);
    assertEquals(7.0, lvl.get("secondsSinceCommandStart").doubleValue(), 1e-9); // 6 s on the pipeline clock + 1 s JVM start

    BufferedImage png = ImageIO.read(out.resolve("plot-svmguide1.png").toFile());
    assertNotNull(png, "plot-svmguide1.png is not a readable PNG");
    assertEquals(Charts.WIDTH, png.getWidth());
    assertEquals(Charts.HEIGHT, png.getHeight());
    assertTrue(pixels(png, Charts.PALETTE[0]) > 50, "no curve of ours drawn");
    assertTrue(pixels(png, Charts.PEER) > 20, "no LIBSVM point drawn");
  }

  /** Pixels of (nearly) exactly this colour. */
  static int pixels(BufferedImage im, Color c) {
    int n = 0;
    for (int y = 0; y < im.getHeight(); y++) {
      for (int x = 0; x < im.getWidth(); x++) {
        Color p = new Color(im.getRGB(x, y));
        if (Math.abs(p.getRed() - c.getRed()) + Math.abs(p.getGreen() - c.getGreen()) + Math.abs(p.getBlue() - c.getBlue()) <= 6) n++;
      }
    }
    return n;
  }

  /** The accuracy chart: a curve per variant over the levels (and the command's end), the peer as one point, log time when it spans > 30x. */
  @Test
  void accuracyChartSeries() throws Exception {
    write("config.txt", "sets=s\nvariants=block\n");
    ours("s", "block", 1, 10, 5, 0.9623, "--loss hinge");
    peer("s", 1, 0.05, 0);
    BenchReport.Data d = BenchReport.load(out);
    XYChart c = BenchReport.setPlot(d, "s");
    XYSeries ours = c.getSeriesMap().get("sodm block");
    assertNotNull(ours, c.getSeriesMap().keySet().toString());
    assertArrayEquals(new double[] {7.0, 9.5, 10.0}, ours.getXData(), 1e-9); // level ends since the command's start, then its end
    assertArrayEquals(new double[] {94.5, 96.23, 96.23}, ours.getYData(), 1e-9);
    XYSeries peer = c.getSeriesMap().get("LIBSVM svm-train");
    assertArrayEquals(new double[] {0.05}, peer.getXData(), 1e-12);
    assertArrayEquals(new double[] {96.475}, peer.getYData(), 1e-9);
    assertTrue(c.getStyler().isXAxisLogarithmic()); // 10 s / 0.05 s = 200x
    assertTrue(c.getStyler().getYAxisMax() <= 100, "accuracy axis beyond 100%");
    assertEquals(2, c.getSeriesMap().size());
  }

  @Test
  void chartsLeaveOutWhatAnAxisCannotShow() throws Exception {
    XYChart c = Charts.chart(Charts.Axes.of("t", "x", "y").logX(true).logY(true), List.of(
        new Charts.Series("a", Charts.PALETTE[0], List.of(new double[] {0, 1}, new double[] {1, Double.NaN}, new double[] {2, 3}), true, null),
        new Charts.Series("empty", Charts.PEER, List.of(new double[] {-1, 1}), false, List.of("x"))));
    assertEquals(List.of("a"), List.copyOf(c.getSeriesMap().keySet()));
    assertArrayEquals(new double[] {2}, c.getSeriesMap().get("a").getXData(), 0);
    Path png = out.resolve("c.png");
    Charts.writePng(c, png);
    BufferedImage im = ImageIO.read(png.toFile());
    assertEquals(Charts.WIDTH, im.getWidth());
    assertThrows(IllegalArgumentException.class, () -> Charts.writePng(c, out.resolve("c.jpg")));
  }

  @Test
  void ratioArithmetic() {
    assertEquals(2.5, BenchReport.ratio(5.0, 2.0), 1e-12);
    assertEquals(null, BenchReport.ratio(5.0, 0.0)); // a peer under /usr/bin/time's 0.01 s resolution: no ratio, not infinity
    assertEquals(null, BenchReport.ratio(null, 2.0));
    assertEquals(null, BenchReport.ratio(5.0, null));
    assertEquals(null, BenchReport.ratio(Double.NaN, 2.0));
    // the median of per-pair ratios, nulls (failed pairs) left out; even counts average the middle two
    assertEquals(3.0, BenchReport.median(java.util.Arrays.asList(1.0, null, 5.0, 3.0)), 1e-12);
    assertEquals(2.0, BenchReport.median(java.util.Arrays.asList(1.0, 3.0)), 1e-12);
  }

  @Test
  void failedRunsAreExcludedAndFlagged() throws Exception {
    write("config.txt", "sets=a\n");
    ours("a", "exact", 1, 10, 5, 0.9, "--loss hinge --partitions 1");
    ours("a", "exact", 2, 20, 5, 0.9, "--loss hinge --partitions 1");
    peer("a", 1, 1.0, 0);
    peer("a", 2, 5.0, 1);
    String md = BenchReport.generate(out);
    String row = md.lines().filter(l -> l.startsWith("| a | exact")).findFirst().orElseThrow();
    assertTrue(row.contains("| 15.00 | 1.00 [1 failed] | 10.00, – | **10.00×** |"), row);
    assertTrue(row.contains("| 22.50 / 1.00 | 15.00, – | **15.00×** |"), row); // the failed pair has no CPU ratio either
    assertTrue(md.contains("| a | exact | 10.00× | ≤ 1.0× **not met** | -6.47 | ≥ −0.05 **not met** | 3.4e-01 | ≤ 1e-3 **not met** |"), md);
  }

  @Test
  void scalingSeries() throws Exception {
    write("config.txt", "");
    write("scaling/scaling.txt", "block_rows=1000\ntest_rows=500\nsodm_opts=--loss hinge\n");
    double[][] runs = {{1000, 10}, {2000, 21}, {4000, 46}, {8000, 100}};
    for (double[] r : runs) {
      for (int rep = 1; rep <= 2; rep++) {
        String d = "scaling/" + (int) r[0] + "/rep-" + rep + "/";
        write(d + "meta.txt", "side=ours\nvariant=scaling\nrows=" + (int) r[0] + "\npartitions=" + (int) (r[0] / 1000) + "\nblock_rows=1000\npair="
            + rep + "\ntrain_seconds=" + (r[1] + (rep == 1 ? -1 : 1)) + "\ntrain_exit=0\npredict_exit=skipped\n");
        write(d + "train.log", "sodm train: level 1         4 blocks  obj  -1.0  viol 9.99e-04  SV  6  acc 97.00%   2.6 s  (total 5.0 s)\n");
      }
    }
    BenchReport.Data d = BenchReport.load(out);
    List<Map<String, Object>> rows = BenchReport.scalingRows(d);
    assertEquals(4, rows.size());
    assertEquals(2.1, (Double) rows.get(1).get("timePerDoubling"), 1e-9);
    assertEquals(100.0 / 46, (Double) rows.get(3).get("ratioToPrevious"), 1e-9);
    String md = BenchReport.generate(out);
    assertTrue(md.contains("| 2,000 | 2 | 21.00 | 2 | 2.10× | **2.10×** | 97.00% |"), md);
    BufferedImage png = ImageIO.read(out.resolve("scaling.png").toFile());
    assertNotNull(png, "scaling.png is not a readable PNG");
    assertEquals(Charts.HEIGHT, png.getHeight());
    XYChart c = BenchReport.scalingPlot(d);
    assertTrue(c.getStyler().isXAxisLogarithmic() && c.getStyler().isYAxisLogarithmic());
    assertArrayEquals(new double[] {10, 21, 46, 100}, c.getSeriesMap().get("sodm train (median)").getYData(), 1e-9);
    assertArrayEquals(new double[] {10, 20, 40, 80}, c.getSeriesMap().get("linear from the first size").getYData(), 1e-9);
  }

  @Test
  void targetsAreWrittenPlainly() {
    assertEquals("0.3", BenchReport.plain(0.3));
    assertEquals("0.05", BenchReport.plain(0.05));
    assertEquals("1", BenchReport.plain(1.0));
  }
}
