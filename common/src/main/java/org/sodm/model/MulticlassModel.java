package org.sodm.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

/**
 * A model over K &gt; 2 classes (or a binary model with probability estimates, one task): one binary model per task of its {@link Subproblems} (ovo: per
 * class pair (i, j), i &lt; j, class j is +1; ovr: per class, that class +1), each a
 * {@link KernelModel} or a {@link LinearModel} on the same scaled features.
 *
 * <p>Prediction: ovo votes (f_ij &gt;= 0 a vote for j, else for i) and the class with the most
 * votes wins, a tie going to the smaller class index (LIBSVM's rule; the classes are in
 * {@link org.sodm.data.Labels#ORDER}); ovr takes the largest decision value (ties: the smaller
 * index). With probability estimates (a {@link Platt} sigmoid per task) the predicted class is
 * the argmax of the class probabilities instead: ovo couples the pairwise probabilities
 * ({@link Coupling}, Wu, Lin and Weng 2004), ovr normalises the per-class sigmoids to sum 1.
 *
 * <p>Kernel sub-models share their support vectors by instance id: k(x, sv) is computed once per
 * distinct support vector and reused by every pair that holds it (as LIBSVM does). Immutable,
 * thread-safe.
 */
public final class MulticlassModel implements Model {
  private final KernelSpec kernelSpec;
  private final Loss loss;
  private final Scaler scaler;
  private final List<String> classes;
  private final Subproblems plan;
  private final Model[] sub;
  private final Platt[] platt;
  private final Provenance provenance;
  /** LIBSVM's class order (first appearance in the training data) as class indices; rank[c] = position of class c. */
  private final int[] order;
  private final int[] rank;
  /** Probabilities as svm-predict computes them ({@link #COUPLING}). */
  private final boolean libsvmCoupling;
  /** Probabilities as liblinear-predict computes them ({@link #LIBLINEAR_COUPLING}). */
  private final boolean liblinearCoupling;
  /** A multinomial model's probabilities: the softmax of the decision values ({@link #SOFTMAX_COUPLING}). */
  private final boolean softmax;

  /**
   * Provenance parameter of a multi-class model: the class indices in the order the classes first appear in the training
   * data, comma-separated (LIBSVM's label order, by which it breaks ties). Absent: class index order.
   */
  public static final String CLASS_ORDER = "sodm.model.class.order";

  /**
   * Provenance parameter: {@value #LIBSVM_COUPLING} when the probabilities are to be computed as svm-predict computes them
   * (a model read from svm-train's file, {@link LibsvmImport}): each pair's sigmoid of LIBSVM's decision value in its label
   * order, two classes without coupling, and the coupling iteration in LIBSVM's label order stopped at LIBSVM's tolerance
   * 0.005 / k (at most max(100, k) sweeps). Absent: sodm's coupling to 1e-12 ({@link Coupling#probabilities(double[][])}).
   */
  public static final String COUPLING = "sodm.model.coupling";
  public static final String LIBSVM_COUPLING = "libsvm";
  /**
   * {@link #COUPLING}'s value for probabilities as liblinear-predict computes logistic regression's (a model read from
   * liblinear-train's file, {@link LiblinearImport}): the tasks' sigmoids normalised to sum 1, not bounded to [1e-7, 1 - 1e-7];
   * two classes 1 - p for the other.
   */
  public static final String LIBLINEAR_COUPLING = "liblinear";
  /**
   * {@link #COUPLING}'s value of a multinomial logistic-regression model (one-vs-rest in shape: a w per class): P(c | x) =
   * exp(f_c) / sum_k exp(f_k), the softmax of the classes' decision values, as Spark MLlib's and scikit-learn's multinomial
   * models compute them.
   */
  public static final String SOFTMAX_COUPLING = "softmax";
  // shared kernel evaluation (kernel sub-models without routing)
  private final Kernel kernel;
  private final SparseVector[] unique;
  /** The row id of each distinct support vector. */
  private final long[] uniqueIds;
  private final int[][][] index; // [task][block][i] -> unique
  private final double[][][] coef; // [task][block][i]
  private final double[][] bias; // [task][block]
  /** What scoring reads of the distinct support vectors: norms, dense copy or feature index (see KernelExpansion). */
  private final KernelExpansion.Columns columns;

