package org.sodm.cli;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Locale;
import org.sodm.jobs.train.GridSearch;

/**
 * The contour plot of {@code sodm grid} as a PNG: cross-validation accuracy over log2 C (x) and
 * log2 gamma (y), a filled heat map (bilinear between the grid points) with contour lines at 1, 2,
 * 5, 10 and 20 points below the best accuracy (as grid.py's gnuplot contours descend from the best),
 * the grid points as dots and the best pair as a ring. Drawn with java.awt in headless mode.
 */
final class GridPng {
  private GridPng() {}

  static final double[] BELOW_BEST = {1, 2, 5, 10, 20};

  static void write(GridSearch.Result r, String title, OutputStream out) throws IOException {
    System.setProperty("java.awt.headless", "true");
    double[] cs = r.cells().stream().mapToDouble(GridSearch.Cell::log2c).distinct().sorted().toArray();
    double[] gs = r.cells().stream().mapToDouble(GridSearch.Cell::log2g).distinct().sorted().toArray();
    double[][] acc = new double[gs.length][cs.length]; // percent, [gamma][C] ascending
    for (double[] row : acc) Arrays.fill(row, Double.NaN);
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (GridSearch.Cell c : r.cells()) {
      double a = 100 * c.accuracy();
      acc[Arrays.binarySearch(gs, c.log2g())][Arrays.binarySearch(cs, c.log2c())] = a;
      lo = Math.min(lo, a);
      hi = Math.max(hi, a);
    }
    int w = 760;
    int h = 600;
    int left = 70;
    int top = 50;
    int pw = 520;
    int ph = 460;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    double[][] field = new double[ph][pw];
    for (int py = 0; py < ph; py++) {
      double fy = gs.length == 1 ? 0 : (double) (ph - 1 - py) / (ph - 1) * (gs.length - 1);
      for (int px = 0; px < pw; px++) {
        double fx = cs.length == 1 ? 0 : (double) px / (pw - 1) * (cs.length - 1);
        field[py][px] = bilinear(acc, fy, fx);
        img.setRGB(left + px, top + py, color(field[py][px], lo, hi).getRGB());
      }
    }
    double best = 100 * r.best().accuracy();
    for (double d : BELOW_BEST) { // contour lines: pixels where the field crosses the level towards a neighbour
      double level = best - d;
      if (level <= lo) continue;
      for (int py = 0; py + 1 < ph; py++) {
        for (int px = 0; px + 1 < pw; px++) {
          double v = field[py][px];
          if ((v - level) * (field[py][px + 1] - level) <= 0 && v != field[py][px + 1]
              || (v - level) * (field[py + 1][px] - level) <= 0 && v != field[py + 1][px]) {
            img.setRGB(left + px, top + py, Color.BLACK.getRGB());
          }
        }
      }
    }
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    g.setColor(Color.BLACK);
    g.drawString(title, 10, 25);
    g.drawRect(left, top, pw, ph);
    for (int i = 0; i < cs.length; i++) {
      int x = left + (cs.length == 1 ? pw / 2 : (int) Math.round((double) i / (cs.length - 1) * (pw - 1)));
      g.drawLine(x, top + ph, x, top + ph + 5);
      g.drawString(GridSearchFmt.of(cs[i]), x - 8, top + ph + 20);
    }
    for (int j = 0; j < gs.length; j++) {
      int y = top + ph - 1 - (gs.length == 1 ? ph / 2 : (int) Math.round((double) j / (gs.length - 1) * (ph - 1)));
      g.drawLine(left - 5, y, left, y);
      g.drawString(GridSearchFmt.of(gs[j]), left - 35, y + 5);
    }
    g.drawString("log2 C", left + pw / 2 - 20, top + ph + 40);
    g.rotate(-Math.PI / 2);
    g.drawString("log2 gamma", -(top + ph / 2 + 35), 20);
    g.rotate(Math.PI / 2);
    for (int j = 0; j < gs.length; j++) { // grid points, the best ringed
      for (int i = 0; i < cs.length; i++) {
        int x = left + (cs.length == 1 ? pw / 2 : (int) Math.round((double) i / (cs.length - 1) * (pw - 1)));
        int y = top + ph - 1 - (gs.length == 1 ? ph / 2 : (int) Math.round((double) j / (gs.length - 1) * (ph - 1)));
        g.setColor(Color.DARK_GRAY);
        g.fillOval(x - 2, y - 2, 4, 4);
        if (cs[i] == r.best().log2c() && gs[j] == r.best().log2g()) {
          g.setColor(Color.WHITE);
          g.setStroke(new BasicStroke(2));
          g.drawOval(x - 7, y - 7, 14, 14);
          g.setStroke(new BasicStroke(1));
        }
      }
    }
    int lx = left + pw + 30; // colour bar
    for (int py = 0; py < ph; py++) {
      double v = hi - (hi - lo) * py / (ph - 1);
      g.setColor(color(v, lo, hi));
      g.fillRect(lx, top + py, 20, 1);
    }
    g.setColor(Color.BLACK);
    g.drawRect(lx, top, 20, ph);
    for (int i = 0; i <= 5; i++) {
      double v = hi - (hi - lo) * i / 5;
      g.drawString(String.format(Locale.ROOT, "%.1f%%", v), lx + 25, top + (int) Math.round((double) i / 5 * (ph - 1)) + 5);
    }
    g.drawString("contours: best - 1, 2, 5, 10, 20 points; ring: best pair", left, h - 12);
    g.dispose();
    javax.imageio.ImageIO.write(img, "png", out);
  }

  /** Bilinear interpolation of grid values at fractional indices (fy over rows, fx over columns). */
  static double bilinear(double[][] a, double fy, double fx) {
    int y0 = Math.min((int) Math.floor(fy), a.length - 1);
    int x0 = Math.min((int) Math.floor(fx), a[0].length - 1);
    int y1 = Math.min(y0 + 1, a.length - 1);
    int x1 = Math.min(x0 + 1, a[0].length - 1);
    double ty = fy - y0;
    double tx = fx - x0;
    double top = a[y0][x0] * (1 - tx) + a[y0][x1] * tx;
    double bottom = a[y1][x0] * (1 - tx) + a[y1][x1] * tx;
    return top * (1 - ty) + bottom * ty;
  }

  /** Dark blue (lowest) through green to yellow (highest). */
  static Color color(double v, double lo, double hi) {
    double t = hi > lo ? Math.max(0, Math.min(1, (v - lo) / (hi - lo))) : 1;
    float[][] stops = {{0.27f, 0.00f, 0.33f}, {0.23f, 0.32f, 0.55f}, {0.13f, 0.57f, 0.55f}, {0.37f, 0.79f, 0.38f}, {0.99f, 0.91f, 0.15f}};
    double p = t * (stops.length - 1);
    int i = Math.min((int) p, stops.length - 2);
    double f = p - i;
    float[] a = stops[i];
    float[] b = stops[i + 1];
    return new Color((float) (a[0] + (b[0] - a[0]) * f), (float) (a[1] + (b[1] - a[1]) * f), (float) (a[2] + (b[2] - a[2]) * f));
  }

  /** Axis labels: integers without ".0". */
  static final class GridSearchFmt {
    static String of(double v) {
      return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
  }
}
