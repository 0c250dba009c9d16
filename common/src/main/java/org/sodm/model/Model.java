package org.sodm.model;

import java.util.ArrayList;
import java.util.List;
import org.sodm.avro.BlockModel;
import org.sodm.avro.Features;
import org.sodm.avro.KernelRecord;
import org.sodm.avro.LinearModelRecord;
import org.sodm.avro.LossRecord;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Provenance;
import org.sodm.data.Instances;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.KernelExpansion;
import org.sodm.solver.LossSpec;
import org.sodm.solver.LossType;

/**
 * A trained model: the blocks of the final level of the merge tree, each a kernel expansion,
 * combined by the mean of their decision values: f(x) = (1/B) sum_b f_b(scale(x)). Each block
 * was trained on a stratified sample of the whole data (every stratum represented in
 * proportion), so each f_b estimates the same function; their mean is that estimate with less
 * variance (as bagging), and with one block (K = 1 or a fully merged tree) it is the exact
 * solution. Immutable and thread-safe.
 *
 * <p>A <b>linear model</b> (the primal linear-kernel solvers BQO and DSVRG, {@link #linear}) has
 * no blocks: f(x) = w'scale(x) + b, stored in the {@code linear} field of the Avro record.
 */
public final class Model {
  public static final int FORMAT_VERSION = 1;

  private final KernelSpec kernelSpec;
  private final LossSpec loss;
  private final LabelMap labels;
  private final Scaler scaler;
  private final int[] blockIds;
  private final long[][] svIds;
  private final KernelExpansion[] blocks;
  private final Provenance provenance;
  private final double[] linearW;
  private final double linearBias;
  private final String linearSolver;

  public Model(KernelSpec kernelSpec, LossSpec loss, LabelMap labels, Scaler scaler, int[] blockIds, long[][] svIds,
      KernelExpansion[] blocks, Provenance provenance) {
    if (blocks.length == 0) throw new IllegalArgumentException("a model needs at least one block");
    this.kernelSpec = kernelSpec;
    this.loss = loss;
    this.labels = labels;
    this.scaler = scaler;
    this.blockIds = blockIds;
    this.svIds = svIds;
    this.blocks = blocks;
    this.provenance = provenance;
    this.linearW = null;
    this.linearBias = 0;
    this.linearSolver = null;
  }

  private Model(KernelSpec kernelSpec, LossSpec loss, LabelMap labels, Scaler scaler, double[] w, double bias, String solver,
      Provenance provenance) {
    this.kernelSpec = kernelSpec;
    this.loss = loss;
    this.labels = labels;
    this.scaler = scaler;
    this.blockIds = new int[0];
    this.svIds = new long[0][];
    this.blocks = new KernelExpansion[0];
    this.provenance = provenance;
    this.linearW = w.clone();
    this.linearBias = bias;
    this.linearSolver = solver;
  }

  /** A primal linear model f(x) = w'scale(x) + bias; w[f-1] is the weight of feature f. */
  public static Model linear(LossSpec loss, LabelMap labels, Scaler scaler, double[] w, double bias, String solver,
      Provenance provenance) {
    for (double v : w) if (!Double.isFinite(v)) throw new IllegalArgumentException("linear model weights must be finite");
    if (!Double.isFinite(bias)) throw new IllegalArgumentException("linear model bias must be finite");
    return new Model(KernelSpec.linear(), loss, labels, scaler, w, bias, solver, provenance);
  }

  /** Whether this is a primal linear model (no blocks). */
  public boolean isLinear() {
    return linearW != null;
  }

  /** The linear model's weights (a copy); null for a kernel expansion. */
  public double[] linearWeights() {
    return linearW == null ? null : linearW.clone();
  }

  public double linearBias() {
    return linearBias;
  }

  /** bqo or dsvrg; null for a kernel expansion. */
  public String linearSolver() {
    return linearSolver;
  }

  public KernelSpec kernelSpec() {
    return kernelSpec;
  }

  public LossSpec loss() {
    return loss;
  }

  public LabelMap labels() {
    return labels;
  }

  /** The scaler, or null. */
  public Scaler scaler() {
    return scaler;
  }

  public int blockCount() {
    return blocks.length;
  }

  public KernelExpansion block(int b) {
    return blocks[b];
  }

  public int blockId(int b) {
    return blockIds[b];
  }

  public Provenance provenance() {
    return provenance;
  }

  public long supportVectors() {
    long s = 0;
    for (KernelExpansion e : blocks) s += e.size();
    return s;
  }

