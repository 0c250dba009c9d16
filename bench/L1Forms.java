import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.LibsvmParser;
import org.sodm.data.Row;
import org.sodm.data.SparseVector;
import org.sodm.linear.Csr;
import org.sodm.linear.LinearPrimal;
import org.sodm.linear.MarginBlock;
import org.sodm.linear.TronRank;
import org.sodm.solver.Loss;

/**
 * The L1 methods of `--penalty l1` side by side on one data set, in one JVM (no job, no ingest): newGLMNET in its dense form
 * (GLMNET), by column (GLMNET_COLUMNS) and OWL-QN, each on one rank of the in-process AllReduce, as a resident task runs them.
 * Run by bench/l1-forms.sh (which documents the options); a single-file program on the jobs all-jar's classpath.
 */
public final class L1Forms {
  private L1Forms() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = options(args);
    Path train = Path.of(o.get("train"));
    double c = Double.parseDouble(o.getOrDefault("c", "1"));
    double eps = Double.parseDouble(o.getOrDefault("eps", "0.01"));
    int reps = Integer.parseInt(o.getOrDefault("reps", "3"));
    int threads = Integer.parseInt(o.getOrDefault("threads", "1"));
    int maxIterations = Integer.parseInt(o.getOrDefault("max-iterations", "5000"));
    String lossName = o.getOrDefault("loss", "logistic");
    double gapStop = Double.parseDouble(o.getOrDefault("gap", "0")); // 0: LIBLINEAR's rule on the pseudo-gradient
    List<TronRank.Solver> forms = new ArrayList<>();
    for (String f : o.getOrDefault("forms", "glmnet,glmnet-columns,owlqn").split(",")) {
      forms.add(TronRank.Solver.valueOf(f.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
    }
    if (forms.contains(TronRank.Solver.TRON)) throw new IllegalArgumentException("--forms: tron is not an L1 method");
    if (reps < 1) throw new IllegalArgumentException("--reps must be >= 1, got " + reps);

    long t0 = System.nanoTime();
    Data d = read(train);
    LinearPrimal primal = switch (lossName) {
      case "logistic" -> Loss.logistic(c).logisticPrimal();
      case "squared-hinge" -> Loss.squaredHinge(c).primal();
      default -> throw new IllegalArgumentException("--loss must be logistic or squared-hinge, got " + lossName);
    };
    Csr x = Csr.of(d.x);
    long nnz = 0;
    for (SparseVector v : d.x) nnz += v.indices().length;
    int size = d.dim + 1; // the bias feature's weight last (0 here: no bias, LIBLINEAR's default)
    System.out.printf(Locale.ROOT, "%s: %,d rows, %,d features, %,d stored values (%.1f per row), +1 = %s; %s loss, C = %s, eps = %s, "
        + "%d thread(s)%s; read in %.2f s%n", train, d.x.length, d.dim, nnz, (double) nnz / d.x.length, d.positive, lossName,
        c, eps, threads, gapStop > 0 ? ", stop by duality gap <= " + gapStop + " f (eps unused)" : "", (System.nanoTime() - t0) / 1e9);
    if (forms.contains(TronRank.Solver.GLMNET) && (long) size * size > 1L << 26) {
      System.out.printf(Locale.ROOT, "glmnet: skipped (the dense form holds (d+1)^2 = %,d doubles)%n", (long) size * size);
      forms.remove(TronRank.Solver.GLMNET);
    }
    System.out.println("rep\tform\tseconds\titerations\tf\tpg\tnonzeros\tstatus\tduality gap");
    Map<TronRank.Solver, List<Double>> seconds = new LinkedHashMap<>();
    Map<TronRank.Solver, TronRank.State> last = new LinkedHashMap<>();
    for (int r = 0; r < reps; r++) {
      for (int k = 0; k < forms.size(); k++) {
        TronRank.Solver s = forms.get((k + r) % forms.size()); // each rep starts with another form
        long t = System.nanoTime();
        TronRank.State st = InProcessAllReduce.run(1, ar -> {
          TronRank rank = new TronRank(MarginBlock.of(primal, x, d.y, threads), size, eps, maxIterations, null, null, s);
          if (gapStop > 0) rank.stopByGap(gapStop);
          ResidentLoop.run(rank, 0, ar, ResidentLoop.Policy.none(), new MemoryCheckpoints(), null);
          return TronRank.decodeState(rank.globalState());
        }).get(0);
        double sec = (System.nanoTime() - t) / 1e9;
        if (r == 0 && o.containsKey("trace")) {
          for (org.sodm.linear.Tron.Trial tr : st.history()) {
            System.out.printf(Locale.ROOT, "  %s trace: iteration %d f %.12g pg %.3e%s%n", name(s), tr.iterations(), tr.f(), tr.gradientNorm(),
                Double.isNaN(tr.gap()) ? "" : String.format(Locale.ROOT, " gap %.3e", tr.gap()));
          }
        }
        seconds.computeIfAbsent(s, z -> new ArrayList<>()).add(sec);
        last.put(s, st);
        System.out.printf(Locale.ROOT, "%d\t%s\t%.3f\t%d\t%.12g\t%.3e\t%d\t%s\t%.3e%n", r + 1, name(s), sec, st.point().iterations(),
            st.last().f(), st.last().gradientNorm(), nonzeros(st.point().w()), st.point().status(), st.last().gap());
      }
    }
    double lowest = last.values().stream().mapToDouble(st -> st.last().f()).min().orElseThrow();
    double best = o.containsKey("reference") ? Double.parseDouble(o.get("reference")) : lowest;
    System.out.println();
    System.out.println(o.containsKey("reference") ? String.format(Locale.ROOT, "optimum: f = %.12g (%s); the forms' lowest f %.12g",
        best, o.getOrDefault("reference-name", "--reference"), lowest) : "optimum: the forms' lowest f (no reference given)");
    // rel. gap: f against the optimum above; certified: the run's own duality gap / f, a bound on it without any reference
    System.out.printf("%-15s %9s %9s %10s %18s %11s %9s %10s%n", "form", "first s", "median s", "iterations", "f", "rel. gap", "nonzeros",
        "certified");
    for (TronRank.Solver s : forms) {
      List<Double> all = seconds.get(s);
      // the first run of each form pays the JIT's warm-up; the median is over the later ones (all of them when reps = 1)
      double[] warm = (all.size() > 1 ? all.subList(1, all.size()) : all).stream().mapToDouble(Double::doubleValue).sorted().toArray();
      double median = warm.length % 2 == 1 ? warm[warm.length / 2] : (warm[warm.length / 2 - 1] + warm[warm.length / 2]) / 2;
      TronRank.State st = last.get(s);
      System.out.printf(Locale.ROOT, "%-15s %9.3f %9.3f %10d %18.12g %11.2e %9d %10.2e%n", name(s), all.get(0), median,
          st.point().iterations(), st.last().f(), (st.last().f() - best) / Math.abs(best), nonzeros(st.point().w()),
          st.last().gap() / st.last().f());
    }
  }

  private static String name(TronRank.Solver s) {
    return s.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static int nonzeros(double[] w) {
    int n = 0;
    for (double v : w) if (v != 0) n++;
    return n;
  }

  private record Data(SparseVector[] x, double[] y, int dim, String positive) {}

  /** A LIBSVM file of two classes: the larger label is +1 (as sodm's binary models); {@link Csr} makes the indices 0-based. */
  private static Data read(Path file) throws IOException {
    LibsvmParser p = new LibsvmParser();
    List<SparseVector> xs = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    int dim = 0;
    int line = 0;
    for (String s : Files.readAllLines(file)) {
      line++;
      Row r;
      try {
        r = p.parse(s);
      } catch (RuntimeException | org.sodm.data.RecordException e) {
        throw new IOException(file + ":" + line + ": " + e.getMessage(), e);
      }
      if (r == null) continue;
      int[] idx = r.features().indices();
      if (idx.length > 0) dim = Math.max(dim, idx[idx.length - 1]);
      xs.add(r.features());
      labels.add(r.label());
    }
    String[] distinct = labels.stream().distinct().sorted((a, b) -> Double.compare(Double.parseDouble(a), Double.parseDouble(b)))
        .toArray(String[]::new);
    if (distinct.length != 2) throw new IOException(file + ": two classes needed, found " + Arrays.toString(distinct));
    double[] y = new double[labels.size()];
    for (int i = 0; i < y.length; i++) y[i] = labels.get(i).equals(distinct[1]) ? 1 : -1;
    return new Data(xs.toArray(new SparseVector[0]), y, dim, distinct[1]);
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> o = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].startsWith("--") && i + 1 < args.length) {
        o.put(args[i].substring(2), args[++i]);
      } else if (!o.containsKey("train")) {
        o.put("train", args[i]);
      } else {
        throw new IllegalArgumentException("unexpected argument " + args[i]);
      }
    }
    if (!o.containsKey("train")) throw new IllegalArgumentException("usage: L1Forms TRAIN [--loss L] [--c C] [--eps E] [--reps N] ...");
    return o;
  }
}
