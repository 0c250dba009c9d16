package org.sodm.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * A small headless scatter/line chart written with java.awt and ImageIO (no plotting package):
 * series of points joined by lines, single marked points, axes with ticks, optional log10 x or y
 * axis, a legend. Used for accuracy vs. time over the levels of a run and for the scaling series.
 */
public final class Plot {
  /** A series; {@code line} joins its points in order; {@code labels} (optional) annotate points. */
  public record Series(String name, Color color, List<double[]> points, boolean line, List<String> labels) {}

  public static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0x2ca02c), new Color(0x9467bd),
      new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};
  public static final Color PEER = new Color(0xd62728);

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final List<Series> series = new ArrayList<>();
  private boolean logX;
  private boolean logY;
  private double yCap = Double.POSITIVE_INFINITY;
  private final int width;
  private final int height;

  public Plot(String title, String xLabel, String yLabel, int width, int height) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
    this.width = width;
    this.height = height;
  }

  public Plot logX(boolean v) {
    logX = v;
    return this;
  }

  public Plot logY(boolean v) {
    logY = v;
    return this;
  }

  /** An upper bound of the y axis (100 for accuracies in percent). */
  public Plot yCap(double v) {
    yCap = v;
    return this;
  }

  public Plot add(Series s) {
    series.add(s);
    return this;
  }

  public boolean isLogX() {
    return logX;
  }

  /** The data range [min, max] of the points on one axis (0 = x, 1 = y); null when no point. */
  double[] range(int axis, boolean log) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      for (double[] p : s.points()) {
        double v = p[axis];
        if (!Double.isFinite(v) || (log && v <= 0)) continue;
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    return lo > hi ? null : new double[] {lo, hi};
  }

  /** Nice axis bounds and tick values for [lo, hi]; log axes get decades (and 2, 5 between when few). */
  static double[] ticks(double lo, double hi, boolean log) {
    if (log) {
      int a = (int) Math.floor(Math.log10(lo) + 1e-9);
      int b = (int) Math.ceil(Math.log10(hi) - 1e-9);
      if (b <= a) b = a + 1;
      List<Double> t = new ArrayList<>();
      for (int e = a; e <= b; e++) {
        double d = Math.pow(10, e);
        t.add(d);
        if (b - a <= 2 && e < b) {
          t.add(2 * d);
          t.add(5 * d);
        }
      }
      return t.stream().mapToDouble(Double::doubleValue).toArray();
    }
    if (hi - lo < 1e-12) {
      double pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.01 : 1;
      lo -= pad;
      hi += pad;
    }
    double raw = (hi - lo) / 6;
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = mag;
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * mag >= raw) {
        step = m * mag;
        break;
      }
    }
    double start = Math.floor(lo / step) * step;
    double end = Math.ceil(hi / step) * step;
    int n = (int) Math.round((end - start) / step);
    double[] t = new double[n + 1];
    for (int i = 0; i <= n; i++) t[i] = start + i * step;
    return t;
  }

  static String fmt(double v) {
    if (v == 0) return "0";
    double a = Math.abs(v);
    if (a >= 1e6 || a < 1e-3) return String.format(Locale.ROOT, "%.0e", v);
    if (a >= 1000) return String.format(Locale.ROOT, "%,.0f", v);
    String s = String.format(Locale.ROOT, "%.3f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }

  /** Renders to an image. */
  public BufferedImage render() {
    BufferedImage im = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = im.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
    Text text = new Text(g);

    int left = 78;
    int right = 24;
    int top = 44;
    int bottom = 64;
    int pw = width - left - right;
    int ph = height - top - bottom;

    double[] xr = range(0, logX);
    double[] yr = range(1, logY);
    if (xr == null) xr = new double[] {logX ? 1 : 0, logX ? 10 : 1};
    if (yr == null) yr = new double[] {logY ? 1 : 0, logY ? 10 : 1};
    if (!logY) {
      double pad = Math.max((yr[1] - yr[0]) * 0.08, 1e-9);
      yr = new double[] {yr[0] - pad, yr[1] + pad};
    }
    if (!logX) {
      double pad = Math.max((xr[1] - xr[0]) * 0.05, 1e-9);
      xr = new double[] {xr[0] >= 0 ? 0 : xr[0] - pad, xr[1] + pad}; // a linear time axis starts at 0
    }
    double[] xt = ticks(xr[0], xr[1], logX);
    double[] yt = ticks(yr[0], yr[1], logY);
    double yTop = yt[yt.length - 1];
    if (!logY && yTop > yCap) { // e.g. no 100.5% tick: end the axis a little above the cap, ticks up to the cap
      yTop = Math.max(yr[1], yCap);
      int n = yt.length;
      while (n > 2 && yt[n - 1] > yCap + 1e-9) n--;
      yt = Arrays.copyOf(yt, n);
    }
    final double x0 = logX ? Math.log10(xt[0]) : xt[0];
    final double x1 = logX ? Math.log10(xt[xt.length - 1]) : xt[xt.length - 1];
    final double y0 = logY ? Math.log10(yt[0]) : yt[0];
    final double y1 = logY ? Math.log10(yt[yt.length - 1]) : yTop;
    java.util.function.DoubleUnaryOperator px = v -> left + ((logX ? Math.log10(v) : v) - x0) / (x1 - x0) * pw;
    java.util.function.DoubleUnaryOperator py = v -> top + ph - ((logY ? Math.log10(v) : v) - y0) / (y1 - y0) * ph;

    // grid and ticks
    g.setStroke(new BasicStroke(1f));
    for (double t : xt) {
      double x = px.applyAsDouble(t);
      g.setColor(new Color(0xe6e6e6));
      g.draw(new Line2D.Double(x, top, x, top + ph));
      g.setColor(Color.DARK_GRAY);
      text.center(fmt(t), x, top + ph + 16, 11, false);
    }
    for (double t : yt) {
      double y = py.applyAsDouble(t);
      g.setColor(new Color(0xe6e6e6));
      g.draw(new Line2D.Double(left, y, left + pw, y));
      g.setColor(Color.DARK_GRAY);
      text.right(fmt(t), left - 6, y + 4, 11);
    }
    g.setColor(Color.BLACK);
    g.drawRect(left, top, pw, ph);
    text.center(title, width / 2.0, 24, 14, true);
    text.center(xLabel + (logX ? " (log scale)" : ""), left + pw / 2.0, height - 18, 12, false);
    text.vertical(yLabel + (logY ? " (log scale)" : ""), 18, top + ph / 2.0, 12);

    // series
    Rectangle2D clip = new Rectangle2D.Double(left, top, pw, ph);
    g.setClip(clip);
    for (Series s : series) {
      g.setColor(s.color());
      g.setStroke(new BasicStroke(2f));
      double[] prev = null;
      for (double[] p : s.points()) {
        if (!ok(p)) continue;
        double[] q = {px.applyAsDouble(p[0]), py.applyAsDouble(p[1])};
        if (s.line() && prev != null) g.draw(new Line2D.Double(prev[0], prev[1], q[0], q[1]));
        prev = q;
      }
      int k = 0;
      for (double[] p : s.points()) {
        String label = s.labels() != null && k < s.labels().size() ? s.labels().get(k) : null;
        k++;
        if (!ok(p)) continue;
        double x = px.applyAsDouble(p[0]);
        double y = py.applyAsDouble(p[1]);
        marker(g, s, x, y);
        if (label != null) {
          g.setColor(s.color().darker());
          text.left(label, x + 7, y - 6, 10);
        }
      }
    }
    g.setClip(null);

    // legend (bottom right, inside the plot)
    int lh = 16;
    int lw = 0;
    for (Series s : series) lw = Math.max(lw, text.width(s.name(), 11));
    lw += 34;
    int lhTotal = lh * series.size() + 6;
    // the corner of the plot that hides the fewest points: bottom right, top right, bottom left, top left
    int[][] corners = {{left + pw - lw - 8, top + ph - 8 - lhTotal}, {left + pw - lw - 8, top + 8},
        {left + 8, top + ph - 8 - lhTotal}, {left + 8, top + 8}};
    int lx = corners[0][0];
    int ly = corners[0][1];
    int best = Integer.MAX_VALUE;
    for (int[] c : corners) {
      int hidden = 0;
      for (Series s : series) {
        for (double[] p : s.points()) {
          if (!ok(p)) continue;
          double x = px.applyAsDouble(p[0]);
          double y = py.applyAsDouble(p[1]);
          // a point with its label (up to ~70 px to its right, above it)
          if (x + 75 > c[0] && x - 10 < c[0] + lw && y + 10 > c[1] && y - 20 < c[1] + lhTotal) hidden++;
        }
      }
      if (hidden < best) {
        best = hidden;
        lx = c[0];
        ly = c[1];
      }
    }
    g.setColor(new Color(255, 255, 255, 230));
    g.fillRect(lx, ly, lw, lhTotal);
    g.setColor(Color.GRAY);
    g.drawRect(lx, ly, lw, lhTotal);
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      int cy = ly + 3 + lh * i + lh / 2;
      g.setColor(s.color());
      if (s.line()) {
        g.setStroke(new BasicStroke(2f));
        g.drawLine(lx + 6, cy, lx + 24, cy);
      }
      marker(g, s, lx + 15, cy);
      g.setColor(Color.BLACK);
      text.left(s.name(), lx + 30, cy + 4, 11);
    }
    g.dispose();
    return im;
  }

  private static boolean ok(double[] p) {
    return Double.isFinite(p[0]) && Double.isFinite(p[1]);
  }

  private static void marker(Graphics2D g, Series s, double x, double y) {
    g.setColor(s.color());
    if (s.line()) {
      g.fill(new java.awt.geom.Ellipse2D.Double(x - 4, y - 4, 8, 8));
    } else { // a single point such as the peer's: a larger diamond
      java.awt.geom.Path2D.Double d = new java.awt.geom.Path2D.Double();
      d.moveTo(x, y - 7);
      d.lineTo(x + 7, y);
      d.lineTo(x, y + 7);
      d.lineTo(x - 7, y);
      d.closePath();
      g.fill(d);
    }
  }

  /** Writes a PNG. */
  public void write(Path png) throws IOException {
    ImageIO.write(render(), "png", png.toFile());
  }

  /** Text drawing that survives a JDK without usable fonts (the chart is then drawn without labels). */
  private static final class Text {
    private final Graphics2D g;
    private boolean broken;

    Text(Graphics2D g) {
      this.g = g;
    }

    private Font font(int size, boolean bold) {
      return new Font(Font.SANS_SERIF, bold ? Font.BOLD : Font.PLAIN, size);
    }

    int width(String s, int size) {
      if (broken) return 6 * s.length();
      try {
        return g.getFontMetrics(font(size, false)).stringWidth(s);
      } catch (Throwable t) {
        broken = true;
        return 6 * s.length();
      }
    }

    private void draw(String s, double x, double y, int size, boolean bold, int align) {
      if (broken || s == null) return;
      try {
        Font f = font(size, bold);
        g.setFont(f);
        FontMetrics fm = g.getFontMetrics(f);
        int w = fm.stringWidth(s);
        double dx = align == 0 ? 0 : align == 1 ? -w / 2.0 : -w;
        g.drawString(s, (float) (x + dx), (float) y);
      } catch (Throwable t) {
        broken = true;
      }
    }

    void left(String s, double x, double y, int size) {
      draw(s, x, y, size, false, 0);
    }

    void center(String s, double x, double y, int size, boolean bold) {
      draw(s, x, y, size, bold, 1);
    }

    void right(String s, double x, double y, int size) {
      draw(s, x, y, size, false, 2);
    }

    void vertical(String s, double x, double y, int size) {
      if (broken) return;
      try {
        java.awt.geom.AffineTransform old = g.getTransform();
        g.rotate(-Math.PI / 2, x, y);
        draw(s, x, y, size, false, 1);
        g.setTransform(old);
      } catch (Throwable t) {
        broken = true;
      }
    }
  }
}
