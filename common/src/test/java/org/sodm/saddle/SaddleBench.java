package org.sodm.saddle;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Random;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;

/**
 * Single-node benchmark of Saddle-SVC (one thread; data loading excluded), for
 * {@code bench/saddle-bench.sh}:
 *
 * <pre>
 * java -cp ... org.sodm.saddle.SaddleBench hard FILE|synthetic:N:D:GAP [eps=1e-3] [seed=1]
 *     hard margin: Saddle-SVC to the relative gap eps, then Gilbert's algorithm to the same relative gap
 *     (1 - lower^2 / upper^2 of its own bounds); both lines: seconds, iterations, [lower, upper] hull distance
 * java -cp ... org.sodm.saddle.SaddleBench nu TRAIN TEST [nu=default] [eps=1e-3] [seed=1]
 *     nu-SVM: seconds, iterations, nu, test accuracy
 * </pre>
 */
public final class SaddleBench {
  private SaddleBench() {}

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** This thread's CPU seconds (the machine is shared: CPU time is steadier than wall time). */
  private static double cpu() {
    return THREADS.getCurrentThreadCpuTime() / 1e9;
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    if (mode.equals("hard")) hard(args);
    else if (mode.equals("nu")) nu(args);
    else throw new IllegalArgumentException("mode hard or nu, got " + mode);
  }

  private static void hard(String[] args) throws Exception {
    double eps = args.length > 2 ? Double.parseDouble(args[2]) : 1e-3;
    long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
    SparseVector[] x;
    double[] y;
    if (args[1].startsWith("synthetic:")) {
      String[] p = args[1].split(":");
      SaddleTestData.Set s = SaddleTestData.separable(new Random(seed), Integer.parseInt(p[1]), Integer.parseInt(p[2]),
          Double.parseDouble(p[3]));
      x = s.x();
      y = s.y();
    } else {
      LibsvmReader.Data d = LibsvmReader.read(Path.of(args[1]));
      x = d.x();
      y = d.y();
    }
    long t0 = System.nanoTime();
    double c0 = cpu();
    SaddleResult r = SaddleSvc.train(x, y, SaddleOptions.hardMargin().withEps(eps).withSeed(seed));
    double ts = (System.nanoTime() - t0) / 1e9;
    double cs = cpu() - c0;
    long iterations = 0;
    for (SaddleResult.Trial t : r.trials()) iterations += t.iterations();
    System.out.printf(Locale.ROOT, "saddle  n=%d seconds=%.3f cpu=%.3f iterations=%d beta=%g converged=%s gap=%.3e lower=%.6g upper=%.6g%n",
        x.length, ts, cs, iterations, r.best().beta(), r.best().converged(), r.best().relativeGap(), r.best().hullDistanceLower(),
        r.best().hullDistanceUpper());
    int d = Preprocessing.inputDimension(x);
    double[][] dense = new double[x.length][d];
    for (int i = 0; i < x.length; i++) for (int k = 0; k < x[i].nnz(); k++) dense[i][x[i].index(k) - 1] = x[i].value(k);
    long t1 = System.nanoTime();
    double c1 = cpu();
    double limit = Double.parseDouble(System.getProperty("gilbert.cpu.limit", "600"));
    double[] g = gilbert(dense, y, eps, limit);
    double tg = (System.nanoTime() - t1) / 1e9;
    double cg = cpu() - c1;
    System.out.printf(Locale.ROOT, "gilbert n=%d seconds=%.3f cpu=%.3f reached=%s iterations=%d gap=%.3e lower=%.6g upper=%.6g%n",
        x.length, tg, cg, g[3] > 0, (long) g[2],
        1 - g[0] * g[0] / (g[1] * g[1]), g[0], g[1]);
  }

  /**
   * Gilbert's algorithm (as {@link HardMarginReference#gilbert}, one pass of n dot products per
   * iteration) until 1 - lower^2 / upper^2 &lt;= eps or {@code cpuLimit} CPU seconds: {lower, upper,
   * iterations, 1 when eps was reached}.
   */
  static double[] gilbert(double[][] x, double[] y, double eps, double cpuLimit) {
    double c0 = cpu();
    int n = x.length;
    int d = x[0].length;
    int p0 = -1;
    int q0 = -1;
    for (int i = 0; i < n; i++) {
      if (y[i] > 0 && p0 < 0) p0 = i;
      if (y[i] < 0 && q0 < 0) q0 = i;
    }
    double[] z = new double[d];
    for (int j = 0; j < d; j++) z[j] = x[p0][j] - x[q0][j];
    for (long it = 0; ; it++) {
      int ip = -1;
      int iq = -1;
      double vp = Double.POSITIVE_INFINITY;
      double vq = Double.NEGATIVE_INFINITY;
      for (int i = 0; i < n; i++) {
        double v = SaddleTestData.dot(z, x[i]);
        if (y[i] > 0) {
          if (v < vp) {
            vp = v;
            ip = i;
          }
        } else if (v > vq) {
          vq = v;
          iq = i;
        }
      }
      double zz = SaddleTestData.dot(z, z);
      double zs = vp - vq;
      double lower = zs / Math.sqrt(zz);
      double upper = Math.sqrt(zz);
      if (lower > 0 && 1 - lower * lower / (upper * upper) <= eps) return new double[] {lower, upper, it, 1};
      if ((it & 255) == 0 && cpu() - c0 > cpuLimit) return new double[] {lower, upper, it, 0};
      double[] dir = new double[d];
      for (int j = 0; j < d; j++) dir[j] = x[ip][j] - x[iq][j] - z[j];
      double t = Math.min(1, Math.max(0, -SaddleTestData.dot(z, dir) / SaddleTestData.dot(dir, dir)));
      for (int j = 0; j < d; j++) z[j] += t * dir[j];
    }
  }

  private static void nu(String[] args) throws Exception {
    LibsvmReader.Data train = LibsvmReader.read(Path.of(args[1]));
    LibsvmReader.Data test = LibsvmReader.read(Path.of(args[2])).withLabelMap(train.labelMap());
    SaddleOptions o = SaddleOptions.nuSvm();
    if (args.length > 3 && !args[3].equals("default")) o = o.withNu(Double.parseDouble(args[3]));
    o = o.withEps(args.length > 4 ? Double.parseDouble(args[4]) : 1e-3).withSeed(args.length > 5 ? Long.parseLong(args[5]) : 1);
    long t0 = System.nanoTime();
    double c0 = cpu();
    SaddleResult r = SaddleSvc.train(train.x(), train.y(), o);
    double ts = (System.nanoTime() - t0) / 1e9;
    double cs = cpu() - c0;
    long iterations = 0;
    for (SaddleResult.Trial t : r.trials()) iterations += t.iterations();
    int right = 0;
    for (int i = 0; i < test.size(); i++) {
      double f = r.bias();
      SparseVector v = test.x()[i];
      for (int k = 0; k < v.nnz(); k++) if (v.index(k) <= r.weights().length) f += r.weights()[v.index(k) - 1] * v.value(k);
      if ((f >= 0 ? 1 : -1) == test.y()[i]) right++;
    }
    System.out.printf(Locale.ROOT, "saddle-nu n=%d seconds=%.3f cpu=%.3f iterations=%d nu=%.6g beta=%g converged=%s gap=%.3e accuracy=%.4f "
        + "positive=%s%n", train.size(), ts, cs, iterations, r.nu(), r.best().beta(), r.best().converged(), r.best().relativeGap(),
        (double) right / test.size(), train.labelMap().positive());
  }
}
