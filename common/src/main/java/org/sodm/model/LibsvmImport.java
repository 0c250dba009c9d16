package org.sodm.model;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.Labels;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

/**
 * Reads a model file written by LIBSVM's {@code svm-train} (or {@code sodm export-libsvm}) into a sodm model, the inverse of
 * {@link LibsvmExport}: C-SVC and nu-SVC with the linear, polynomial, RBF or sigmoid kernel, two or more classes, with or
 * without probability estimates ({@code probA}, {@code probB}). sodm's model then predicts what {@code svm-predict} predicts
 * on the same rows: scaled by an svm-scale range file when one is given ({@link #readRange}), and no feature of a row ignored
 * (no dimension recorded).
 *
 * <p>LIBSVM's pair (p, q) of label positions (p &lt; q) decides dec = sum over the vectors of the class at p of their
 * coefficient in column q - 1, plus over those of the class at q of their coefficient in column p, of coef k(sv, x), minus
 * rho; dec &gt; 0 votes for the class at p. sodm's task (i, j) (class indices in {@link Labels#ORDER}, i &lt; j) votes for j
 * when f &gt;= 0: f = -dec when i is at p, f = dec when j is (coefficients and offset negated, and the sigmoid's B with
 * them). Two classes without probabilities: a binary model whose +1 label is the later in {@link Labels#ORDER}. Ties of
 * votes go to the earliest class in LIBSVM's label order, as in svm-predict ({@link MulticlassModel#CLASS_ORDER}).
 */
public final class LibsvmImport {
  private LibsvmImport() {}

  /** A malformed or unsupported model file: the message names the file and line. */
  public static final class BadModelException extends IllegalArgumentException {
    BadModelException(String message) {
      super(message);
    }
  }

  /**
   * The model in {@code in}; {@code name} (the file) for messages; {@code provenance} (may be null) is given the classes'
   * LIBSVM order (label line) when the model is one of sub-problems (more than two classes, or probabilities).
   */
  public static Model read(BufferedReader in, String name, Provenance provenance) throws IOException {
    return read(in, name, provenance, null);
  }

  /**
   * An svm-scale range file ({@code svm-scale -s FILE}'s, or export-libsvm's): x, then lower upper, then index min max a line.
   * As a sodm {@link Scaler} it scales as {@code svm-scale -r} does: features not in the file, and those with min == max,
   * become 0; values beyond the range are not clipped. A file that also scales labels (svm-scale -y) is refused.
   */
  public static Scaler readRange(BufferedReader in, String name) throws IOException {
    int lineNo;
    String line;
    List<String> lines = new ArrayList<>();
    while ((line = in.readLine()) != null) lines.add(line);
    int i = 0;
    while (i < lines.size() && lines.get(i).isBlank()) i++;
    if (i == lines.size()) throw new BadModelException(name + ": empty (an svm-scale range file starts with 'x')");
    if (lines.get(i).trim().equals("y")) {
      throw new BadModelException(name + ":" + (i + 1) + ": the file scales labels (svm-scale -y); a classifier's labels are not scaled");
    }
    if (!lines.get(i).trim().equals("x")) throw new BadModelException(name + ":" + (i + 1) + ": an svm-scale range file starts with 'x', got '" + lines.get(i) + "'");
    i++;
    if (i == lines.size()) throw new BadModelException(name + ": no 'lower upper' line after 'x'");
    lineNo = i + 1;
    String[] lu = lines.get(i++).trim().split("\\s+");
    if (lu.length != 2) throw new BadModelException(name + ":" + lineNo + ": 'lower upper' expected, got '" + lines.get(lineNo - 1) + "'");
    double lower = number(lu[0], "lower", name + ":" + lineNo);
    double upper = number(lu[1], "upper", name + ":" + lineNo);
    if (!(lower < upper)) throw new BadModelException(name + ":" + lineNo + ": lower " + lower + " must be below upper " + upper);
    List<Integer> idx = new ArrayList<>();
    List<double[]> range = new ArrayList<>();
    int last = 0;
    for (; i < lines.size(); i++) {
      lineNo = i + 1;
      String t = lines.get(i).trim();
      if (t.isEmpty()) continue;
      String[] f = t.split("\\s+");
      if (f.length != 3) throw new BadModelException(name + ":" + lineNo + ": 'index min max' expected, got '" + t + "'");
      int ix = integer(f[0], "a feature index", name + ":" + lineNo);
      if (ix <= last) throw new BadModelException(name + ":" + lineNo + ": feature index " + ix + " after " + last + " (indices must ascend)");
      last = ix;
      double lo = number(f[1], "min", name + ":" + lineNo);
      double hi = number(f[2], "max", name + ":" + lineNo);
      if (hi < lo) throw new BadModelException(name + ":" + lineNo + ": max " + hi + " below min " + lo);
      if (hi == lo) continue; // svm-scale drops a constant feature
      idx.add(ix);
      range.add(new double[] {lo, hi});
    }
    int n = idx.size();
    int[] indices = new int[n];
    double[] mins = new double[n];
    double[] maxs = new double[n];
    for (int k = 0; k < n; k++) {
      indices[k] = idx.get(k);
      mins[k] = range.get(k)[0];
      maxs[k] = range.get(k)[1];
    }
    return new Scaler(lower, upper, indices, mins, maxs);
  }