  /**
   * @param plan the tasks (no folds)
   * @param sub one binary model per task, in task order
   * @param platt null, or one sigmoid per task
   */
  public MulticlassModel(KernelSpec kernelSpec, Loss loss, Scaler scaler, List<String> classes, Subproblems plan, Model[] sub,
      Platt[] platt, Provenance provenance) {
    if (classes.size() != plan.classes()) {
      throw new IllegalArgumentException(classes.size() + " class names for a plan of " + plan.classes() + " classes");
    }
    if (plan.folds() != 0 || !plan.full()) throw new IllegalArgumentException("a model's plan has no folds");
    if (sub.length != plan.tasks()) throw new IllegalArgumentException(sub.length + " sub-models for " + plan.tasks() + " tasks");
    if (platt != null && platt.length != sub.length) throw new IllegalArgumentException(platt.length + " sigmoids for " + sub.length + " tasks");
    for (Model m : sub) {
      if (m instanceof MulticlassModel) throw new IllegalArgumentException("a sub-model must be binary");
    }
    this.kernelSpec = kernelSpec;
    this.loss = loss;
    this.scaler = scaler;
    this.classes = List.copyOf(classes);
    this.plan = plan;
    this.sub = sub.clone();
    this.platt = platt == null ? null : platt.clone();
    this.provenance = provenance;
    this.order = classOrder(provenance, classes.size());
    this.libsvmCoupling = provenance != null && provenance.getParameters() != null
        && LIBSVM_COUPLING.equals(provenance.getParameters().get(COUPLING));
    this.liblinearCoupling = provenance != null && provenance.getParameters() != null
        && LIBLINEAR_COUPLING.equals(provenance.getParameters().get(COUPLING));
    this.softmax = provenance != null && provenance.getParameters() != null
        && SOFTMAX_COUPLING.equals(provenance.getParameters().get(COUPLING));
    if (softmax && plan.scheme() != Subproblems.Scheme.OVR) throw new IllegalArgumentException("a softmax model has a w per class (ovr)");
    this.rank = new int[order.length];
    for (int p = 0; p < order.length; p++) rank[order[p]] = p;
    boolean shared = true;
    for (Model m : sub) shared &= m instanceof KernelModel km && km.routing() == null;
    if (!shared) {
      kernel = null;
      unique = null;
      uniqueIds = null;
      index = null;
      coef = null;
      bias = null;
      columns = null;
      return;
    }
    Map<Long, Integer> byId = new HashMap<>();
    List<SparseVector> u = new ArrayList<>();
    List<Long> uIds = new ArrayList<>();
    index = new int[sub.length][][];
    coef = new double[sub.length][][];
    bias = new double[sub.length][];
    Kernel k = null;
    for (int t = 0; t < sub.length; t++) {
      KernelModel km = (KernelModel) sub[t];
      int nb = km.blockCount();
      index[t] = new int[nb][];
      coef[t] = new double[nb][];
      bias[t] = new double[nb];
      for (int b = 0; b < nb; b++) {
        KernelExpansion e = km.block(b);
        k = e.kernel();
        index[t][b] = new int[e.size()];
        coef[t][b] = new double[e.size()];
        bias[t][b] = e.bias();
        for (int i = 0; i < e.size(); i++) {
          long id = km.supportVectorId(b, i);
          Integer at = byId.get(id);
          if (at == null) {
            at = u.size();
            byId.put(id, at);
            u.add(e.supportVector(i));
            uIds.add(id);
          }
          index[t][b][i] = at;
          coef[t][b][i] = e.coef(i);
        }
      }
    }
    kernel = k != null ? k : kernelSpec.create();
    unique = u.toArray(new SparseVector[0]);
    uniqueIds = uIds.stream().mapToLong(Long::longValue).toArray();
    columns = KernelExpansion.Columns.of(kernel, unique);
  }

  /** The order of {@link #CLASS_ORDER} in {@code provenance}, checked to be a permutation of 0..k-1; identity without it. */
  static int[] classOrder(Provenance provenance, int k) {
    int[] o = new int[k];
    for (int c = 0; c < k; c++) o[c] = c;
    if (provenance == null || provenance.getParameters() == null) return o;
    String v = provenance.getParameters().get(CLASS_ORDER);
    if (v == null) return o;
    String[] parts = v.split(",");
    boolean[] seen = new boolean[k];
    if (parts.length != k) throw new IllegalArgumentException(CLASS_ORDER + " = " + v + " does not order " + k + " classes");
    for (int p = 0; p < k; p++) {
      int c = Integer.parseInt(parts[p].trim());
      if (c < 0 || c >= k || seen[c]) throw new IllegalArgumentException(CLASS_ORDER + " = " + v + " is not a permutation of 0.." + (k - 1));
      seen[c] = true;
      o[p] = c;
    }
    return o;
  }

