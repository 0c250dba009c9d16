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
import org.sodm.solver.Loss;

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
  private final Loss loss;
  private final LabelMap labels;
  private final Scaler scaler;
  private final int[] blockIds;
  private final long[][] svIds;
  private final KernelExpansion[] blocks;
  private final Provenance provenance;
  private final double[] linearW;
  private final double linearBias;
  private final String linearSolver;
  private final Routing routing;

  /**
   * Local prediction: the nearest k-means centre (in the kernel's feature space) picks the
   * block. {@code local} null: the routed block of the model scores alone (DC-SVM early
   * prediction); else the global expansion plus the routed block's correction (PBM's local
   * model alpha_t + d_{S_r}).
   */
  public record Routing(org.sodm.partition.KernelKMeans kmeans, int[] clusterBlock, KernelExpansion[] local, int[] localIds) {}

  public Model(KernelSpec kernelSpec, Loss loss, LabelMap labels, Scaler scaler, int[] blockIds, long[][] svIds,
      KernelExpansion[] blocks, Provenance provenance) {
    this(kernelSpec, loss, labels, scaler, blockIds, svIds, blocks, provenance, null);
  }

  public Model(KernelSpec kernelSpec, Loss loss, LabelMap labels, Scaler scaler, int[] blockIds, long[][] svIds,
      KernelExpansion[] blocks, Provenance provenance, Routing routing) {
    if (blocks.length == 0) throw new IllegalArgumentException("a model needs at least one block");
    this.kernelSpec = kernelSpec;
    this.loss = loss;
    this.labels = labels;
    this.scaler = scaler;
    this.blockIds = blockIds;
    this.svIds = svIds;
    this.blocks = blocks;
    this.provenance = provenance;
    this.routing = routing;
    this.linearW = null;
    this.linearBias = 0;
    this.linearSolver = null;
  }

  private Model(KernelSpec kernelSpec, Loss loss, LabelMap labels, Scaler scaler, double[] w, double bias, String solver,
      Provenance provenance) {
    this.kernelSpec = kernelSpec;
    this.loss = loss;
    this.labels = labels;
    this.scaler = scaler;
    this.blockIds = new int[0];
    this.svIds = new long[0][];
    this.blocks = new KernelExpansion[0];
    this.provenance = provenance;
    this.routing = null;
    this.linearW = w.clone();
    this.linearBias = bias;
    this.linearSolver = solver;
  }

  /** A primal linear model f(x) = w'scale(x) + bias; w[f-1] is the weight of feature f. */
  public static Model linear(Loss loss, LabelMap labels, Scaler scaler, double[] w, double bias, String solver,
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

  /** The local-prediction routing, or null. */
  public Routing routing() {
    return routing;
  }

  /** The same model with a routing. */
  public Model withRouting(Routing r) {
    return new Model(kernelSpec, loss, labels, scaler, blockIds, svIds, blocks, provenance, r);
  }

  /** Local decision value of a prepared vector (fails when the model has no routing). */
  public double decisionLocalPrepared(SparseVector x) {
    if (routing == null) throw new IllegalStateException("the model has no local routing (train with --partitioner kmeans)");
    int c = routing.kmeans().assign(x);
    int b = routing.clusterBlock()[c];
    if (routing.local() == null) return blocks[b].decision(x);
    return decisionPrepared(x) + routing.local()[b].decision(x);
  }

  /** Local decision value of a raw vector. */
  public double decisionLocal(SparseVector raw) {
    return decisionLocalPrepared(prepare(raw));
  }

  public KernelSpec kernelSpec() {
    return kernelSpec;
  }

  public Loss loss() {
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
    LossRecord l = lossToAvro(loss);
    LinearModelRecord lin = null;
    if (linearW != null) {
      List<Double> w = new ArrayList<>(linearW.length);
      for (double v : linearW) w.add(v);
      lin = new LinearModelRecord(w, linearBias, linearSolver);
    }
    org.sodm.avro.LocalRouting lr = null;
    if (routing != null) {
      List<Features> sample = new ArrayList<>();
      for (SparseVector v : routing.kmeans().samplePoints()) sample.add(Instances.toAvro(v));
      List<Integer> mem = new ArrayList<>();
      for (int m : routing.kmeans().memberships()) mem.add(m);
      List<Integer> cb = new ArrayList<>();
      for (int c : routing.clusterBlock()) cb.add(c);
      List<BlockModel> local = new ArrayList<>();
      if (routing.local() != null) {
        for (int b = 0; b < routing.local().length; b++) {
          KernelExpansion e = routing.local()[b];
          List<Double> coef = new ArrayList<>();
          List<Features> vec = new ArrayList<>();
          List<Long> ids = new ArrayList<>();
          for (int i = 0; i < e.size(); i++) {
            coef.add(e.coef(i));
            vec.add(Instances.toAvro(e.supportVector(i)));
            ids.add(-1L);
          }
          local.add(new BlockModel(routing.localIds()[b], e.bias(), ids, coef, vec));
        }
      }
      lr = new org.sodm.avro.LocalRouting(sample, mem, routing.kmeans().clusters(), cb, local);
    }
    return new ModelRecord(FORMAT_VERSION, k, l, labels.toAvro(), scaler == null ? null : scaler.toAvro(), "mean", bm,
        lin, provenance, lr);
  }

  /** The flat record of every loss: the parameters a loss does not have hold neutral values. */
  private static LossRecord lossToAvro(Loss loss) {
    double c = 1;
    double lambda = 1;
    double theta = 0;
    double mu = 1;
    if (loss instanceof Loss.Odm o) {
      lambda = o.lambda();
      theta = o.theta();
      mu = o.mu();
    } else if (loss instanceof Loss.Hinge h) {
      c = h.c();
    } else if (loss instanceof Loss.SquaredHinge s) {
      c = s.c();
    }
    return new LossRecord(loss.id(), c, lambda, theta, mu, loss.bias(), loss.weights().positive(),
        loss.weights().negative());
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
    Loss loss = Loss.of(l.getType(), l.getC(), l.getLambda(), l.getTheta(), l.getMu(), l.getBias(),
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
    Routing routing = null;
    org.sodm.avro.LocalRouting lr = r.getRouting();
    if (lr != null) {
      SparseVector[] sample = new SparseVector[lr.getSample().size()];
      int[] mem = new int[sample.length];
      for (int i = 0; i < sample.length; i++) {
        sample[i] = Instances.features(lr.getSample().get(i));
        mem[i] = lr.getMemberships().get(i);
      }
      int[] cb = lr.getClusterBlock().stream().mapToInt(Integer::intValue).toArray();
      KernelExpansion[] local = null;
      int[] localIds = null;
      if (!lr.getLocal().isEmpty()) {
        local = new KernelExpansion[lr.getLocal().size()];
        localIds = new int[local.length];
        for (int b = 0; b < local.length; b++) {
          BlockModel m = lr.getLocal().get(b);
          SparseVector[] v = new SparseVector[m.getCoef().size()];
          double[] c = new double[v.length];
          for (int i = 0; i < v.length; i++) {
            v[i] = Instances.features(m.getVectors().get(i));
            c[i] = m.getCoef().get(i);
          }
          local[b] = new KernelExpansion(kernel, v, c, m.getBias());
          localIds[b] = m.getBlock();
        }
      }
      routing = new Routing(org.sodm.partition.KernelKMeans.fromState(sample, mem, lr.getClusters(), kernel, null), cb, local,
          localIds);
    }
    return new Model(ks, loss, LabelMap.fromAvro(r.getLabels()), r.getScaler() == null ? null : Scaler.fromAvro(r.getScaler()),
        ids, sv, ex, r.getProvenance(), routing);
  }
}
