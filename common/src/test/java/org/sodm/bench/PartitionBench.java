package org.sodm.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.partition.KernelKMeans;
import org.sodm.partition.LandmarkSelector;
import org.sodm.partition.Landmarks;
import org.sodm.partition.PartitionQuality;
import org.sodm.partition.RandomPartitioner;
import org.sodm.partition.StratifiedPartitioner;
import org.sodm.partition.StratumAssigner;
import org.sodm.partition.StreamingStratifiedAssigner;

/**
 * Partition quality and time on a LIBSVM file (the note's figure: ijcnn1, RBF gamma=2, K=16).
 *
 * <pre>
 * java -cp common/target/classes:common/target/test-classes:$(cat /tmp/cp.txt) \
 *   org.sodm.bench.PartitionBench /tmp/ijcnn1.trn [gamma=2] [K=16] [splits=8] [kmSample=2000] [pairs=2000000] [seed=1]
 * </pre>
 * Landmarks are selected in two stages as the MapReduce job does: each of {@code splits}
 * contiguous splits selects S candidates, then S are selected from their union. Stratum
 * proportions are measured against the S=256 strata for every partitioner.
 *
 * <p>Output on ijcnn1 (49,990 rows), seed 1, 2 shared cores (times vary with load):
 * <pre>
 * partitioner             minSize  maxSize       D(pi)      +-se  offBlock posSpread   stratTV  featSMD
 * random                     3085     3172   1.037e+08   2.4e+05    0.9381    0.0198    0.0948   0.0740   time 0.01s
 * stratified S=64            3124     3125   1.036e+08   2.4e+05    0.9375    0.0144    0.0788   0.0334   time 0.68s
 * streaming S=64             3123     3126   1.036e+08   2.4e+05    0.9373    0.0148    0.0646   0.0247   time 0.64s
 * stratified S=256           3124     3125   1.036e+08   2.4e+05    0.9375    0.0157    0.0150   0.0312   time 2.02s
 * streaming S=256            3123     3126   1.037e+08   2.4e+05    0.9383    0.0153    0.0264   0.0259   time 2.00s
 * stratified S=256xclass     3124     3125   1.037e+08   2.4e+05    0.9376    0.0048    0.0150   0.0387   time 2.07s
 * kernel k-means m=2000      1822     5008   3.078e+07   9.3e+04    0.2784    0.0384    0.9456   3.0000   time 6.96s
 * </pre>
 */
public final class PartitionBench {
  private PartitionBench() {}