  /** As {@link #read(BufferedReader, String, Provenance)}, the model scaling its rows with {@code scaler} (may be null) first. */
  public static Model read(BufferedReader in, String name, Provenance provenance, Scaler scaler) throws IOException {
    Map<String, String[]> header = new HashMap<>();
    int lineNo = header(in, "SV", header, name + ": no 'SV' line (is this a LIBSVM model file?)");
    String line;
    int svLine = lineNo;
    String type = one(header, "svm_type", name);
    if (!type.equals("c_svc") && !type.equals("nu_svc")) {
      throw new BadModelException(name + ": svm_type " + type + " is not a classifier sodm can score (c_svc and nu_svc are)");
    }
    KernelSpec kernel = kernel(header, name);
    int k = integer(one(header, "nr_class", name), "nr_class", name);
    if (k < 2) throw new BadModelException(name + ": nr_class " + k + " (a classifier needs 2 or more)");
    int total = integer(one(header, "total_sv", name), "total_sv", name);
    int pairs = k * (k - 1) / 2;
    double[] rho = numbers(header, "rho", pairs, name);
    String[] label = values(header, "label", k, name);
    int[] nsv = new int[k];
    String[] nsvText = values(header, "nr_sv", k, name);
    long sum = 0;
    for (int c = 0; c < k; c++) sum += nsv[c] = integer(nsvText[c], "nr_sv", name);
    if (sum != total) throw new BadModelException(name + ": nr_sv adds up to " + sum + ", total_sv is " + total);
    double[] probA = header.containsKey("probA") ? numbers(header, "probA", pairs, name) : null;
    double[] probB = header.containsKey("probB") ? numbers(header, "probB", pairs, name) : null;
    if ((probA == null) != (probB == null)) throw new BadModelException(name + ": probA and probB must both be given or neither");
    // the support vectors, grouped by the position of their class, each with k - 1 coefficients
    SparseVector[] sv = new SparseVector[total];
    double[][] coef = new double[total][];
    for (int s = 0; s < total; s++) {
      line = in.readLine();
      lineNo++;
      if (line == null) throw new BadModelException(name + ": " + total + " support vectors announced, " + s + " found (line " + lineNo + ")");
      String[] f = line.trim().split("\\s+");
      if (f.length < k - 1) throw new BadModelException(name + ":" + lineNo + ": " + (k - 1) + " coefficients expected, got '" + line + "'");
      coef[s] = new double[k - 1];
      for (int c = 0; c < k - 1; c++) coef[s][c] = number(f[c], "a coefficient", name + ":" + lineNo);
      int[] idx = new int[f.length - (k - 1)];
      double[] val = new double[idx.length];
      int n = 0;
      int last = 0;
      for (int c = k - 1; c < f.length; c++) {
        int colon = f[c].indexOf(':');
        if (colon <= 0) throw new BadModelException(name + ":" + lineNo + ": '" + f[c] + "' is not index:value");
        int ix = integer(f[c].substring(0, colon), "a feature index", name + ":" + lineNo);
        if (ix <= last) throw new BadModelException(name + ":" + lineNo + ": feature index " + ix + " after " + last + " (indices must ascend)");
        last = ix;
        double v = number(f[c].substring(colon + 1), "a feature value", name + ":" + lineNo);
        if (v == 0) continue;
        idx[n] = ix;
        val[n++] = v;
      }
      sv[s] = new SparseVector(Arrays.copyOf(idx, n), Arrays.copyOf(val, n));
    }
    if (!restBlank(in)) throw new BadModelException(name + ": more than total_sv " + total + " support vectors after line " + svLine);
    // class indices (sodm: Labels.ORDER) and LIBSVM's positions
    List<String> classes = new ArrayList<>(List.of(label));
    classes.sort(Labels.ORDER);
    for (int c = 1; c < k; c++) {
      if (classes.get(c).equals(classes.get(c - 1))) throw new BadModelException(name + ": label " + classes.get(c) + " is given twice");
    }
    int[] at = new int[k]; // class index -> LIBSVM position
    int[] order = new int[k]; // LIBSVM position -> class index
    for (int p = 0; p < k; p++) {
      int c = classes.indexOf(label[p]);
      at[c] = p;
      order[p] = c;
    }
    int[] start = new int[k + 1]; // the support vectors of the class at position p: start[p] .. start[p + 1]
    for (int p = 0; p < k; p++) start[p + 1] = start[p] + nsv[p];
    Kernel kern = kernel.create();
    Loss loss = Loss.hinge(1); // not in the file (nor needed to predict); the provenance says where the model came from
    if (k == 2 && probA == null) {
      LabelMap labels = LabelMap.of(List.of(label));
      double sign = labels.positive().equals(label[0]) ? 1 : -1; // f = sign * dec
      return new KernelModel(kernel, loss, labels, scaler, new int[] {0}, new long[][] {ids(0, total)},
          new KernelExpansion[] {expansion(kern, sv, coef, 0, total, 0, sign, -sign * rho[0])}, provenance);
    }
    Subproblems plan = new Subproblems(k, Subproblems.Scheme.OVO);
    Model[] sub = new Model[plan.tasks()];
    Platt[] platt = probA == null ? null : new Platt[plan.tasks()];
    for (int t = 0; t < plan.tasks(); t++) {
      int i = plan.negativeClass(t);
      int j = plan.positiveClass(t);
      int p = Math.min(at[i], at[j]);
      int q = Math.max(at[i], at[j]);
      int pair = p * (2 * k - p - 1) / 2 + (q - p - 1);
      double sign = at[i] < at[j] ? -1 : 1;
      List<SparseVector> x = new ArrayList<>();
      List<Double> c = new ArrayList<>();
      List<Long> id = new ArrayList<>();
      for (int s = start[p]; s < start[p + 1]; s++) add(x, c, id, sv[s], sign * coef[s][q - 1], s);
      for (int s = start[q]; s < start[q + 1]; s++) add(x, c, id, sv[s], sign * coef[s][p], s);
      KernelExpansion e = new KernelExpansion(kern, x.toArray(new SparseVector[0]), c.stream().mapToDouble(Double::doubleValue).toArray(),
          -sign * rho[pair]);
      sub[t] = new KernelModel(kernel, loss, new LabelMap(classes.get(i), classes.get(j)), scaler, new int[] {0},
          new long[][] {id.stream().mapToLong(Long::longValue).toArray()}, new KernelExpansion[] {e}, null);
      if (platt != null) platt[t] = new Platt(probA[pair], sign * probB[pair]);
    }
    if (provenance != null) {
      StringBuilder b = new StringBuilder();
      for (int c : order) b.append(b.length() == 0 ? "" : ",").append(c);
      Map<String, String> params = new HashMap<>(provenance.getParameters());
      params.put(MulticlassModel.CLASS_ORDER, b.toString());
      if (platt != null) params.put(MulticlassModel.COUPLING, MulticlassModel.LIBSVM_COUPLING); // svm-predict -b 1's numbers
      provenance = Provenance.newBuilder(provenance).setParameters(params).build();
    }
    return new MulticlassModel(kernel, loss, scaler, classes, plan, sub, platt, provenance);
  }

