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

  /** The local-prediction routing, or null. */
  public Routing routing() {
    return routing;
  }

  /** The same model with a routing. */
  public KernelModel withRouting(Routing r) {
    return new KernelModel(kernelSpec, loss, labels, scaler, blockIds, svIds, blocks, provenance, r);
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

  @Override
  public double decisionPrepared(SparseVector x) {
    double s = 0;
    for (KernelExpansion e : blocks) s += e.decision(x);
    return s / blocks.length;
  }
}
