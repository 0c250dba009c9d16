package org.sodm.cli;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import org.sodm.model.MulticlassMetrics;

/**
 * A reliability diagram as a PNG: per calibration bin of the predicted class's probability, the
 * bin's accuracy (bar) against its mean probability (dot); the diagonal is perfect calibration.
 * Drawn with java.awt in headless mode (no display needed).
 */
final class ReliabilityPng {
  /** The PNG's tEXt "Software" entry: what marks a diagram of sodm evaluate, which --overwrite may replace. */
  static final String SOFTWARE = "sodm evaluate reliability diagram";

  private ReliabilityPng() {}

  /** Whether {@code head} (a file's first bytes) is a PNG carrying {@link #SOFTWARE} as its tEXt Software entry. */
  static boolean writtenBySodm(byte[] head, int length) {
    byte[] sig = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (length < sig.length || !java.util.Arrays.equals(head, 0, sig.length, sig, 0, sig.length)) return false;
    byte[] entry = ("tEXtSoftware\0" + SOFTWARE).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    for (int i = sig.length; i + entry.length <= length; i++) {
      if (java.util.Arrays.equals(head, i, i + entry.length, entry, 0, entry.length)) return true;
    }
    return false;
  }

  static void write(MulticlassMetrics m, String title, OutputStream out) throws IOException {
    if (m.calibrationCounts() == null) throw new IllegalArgumentException("the predictions have no probabilities (train with --probability)");
    System.setProperty("java.awt.headless", "true");
    int w = 640;
    int h = 560;
    int left = 70;
    int top = 50;
    int size = 440;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    g.setColor(Color.BLACK);
    g.drawString(title, left, 25);
    g.drawRect(left, top, size, size);
    for (int i = 0; i <= 10; i++) {
      int x = left + i * size / 10;
      int y = top + size - i * size / 10;
      g.drawLine(x, top + size, x, top + size + 5);
      g.drawLine(left - 5, y, left, y);
      String v = String.format(Locale.ROOT, "%.1f", i / 10.0);
      g.drawString(v, x - 9, top + size + 20);
      g.drawString(v, left - 35, y + 5);
    }
    g.drawString("mean predicted probability (predicted class)", left + 90, top + size + 42);
    g.rotate(-Math.PI / 2);
    g.drawString("accuracy", -(top + size / 2 + 30), 20);
    g.rotate(Math.PI / 2);
    g.setColor(Color.GRAY);
    g.setStroke(new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
    g.drawLine(left, top + size, left + size, top);
    g.setStroke(new BasicStroke(1));
    long[][] cal = m.calibrationCounts();
    int bins = cal.length;
    for (int b = 0; b < bins; b++) {
      long rows = cal[b][0];
      if (rows == 0) continue;
      double acc = (double) cal[b][1] / rows;
      double conf = m.calibrationConfidence()[b] / rows;
      int x0 = left + b * size / bins + 3;
      int bw = size / bins - 6;
      int bh = (int) Math.round(acc * size);
      g.setColor(new Color(70, 130, 180));
      g.fillRect(x0, top + size - bh, bw, bh);
      g.setColor(new Color(200, 60, 40));
      int cx = left + (int) Math.round(conf * size);
      int cy = top + size - (int) Math.round(acc * size);
      g.fillOval(cx - 4, cy - 4, 8, 8);
      g.setColor(Color.BLACK);
      g.drawString(Long.toString(rows), x0 + 2, top + size - bh - 4);
    }
    g.drawString(String.format(Locale.ROOT, "n = %d, accuracy %.2f%%, log-loss %.4f; bars: accuracy (rows above), dots: mean probability",
        m.n(), 100 * m.accuracy(), m.logLoss()), 10, h - 12);
    g.dispose();
    javax.imageio.ImageWriter writer = javax.imageio.ImageIO.getImageWritersByFormatName("png").next();
    try {
      javax.imageio.ImageWriteParam param = writer.getDefaultWriteParam();
      javax.imageio.metadata.IIOMetadata meta =
          writer.getDefaultImageMetadata(javax.imageio.ImageTypeSpecifier.createFromRenderedImage(img), param);
      javax.imageio.metadata.IIOMetadataNode entry = new javax.imageio.metadata.IIOMetadataNode("tEXtEntry");
      entry.setAttribute("keyword", "Software");
      entry.setAttribute("value", SOFTWARE);
      javax.imageio.metadata.IIOMetadataNode text = new javax.imageio.metadata.IIOMetadataNode("tEXt");
      text.appendChild(entry);
      javax.imageio.metadata.IIOMetadataNode root = new javax.imageio.metadata.IIOMetadataNode("javax_imageio_png_1.0");
      root.appendChild(text);
      meta.mergeTree("javax_imageio_png_1.0", root);
      try (javax.imageio.stream.ImageOutputStream ios = javax.imageio.ImageIO.createImageOutputStream(out)) {
        writer.setOutput(ios);
        writer.write(null, new javax.imageio.IIOImage(img, null, meta), param);
      }
    } finally {
      writer.dispose();
    }
  }
}
