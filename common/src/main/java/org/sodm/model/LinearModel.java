package org.sodm.model;

import org.sodm.avro.Provenance;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.solver.Loss;

/**
 * A primal linear model f(x) = w'scale(x) + b of the linear-kernel solvers (BQO, DSVRG);
 * w[f-1] is the weight of feature f.
 *
 * @param scaler the scaler, or null
 * @param solver bqo or dsvrg
 */
public record LinearModel(Loss loss, LabelMap labels, Scaler scaler, double[] w, double bias, String solver,
    Provenance provenance) implements Model {

  public LinearModel {
    for (double v : w) if (!Double.isFinite(v)) throw new IllegalArgumentException("linear model weights must be finite");
    if (!Double.isFinite(bias)) throw new IllegalArgumentException("linear model bias must be finite");
    w = w.clone();
  }

  /** The weights (a copy). */
  @Override
  public double[] w() {
    return w.clone();
  }

  @Override
  public KernelSpec kernelSpec() {
    return KernelSpec.linear();
  }

  @Override
  public long supportVectors() {
    return 0;
  }

  @Override
  public double decisionPrepared(SparseVector x) {
    return x.dot(w) + bias;
  }
}
