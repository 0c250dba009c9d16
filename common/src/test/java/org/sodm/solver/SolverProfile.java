package org.sodm.solver;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

/**
 * Where a block solve spends its time (issue #6's profile), one JVM, single node. Run by
 * {@code bench/profile.sh}; not a test.
 *
 * <pre>
 * java -cp ... org.sodm.solver.SolverProfile TRAIN [blocks=16] [gamma=2] [c=32] [reps=5]
 * </pre>
 *
 * Block b is rows b, b+blocks, b+2 blocks, ... of TRAIN (a fixed, label-mixed 1/blocks share,
 * the size of one bottom-level block of {@code sodm train --partitions blocks}). Sections:
 * <ol>
 *   <li>kernel throughput on block 0, one core: a tight dense RBF loop (the bound) against
 *       {@link Rows#kernelRow} on the dense copy, on the sparse path, and
 *       {@link Kernel#column} pair by pair;
 *   <li>block 0 solved {@code reps} times in this JVM: the first solve is cold (interpreter and
 *       C1), the rest warm; kernel evaluations and the share of time they take;
 *   <li>warm variants: shrinking off, single-variable greedy steps, cache budgets from 1 MB up;
 *   <li>all blocks sequentially on one thread, then on a pool of 2 threads (the two local
 *       reducers): wall seconds and speed-up.
 * </ol>
 */
public final class SolverProfile {
  private SolverProfile() {}

