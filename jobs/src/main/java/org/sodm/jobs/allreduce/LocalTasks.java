package org.sodm.jobs.allreduce;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Local mode only: how many of a resident job's map tasks are still inside {@link ResidentMapper#run}, by tracker
 * address. LocalJobRunner reports a killed or failed job complete while its map threads are still unwinding (it
 * interrupts them and does not wait); a thread that then writes a failure note or a checkpoint would recreate a
 * directory the driver is removing. The driver waits here until they have all left.
 */
final class LocalTasks {
  private LocalTasks() {}

  private static final Map<String, AtomicInteger> ACTIVE = new ConcurrentHashMap<>();

  static void enter(String tracker) {
    ACTIVE.computeIfAbsent(tracker, t -> new AtomicInteger()).incrementAndGet();
  }

  static void exit(String tracker) {
    AtomicInteger n = ACTIVE.get(tracker);
    if (n != null) n.decrementAndGet();
  }

  static int active(String tracker) {
    AtomicInteger n = ACTIVE.get(tracker);
    return n == null ? 0 : n.get();
  }

  /**
   * Waits at most {@code seconds} until no task of {@code tracker} is running and none has started for {@code quietMs}
   * (a thread LocalJobRunner had already started may enter late); true when they all left.
   */
  static boolean awaitNone(String tracker, double seconds, long quietMs) throws InterruptedException {
    long t0 = System.nanoTime();
    long idleSince = -1;
    while ((System.nanoTime() - t0) / 1e9 < seconds) {
      if (active(tracker) == 0) {
        if (quietMs <= 0) return true;
        if (idleSince < 0) idleSince = System.nanoTime();
        else if ((System.nanoTime() - idleSince) / 1e6 >= quietMs) return true;
      } else {
        idleSince = -1;
      }
      Thread.sleep(10);
    }
    return active(tracker) == 0;
  }

  static void forget(String tracker) {
    ACTIVE.remove(tracker);
  }
}
