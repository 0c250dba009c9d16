package org.sodm.bench;

import java.nio.file.Path;
import java.util.Locale;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.KernelDualSolver;
import org.sodm.model.KernelExpansion;
import org.sodm.solver.Loss;
import org.sodm.solver.SolveResult;
import org.sodm.solver.SolverOptions;

/**
 * Single-node benchmark of the kernel dual solver (one thread).
 *
 * <pre>
 * java -cp ... org.sodm.bench.SolverBench TRAIN TEST [gamma=2] [c=32] [loss=hinge] [bias=false]
 *     [eps=1e-3] [cacheMb=256] [shrinking=true] [seed=1]
 * </pre>
 *
 * Prints one line: train seconds (solver only, data loading excluded), test accuracy, nSV,
 * objectives, epochs, kernel evaluations, cache hits/misses.
 */
public final class SolverBench {
  public static void main(String[] args) throws Exception {
    Path train = Path.of(args[0]);
    Path test = Path.of(args[1]);
    double gamma = 2;
    double c = 32;
    String loss = "hinge";
    boolean bias = false;
    double eps = 1e-3;
    long cacheMb = 256;
    boolean shrinking = true;
    long seed = 1;
    double lambda = 1;
    double theta = 0.1;
    double mu = 0.5;
    boolean predict = true;
    String selection = null;
    int limit = Integer.MAX_VALUE;
    for (int i = 2; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      switch (kv[0]) {
        case "gamma": gamma = Double.parseDouble(kv[1]); break;
        case "c": c = Double.parseDouble(kv[1]); break;
        case "loss": loss = kv[1]; break;
        case "bias": bias = Boolean.parseBoolean(kv[1]); break;
        case "eps": eps = Double.parseDouble(kv[1]); break;
        case "cacheMb": cacheMb = Long.parseLong(kv[1]); break;
        case "shrinking": shrinking = Boolean.parseBoolean(kv[1]); break;
        case "seed": seed = Long.parseLong(kv[1]); break;
        case "lambda": lambda = Double.parseDouble(kv[1]); break;
        case "theta": theta = Double.parseDouble(kv[1]); break;
        case "mu": mu = Double.parseDouble(kv[1]); break;
        case "predict": predict = Boolean.parseBoolean(kv[1]); break;
        case "selection": selection = kv[1]; break;
        case "n": limit = Integer.parseInt(kv[1]); break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    long tl = System.nanoTime();
    LibsvmReader.Data tr = LibsvmReader.read(train);
    double loadSec = (System.nanoTime() - tl) / 1e9;
    if (limit < tr.size()) {
      tr = new LibsvmReader.Data(java.util.Arrays.copyOf(tr.x(), limit), java.util.Arrays.copyOf(tr.labels(), limit),
          tr.labelMap(), java.util.Arrays.copyOf(tr.y(), limit));
    }
    Kernel k = KernelSpec.rbf(gamma).create();
    Loss ls = Loss.of(loss, c, lambda, theta, mu, bias, 1, 1);
    SolverOptions o = new SolverOptions(eps, SolverOptions.DEFAULT_MAX_EPOCHS, shrinking, cacheMb << 20, seed);
    long t0 = System.nanoTime();
    KernelDualSolver solver = new KernelDualSolver(k, o);
    if (selection != null) solver.withSelection(KernelDualSolver.Selection.valueOf(selection));
    SolveResult r = solver.solve(tr.x(), tr.y(), ls, null);
    double trainSec = (System.nanoTime() - t0) / 1e9;
    KernelExpansion f = r.expansion(k, tr.x(), bias);
    double predSec = Double.NaN;
    double acc = Double.NaN;
    if (predict) {
      LibsvmReader.Data te = LibsvmReader.read(test).withLabelMap(tr.labelMap());
      long t1 = System.nanoTime();
      double[] out = new double[te.size()];
      f.decision(te.x(), out);
      predSec = (System.nanoTime() - t1) / 1e9;
      int ok = 0;
      for (int i = 0; i < out.length; i++) {
        if ((out[i] > 0 ? 1.0 : -1.0) == te.y()[i]) ok++;
      }
      acc = 100.0 * ok / out.length;
    }
    System.out.printf(Locale.ROOT,
        "ours n=%d selection=%s loss=%s bias=%s eps=%g cacheMb=%d shrinking=%s load_s=%.3f train_s=%.3f predict_s=%.3f "
            + "acc=%.4f%% nSV=%d b=%.6f | %s%n",
        tr.size(), solver.selection(), ls.id(), bias, eps, cacheMb, shrinking, loadSec, trainSec, predSec, acc, f.size(), f.bias(), r.report());
  }
}
