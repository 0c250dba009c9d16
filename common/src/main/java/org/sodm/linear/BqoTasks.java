package org.sodm.linear;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;
import org.sodm.allreduce.AllReduce;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.allreduce.StateCodec;

/**
 * The binary tasks of a multi-class problem (one-vs-rest or one-vs-one) solved by BQO in one resident run: each rank
 * holds one {@link BqoRank} per task over its block's rows of that task, and every iteration advances every task that
 * has not stopped, in task order, each through its own AllReduce calls. A task's arithmetic, seeds and stopping rule
 * are those of its own run ({@link BqoRank}), so each task's model is the one a run of that task alone gives; the run
 * ends when every task has stopped. All ranks agree on which tasks are still running (they share every task's state).
 */
public final class BqoTasks implements ResidentLoop.Program {
  /** Doubles per task in the progress values ({@link BqoRank#encode}). */
  public static final int PROGRESS = 8;

  private final BqoRank[] tasks;
  private final boolean[] done;
  private final double[] progress;

  /** Builds task k's rank from its part of the checkpoint (nulls when starting afresh). */
  public interface TaskFactory {
    BqoRank task(int k, byte[] rankState, byte[] globalState) throws IOException;
  }

  /**
   * @param rankState this rank's checkpointed state ({@link #rankState}), or null
   * @param globalState the checkpointed shared state ({@link #globalState}), or null
   */
  public BqoTasks(int count, TaskFactory factory, byte[] rankState, byte[] globalState) throws IOException {
    tasks = new BqoRank[count];
    done = new boolean[count];
    byte[][] ranks = rankState == null ? new byte[count][] : split(rankState, count);
    byte[][] globals = new byte[count][];
    if (globalState != null) {
      DataInputStream in = StateCodec.decode(globalState);
      int n = in.readInt();
      if (n != count) throw new IOException("checkpoint of " + n + " tasks for " + count);
      for (int k = 0; k < count; k++) {
        done[k] = in.readBoolean();
        globals[k] = new byte[in.readInt()];
        in.readFully(globals[k]);
      }
    }
    for (int k = 0; k < count; k++) tasks[k] = factory.task(k, ranks[k], globals[k]);
    progress = new double[count * PROGRESS];
  }

  public BqoRank task(int k) {
    return tasks[k];
  }

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    Arrays.fill(progress, Double.NaN);
    boolean all = true;
    for (int k = 0; k < tasks.length; k++) {
      if (done[k]) continue;
      BqoState s = tasks[k].state();
      done[k] = tasks[k].iterate(s.history().size(), ar);
      System.arraycopy(BqoRank.encode(s.history().get(s.history().size() - 1)), 0, progress, k * PROGRESS, PROGRESS);
      all &= done[k];
    }
    return all;
  }

  /** Per task {@link #PROGRESS} values of the iteration it took in the last round (NaN for tasks that had stopped). */
  @Override
  public double[] progress() {
    return progress.clone();
  }

  @Override
  public byte[] rankState() throws IOException {
    byte[][] parts = new byte[tasks.length][];
    for (int k = 0; k < tasks.length; k++) parts[k] = tasks[k].rankState();
    return join(parts);
  }

  @Override
  public byte[] globalState() throws IOException {
    return StateCodec.encode(out -> {
      out.writeInt(tasks.length);
      for (int k = 0; k < tasks.length; k++) {
        byte[] g = tasks[k].globalState();
        out.writeBoolean(done[k]);
        out.writeInt(g.length);
        out.write(g);
      }
    });
  }

  /** Task k's {@link BqoRank#decodeState} bytes of a {@link #globalState}. */
  public static byte[][] taskStates(byte[] globalState) throws IOException {
    DataInputStream in = StateCodec.decode(globalState);
    int n = in.readInt();
    byte[][] out = new byte[n][];
    for (int k = 0; k < n; k++) {
      in.readBoolean();
      out[k] = new byte[in.readInt()];
      in.readFully(out[k]);
    }
    return out;
  }

  private static byte[] join(byte[][] parts) throws IOException {
    return StateCodec.encode(out -> {
      out.writeInt(parts.length);
      for (byte[] p : parts) {
        out.writeInt(p.length);
        out.write(p);
      }
    });
  }

  private static byte[][] split(byte[] bytes, int count) throws IOException {
    DataInputStream in = StateCodec.decode(bytes);
    int n = in.readInt();
    if (n != count) throw new IOException("checkpoint of " + n + " tasks for " + count);
    byte[][] out = new byte[n][];
    for (int k = 0; k < n; k++) {
      out[k] = new byte[in.readInt()];
      in.readFully(out[k]);
    }
    return out;
  }
}
