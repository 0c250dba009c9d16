package org.sodm.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The report's PNG charts, drawn with XChart: curves (points joined in order, round markers) and
 * single marked points (diamonds, e.g. the peer's), optional labels above points, optional log10 axes,
 * and a y axis that ends at a cap (100 for accuracies in percent) when the data stay below it.
 */
public final class Charts {
  private Charts() {}

  /** A series; {@code line} joins its points in order; {@code labels} (optional, null entries allowed) annotate points. */
  public record Series(String name, Color color, List<double[]> points, boolean line, List<String> labels) {}

  public static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0x2ca02c), new Color(0x9467bd),
      new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};
  public static final Color PEER = new Color(0xd62728);
  public static final int WIDTH = 900;
  public static final int HEIGHT = 560;

  /** The options of one chart. */
  public record Axes(String title, String xLabel, String yLabel, boolean logX, boolean logY, double yCap) {
    public static Axes of(String title, String xLabel, String yLabel) {
      return new Axes(title, xLabel, yLabel, false, false, Double.POSITIVE_INFINITY);
    }

    public Axes logX(boolean v) {
      return new Axes(title, xLabel, yLabel, v, logY, yCap);
    }

    public Axes logY(boolean v) {
      return new Axes(title, xLabel, yLabel, logX, v, yCap);
    }

    public Axes yCap(double v) {
      return new Axes(title, xLabel, yLabel, logX, logY, v);
    }
  }

  private static boolean drawable(double[] p, Axes a) {
    return Double.isFinite(p[0]) && Double.isFinite(p[1]) && (!a.logX() || p[0] > 0) && (!a.logY() || p[1] > 0);
  }

  /** The chart of {@code series} (points that a log axis cannot show, and empty series, are left out). */
  public static XYChart chart(Axes a, List<Series> series) {
    XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(a.title())
        .xAxisTitle(a.xLabel() + (a.logX() ? " (log scale)" : "")).yAxisTitle(a.yLabel() + (a.logY() ? " (log scale)" : "")).build();
    XYStyler st = c.getStyler();
    st.setChartBackgroundColor(Color.WHITE);
    st.setPlotBackgroundColor(Color.WHITE);
    st.setPlotBorderColor(Color.BLACK);
    st.setPlotGridLinesColor(new Color(0xe6e6e6));
    st.setLegendPosition(Styler.LegendPosition.OutsideS); // below the plot: hides no point
    st.setLegendLayout(Styler.LegendLayout.Horizontal);
    st.setXAxisLogarithmic(a.logX());
    st.setYAxisLogarithmic(a.logY());
    st.setXAxisDecimalPattern(a.logX() ? "0.###" : "#,##0.##");
    st.setYAxisDecimalPattern(a.logY() ? "0.###" : "#,##0.##");

    double yLo = Double.POSITIVE_INFINITY;
    double yHi = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      for (double[] p : s.points()) {
        if (!drawable(p, a)) continue;
        yLo = Math.min(yLo, p[1]);
        yHi = Math.max(yHi, p[1]);
      }
    }
    // room above the points for their labels; a linear y axis stops at the cap when the data allow
    double pad = a.logY() || yHi < yLo ? 0 : Math.max((yHi - yLo) * 0.08, 0.05);
    if (!a.logY() && yHi >= yLo) {
      st.setYAxisMin(yLo - pad);
      st.setYAxisMax(yHi <= a.yCap() ? Math.min(a.yCap(), yHi + 2 * pad) : yHi + 2 * pad);
    }
    if (!a.logX()) st.setXAxisMin(0.0); // a linear time axis starts at 0

    for (Series s : series) {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (int k = 0; k < s.points().size(); k++) {
        double[] p = s.points().get(k);
        if (!drawable(p, a)) continue;
        xs.add(p[0]);
        ys.add(p[1]);
        String label = s.labels() != null && k < s.labels().size() ? s.labels().get(k) : null;
        if (label != null) c.addAnnotation(new AnnotationText(label, p[0], a.logY() ? p[1] * 1.08 : p[1] + pad / 2, false));
      }
      if (xs.isEmpty()) continue;
      XYSeries x = c.addSeries(s.name(), xs, ys);
      x.setXYSeriesRenderStyle(s.line() ? XYSeries.XYSeriesRenderStyle.Line : XYSeries.XYSeriesRenderStyle.Scatter);
      x.setLineColor(s.color());
      x.setMarkerColor(s.color());
      x.setMarker(s.line() ? SeriesMarkers.CIRCLE : SeriesMarkers.DIAMOND);
    }
    return c;
  }

  /** Writes a chart as a PNG file at {@code png} (the name must end with .png). */
  public static void writePng(XYChart chart, Path png) throws IOException {
    String name = png.toString();
    if (!name.endsWith(".png")) throw new IllegalArgumentException("a chart file must end with .png: " + png);
    BitmapEncoder.saveBitmap(chart, name, BitmapEncoder.BitmapFormat.PNG);
  }
}
