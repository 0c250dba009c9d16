package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelExpansion;

/**
 * The nu-SVC dual ({@link NuSvcSolver}) against a brute-force QP on tiny problems, its KKT
 * conditions, and LIBSVM's {@code svm-train -s 1} (RBF) on svmguide1 (skipped when LIBSVM is not
 * installed).
 */
class NuSvcSolverTest {
  @TempDir Path tmp;

  private static double[][] gram(Kernel k, SparseVector[] x, double[] y) {
    int n = x.length;
    double[][] q = new double[n][n];
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) q[i][j] = y[i] * y[j] * k.eval(x[i], x[j]);
    return q;
  }

  private static double objective(double[][] q, double[] a) {
    double s = 0;
    for (int i = 0; i < a.length; i++) for (int j = 0; j < a.length; j++) s += a[i] * q[i][j] * a[j];
    return s / 2;
  }

  /**
   * min 1/2 a'Qa over 0 &lt;= a &lt;= 1/n, y'a = 0, e'a = nu by enumerating every assignment of the
   * variables to {0, 1/n, free}: for each, the equality-constrained QP's KKT system on the free ones;
   * the least objective among the feasible solutions. The optimum is one of them (its own active
   * set gives it, Q being positive definite on distinct points with the RBF kernel) and every other
   * is feasible, so no smaller.
   */
  static double bruteForce(double[][] q, double[] y, double nu) {
    int n = y.length;
    double u = 1.0 / n;
    double best = Double.POSITIVE_INFINITY;
    int total = 1;
    for (int i = 0; i < n; i++) total *= 3;
    for (int code = 0; code < total; code++) {
      int[] state = new int[n];
      int c = code;
      List<Integer> free = new ArrayList<>();
      double[] a = new double[n];
      for (int i = 0; i < n; i++) {
        state[i] = c % 3;
        c /= 3;
        if (state[i] == 1) a[i] = u;
        if (state[i] == 2) free.add(i);
      }
      int m = free.size();
      double[][] sys = new double[m + 2][m + 3];
      for (int r = 0; r < m; r++) {
        int i = free.get(r);
        double rhs = 0;
        for (int j = 0; j < n; j++) if (state[j] != 2) rhs -= q[i][j] * a[j];
        for (int s = 0; s < m; s++) sys[r][s] = q[i][free.get(s)];
        sys[r][m] = -y[i];
        sys[r][m + 1] = -1;
        sys[r][m + 2] = rhs;
      }
      double sy = 0;
      double se = 0;
      for (int j = 0; j < n; j++) {
        if (state[j] != 2) {
          sy += y[j] * a[j];
          se += a[j];
        }
      }
      for (int s = 0; s < m; s++) {
        sys[m][s] = y[free.get(s)];
        sys[m + 1][s] = 1;
      }
      sys[m][m + 2] = -sy;
      sys[m + 1][m + 2] = nu - se;
      double[] sol = solveLeastSquaresOrNull(sys);
      if (sol == null) continue;
      for (int s = 0; s < m; s++) a[free.get(s)] = sol[s];
      boolean ok = true;
      double ey = 0;
      double ee = 0;
      for (int i = 0; i < n; i++) {
        ok &= a[i] >= -1e-12 && a[i] <= u + 1e-12;
        ey += y[i] * a[i];
        ee += a[i];
      }
      ok &= Math.abs(ey) < 1e-10 && Math.abs(ee - nu) < 1e-10;
      if (ok) best = Math.min(best, objective(q, a));
    }
    return best;
  }

  /** Gaussian elimination with partial pivoting of the square system [A | b]; null when singular or inconsistent. */
  private static double[] solveLeastSquaresOrNull(double[][] a) {
    int n = a.length;
    for (int c = 0; c < n; c++) {
      int p = c;
      for (int r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
      if (Math.abs(a[p][c]) < 1e-12) return null;
      double[] t = a[p];
      a[p] = a[c];
      a[c] = t;
      for (int r = c + 1; r < n; r++) {
        double f = a[r][c] / a[c][c];
        for (int k = c; k <= n; k++) a[r][k] -= f * a[c][k];
      }
    }
    double[] x = new double[n];
    for (int r = n - 1; r >= 0; r--) {
      double s = a[r][n];
      for (int k = r + 1; k < n; k++) s -= a[r][k] * x[k];
      x[r] = s / a[r][r];
    }
    return x;
  }

  @Test
  void tinyProblemsEqualABruteForceQpAndSatisfyKkt() {
    Random rnd = new Random(11);
    Kernel k = new KernelSpec(KernelSpec.Type.RBF, 0.7, 0, 3).create();
    int checked = 0;
    for (int trial = 0; trial < 40; trial++) {
      int n = 3 + rnd.nextInt(5);
      SparseVector[] x = new SparseVector[n];
      double[] y = new double[n];
      for (int i = 0; i < n; i++) {
        x[i] = SparseVector.ofDense(rnd.nextGaussian(), rnd.nextGaussian());
        y[i] = i < 2 ? (i == 0 ? 1 : -1) : (rnd.nextBoolean() ? 1 : -1);
      }
      int n1 = 0;
      for (double v : y) if (v > 0) n1++;
      double nuMax = 2.0 * Math.min(n1, n - n1) / n;
      double nu = nuMax * (0.2 + 0.8 * rnd.nextDouble());
      NuSvcSolver.Result r = new NuSvcSolver(k, SolverOptions.defaults().withEps(1e-10)).solve(x, y, nu);
      assertTrue(r.converged());
      double[][] q = gram(k, x, y);
      double ref = bruteForce(q, y, nu);
      String what = "trial " + trial + " n=" + n + " nu=" + nu;
      // Q is kept in float, as LIBSVM does: a relative perturbation of about 6e-8
      assertEquals(ref, objective(q, r.a()), 1e-6 * Math.abs(ref) + 1e-12, what);
      assertEquals(r.objective(), objective(q, r.a()), 1e-6 * Math.abs(ref) + 1e-12, what + ": reported objective");
      // feasibility: the box and both equality constraints hold
      double ey = 0;
      double ee = 0;
      for (int i = 0; i < n; i++) {
        assertTrue(r.a()[i] >= 0 && r.a()[i] <= 1.0 / n + 1e-15, what);
        ey += y[i] * r.a()[i];
        ee += r.a()[i];
      }
      assertEquals(0, ey, 1e-12, what);
      assertEquals(nu, ee, 1e-12, what);
      // KKT with LIBSVM's scaling: the decision function has y_i f(x_i) = 1 on the free variables,
      // >= 1 (to eps) at a = 0 and <= 1 at a = 1/n
      KernelExpansion f = r.expansion(k, x);
      for (int i = 0; i < n; i++) {
        double m = y[i] * f.decision(x[i]);
        double tol = 1e-6 * (1 + Math.abs(1 / r.r()));
        if (r.a()[i] > 1e-14 && r.a()[i] < 1.0 / n - 1e-14) assertEquals(1, m, tol, what + ": free " + i);
        else if (r.a()[i] <= 1e-14) assertTrue(m >= 1 - tol, what + ": at 0, " + i + ": " + m);
        else assertTrue(m <= 1 + tol, what + ": at the cap, " + i + ": " + m);
      }
      checked++;
    }
    assertEquals(40, checked);
  }

  @Test
  void badInput() {
    Kernel k = new KernelSpec(KernelSpec.Type.RBF, 1, 0, 3).create();
    SparseVector[] x = {SparseVector.ofDense(0), SparseVector.ofDense(1), SparseVector.ofDense(2)};
    NuSvcSolver s = new NuSvcSolver(k, SolverOptions.defaults());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> s.solve(x, new double[] {1, -1, -1}, 0.9)).getMessage()
        .contains("nu = 0.9 is infeasible for the class sizes"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> s.solve(x, new double[] {1, 1, 1}, 0.5)).getMessage()
        .contains("needs both classes"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> s.solve(x, new double[] {1, -1, 1}, 0)).getMessage()
        .contains("nu must be in (0, 1]"));
  }

  private static Path svmTrain() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(dir, "svm-train");
      if (Files.isExecutable(p)) return p;
    }
    return null;
  }

  /** svmguide1 from sample-data, scaled to [0, 1] per feature, written with every digit (the same numbers for both solvers). */
  private Path scaledSvmguide1(List<SparseVector> xs, List<Double> ys) throws Exception {
    Path src = Path.of("..", "sample-data", "svmguide1");
    assumeTrue(Files.exists(src), "sample-data/svmguide1 is absent");
    List<double[]> rows = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (String line : Files.readAllLines(src)) {
      if (line.isBlank()) continue;
      String[] f = line.trim().split("\\s+");
      labels.add(f[0]);
      double[] v = new double[4];
      for (int t = 1; t < f.length; t++) {
        String[] iv = f[t].split(":");
        v[Integer.parseInt(iv[0]) - 1] = Double.parseDouble(iv[1]);
      }
      rows.add(v);
    }
    double[] lo = {Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY};
    double[] hi = {Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY};
    for (double[] v : rows) {
      for (int j = 0; j < 4; j++) {
        lo[j] = Math.min(lo[j], v[j]);
        hi[j] = Math.max(hi[j], v[j]);
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < rows.size(); i++) {
      double[] v = rows.get(i);
      double[] s = new double[4];
      sb.append(labels.get(i).equals("1") ? "+1" : "-1");
      for (int j = 0; j < 4; j++) {
        s[j] = Double.parseDouble(String.format(Locale.ROOT, "%.17g", (v[j] - lo[j]) / (hi[j] - lo[j])));
        sb.append(' ').append(j + 1).append(':').append(String.format(Locale.ROOT, "%.17g", s[j]));
      }
      sb.append('\n');
      xs.add(SparseVector.ofDense(s));
      ys.add(labels.get(i).equals("1") ? 1.0 : -1.0);
    }
    Path out = tmp.resolve("svmguide1.scaled");
    Files.writeString(out, sb);
    return out;
  }

  @Test
  void rbfOnSvmguide1EqualsLibsvm() throws Exception {
    Path exe = svmTrain();
    assumeTrue(exe != null, "svm-train (LIBSVM) is not installed");
    List<SparseVector> xs = new ArrayList<>();
    List<Double> ys = new ArrayList<>();
    Path data = scaledSvmguide1(xs, ys);
    SparseVector[] x = xs.toArray(new SparseVector[0]);
    double[] y = ys.stream().mapToDouble(Double::doubleValue).toArray();
    for (double nu : new double[] {0.1, 0.5}) {
      Path model = tmp.resolve("model-" + nu);
      Process p = new ProcessBuilder(exe.toString(), "-s", "1", "-t", "2", "-g", "2", "-n", Double.toString(nu), "-e", "0.001",
          data.toString(), model.toString()).redirectErrorStream(true).start();
      String log = new String(p.getInputStream().readAllBytes());
      assertEquals(0, p.waitFor(), log);
      // svm-train prints C = 1 / r and the objective scaled by 1 / r^2 (solve_nu_svc): r^2 obj is 1/2 alpha'Q alpha
      Matcher m = Pattern.compile("obj = (\\S+), rho = (\\S+)").matcher(log);
      assertTrue(m.find(), log);
      Matcher cm = Pattern.compile("C = (\\S+)").matcher(log);
      assertTrue(cm.find(), log);
      double libR = 1 / Double.parseDouble(cm.group(1));
      double libObj = Double.parseDouble(m.group(1)) * libR * libR;
      Matcher sv = Pattern.compile("nSV = (\\d+)").matcher(log);
      assertTrue(sv.find(), log);
      int libSv = Integer.parseInt(sv.group(1));
      double libRho = Double.NaN;
      for (String line : Files.readAllLines(model)) if (line.startsWith("rho ")) libRho = Double.parseDouble(line.substring(4));
      assertTrue(Double.isFinite(libRho));

      NuSvcSolver.Result r = new NuSvcSolver(new KernelSpec(KernelSpec.Type.RBF, 2, 0, 3).create(),
          SolverOptions.defaults().withEps(1e-3)).solve(x, y, nu);
      String what = "nu " + nu + ": ours " + r + "; LIBSVM obj " + libObj + " nSV " + libSv + " rho " + libRho;
      assertNotNull(r);
      assertEquals(libObj, r.libsvmObjective(), 1e-3 * Math.abs(libObj), what);
      assertEquals(libSv, r.supportVectors(), 0.01 * libSv, what);
      // LIBSVM's model has rho / r; its labels: the first one seen (+1 here) is the positive class
      assertEquals(libRho, -r.bias(), 1e-2 * Math.max(1, Math.abs(libRho)), what);
    }
  }
}