  /**
   * The class indices in LIBSVM's label order (the order of first appearance in the training data, from the model's
   * provenance; class index order for models without it): ties of votes or decision values go to the earliest.
   */
  public int[] classOrder() {
    return order.clone();
  }

  public List<String> classes() {
    return classes;
  }

  public Subproblems plan() {
    return plan;
  }

  public Subproblems.Scheme scheme() {
    return plan.scheme();
  }

  /** The binary model of task t. */
  public Model subModel(int t) {
    return sub[t];
  }

  /** Task t's sigmoid, or null without probability estimates. */
  public Platt platt(int t) {
    return platt == null ? null : platt[t];
  }

  public boolean hasProbabilities() {
    return platt != null;
  }

  /** The same model with probability estimates. */
  public MulticlassModel withPlatt(Platt[] p) {
    return new MulticlassModel(kernelSpec, loss, scaler, classes, plan, sub, p, provenance);
  }

  /** Distinct support vectors (by instance id) over every task; linear sub-models count 0. */
  public int distinctSupportVectors() {
    return unique == null ? 0 : unique.length;
  }

  /** The decision value of every task on a prepared vector. */
  public double[] decisionValues(SparseVector x) {
    return decisionValues(x, -1);
  }

  /**
   * The decision values of the tasks that involve class {@code cls} (ovo: its K - 1 pairs; ovr: every task) on a prepared
   * vector, each equal to its entry of {@link #decisionValues(SparseVector)}; the other entries are NaN. {@code cls} -1:
   * every task. Platt's cross-validation scores each training row only for its own class's tasks.
   */
  public double[] decisionValues(SparseVector x, int cls) {
    double[] f = new double[sub.length];
    if (cls >= 0) java.util.Arrays.fill(f, Double.NaN);
    if (unique == null) {
      for (int t = 0; t < sub.length; t++) if (cls < 0 || plan.y(t, cls) != 0) f[t] = sub[t].decisionPrepared(x);
      return f;
    }
    sums(columns.column(kernel, unique, x), cls, f);
    return f;
  }

  /** The task sums into f from the kernel values of the distinct support vectors (tasks of class cls only, or all: -1). */
  private void sums(double[] kx, int cls, double[] f) {
    for (int t = 0; t < sub.length; t++) {
      if (cls >= 0 && plan.y(t, cls) == 0) continue;
      int nb = index[t].length;
      double s = 0;
      for (int b = 0; b < nb; b++) {
        int[] ix = index[t][b];
        double[] c = coef[t][b];
        double v = bias[t][b];
        for (int i = 0; i < ix.length; i++) v += c[i] * kx[ix[i]];
        s += v;
      }
      f[t] = s / nb;
    }
  }

  /**
   * Several models' decision values on one prepared vector, the kernel between it and each distinct support vector (by
   * row id) computed once for all of them: {@code sodm grid}'s models of the C values of one (gamma, fold), whose support
   * vectors are rows of the same training part. Each model's values equal its own {@link #decisionValues(SparseVector)}
   * bit for bit (a kernel value does not depend on the other columns; the sums run as the model's own).
   */
  public static final class Family {
    private final MulticlassModel[] models;
    private final Kernel kernel;
    private final SparseVector[] unique;
    /** [model][the model's distinct index] -> the family's. */
    private final int[][] map;
    private final KernelExpansion.Columns columns;

