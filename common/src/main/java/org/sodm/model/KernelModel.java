package org.sodm.model;

import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

/**
 * The blocks of the final level of the merge tree, each a kernel expansion, combined by the mean
 * of their decision values: f(x) = (1/B) sum_b f_b(scale(x)). Each block was trained on a
 * stratified sample of the whole data (every stratum represented in proportion), so each f_b
 * estimates the same function; their mean is that estimate with less variance (as bagging), and
 * with one block (K = 1 or a fully merged tree) it is the exact solution. An optional
 * {@link Routing} adds local prediction.
 */
public final class KernelModel implements Model {
  private final KernelSpec kernelSpec;
  private final Loss loss;
  private final LabelMap labels;
  private final Scaler scaler;
  private final int[] blockIds;
  private final long[][] svIds;
  private final KernelExpansion[] blocks;
  private final Provenance provenance;
  private final Routing routing;
  /** The blocks as one expansion: identical support vectors merged, coefficients and bias averaged ({@link #merge}). */
  private volatile KernelExpansion merged;
  private volatile boolean mergedBuilt;

  public KernelModel(KernelSpec kernelSpec, Loss loss, LabelMap labels, Scaler scaler, int[] blockIds, long[][] svIds,
      KernelExpansion[] blocks, Provenance provenance) {
    this(kernelSpec, loss, labels, scaler, blockIds, svIds, blocks, provenance, null);
  }

  /** @param svIds the instance ids of each block's support vectors (block-major, as {@code blocks}) */
  public KernelModel(KernelSpec kernelSpec, Loss loss, LabelMap labels, Scaler scaler, int[] blockIds, long[][] svIds,
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
  }

  /**
   * The mean of the blocks as one expansion: (1/B) sum_b (sum_i c_bi k(s_bi, x) + b_b) =
   * sum_u (sum_{(b,i): s_bi = s_u} c_bi / B) k(s_u, x) + (1/B) sum_b b_b over the distinct support
   * vectors s_u (equal features and values; the blocks of an averaged tree share many). Null when
   * the blocks' kernels differ (then each block is scored by itself).
   */
  static KernelExpansion merge(KernelExpansion[] blocks) {
    org.sodm.kernel.KernelSpec spec = blocks[0].kernel().spec();
    for (KernelExpansion e : blocks) {
      if (!e.kernel().spec().equals(spec) || e.kernel().getClass() != blocks[0].kernel().getClass()) return null;
    }
    if (blocks.length == 1) return blocks[0];
    java.util.Map<SparseVector, Integer> at = new java.util.HashMap<>();
    java.util.List<SparseVector> sv = new java.util.ArrayList<>();
    double[] c = new double[16];
    double bias = 0;
    double inv = 1.0 / blocks.length;
    for (KernelExpansion e : blocks) {
      bias += e.bias();
      for (int i = 0; i < e.size(); i++) {
        SparseVector s = e.supportVector(i);
        Integer u = at.get(s);
        if (u == null) {
          u = sv.size();
          at.put(s, u);
          sv.add(s);
          if (u == c.length) c = java.util.Arrays.copyOf(c, 2 * c.length);
        }
        c[u] += e.coef(i);
      }
    }
    double[] coef = java.util.Arrays.copyOf(c, sv.size());
    for (int u = 0; u < coef.length; u++) coef[u] *= inv;
    return new KernelExpansion(blocks[0].kernel(), sv.toArray(new SparseVector[0]), coef, bias * inv);
  }

  /** The blocks as one expansion (identical support vectors merged), or null when their kernels differ. */
  public KernelExpansion merged() {
    if (!mergedBuilt) {
      synchronized (this) {
        if (!mergedBuilt) {
          merged = merge(blocks);
          mergedBuilt = true;
        }
      }
    }
    return merged;
  }

  /** The local-prediction routing, or null. */
  public Routing routing() {
    return routing;
  }

  /** The same model with a routing. */
  public KernelModel withRouting(Routing r) {
    return new KernelModel(kernelSpec, loss, labels, scaler, blockIds, svIds, blocks, provenance, r);
  }

  /** The same model with every block's offset replaced by {@code b} (the averaged model's offset is then b). */
  public KernelModel withBias(double b) {
    KernelExpansion[] out = new KernelExpansion[blocks.length];
    for (int i = 0; i < out.length; i++) out[i] = blocks[i].withBias(b);
    return new KernelModel(kernelSpec, loss, labels, scaler, blockIds, svIds, out, provenance, routing);
  }

  /** Local decision value of a prepared vector (fails when the model has no routing). */
  public double decisionLocalPrepared(SparseVector x) {
    if (routing == null) throw new IllegalStateException("the model has no local routing (train with --partitioner kmeans)");
    int b = routing.blockOf(x);
    if (routing.local() == null) return blocks[b].decision(x);
    return decisionPrepared(x) + routing.local()[b].decision(x);
  }

  /** Local decision value of a raw vector. */
  public double decisionLocal(SparseVector raw) {
    return decisionLocalPrepared(prepare(raw));
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

  /** The instance id of block b's support vector i. */
  public long supportVectorId(int b, int i) {
    return svIds[b][i];
  }

  @Override
  public KernelSpec kernelSpec() {
    return kernelSpec;
  }

  @Override
  public Loss loss() {
    return loss;
  }

  @Override
  public LabelMap labels() {
    return labels;
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
    for (KernelExpansion e : blocks) s += e.size();
    return s;
  }

  /** Batched: {@code out[t] = f(xs[t])} for {@code t < count} over the merged expansion ({@link KernelExpansion#decisions}). */
  @Override
  public void decisionsPrepared(SparseVector[] xs, int count, double[] out) {
    KernelExpansion e = merged();
    if (e == null) {
      Model.super.decisionsPrepared(xs, count, out);
      return;
    }
    e.decisions(xs, count, out);
  }

  @Override
  public double decisionPrepared(SparseVector x) {
    double s = 0;
    for (KernelExpansion e : blocks) s += e.decision(x);
    return s / blocks.length;
  }
}