  /** Features as the kernel sees them (scaled when the model has a scaler). */
  public SparseVector prepare(SparseVector raw) {
    return scaler == null ? raw : scaler.apply(raw);
  }

  /** Decision value of an already prepared (scaled) vector. */
  public double decisionPrepared(SparseVector x) {
    if (linearW != null) return x.dot(linearW) + linearBias;
    double s = 0;
    for (KernelExpansion e : blocks) s += e.decision(x);
    return s / blocks.length;
  }

  /** Decision value of a raw (unscaled) vector. */
  public double decision(SparseVector raw) {
    return decisionPrepared(prepare(raw));
  }

  /** Predicted original label. */
  public String predict(SparseVector raw) {
    return labels.original(decision(raw));
  }

  public ModelRecord toAvro() {
    List<BlockModel> bm = new ArrayList<>();
    for (int b = 0; b < blocks.length; b++) {
      KernelExpansion e = blocks[b];
      List<Long> ids = new ArrayList<>();
      List<Double> coef = new ArrayList<>();
      List<Features> vec = new ArrayList<>();
      for (int i = 0; i < e.size(); i++) {
        ids.add(svIds[b][i]);
        coef.add(e.coef(i));
        vec.add(Instances.toAvro(e.supportVector(i)));
      }
      bm.add(new BlockModel(blockIds[b], e.bias(), ids, coef, vec));
    }
    KernelRecord k = new KernelRecord(kernelSpec.type().id(), kernelSpec.gamma(), kernelSpec.coef0(), kernelSpec.degree());
    LossRecord l = new LossRecord(loss.type().id(), loss.c(), loss.lambda(), loss.theta(), loss.mu(), loss.bias(),
        loss.positiveWeight(), loss.negativeWeight());
    LinearModelRecord lin = null;
    if (linearW != null) {
      List<Double> w = new ArrayList<>(linearW.length);
      for (double v : linearW) w.add(v);
      lin = new LinearModelRecord(w, linearBias, linearSolver);
    }
    return new ModelRecord(FORMAT_VERSION, k, l, labels.toAvro(), scaler == null ? null : scaler.toAvro(), "mean", bm,
        lin, provenance);
  }

  public static KernelSpec kernelOf(KernelRecord k) {
    return new KernelSpec(KernelSpec.Type.parse(k.getType()), k.getGamma(), k.getCoef0(), k.getDegree());
  }

  public static Model fromAvro(ModelRecord r) {
    if (r.getFormatVersion() != FORMAT_VERSION) {
      throw new IllegalArgumentException("model format version " + r.getFormatVersion() + " is not supported (this sodm reads " + FORMAT_VERSION + ")");
    }
    if (!"mean".equals(r.getCombine())) throw new IllegalArgumentException("unknown block combination '" + r.getCombine() + "'");
    KernelSpec ks = kernelOf(r.getKernel());
    Kernel kernel = ks.create();
    LossRecord l = r.getLoss();
    LossSpec loss = new LossSpec(LossType.parse(l.getType()), l.getC(), l.getLambda(), l.getTheta(), l.getMu(), l.getBias(),
        l.getPositiveWeight(), l.getNegativeWeight());
    if (r.getLinear() != null) {
      LinearModelRecord lin = r.getLinear();
      double[] w = new double[lin.getW().size()];
      for (int f = 0; f < w.length; f++) w[f] = lin.getW().get(f);
      return linear(loss, LabelMap.fromAvro(r.getLabels()), r.getScaler() == null ? null : Scaler.fromAvro(r.getScaler()), w,
          lin.getBias(), lin.getSolver(), r.getProvenance());
    }
    int nb = r.getBlocks().size();
    int[] ids = new int[nb];
    long[][] sv = new long[nb][];
    KernelExpansion[] ex = new KernelExpansion[nb];
    for (int b = 0; b < nb; b++) {
      BlockModel m = r.getBlocks().get(b);
      ids[b] = m.getBlock();
      int n = m.getCoef().size();
      sv[b] = new long[n];
      SparseVector[] v = new SparseVector[n];
      double[] c = new double[n];
      for (int i = 0; i < n; i++) {
        sv[b][i] = m.getIds().get(i);
        c[i] = m.getCoef().get(i);
        v[i] = Instances.features(m.getVectors().get(i));
      }
      ex[b] = new KernelExpansion(kernel, v, c, m.getBias());
    }
    return new Model(ks, loss, LabelMap.fromAvro(r.getLabels()), r.getScaler() == null ? null : Scaler.fromAvro(r.getScaler()),
        ids, sv, ex, r.getProvenance());
  }
}
