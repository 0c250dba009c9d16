package org.sodm.model;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;

/**
 * Writes a model in LIBSVM's text format so {@code svm-predict} can cross-check it. The mean of
 * the B blocks is one kernel expansion (every coefficient divided by B), so any sodm model is
 * exported as a C-SVC with labels (+1 label, -1 label), sv_coef = coef, and rho = -bias: LIBSVM
 * computes sum sv_coef_i k(sv_i, x) - rho and predicts the first label when it is > 0 (sodm: >= 0,
 * which differs only on exact ties). The regularised bias and the ODM loss do not matter to
 * prediction, only to training. Inputs must be scaled the same way: {@link #writeRange} writes
 * the scaler as an {@code svm-scale -r} range file.
 *
 * <p>A linear model (w, b) is exported as a linear-kernel C-SVC with one support vector w, coefficient
 * 1 and rho = -b: LIBSVM then computes w'x + b exactly.
 */
public final class LibsvmExport {
  private LibsvmExport() {}

  /**
   * Writes {@code m} as a LIBSVM model file.
   *
   * @throws IllegalArgumentException if the model cannot be one: a label that is not an integer (svm-predict reads the
   *     label line as ints and refuses the whole file, "fscanf failed to read model"), a one-vs-rest multi-class
   *     model
   */
  public static void write(Model m, Writer w) throws IOException {
    List<String> labels = m instanceof MulticlassModel mm ? mm.classes() : List.of(m.labels().positive(), m.labels().negative());
    List<String> bad = labels.stream().filter(l -> !isInt(l)).toList();
    if (!bad.isEmpty()) {
      throw new IllegalArgumentException("LIBSVM's model file holds integer labels (svm-predict reads them as int and refuses "
          + "the file otherwise); this model's label" + (bad.size() == 1 ? " " : "s ") + String.join(", ", bad)
          + (bad.size() == 1 ? " is" : " are") + " not: train on data labelled with integers to export it");
    }
    if (m instanceof MulticlassModel mm) writeMulticlass(mm, w);
    else if (m instanceof LinearModel l) writeLinear(l, w);
    else writeKernel((KernelModel) m, w);
  }

  /** A label svm-predict's {@code %d} reads whole: an optional sign and digits, within int. */
  static boolean isInt(String label) {
    if (!label.matches("[+-]?[0-9]{1,10}")) return false;
    long v = Long.parseLong(label);
    return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
  }

  private static void header(KernelSpec k, Writer w) throws IOException {
    w.write("svm_type c_svc\n");
    w.write("kernel_type " + k.type().id().replace("poly", "polynomial") + "\n");
    if (k.type() == KernelSpec.Type.POLY) w.write("degree " + k.degree() + "\n");
    if (k.type() != KernelSpec.Type.LINEAR) w.write("gamma " + fmt(k.gamma()) + "\n");
    if (k.type() == KernelSpec.Type.POLY || k.type() == KernelSpec.Type.SIGMOID) w.write("coef0 " + fmt(k.coef0()) + "\n");
  }

