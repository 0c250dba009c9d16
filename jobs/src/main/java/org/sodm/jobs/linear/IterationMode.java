package org.sodm.jobs.linear;

import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.sodm.jobs.support.SodmConf;

/** How BQO and DSVRG iterate: one resident AllReduce job for the whole run, or one MapReduce job per iteration. */
public enum IterationMode {
  ALLREDUCE, JOBS;

  public static IterationMode from(Configuration conf) {
    String v = conf.get(SodmConf.ITERATION_MODE, "allreduce").trim();
    try {
      return valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw LinearOptions.bad(SodmConf.ITERATION_MODE, "--iteration-mode", "'" + v + "' is not one of allreduce, jobs");
    }
  }
}