  /**
   * Reads "key values..." lines into {@code header} up to the line {@code end} (blank lines skipped).
   *
   * @return the line number of {@code end}
   * @throws BadModelException with {@code missing} when the file ends first
   */
  static int header(BufferedReader in, String end, Map<String, String[]> header, String missing) throws IOException {
    int lineNo = 0;
    while (true) {
      String line = in.readLine();
      lineNo++;
      if (line == null) throw new BadModelException(missing);
      String t = line.trim();
      if (t.isEmpty()) continue;
      if (t.equals(end)) return lineNo;
      String[] f = t.split("\\s+");
      header.put(f[0], Arrays.copyOfRange(f, 1, f.length));
    }
  }

  private static void add(List<SparseVector> x, List<Double> c, List<Long> id, SparseVector v, double coef, long s) {
    if (coef == 0) return; // a vector of the class that is no support vector of this pair
    x.add(v);
    c.add(coef);
    id.add(s);
  }

  private static KernelExpansion expansion(Kernel k, SparseVector[] sv, double[][] coef, int from, int to, int col, double sign,
      double bias) {
    double[] c = new double[to - from];
    for (int s = from; s < to; s++) c[s - from] = sign * coef[s][col];
    return new KernelExpansion(k, Arrays.copyOfRange(sv, from, to), c, bias);
  }