  /**
   * A one-vs-one kernel model of sub-problems (more than two classes, or two with probabilities) in LIBSVM's multi-class format: the classes in the
   * model's class order ({@link MulticlassModel#classOrder}: LIBSVM's own, the order of first
   * appearance in the training data, so svm-predict breaks vote ties as sodm and svm-train do),
   * every distinct support vector (by instance id) once, in the group of its class, with K-1
   * coefficients: for the pair of positions (p, q), p &lt; q, the coefficient of a vector of the
   * class at p in column q-1 and of one of the class at q in column p. LIBSVM's pair decision
   * dec = sum - rho votes for the class at p when positive; sodm's f of task (i, j) votes for j
   * when f &gt;= 0. When i is at p, dec = -f (coefficients and offset negated; a tie f = 0 votes
   * for j in both); when j is at p, dec = f. A vector's class is the class its pairs share; a
   * vector in one pair only may go with either of its two classes (both predict the same). With
   * sigmoids, LIBSVM's sigmoid is of dec for the class at p: probA = A, probB = -B when i is at p,
   * B when j is.
   */
  private static void writeMulticlass(MulticlassModel m, Writer w) throws IOException {
    Subproblems plan = m.plan();
    if (plan.scheme() != Subproblems.Scheme.OVO) {
      throw new IllegalArgumentException("LIBSVM's multi-class format is one-vs-one; this model is "
          + plan.scheme().id() + " over " + m.classes().size() + " classes (train with --multiclass ovo to export it)");
    }
    int k = m.classes().size();
    int[] order = m.classOrder();
    if (k == 2 && m.subModel(0) instanceof LinearModel lin) {
      writeLinearPair(m, lin, order, w);
      return;
    }
    int[] at = new int[k];
    for (int p = 0; p < k; p++) at[order[p]] = p;
    java.util.Map<Long, double[]> coef = new java.util.TreeMap<>();
    java.util.Map<Long, SparseVector> vec = new java.util.HashMap<>();
    java.util.Map<Long, Integer> group = new java.util.HashMap<>();
    java.util.Map<Long, int[]> seen = new java.util.HashMap<>(); // the two classes of the first pair it was seen in
    double[] rho = new double[plan.tasks()];
    double[] probA = new double[plan.tasks()];
    double[] probB = new double[plan.tasks()];
    // first pass: the class of each vector
    Terms[] terms = new Terms[plan.tasks()];
    for (int t = 0; t < plan.tasks(); t++) terms[t] = Terms.of(m.subModel(t), t);
    for (int t = 0; t < plan.tasks(); t++) {
      int i = plan.negativeClass(t);
      int j = plan.positiveClass(t);
      Terms km = terms[t];
      for (int b = 0; b < km.blocks(); b++) {
        for (int s = 0; s < km.ids()[b].length; s++) {
          long id = km.ids()[b][s];
          int[] first = seen.get(id);
          if (first == null) {
            seen.put(id, new int[] {i, j});
            vec.put(id, km.vectors()[b][s]);
          } else if (!group.containsKey(id)) {
            int c = (first[0] == i || first[0] == j) ? first[0] : first[1];
            group.put(id, c);
          }
        }
      }
    }
    if (k == 2) { // one pair: each vector with its own class, by its coefficient's sign (y alpha), so nr_sv counts as svm-train's
      KernelModel km = (KernelModel) m.subModel(0);
      for (int b = 0; b < km.blockCount(); b++) {
        for (int s = 0; s < km.block(b).size(); s++) group.putIfAbsent(km.supportVectorId(b, s), km.block(b).coef(s) > 0 ? 1 : 0);
      }
    }
    for (var e : seen.entrySet()) group.putIfAbsent(e.getKey(), e.getValue()[0]);
    for (int t = 0; t < plan.tasks(); t++) {
      Terms km = terms[t];
      int i = plan.negativeClass(t);
      int j = plan.positiveClass(t);
      int p = Math.min(at[i], at[j]);
      int q = Math.max(at[i], at[j]);
      int pair = p * (2 * k - p - 1) / 2 + (q - p - 1); // LIBSVM's index of the pair of positions (p, q)
      double sign = at[i] < at[j] ? -1 : 1; // dec = sign * f
      if (m.hasProbabilities()) {
        probA[pair] = m.platt(t).a();
        probB[pair] = sign * m.platt(t).b();
      }
      int nb = km.blocks();
      for (int b = 0; b < nb; b++) {
        rho[pair] += -sign * km.biases()[b] / nb;
        for (int s = 0; s < km.ids()[b].length; s++) {
          long id = km.ids()[b][s];
          int g = group.get(id);
          if (g != i && g != j) throw new IllegalStateException("support vector " + id + " of class " + g + " in pair (" + i + ", " + j + ")");
          int col = at[g] == p ? q - 1 : p;
          coef.computeIfAbsent(id, x -> new double[k - 1])[col] += sign * km.coefs()[b][s] / nb;
        }
      }
    }
    long[] nsv = new long[k];
    for (var e : coef.entrySet()) nsv[at[group.get(e.getKey())]]++;
    header(m.kernelSpec(), w);
    w.write("nr_class " + k + "\n");
    w.write("total_sv " + coef.size() + "\n");
    StringBuilder sb = new StringBuilder("rho");
    for (double r : rho) sb.append(' ').append(fmt(r));
    w.write(sb + "\n");
    sb = new StringBuilder("label");
    for (int c : order) sb.append(' ').append(m.classes().get(c));
    w.write(sb + "\n");
    if (m.hasProbabilities()) {
      StringBuilder pa = new StringBuilder("probA");
      StringBuilder pb = new StringBuilder("probB");
      for (int t = 0; t < plan.tasks(); t++) {
        pa.append(' ').append(fmt(probA[t]));
        pb.append(' ').append(fmt(probB[t]));
      }
      w.write(pa + "\n" + pb + "\n");
    }
    sb = new StringBuilder("nr_sv");
    for (long n : nsv) sb.append(' ').append(n);
    w.write(sb + "\n");
    w.write("SV\n");
    for (int c : order) {
      for (var e : coef.entrySet()) {
        if (group.get(e.getKey()) != c) continue;
        StringBuilder line = new StringBuilder();
        for (int q = 0; q < k - 1; q++) line.append(q == 0 ? "" : " ").append(fmt(e.getValue()[q]));
        SparseVector v = vec.get(e.getKey());
        for (int t = 0; t < v.nnz(); t++) line.append(' ').append(v.index(t)).append(':').append(fmt(v.value(t)));
        w.write(line + " \n");
      }
    }
  }

