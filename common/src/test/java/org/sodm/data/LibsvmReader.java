package org.sodm.data;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * Reads a whole LIBSVM text file (plain, .gz, .bz2 or .xz by extension) into memory, for
 * single-node use: tests, benchmarks, the single-node solver. Errors name file and line.
 */
public final class LibsvmReader {
  private LibsvmReader() {}

  /** A loaded data set: rows, canonical labels, and their -1/+1 form under {@link #labelMap()}. */
  public record Data(SparseVector[] x, String[] labels, LabelMap labelMap, double[] y) {
    public int size() {
      return x.length;
    }

    /** The same rows with the labels re-mapped by another (e.g. the training set's) map. */
    public Data withLabelMap(LabelMap map) {
      double[] yy = new double[labels.length];
      for (int i = 0; i < yy.length; i++) yy[i] = map.signed(labels[i]);
      return new Data(x, labels, map, yy);
    }

    /** The same rows scaled. */
    public Data scaled(Scaler s) {
      SparseVector[] xx = new SparseVector[x.length];
      for (int i = 0; i < xx.length; i++) xx[i] = s.apply(x[i]);
      return new Data(xx, labels, labelMap, y);
    }
  }

  /** Opens a file, decompressing by extension. */
  public static InputStream open(Path file) throws IOException {
    InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
    String n = file.getFileName().toString();
    if (n.endsWith(".gz")) return new GZIPInputStream(in, 1 << 16);
    if (n.endsWith(".bz2")) return new BZip2CompressorInputStream(in, true);
    if (n.endsWith(".xz")) return new XZInputStream(in);
    return in;
  }

  /**
   * Reads all rows. The label map is derived from the labels found when there are exactly two,
   * else it is null and {@code y} is null (use {@link Data#withLabelMap}).
   */
  public static Data read(Path file) throws IOException {
    List<SparseVector> xs = new ArrayList<>();
    List<String> ls = new ArrayList<>();
    StatsAccumulator labels = new StatsAccumulator();
    LibsvmParser p = new LibsvmParser();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(open(file), StandardCharsets.UTF_8), 1 << 16)) {
      String line;
      long no = 0;
      while ((line = r.readLine()) != null) {
        no++;
        Row row;
        try {
          row = p.parse(line);
        } catch (RecordException e) {
          throw new IOException(e.describe(file.toString(), no), e);
        }
        if (row == null) continue;
        xs.add(row.features());
        ls.add(row.label());
        labels.add(row.label(), SparseVector.EMPTY, no, file + ":" + no);
      }
    }
    SparseVector[] x = xs.toArray(new SparseVector[0]);
    String[] l = ls.toArray(new String[0]);
    if (labels.labelCount() == 2) {
      return new Data(x, l, null, null).withLabelMap(LabelMap.of(labels.labels()));
    }
    return new Data(x, l, null, null);
  }
}