    /** @throws IllegalArgumentException when a model has a linear task or the kernels differ */
    public Family(MulticlassModel... models) {
      this.models = models.clone();
      Map<Long, Integer> byId = new HashMap<>();
      List<SparseVector> u = new ArrayList<>();
      map = new int[models.length][];
      for (int m = 0; m < models.length; m++) {
        MulticlassModel mm = models[m];
        if (mm.unique == null) throw new IllegalArgumentException("model " + m + " has a task that is not a kernel expansion");
        if (!mm.kernelSpec.equals(models[0].kernelSpec)) {
          throw new IllegalArgumentException("model " + m + "'s kernel " + mm.kernelSpec + " is not model 0's " + models[0].kernelSpec);
        }
        map[m] = new int[mm.unique.length];
        for (int j = 0; j < mm.unique.length; j++) {
          int j0 = j;
          map[m][j] = byId.computeIfAbsent(mm.uniqueIds[j], id -> {
            u.add(mm.unique[j0]);
            return u.size() - 1;
          });
        }
      }
      kernel = models.length == 0 ? null : models[0].kernel;
      unique = u.toArray(new SparseVector[0]);
      columns = kernel == null ? null : KernelExpansion.Columns.of(kernel, unique);
    }

    /** Distinct support vectors over the models. */
    public int size() {
      return unique.length;
    }

    /** Every model's task decision values on a prepared vector: [model][task]. */
    public double[][] decisionValues(SparseVector x) {
      double[] kx = columns.column(kernel, unique, x);
      double[][] f = new double[models.length][];
      for (int m = 0; m < models.length; m++) {
        int[] to = map[m];
        double[] local = new double[to.length];
        for (int j = 0; j < to.length; j++) local[j] = kx[to[j]];
        f[m] = new double[models[m].sub.length];
        models[m].sums(local, -1, f[m]);
      }
      return f;
    }
  }

  /** The class a vector of task decision values predicts without probabilities (votes or the largest value). */
  public int predictIndex(double[] f) {
    int k = classes.size();
    if (plan.scheme() == Subproblems.Scheme.OVR) {
      int best = order[0];
      for (int p = 1; p < k; p++) if (f[order[p]] > f[best]) best = order[p];
      return best;
    }
    // LIBSVM: the most votes, a tie to the class first in its label order (first appearance in the training data)
    int[] votes = votes(f);
    int best = order[0];
    for (int p = 1; p < k; p++) if (votes[order[p]] > votes[best]) best = order[p];
    return best;
  }

  /** Votes per class of ovo decision values. */
  public int[] votes(double[] f) {
    int[] votes = new int[classes.size()];
    for (int t = 0; t < f.length; t++) votes[f[t] >= 0 ? plan.positiveClass(t) : plan.negativeClass(t)]++;
    return votes;
  }

  /** LIBSVM's bound on pairwise probabilities. */
  static final double MIN_PROB = 1e-7;

  /** Class probabilities from task decision values (needs the sigmoids). */
  public double[] probabilities(double[] f) {
    if (platt == null) throw new IllegalStateException("the model has no probability estimates (train with --probability)");
    int k = classes.size();
    if (softmax) return softmax(f);
    if (liblinearCoupling && plan.tasks() == 1) {
      double[] p = new double[2];
      p[plan.positiveClass(0)] = platt[0].probability(f[0]);
      p[plan.negativeClass(0)] = 1 - p[plan.positiveClass(0)];
      return p;
    }
    if (plan.scheme() == Subproblems.Scheme.OVR) {
      double[] p = new double[k];
      double s = 0;
      for (int c = 0; c < k; c++) {
        p[c] = platt[c].probability(f[c]);
        if (!liblinearCoupling) p[c] = Math.min(Math.max(p[c], MIN_PROB), 1 - MIN_PROB);
        s += p[c];
      }
      for (int c = 0; c < k; c++) p[c] /= s;
      return p;
    }
    if (libsvmCoupling) return probabilitiesAsLibsvm(f);
    double[][] r = new double[k][k];
    for (int t = 0; t < f.length; t++) {
      int i = plan.negativeClass(t);
      int j = plan.positiveClass(t);
      double pj = Math.min(Math.max(platt[t].probability(f[t]), MIN_PROB), 1 - MIN_PROB);
      r[j][i] = pj;
      r[i][j] = 1 - pj;
    }
    return Coupling.probabilities(r);
  }

  /** exp(f_c) / sum_k exp(f_k), without overflow. */
  static double[] softmax(double[] f) {
    double max = Double.NEGATIVE_INFINITY;
    for (double v : f) max = Math.max(max, v);
    double[] p = new double[f.length];
    double s = 0;
    for (int c = 0; c < f.length; c++) s += p[c] = Math.exp(f[c] - max);
    for (int c = 0; c < f.length; c++) p[c] /= s;
    return p;
  }