  /**
   * One task's expansion, per block: support vector ids, vectors, coefficients and the block's bias. A linear task (w, b) is
   * one block of one vector w with coefficient 1 and bias b (LIBSVM's linear kernel then computes w'x + b exactly), under the
   * id -(t + 1), which no row has (ingested ids are not negative), so it is never shared with another pair.
   */
  private record Terms(long[][] ids, SparseVector[][] vectors, double[][] coefs, double[] biases) {
    int blocks() {
      return biases.length;
    }

    static Terms of(Model m, int task) {
      if (m instanceof LinearModel lin) {
        double[] wt = lin.w();
        int nnz = 0;
        for (double v : wt) if (v != 0) nnz++;
        int[] idx = new int[nnz];
        double[] val = new double[nnz];
        for (int f = 0, n = 0; f < wt.length; f++) {
          if (wt[f] == 0) continue;
          idx[n] = f + 1;
          val[n++] = wt[f];
        }
        return new Terms(new long[][] {{-(task + 1L)}}, new SparseVector[][] {{new SparseVector(idx, val)}}, new double[][] {{1.0}},
            new double[] {lin.bias()});
      }
      KernelModel km = (KernelModel) m;
      int nb = km.blockCount();
      Terms t = new Terms(new long[nb][], new SparseVector[nb][], new double[nb][], new double[nb]);
      for (int b = 0; b < nb; b++) {
        KernelExpansion e = km.block(b);
        t.ids[b] = new long[e.size()];
        t.vectors[b] = new SparseVector[e.size()];
        t.coefs[b] = new double[e.size()];
        t.biases[b] = e.bias();
        for (int s = 0; s < e.size(); s++) {
          t.ids[b][s] = km.supportVectorId(b, s);
          t.vectors[b][s] = e.supportVector(s);
          t.coefs[b][s] = e.coef(s);
        }
      }
      return t;
    }
  }

