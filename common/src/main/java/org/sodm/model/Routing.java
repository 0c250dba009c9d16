package org.sodm.model;

import org.sodm.data.SparseVector;
import org.sodm.partition.KernelKMeans;

/**
 * Local prediction of a {@link KernelModel}: the nearest k-means centre (in the kernel's feature
 * space) picks the block (cluster c goes to block index {@code clusterBlock[c]}). {@code local}
 * null: the routed block of the model scores alone (DC-SVM early prediction); else the global
 * expansion plus the routed block's correction {@code local[b]} (PBM's local model
 * alpha_t + d_{S_r}), {@code localIds[b]} its block id.
 */
public record Routing(KernelKMeans kmeans, int[] clusterBlock, KernelExpansion[] local, int[] localIds) {

  /** The block index that x (prepared) routes to. */
  int blockOf(SparseVector x) {
    return clusterBlock[kmeans.assign(x)];
  }
}