  public static void main(String[] args) throws IOException {
    String file = args.length > 0 ? args[0] : "/tmp/ijcnn1.trn";
    double gamma = args.length > 1 ? Double.parseDouble(args[1]) : 2;
    int k = args.length > 2 ? Integer.parseInt(args[2]) : 16;
    int splits = args.length > 3 ? Integer.parseInt(args[3]) : 8;
    int kmSample = args.length > 4 ? Integer.parseInt(args[4]) : 2000;
    int pairs = args.length > 5 ? Integer.parseInt(args[5]) : 2_000_000;
    long seed = args.length > 6 ? Long.parseLong(args[6]) : 1;

    List<SparseVector> xs = new ArrayList<>();
    List<Double> ys = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(Paths.get(file), StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        line = line.trim();
        if (line.isEmpty() || line.startsWith("#")) continue;
        String[] tok = line.split("\\s+");
        ys.add(Double.parseDouble(tok[0]));
        int[] idx = new int[tok.length - 1];
        double[] val = new double[tok.length - 1];
        for (int t = 1; t < tok.length; t++) {
          int c = tok[t].indexOf(':');
          idx[t - 1] = Integer.parseInt(tok[t].substring(0, c));
          val[t - 1] = Double.parseDouble(tok[t].substring(c + 1));
        }
        xs.add(new SparseVector(idx, val));
      }
    }
    SparseVector[] x = xs.toArray(new SparseVector[0]);
    double[] y = ys.stream().mapToDouble(Double::doubleValue).toArray();
    int n = x.length;
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) ids[i] = i;
    Kernel kernel = KernelSpec.rbf(gamma).create();
    System.out.printf(Locale.ROOT, "data %s: n=%d, rbf gamma=%s, K=%d, %d splits, kmeans sample %d, %d pairs for D(pi), seed %d%n",
        file, n, gamma, k, splits, kmSample, pairs, seed);

    List<Row> rows = new ArrayList<>();
    int[] refStrata = null;
    Row classRow = null;

    // random
    long t0 = System.nanoTime();
    int[] rnd = RandomPartitioner.assign(ids, k, seed);
    rows.add(new Row("random", rnd, secs(t0), ""));

    // stratified
    for (int s : new int[] {64, 256}) {
      long a = System.nanoTime();
      List<SparseVector[]> cand = new ArrayList<>();
      for (int sp = 0; sp < splits; sp++) {
        int lo = (int) ((long) n * sp / splits);
        int hi = (int) ((long) n * (sp + 1) / splits);
        cand.add(LandmarkSelector.select(Arrays.copyOfRange(x, lo, hi), kernel, s, seed + sp).points());
      }
      Landmarks lm = LandmarkSelector.selectFromUnion(cand, kernel, s, seed);
      double tLand = secs(a);
      long b = System.nanoTime();
      int[] strata = new StratumAssigner(kernel, lm.points()).assignAll(x);
      double tStrata = secs(b);
      long c = System.nanoTime();
      int[] part = StratifiedPartitioner.assign(strata, ids, k, seed);
      double tDeal = secs(c);
      if (s == 256) {
        refStrata = strata;
        // stratum x class: the same deal with the label folded into the stratum key
        long g = System.nanoTime();
        int[] byClass = new int[n];
        for (int i = 0; i < n; i++) byClass[i] = 2 * strata[i] + (y[i] > 0 ? 1 : 0);
        int[] partC = StratifiedPartitioner.assign(byClass, ids, k, seed);
        double tC = secs(g);
        classRow = new Row("stratified S=" + s + "xclass", partC, tLand + tStrata + tC,
            String.format(Locale.ROOT, "strata key 2*stratum+[y>0], deal %.3fs", tC));
      }
      int nonEmpty = (int) Arrays.stream(strata).distinct().count();
      rows.add(new Row("stratified S=" + s, part, tLand + tStrata + tDeal,
          String.format(Locale.ROOT, "landmarks %.2fs (S=%d, last residual %.3g), strata %.2fs (%d non-empty), deal %.3fs",
              tLand, lm.size(), lm.residuals()[lm.size() - 1], tStrata, nonEmpty, tDeal)));
      // streaming form: one stream per split, in split order
      long d = System.nanoTime();
      int[] stream = new int[n];
      for (int sp = 0; sp < splits; sp++) {
        int lo = (int) ((long) n * sp / splits);
        int hi = (int) ((long) n * (sp + 1) / splits);
        StreamingStratifiedAssigner st = new StreamingStratifiedAssigner(k, seed, sp);
        for (int i = lo; i < hi; i++) stream[i] = st.next(strata[i]);
      }
      double tStream = secs(d);
      rows.add(new Row("streaming S=" + s, stream, tLand + tStrata + tStream,
          String.format(Locale.ROOT, "same strata, streaming deal %.3fs, max per-stratum spread %d (bound %d)",
              tStream, maxStratumSpread(strata, stream, k), splits)));
    }

    rows.add(classRow);

    // kernel k-means (DC-SVM two-step)
    long e = System.nanoTime();
    KernelKMeans km = KernelKMeans.fit(KernelKMeans.uniformSample(x, kmSample, seed), kernel, k, 100, seed);
    double tFit = secs(e);
    long f = System.nanoTime();
    int[] kmp = km.assignAll(x);
    double tAssign = secs(f);
    double[] h = km.objectiveHistory();
    rows.add(new Row("kernel k-means m=" + kmSample, kmp, tFit + tAssign,
        String.format(Locale.ROOT, "fit %.2fs (%d iterations, objective %.1f -> %.1f), assign %.2fs",
            tFit, h.length - 1, h[0], h[h.length - 1], tAssign)));

    System.out.printf(Locale.ROOT, "%n%-22s %8s %8s %11s %9s %9s %9s %9s %8s%n", "partitioner", "minSize", "maxSize",
        "D(pi)", "+-se", "offBlock", "posSpread", "stratTV", "featSMD");
    StringBuilder notes = new StringBuilder();
    for (Row row : rows) {
      long q0 = System.nanoTime();
      PartitionQuality q = PartitionQuality.measure(x, y, row.part, k, refStrata, kernel, pairs, seed);
      double tq = secs(q0);
      System.out.printf(Locale.ROOT, "%-22s %8d %8d %11.4g %9.2g %9.4f %9.4f %9.4f %8.4f   time %.2fs%n", row.name,
          q.minSize(), q.maxSize(), q.offBlockMass(), q.offBlockMassStdErr(), q.offBlockFraction(),
          q.classBalanceSpread(), q.maxStratumDeviation(), q.maxFeatureMeanDeviation(), row.secs);
      notes.append(String.format(Locale.ROOT, "  %-22s %s (quality measured in %.2fs)%n", row.name, row.note, tq));
    }
    System.out.printf(Locale.ROOT, "%nglobal positive fraction %.4f; D(pi) over ordered pairs i!=j, offBlock = D(pi)/sum|K_ij|;"
        + " posSpread = max-min positive fraction over partitions; stratTV = max total-variation distance of a partition's"
        + " S=256 stratum proportions to the global ones; featSMD = max |partition mean - mean|/sd over features and partitions%n",
        Arrays.stream(y).filter(v -> v > 0).count() / (double) n);
    System.out.print(notes);
  }

  private record Row(String name, int[] part, double secs, String note) {}

  private static double secs(long start) {
    return (System.nanoTime() - start) / 1e9;
  }

  private static int maxStratumSpread(int[] strata, int[] part, int k) {
    int s = Arrays.stream(strata).max().getAsInt() + 1;
    int[][] c = new int[s][k];
    for (int i = 0; i < strata.length; i++) c[strata[i]][part[i]]++;
    int worst = 0;
    for (int[] row : c) {
      if (Arrays.stream(row).sum() == 0) continue;
      worst = Math.max(worst, Arrays.stream(row).max().getAsInt() - Arrays.stream(row).min().getAsInt());
    }
    return worst;
  }
}
