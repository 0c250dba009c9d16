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
  private final Map<Integer, List<TrainRecord>> svByBlock = new TreeMap<>();
  private final Map<Integer, Double> coefSum = new TreeMap<>();

  /**
   * Adds one record of the level (every block must be seen, even one without support vectors). A support vector's record
   * is kept until {@link #build}: the caller must not change it before then.
   */
  void add(TrainRecord r) {
    List<TrainRecord> l = svByBlock.computeIfAbsent(r.getBlock(), b -> new ArrayList<>());
    if (TrainIO.isSupportVector(r)) {
      l.add(r); // kept, not copied (a deep copy of each of letter's 140,845 records took 0.2 s): see above
      coefSum.merge(r.getBlock(), TrainIO.coef(r), Double::sum);
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
    for (Map.Entry<Integer, List<TrainRecord>> e : svByBlock.entrySet()) {
      List<TrainRecord> l = e.getValue();
      l.sort((p, q) -> Long.compare(p.getId(), q.getId()));
      SparseVector[] sv = new SparseVector[l.size()];
      double[] coef = new double[l.size()];
      svIds[b] = new long[l.size()];
      for (int i = 0; i < sv.length; i++) {
        sv[i] = Instances.features(l.get(i).getFeatures());
        coef[i] = TrainIO.coef(l.get(i));
        svIds[b][i] = l.get(i).getId();
      }
      ids[b] = e.getKey();
      double bias = biases != null ? biases.get(e.getKey()) : loss.bias() ? coefSum.getOrDefault(e.getKey(), 0.0) : 0.0;
      ex[b] = new KernelExpansion(k, sv, coef, bias);
      b++;
    }
    return new KernelModel(spec, loss, labels, scaler, ids, svIds, ex, provenance);
  }
}
