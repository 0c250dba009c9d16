package org.sodm.jobs.train;

import org.apache.hadoop.conf.Configuration;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.KernelSpec;

/** Task configurations for tests that run mappers and reducers directly: the spec the driver would write. */
final class SpecForTests {
  private SpecForTests() {}

  /** Sets the kernel's keys (gamma explicit). */
  static void kernel(Configuration conf, KernelSpec k) {
    conf.set(SodmConf.KERNEL, k.type().id());
    conf.setDouble(SodmConf.GAMMA, k.gamma());
    conf.setDouble(SodmConf.COEF0, k.coef0());
    conf.setInt(SodmConf.DEGREE, k.degree());
  }

  /** Writes the spec of the configuration's keys into it, as the driver does before a job (call after the last key is set). */
  static Configuration write(Configuration conf) {
    return TrainSpec.from(conf).withDimension(1).writeTo(conf);
  }
}
