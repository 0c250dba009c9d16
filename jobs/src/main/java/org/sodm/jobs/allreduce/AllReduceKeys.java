package org.sodm.jobs.allreduce;

import org.apache.hadoop.io.Text;
import org.sodm.jobs.support.SodmConf;

/** Configuration keys of the resident AllReduce job (the public ones are {@link SodmConf}'s, documented in sodm-default.xml). */
public final class AllReduceKeys {
  private AllReduceKeys() {}

  /** Seconds the tracker waits for all K tasks to register before it kills the job. */
  public static final String RENDEZVOUS_TIMEOUT = SodmConf.ALLREDUCE_RENDEZVOUS_TIMEOUT;
  /** Seconds one AllReduce operation may wait for a peer. */
  public static final String OPERATION_TIMEOUT = SodmConf.ALLREDUCE_OPERATION_TIMEOUT;
  public static final String CHECKPOINT_ITERATIONS = SodmConf.ALLREDUCE_CHECKPOINT_ITERATIONS;
  public static final String CHECKPOINT_SECONDS = SodmConf.ALLREDUCE_CHECKPOINT_SECONDS;
  /** Resubmissions from the last checkpoint after a failed attempt. */
  public static final String MAX_RESTARTS = SodmConf.ALLREDUCE_MAX_RESTARTS;
  /** The address tasks bind their data port to and advertise (default: the host's address; local mode 127.0.0.1). */
  public static final String BIND_HOST = SodmConf.ALLREDUCE_BIND_HOST;

  static final String TRACKER = "sodm.internal.allreduce.tracker";
  static final String SIZE = "sodm.internal.allreduce.size";
  static final String BLOCKS = "sodm.internal.allreduce.blocks";
  static final String SUBMISSION = "sodm.internal.allreduce.submission";
  static final String CHECKPOINT_DIR = "sodm.internal.allreduce.checkpoints";
  /** The committed checkpoint directory to resume from, and its next iteration. */
  static final String RESUME = "sodm.internal.allreduce.resume";
  static final String RESUME_NEXT = "sodm.internal.allreduce.resume.next";
  static final String MAX_DOUBLES = "sodm.internal.allreduce.max.doubles";
  /** Test only: "rank:iteration" fails that rank before that iteration in the first submission ("rank:register": before it registers). */
  public static final String TEST_FAIL = "sodm.internal.allreduce.test.fail";
  /** Test only: the tracker connects to every task with a wrong secret and with garbage once the topology is complete. */
  public static final String TEST_INTRUDE = "sodm.internal.allreduce.test.intrude";
  /** Test only: the tracker waits for this many more tasks than the job has (a rendezvous that cannot complete). */
  public static final String TEST_EXTRA_RANKS = "sodm.internal.allreduce.test.extra.ranks";

  /** The alias of the job's secret in its credentials. */
  static final Text SECRET_ALIAS = new Text("sodm.allreduce.secret");
}
