package org.sodm.jobs.train;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.kernel.KernelSpec;

/**
 * Internal configuration keys the training driver sets for its tasks (resolved values, not
 * user parameters), and the task-side readers of the artifacts they point to.
 */
final class TrainKeys {
  private TrainKeys() {}

  static final String INGEST_DIR = "sodm.internal.train.ingest";
  static final String KERNEL_TYPE = "sodm.internal.kernel.type";
  static final String KERNEL_GAMMA = "sodm.internal.kernel.gamma";
  static final String KERNEL_COEF0 = "sodm.internal.kernel.coef0";
  static final String KERNEL_DEGREE = "sodm.internal.kernel.degree";
  static final String LEVEL = "sodm.internal.train.level";
  static final String BLOCKS = "sodm.internal.train.blocks";
  static final String STATS_DIR = "sodm.internal.train.stats";
  static final String LANDMARKS_DIR = "sodm.internal.train.landmarks";

  static void setKernel(Configuration conf, KernelSpec k) {
    conf.set(KERNEL_TYPE, k.type().id());
    conf.setDouble(KERNEL_GAMMA, k.gamma());
    conf.setDouble(KERNEL_COEF0, k.coef0());
    conf.setInt(KERNEL_DEGREE, k.degree());
  }

  static KernelSpec kernel(Configuration conf) {
    return new KernelSpec(KernelSpec.Type.parse(conf.get(KERNEL_TYPE)), conf.getDouble(KERNEL_GAMMA, 0),
        conf.getDouble(KERNEL_COEF0, 0), conf.getInt(KERNEL_DEGREE, 3));
  }

  /** The ingest scaler, or null. */
  static Scaler scaler(Configuration conf) throws IOException {
    return IngestJob.readScaler(conf, new Path(conf.get(INGEST_DIR)));
  }

  static LabelMap labels(Configuration conf) throws IOException {
    return IngestJob.readLabels(conf, new Path(conf.get(INGEST_DIR)));
  }
}