  private static long[] ids(int from, int to) {
    long[] out = new long[to - from];
    for (int s = from; s < to; s++) out[s - from] = s;
    return out;
  }

  private static boolean restBlank(BufferedReader in) throws IOException {
    for (String l; (l = in.readLine()) != null; ) if (!l.isBlank()) return false;
    return true;
  }

  private static KernelSpec kernel(Map<String, String[]> h, String name) {
    String type = one(h, "kernel_type", name);
    KernelSpec.Type t = switch (type) {
      case "linear" -> KernelSpec.Type.LINEAR;
      case "polynomial" -> KernelSpec.Type.POLY;
      case "rbf" -> KernelSpec.Type.RBF;
      case "sigmoid" -> KernelSpec.Type.SIGMOID;
      default -> throw new BadModelException(name + ": kernel_type " + type + " is not supported (linear, polynomial, rbf, sigmoid are)");
    };
    double gamma = h.containsKey("gamma") ? number(one(h, "gamma", name), "gamma", name) : 0;
    double coef0 = h.containsKey("coef0") ? number(one(h, "coef0", name), "coef0", name) : 0;
    int degree = h.containsKey("degree") ? integer(one(h, "degree", name), "degree", name) : 3;
    if (t != KernelSpec.Type.LINEAR && !(gamma > 0)) throw new BadModelException(name + ": kernel_type " + type + " needs gamma > 0, got " + gamma);
    return new KernelSpec(t, t == KernelSpec.Type.LINEAR ? 0 : gamma, coef0, degree);
  }

  static String one(Map<String, String[]> h, String key, String name) {
    String[] v = h.get(key);
    if (v == null || v.length != 1) throw new BadModelException(name + ": the header needs one value of " + key + (v == null ? ", it has none" : ", got " + v.length));
    return v[0];
  }

  static String[] values(Map<String, String[]> h, String key, int n, String name) {
    String[] v = h.get(key);
    if (v == null || v.length != n) {
      throw new BadModelException(String.format(Locale.ROOT, "%s: the header needs %d values of %s, %s", name, n, key,
          v == null ? "it has none" : "got " + v.length));
    }
    return v;
  }

  private static double[] numbers(Map<String, String[]> h, String key, int n, String name) {
    String[] v = values(h, key, n, name);
    double[] out = new double[n];
    for (int i = 0; i < n; i++) out[i] = number(v[i], key, name);
    return out;
  }

  static double number(String s, String what, String where) {
    try {
      double v = Double.parseDouble(s);
      if (Double.isFinite(v)) return v;
    } catch (NumberFormatException e) {
      // below
    }
    throw new BadModelException(where + ": " + what + " '" + s + "' is not a finite number");
  }

  static int integer(String s, String what, String where) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw new BadModelException(where + ": " + what + " '" + s + "' is not an integer");
    }
  }
}