  /** Whether the probabilities are the softmax of the decision values (a multinomial model, {@link #SOFTMAX_COUPLING}). */
  public boolean softmax() {
    return softmax;
  }

  /**
   * svm-predict -b 1's probabilities (svm_predict_probability): for the pair of label positions (p, q), p &lt; q, the sigmoid
   * of its decision value dec = -f when the task's negative class is at p (else f) with LIBSVM's probA = a, probB = -b (else
   * b), bounded to [1e-7, 1 - 1e-7], as the probability of the class at p; two classes take it as it is, more are coupled in
   * position order with LIBSVM's stop.
   */
  private double[] probabilitiesAsLibsvm(double[] f) {
    int k = classes.size();
    double[][] r = new double[k][k];
    for (int t = 0; t < f.length; t++) {
      int i = plan.negativeClass(t);
      int j = plan.positiveClass(t);
      int p = Math.min(rank[i], rank[j]);
      int q = Math.max(rank[i], rank[j]);
      double sign = rank[i] < rank[j] ? -1 : 1;
      double fApB = sign * f[t] * platt[t].a() + sign * platt[t].b();
      double sig = fApB >= 0 ? Math.exp(-fApB) / (1.0 + Math.exp(-fApB)) : 1.0 / (1 + Math.exp(fApB));
      r[p][q] = Math.min(Math.max(sig, MIN_PROB), 1 - MIN_PROB);
      r[q][p] = 1 - r[p][q];
    }
    double[] byPosition;
    if (k == 2) {
      byPosition = new double[] {r[0][1], 1 - r[0][1]};
    } else {
      byPosition = Coupling.probabilities(r, 0.005 / k, Math.max(100, k));
    }
    double[] out = new double[k];
    for (int p = 0; p < k; p++) out[order[p]] = byPosition[p];
    return out;
  }

  /**
   * The class of the largest probability; a tie to the class first in LIBSVM's label order (first appearance in the
   * training data), as svm-predict -b 1 breaks it (and as {@link #predictIndex} breaks a tie of votes).
   */
  public int mostProbable(double[] p) {
    int best = order[0];
    for (int c = 1; c < p.length; c++) if (p[order[c]] > p[best]) best = order[c];
    return best;
  }

  /** A scored vector: the predicted class, its score (votes, decision value or probability) and the probabilities (or null). */
  public record Scored(int index, double score, double[] probabilities) {}

  /** Scores a raw (unscaled) vector. */
  public Scored score(SparseVector raw) {
    return score(raw, null);
  }

  /** Scores a raw (unscaled) vector, counting the features it has that the model never saw in {@code unseen} (or null). */
  public Scored score(SparseVector raw, UnseenFeatures unseen) {
    double[] f = decisionValues(prepare(raw, unseen));
    if (platt != null) {
      double[] p = probabilities(f);
      int c = mostProbable(p);
      return new Scored(c, p[c], p);
    }
    int c = predictIndex(f);
    if (plan.scheme() == Subproblems.Scheme.OVR) return new Scored(c, f[c], null);
    return new Scored(c, votes(f)[c], null);
  }

  @Override
  public String predict(SparseVector raw) {
    return classes.get(score(raw).index());
  }

  /** The predicted class's score: its votes (ovo), decision value (ovr) or probability (with estimates). */
  @Override
  public double decisionPrepared(SparseVector x) {
    double[] f = decisionValues(x);
    if (platt != null) {
      double[] p = probabilities(f);
      return p[mostProbable(p)];
    }
    int c = predictIndex(f);
    return plan.scheme() == Subproblems.Scheme.OVR ? f[c] : votes(f)[c];
  }

  @Override
  public KernelSpec kernelSpec() {
    return kernelSpec;
  }

  @Override
  public Loss loss() {
    return loss;
  }

  /** The first two classes (a binary view for code that needs one; use {@link #classes()}). */
  @Override
  public LabelMap labels() {
    return new LabelMap(classes.get(0), classes.get(1));
  }

  @Override
  public Scaler scaler() {
    return scaler;
  }

  @Override
  public Provenance provenance() {
    return provenance;
  }

  @Override
  public long supportVectors() {
    long s = 0;
    for (Model m : sub) s += m.supportVectors();
    return s;
  }
}
