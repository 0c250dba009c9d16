package org.sodm.jobs.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.sodm.avro.Provenance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelExpansion;
import org.sodm.model.KernelModel;
import org.sodm.solver.Loss;

/** Builds the model of a level from its records: per block, the support vectors and coefficients. */
final class ModelBuilder {
  /** A support vector as the model keeps it: its row id, coefficient and features (no record). */
  private record Sv(long id, double coef, SparseVector x) {}

  private final Map<Integer, List<Sv>> svByBlock = new TreeMap<>();
  private final Map<Integer, Double> coefSum = new TreeMap<>();
  /** Features by row id, shared with the builders of other sub-problems (a row is a support vector of many), or null. */
  private final Map<Long, SparseVector> vectors;

  ModelBuilder() {
    this(null);
  }

  /** @param vectors features by row id, shared between builders whose records of a row hold the same features; or null */
  ModelBuilder(Map<Long, SparseVector> vectors) {
    this.vectors = vectors;
  }

  /**
   * Adds one record of the level (every block must be seen, even one without support vectors). A support vector is kept
   * as its id, coefficient and features, not as the record: --probability's 1,950 sub-problems of letter held 756,380
   * records (more than a 1 GB heap); their features are each row's once when the builders share {@link #vectors}.
   */
  void add(TrainRecord r) {
    if (!TrainIO.isSupportVector(r)) {
      add(r.getBlock(), r.getId(), 0, null);
      return;
    }
    SparseVector x = vectors == null ? Instances.features(r.getFeatures())
        : vectors.computeIfAbsent(r.getId(), id -> Instances.features(r.getFeatures()));
    add(r.getBlock(), r.getId(), TrainIO.coef(r), x);
  }

  /**
   * Adds row {@code id} of {@code block} with its coefficient y_i gamma_i ({@link TrainIO#coef}): a support vector with
   * features {@code x} when the coefficient is non-zero, else the block only (x may then be null).
   */
  void add(int block, long id, double coef, SparseVector x) {
    List<Sv> l = svByBlock.computeIfAbsent(block, b -> new ArrayList<>());
    if (coef != 0) {
      l.add(new Sv(id, coef, x));
      coefSum.merge(block, coef, Double::sum);
    }
  }

  KernelModel build(KernelSpec spec, Loss loss, LabelMap labels, Scaler scaler, Provenance provenance) {
    return build(spec, loss, labels, scaler, provenance, null);
  }

  /** @param biases each block's offset (nu-SVC: -rho / r from its stats), or null (the loss's bias rule) */
  KernelModel build(KernelSpec spec, Loss loss, LabelMap labels, Scaler scaler, Provenance provenance, Map<Integer, Double> biases) {
    Kernel k = spec.create();
    int nb = svByBlock.size();
    int[] ids = new int[nb];
    long[][] svIds = new long[nb][];
    KernelExpansion[] ex = new KernelExpansion[nb];
    int b = 0;
    for (Map.Entry<Integer, List<Sv>> e : svByBlock.entrySet()) {
      List<Sv> l = e.getValue();
      l.sort((p, q) -> Long.compare(p.id(), q.id()));
      SparseVector[] sv = new SparseVector[l.size()];
      double[] coef = new double[l.size()];
      svIds[b] = new long[l.size()];
      for (int i = 0; i < sv.length; i++) {
        sv[i] = l.get(i).x();
        coef[i] = l.get(i).coef();
        svIds[b][i] = l.get(i).id();
      }
      ids[b] = e.getKey();
      double bias = biases != null ? biases.get(e.getKey()) : loss.bias() ? coefSum.getOrDefault(e.getKey(), 0.0) : 0.0;
      ex[b] = new KernelExpansion(k, sv, coef, bias);
      b++;
    }
    return new KernelModel(spec, loss, labels, scaler, ids, svIds, ex, provenance);
  }
}