  public static void main(String[] args) throws Exception {
    Path train = Path.of(args[0]);
    int blocks = 16;
    double gamma = 2;
    double c = 32;
    int reps = 5;
    for (int i = 1; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      switch (kv[0]) {
        case "blocks": blocks = Integer.parseInt(kv[1]); break;
        case "gamma": gamma = Double.parseDouble(kv[1]); break;
        case "c": c = Double.parseDouble(kv[1]); break;
        case "reps": reps = Integer.parseInt(kv[1]); break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    LibsvmReader.Data all = LibsvmReader.read(train);
    SparseVector[][] bx = new SparseVector[blocks][];
    double[][] by = new double[blocks][];
    for (int b = 0; b < blocks; b++) {
      int m = (all.size() - b + blocks - 1) / blocks;
      bx[b] = new SparseVector[m];
      by[b] = new double[m];
      for (int t = 0; t < m; t++) {
        bx[b][t] = all.x()[b + t * blocks];
        by[b][t] = all.y()[b + t * blocks];
      }
    }
    Kernel k = KernelSpec.rbf(gamma).create();
    Loss loss = Loss.hinge(c);
    SolverOptions base = SolverOptions.defaults();
    out("# solver profile: %s, %d rows, %d blocks of ~%d rows, rbf gamma=%g, hinge C=%g, eps=%g, %d core(s)",
        train.getFileName(), all.size(), blocks, bx[0].length, gamma, c, base.eps(), Runtime.getRuntime().availableProcessors());

    // 1. kernel throughput
    SparseVector[] x0 = bx[0];
    int n0 = x0.length;
    double g = gamma;
    double tight = bestRate(() -> tightRbf(x0, g), (long) n0 * n0);
    Rows dense = new Rows(k, x0, true);
    Rows sparse = new Rows(k, x0, false);
    double[] buf = new double[n0];
    double rd = bestRate(() -> allRows(dense, buf), (long) n0 * n0);
    double rs = bestRate(() -> allRows(sparse, buf), (long) n0 * n0);
    double rp = bestRate(() -> {
      double s = 0;
      for (int p = 0; p < n0; p++) {
        k.column(x0[p], x0, buf);
        s += buf[p];
      }
      return s;
    }, (long) n0 * n0);
    out("");
    out("## 1. kernel evaluations per second, one core (block 0, %d x %d, dense=%s)", n0, n0, dense.dense);
    out("| path | M evals/s | vs tight loop |");
    out("|---|---:|---:|");
    out("| tight dense RBF loop (bound) | %.1f | 1.00 |", tight / 1e6);
    out("| Rows.kernelRow, dense copy (solver default here) | %.1f | %.2f |", rd / 1e6, rd / tight);
    out("| Rows.kernelRow, sparse path | %.1f | %.2f |", rs / 1e6, rs / tight);
    out("| Kernel.column, pair by pair | %.1f | %.2f |", rp / 1e6, rp / tight);

    // 2. cold vs warm
    out("");
    out("## 2. block 0 solved %d times in one JVM (first = cold JIT)", reps);
    out("| solve | seconds | kernel evals | est. kernel share | steps/epochs | SV | violation |");
    out("|---:|---:|---:|---:|---:|---:|---:|");
    double[] secs = new double[reps];
    for (int r = 0; r < reps; r++) {
      SolveReport rep = new KernelDualSolver(k, base).solve(x0, by[0], loss, null).report();
      secs[r] = rep.seconds();
      out("| %d | %.3f | %,d | %.0f%% | %d | %d | %.2e |", r + 1, rep.seconds(), rep.kernelEvaluations(),
          100 * rep.kernelEvaluations() / rd / rep.seconds(), rep.epochs(), rep.supportVectors(), rep.maxViolation());
    }
    double warm = median(Arrays.copyOfRange(secs, Math.min(1, reps - 1), reps));
    out("cold/warm: %.1fx", secs[0] / warm);

    // 3. variants, warm
    out("");
    out("## 3. variants on block 0 (warm, median of 3)");
    out("| variant | seconds | vs default | kernel evals | cache hits / misses | peak cache MB |");
    out("|---|---:|---:|---:|---:|---:|");
    variant("default (shrinking, float cache 256 MB)", k, base, x0, by[0], loss, warm);
    variant("shrinking off", k, base.withShrinking(false), x0, by[0], loss, warm);
    variant("greedy single-variable steps (no pairs)", k, base.withPairs(false), x0, by[0], loss, warm);
    for (long mb : new long[] {1, 4, 16, 64}) {
      variant("float cache " + mb + " MB", k, base.withCacheBytes(mb << 20), x0, by[0], loss, warm);
    }
    variant("eps 1e-2", k, base.withEps(1e-2), x0, by[0], loss, warm);

    // 4. all blocks, 1 thread vs 2
    out("");
    out("## 4. all %d blocks: one thread vs a pool of 2 (the local reducers)", blocks);
    double seq = Double.POSITIVE_INFINITY;
    double par = Double.POSITIVE_INFINITY;
    long evals = 0;
    for (int r = 0; r < 3; r++) {
      long t0 = System.nanoTime();
      evals = 0;
      for (int b = 0; b < blocks; b++) {
        evals += new KernelDualSolver(k, base).solve(bx[b], by[b], loss, null).report().kernelEvaluations();
      }
      seq = Math.min(seq, (System.nanoTime() - t0) / 1e9);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      t0 = System.nanoTime();
      List<Future<SolveResult>> fs = new ArrayList<>();
      for (int b = 0; b < blocks; b++) {
        int bb = b;
        fs.add(pool.submit(() -> new KernelDualSolver(k, base).solve(bx[bb], by[bb], loss, null)));
      }
      for (Future<SolveResult> f : fs) f.get();
      par = Math.min(par, (System.nanoTime() - t0) / 1e9);
      pool.shutdown();
    }
    out("| threads | seconds (best of 3) | speed-up | kernel evals |");
    out("|---:|---:|---:|---:|");
    out("| 1 | %.3f | 1.00 | %,d |", seq, evals);
    out("| 2 | %.3f | %.2f | %,d |", par, seq / par, evals);
  }

  private interface Work {
    double run();
  }

  private static double sink;

  /** Evaluations per second, best of 5 runs after 2 warm-up runs. */
  private static double bestRate(Work w, long evals) {
    double best = Double.POSITIVE_INFINITY;
    for (int r = 0; r < 7; r++) {
      long t0 = System.nanoTime();
      sink += w.run();
      double s = (System.nanoTime() - t0) / 1e9;
      if (r >= 2) best = Math.min(best, s);
    }
    return evals / best;
  }

  private static double tightRbf(SparseVector[] x, double gamma) {
    int n = x.length;
    int d = 0;
    for (SparseVector v : x) d = Math.max(d, v.maxIndex());
    double[][] m = new double[n][d];
    for (int i = 0; i < n; i++) {
      int[] idx = x[i].indices();
      double[] val = x[i].values();
      for (int t = 0; t < idx.length; t++) m[i][idx[t] - 1] = val[t];
    }
    double[] out = new double[n];
    double s = 0;
    for (int p = 0; p < n; p++) {
      double[] a = m[p];
      for (int j = 0; j < n; j++) {
        double[] b = m[j];
        double dist = 0;
        for (int f = 0; f < d; f++) {
          double e = a[f] - b[f];
          dist += e * e;
        }
        out[j] = Math.exp(-gamma * dist);
      }
      s += out[p];
    }
    return s;
  }

  private static double allRows(Rows r, double[] buf) {
    double s = 0;
    for (int p = 0; p < r.n; p++) {
      r.kernelRow(p, 0, r.n, buf);
      s += buf[p];
    }
    return s;
  }

  private static void variant(String name, Kernel k, SolverOptions o, SparseVector[] x, double[] y,
      Loss loss, double ref) {
    double[] s = new double[3];
    SolveReport rep = null;
    long peak = 0;
    for (int r = 0; r < 3; r++) {
      KernelDualSolver solver = new KernelDualSolver(k, o);
      rep = solver.solve(x, y, loss, null).report();
      peak = solver.lastPeakCacheBytes();
      s[r] = rep.seconds();
    }
    double med = median(s);
    out("| %s | %.3f | %.2f | %,d | %,d / %,d | %.1f |", name, med, med / ref, rep.kernelEvaluations(),
        rep.cacheHits(), rep.cacheMisses(), peak / 1048576.0);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static void out(String fmt, Object... args) {
    System.out.println(String.format(Locale.ROOT, fmt, args));
  }
}
