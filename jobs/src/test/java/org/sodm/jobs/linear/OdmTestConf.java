package org.sodm.jobs.linear;

import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/** The linear ODM (DSVRG) problem the linear tests share: lambda 8, theta 0.3, data scaled to [0, 1], 4 epochs, K blocks. */
final class OdmTestConf {
  private OdmTestConf() {}

  static Configuration create(Path tmp, String blocks) {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.LOSS, "odm");
    conf.set(SodmConf.LAMBDA, "8");
    conf.set(SodmConf.THETA, "0.3");
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LINEAR_EPOCHS, "4");
    conf.set(SodmConf.LINEAR_BLOCKS, blocks);
    return conf;
  }
}
