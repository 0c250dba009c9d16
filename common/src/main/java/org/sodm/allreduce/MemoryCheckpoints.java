package org.sodm.allreduce;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@link ResidentLoop.Checkpoints} in memory, for in-process runs and tests: the last committed checkpoint. */
public final class MemoryCheckpoints implements ResidentLoop.Checkpoints {
  private final Map<Integer, Map<Integer, byte[]>> pending = new ConcurrentHashMap<>();
  private final Map<Integer, byte[]> pendingGlobal = new ConcurrentHashMap<>();
  private volatile int committed = -1;
  private volatile boolean done;
  private volatile Map<Integer, byte[]> ranks = Map.of();
  private volatile byte[] global;

  @Override
  public void write(int next, int rank, byte[] rankState, byte[] globalState) {
    pending.computeIfAbsent(next, k -> new ConcurrentHashMap<>()).put(rank, rankState == null ? new byte[0] : rankState);
    if (globalState != null) pendingGlobal.put(next, globalState);
  }

  @Override
  public synchronized void commit(int next, boolean isDone) {
    ranks = pending.remove(next);
    global = pendingGlobal.remove(next);
    committed = next;
    done = isDone;
  }

  /** The next iteration of the last committed checkpoint, -1 when none. */
  public int committed() {
    return committed;
  }

  public boolean done() {
    return done;
  }

  public byte[] rankState(int rank) {
    return ranks.get(rank);
  }

  public byte[] globalState() {
    return global;
  }
}
