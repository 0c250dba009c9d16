package org.sodm.linear;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.sodm.data.LibsvmReader;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;

/** Sample data for the linear solver tests. */
final class LinearTestData {
  private LinearTestData() {}

  static Path sampleData(String name) {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path c = p.resolve("sample-data").resolve(name);
      if (Files.exists(c)) return c;
    }
    throw new IllegalStateException("sample-data/" + name + " not found");
  }

  /** svmguide1 scaled to [0, 1] (the README's recipe). */
  static LibsvmReader.Data svmguide1() throws IOException {
    LibsvmReader.Data d = LibsvmReader.read(sampleData("svmguide1"));
    int dim = Vectors.dimension(d.x());
    double[] mins = new double[dim];
    double[] maxs = new double[dim];
    java.util.Arrays.fill(mins, Double.POSITIVE_INFINITY);
    java.util.Arrays.fill(maxs, Double.NEGATIVE_INFINITY);
    for (SparseVector v : d.x()) {
      double[] dense = v.toDense(dim);
      for (int f = 0; f < dim; f++) {
        mins[f] = Math.min(mins[f], dense[f]);
        maxs[f] = Math.max(maxs[f], dense[f]);
      }
    }
    int[] idx = new int[dim];
    for (int f = 0; f < dim; f++) idx[f] = f + 1;
    return d.scaled(new Scaler(0, 1, idx, mins, maxs));
  }

  static LibsvmReader.Data synthetic() throws IOException {
    return LibsvmReader.read(sampleData("synthetic-2k.libsvm"));
  }

  static int[] randomBlocks(int n, int k, long seed) {
    Random r = new Random(seed);
    int[] b = new int[n];
    for (int i = 0; i < n; i++) b[i] = r.nextInt(k);
    return b;
  }

  /** Sparse random data: dim features, density p, labels from a random hyperplane plus noise. */
  static Object[] sparse(Random r, int n, int dim, double p) {
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    double[] plane = new double[dim];
    for (int f = 0; f < dim; f++) plane[f] = r.nextGaussian();
    for (int i = 0; i < n; i++) {
      double[] dense = new double[dim];
      for (int f = 0; f < dim; f++) if (r.nextDouble() < p) dense[f] = r.nextDouble();
      x[i] = SparseVector.ofDense(dense);
      y[i] = x[i].dot(plane) + 0.3 * r.nextGaussian() > 0 ? 1 : -1;
    }
    return new Object[] {x, y};
  }
}
