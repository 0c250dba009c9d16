package org.sodm.jobs.allreduce;

import org.apache.hadoop.ipc.VersionedProtocol;

/**
 * The tracker's Hadoop IPC protocol ({@code WritableRpcEngine}: strings, ints, double arrays, no
 * code generation). Calls never block: a task registers, then polls for the topology. Calls
 * that change state carry a proof: HMAC-SHA256 under the job's secret of the call's fields
 * ({@link Handshake#proof}); a call with a wrong proof is refused and logged.
 */
public interface TrackerProtocol extends VersionedProtocol {
  long versionID = 1L;

  /** Rank {@code rank} of submission {@code submission} listens at host:port; "" when accepted, else why not. */
  String register(int submission, int rank, String host, int port, String proof);

  /** "" while ranks are missing; "ABORT reason" when the run is aborted; else every rank's host:port, comma-separated. */
  String topology(int submission);

  /** Rank 0's values of iteration t; "" or "ABORT reason". */
  String report(int submission, int t, double[] values, String proof);

  /** "" or "ABORT reason": whether the tasks should stop. */
  String poll(int submission);

  /** A task failed with {@code reason} (secondary: because a peer went away). */
  void fail(int submission, int rank, String reason, boolean secondary, String proof);
}
