package org.sodm.jobs.allreduce;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Local mode only: the job's secret handed to the tasks inside the driver's JVM. LocalJobRunner
 * starts the job's thread in {@code new Job(...)} and only then sets the job's credentials
 * ({@code LocalJobRunner.submitJob}), so a map task that starts at once copies a configuration
 * without them (seen here: 2 of 5 tasks, intermittently). In local mode the driver and the tasks
 * share this JVM; the tasks take the secret registered under the tracker's address. On a cluster
 * the credentials are the only way (they reach every container reliably).
 */
final class LocalSecrets {
  private LocalSecrets() {}

  private static final Map<String, byte[]> SECRETS = new ConcurrentHashMap<>();

  static void put(String tracker, byte[] secret) {
    SECRETS.put(tracker, secret.clone());
  }

  static byte[] get(String tracker) {
    byte[] s = SECRETS.get(tracker);
    return s == null ? null : s.clone();
  }

  static void remove(String tracker) {
    SECRETS.remove(tracker);
  }
}
