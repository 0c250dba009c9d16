package org.sodm.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Helpers of {@code bench/run.sh}, run with
 * {@code java -jar bench/target/sodm-bench-*-all.jar} (the bench module's jar, not part of the product):
 *
 * <pre>
 * split IN TRAIN_OUT TEST_OUT [TEST_FRACTION=0.2] [SEED=1]   seeded split of a LIBSVM file (prints "train N test M")
 * dedup-split IN TRAIN_OUT TEST_OUT [FRACTION=0.2] [SEED=1] duplicates removed, then the seeded split (prints what it removed)
 * enlarge IN OUT ROWS SIGMA [SEED=1]                          IN's rows repeated with Gaussian noise to ROWS rows (Enlarge)
 * check-jar JAR CHECKOUT_DIR                                 exit 0 if the jar was built from the checkout (commit, diff), else 3
 * report DIR                                                 results.md, results.json, plot-SET.png from a run directory
 * svm-train LOG                                              the figures parsed from svm-train's output (key=value)
 * </pre>
 */
public final class BenchTool {
  private BenchTool() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    System.exit(run(args));
  }

  static int run(String... args) throws Exception {
    if (args.length == 0) return usage();
    switch (args[0]) {
      case "split": {
        if (args.length < 4) return usage();
        double frac = args.length > 4 ? Double.parseDouble(args[4]) : 0.2;
        long seed = args.length > 5 ? Long.parseLong(args[5]) : 1;
        int[] n = DataSplit.split(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), frac, seed);
        System.out.printf(Locale.ROOT, "train %d test %d%n", n[0], n[1]);
        return 0;
      }
      case "dedup-split": {
        if (args.length < 4) return usage();
        double frac = args.length > 4 ? Double.parseDouble(args[4]) : 0.2;
        long seed = args.length > 5 ? Long.parseLong(args[5]) : 1;
        DataSplit.Result r = DataSplit.dedupSplit(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), frac, seed);
        System.out.printf(Locale.ROOT, "train %d test %d duplicates %d read %d conflicting %d%n", r.train(), r.test(), r.duplicates(), r.read(),
            r.conflicting());
        System.err.println(args[1] + ": " + r.describe());
        return 0;
      }
      case "enlarge": {
        if (args.length < 5) return usage();
        long seed = args.length > 5 ? Long.parseLong(args[5]) : 1;
        int n0 = Enlarge.enlarge(Path.of(args[1]), Path.of(args[2]), Long.parseLong(args[3]), Double.parseDouble(args[4]), seed);
        System.out.printf(Locale.ROOT, "wrote %s rows from %d input rows, noise sigma %s, seed %d%n", args[3], n0, args[4], seed);
        return 0;
      }
      case "check-jar": {
        if (args.length < 3) return usage();
        CommitCheck.Verdict v = CommitCheck.check(Path.of(args[1]), Path.of(args[2]));
        System.out.println("commit=" + v.commit());
        System.out.println("check=" + v.message());
        return v.ok() ? 0 : 3;
      }
      case "report": {
        if (args.length < 2) return usage();
        BenchReport.generate(Path.of(args[1]));
        System.out.println("wrote " + Path.of(args[1]).resolve("results.md"));
        return 0;
      }
      case "svm-train": {
        if (args.length < 2) return usage();
        ToolOutput.SvmTrain s = ToolOutput.parseSvmTrain(Files.readString(Path.of(args[1])));
        System.out.printf("iterations=%s%nobjective=%s%nrho=%s%nnSV=%s%nnBSV=%s%ntotalSV=%s%n", s.iterations(), s.objective(), s.rho(),
            s.nSV(), s.nBSV(), s.totalSV());
        return 0;
      }
      default:
        return usage();
    }
  }

  private static int usage() {
    System.err.println("usage: BenchTool split|dedup-split IN TRAIN_OUT TEST_OUT [TEST_FRACTION] [SEED] | enlarge IN OUT ROWS SIGMA [SEED] | check-jar JAR CHECKOUT | report DIR | svm-train LOG");
    return 2;
  }
}