  private static void writeKernel(KernelModel m, Writer w) throws IOException {
    KernelSpec k = m.kernelSpec();
    int nb = m.blockCount();
    double bias = 0;
    long total = 0;
    for (int b = 0; b < nb; b++) {
      bias += m.block(b).bias() / nb;
      total += m.block(b).size();
    }
    w.write("svm_type c_svc\n");
    w.write("kernel_type " + k.type().id().replace("poly", "polynomial") + "\n");
    if (k.type() == KernelSpec.Type.POLY) w.write("degree " + k.degree() + "\n");
    if (k.type() != KernelSpec.Type.LINEAR) w.write("gamma " + fmt(k.gamma()) + "\n");
    if (k.type() == KernelSpec.Type.POLY || k.type() == KernelSpec.Type.SIGMOID) w.write("coef0 " + fmt(k.coef0()) + "\n");
    w.write("nr_class 2\n");
    w.write("total_sv " + total + "\n");
    w.write("rho " + fmt(bias == 0 ? 0.0 : -bias) + "\n");
    w.write("label " + m.labels().positive() + " " + m.labels().negative() + "\n");
    long pos = 0;
    for (int b = 0; b < nb; b++) {
      for (int i = 0; i < m.block(b).size(); i++) if (m.block(b).coef(i) > 0) pos++;
    }
    w.write("nr_sv " + pos + " " + (total - pos) + "\n");
    w.write("SV\n");
    // LIBSVM expects the SVs of the first label first
    for (int pass = 0; pass < 2; pass++) {
      for (int b = 0; b < nb; b++) {
        KernelExpansion e = m.block(b);
        for (int i = 0; i < e.size(); i++) {
          double c = e.coef(i) / nb;
          if ((pass == 0) != (e.coef(i) > 0)) continue;
          w.write(fmt(c));
          SparseVector v = e.supportVector(i);
          for (int t = 0; t < v.nnz(); t++) w.write(" " + v.index(t) + ":" + fmt(v.value(t)));
          w.write(" \n");
        }
      }
    }
  }

  /**
   * A two-class linear model with probabilities (--kernel linear --probability): {@link #writeLinear}'s one support vector,
   * signed so that LIBSVM's dec is f for the class at label position 0 (sodm's task votes for its +1 class when f &gt;= 0;
   * when the -1 class comes first in LIBSVM's order, dec = -f), and the sigmoid as {@link #writeMulticlass} writes it: probA
   * = A, probB = B, or -B when dec = -f.
   */
  private static void writeLinearPair(MulticlassModel m, LinearModel lin, int[] order, Writer w) throws IOException {
    double sign = order[0] == m.plan().positiveClass(0) ? 1 : -1; // dec = sign * f
    w.write("svm_type c_svc\n");
    w.write("kernel_type linear\n");
    w.write("nr_class 2\n");
    w.write("total_sv 1\n");
    double rho = -sign * lin.bias();
    w.write("rho " + fmt(rho == 0 ? 0.0 : rho) + "\n");
    w.write("label " + m.classes().get(order[0]) + " " + m.classes().get(order[1]) + "\n");
    if (m.hasProbabilities()) {
      w.write("probA " + fmt(m.platt(0).a()) + "\n");
      w.write("probB " + fmt(sign * m.platt(0).b()) + "\n");
    }
    w.write("nr_sv 1 0\n");
    w.write("SV\n");
    w.write("1");
    double[] wt = lin.w();
    for (int f = 0; f < wt.length; f++) if (wt[f] != 0) w.write(" " + (f + 1) + ":" + fmt(sign * wt[f]));
    w.write(" \n");
  }

  private static void writeLinear(LinearModel m, Writer w) throws IOException {
    w.write("svm_type c_svc\n");
    w.write("kernel_type linear\n");
    w.write("nr_class 2\n");
    w.write("total_sv 1\n");
    w.write("rho " + fmt(m.bias() == 0 ? 0.0 : -m.bias()) + "\n");
    w.write("label " + m.labels().positive() + " " + m.labels().negative() + "\n");
    w.write("nr_sv 1 0\n");
    w.write("SV\n");
    w.write("1");
    double[] wt = m.w();
    for (int f = 0; f < wt.length; f++) if (wt[f] != 0) w.write(" " + (f + 1) + ":" + fmt(wt[f]));
    w.write(" \n");
  }

  /** The scaler as an svm-scale range file ({@code svm-scale -r FILE}). */
  public static void writeRange(Scaler s, Writer w) throws IOException {
    org.sodm.avro.ScalerRecord r = s.toAvro();
    w.write("x\n" + fmt(r.getLower()) + " " + fmt(r.getUpper()) + "\n");
    for (int k = 0; k < r.getIndices().size(); k++) {
      w.write(r.getIndices().get(k) + " " + fmt(r.getMins().get(k)) + " " + fmt(r.getMaxs().get(k)) + "\n");
    }
  }

  static String fmt(double v) {
    return String.format(Locale.ROOT, "%.17g", v).replaceAll("\\.?0+(e|$)", "$1");
  }
}
