package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sodm.model.MulticlassMetrics;

class ReliabilityPngTest {
  @Test
  void drawsABarPerNonEmptyBinAndRefusesMetricsWithoutProbabilities() throws Exception {
    MulticlassMetrics.Builder b = new MulticlassMetrics.Builder(List.of("a", "b", "c"));
    b.add(0, 0, new double[] {0.95, 0.03, 0.02}).add(1, 1, new double[] {0.1, 0.55, 0.35}).add(2, 1, new double[] {0.1, 0.5, 0.4});
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ReliabilityPng.write(b.build(), "test", out);
    BufferedImage img = javax.imageio.ImageIO.read(new ByteArrayInputStream(out.toByteArray()));
    assertEquals(640, img.getWidth());
    // the [0.9, 1] bin (accuracy 1) is a full-height bar: its middle is bar-coloured; the empty [0, 0.1) bin is white
    int left = 70, top = 50, size = 440;
    assertEquals(new java.awt.Color(70, 130, 180).getRGB(), img.getRGB(left + 9 * size / 10 + size / 20, top + size / 2));
    assertEquals(java.awt.Color.WHITE.getRGB(), img.getRGB(left + size / 20, top + size / 4));
    // [0.5, 0.6): two rows, one right: a half-height bar
    assertEquals(new java.awt.Color(70, 130, 180).getRGB(), img.getRGB(left + 5 * size / 10 + 10, top + size - size / 4));
    assertEquals(java.awt.Color.WHITE.getRGB(), img.getRGB(left + 5 * size / 10 + 10, top + size / 4));
    byte[] png = out.toByteArray();
    assertTrue(ReliabilityPng.writtenBySodm(png, png.length), "its tEXt Software entry marks it");
    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    javax.imageio.ImageIO.write(img, "png", plain);
    assertFalse(ReliabilityPng.writtenBySodm(plain.toByteArray(), plain.size()), "the same image without the entry");
    byte[] text = "tEXtSoftware\0sodm evaluate reliability diagram".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    assertFalse(ReliabilityPng.writtenBySodm(text, text.length), "not a PNG");
    MulticlassMetrics none = new MulticlassMetrics.Builder(List.of("a", "b")).add(0, 0, null).build();
    assertThrows(IllegalArgumentException.class, () -> ReliabilityPng.write(none, "x", new ByteArrayOutputStream()));
  }
}
