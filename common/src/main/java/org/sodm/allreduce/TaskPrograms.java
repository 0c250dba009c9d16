package org.sodm.allreduce;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * Several independent programs (the binary tasks of a multi-class problem, or (task, fold) sub-problems) run as one resident
 * program: every iteration advances every program that has not stopped, in program order, each through its own AllReduce calls
 * and with its own iteration count. A program's arithmetic, seeds and stopping rule are those of its own run, so each one ends
 * with the state a run of it alone ends with; the whole run ends when every program has stopped. All ranks agree on which
 * programs still run (each program's stop is agreed by its own run's rule).
 *
 * <p>Progress: {@code width} values per program (its own {@link ResidentLoop.Program#progress}, padded with NaN), NaN for a
 * program that did not iterate in the round. Checkpoints: every program's rank state, and per program whether it stopped, its
 * iteration count and its global state.
 */
public final class TaskPrograms implements ResidentLoop.Program {
  /** Builds program k from its part of a checkpoint (nulls when starting afresh). */
  public interface Factory<P extends ResidentLoop.Program> {
    P create(int k, byte[] rankState, byte[] globalState) throws IOException;
  }

  private final ResidentLoop.Program[] programs;
  private final boolean[] done;
  private final int[] iterations;
  private final int width;
  private final double[] progress;

  /**
   * @param width the progress values per program (at least the longest {@code progress()} of a program)
   * @param rankState this rank's checkpointed state ({@link #rankState}), or null
   * @param globalState the checkpointed shared state ({@link #globalState}), or null
   */
  public TaskPrograms(int count, int width, Factory<?> factory, byte[] rankState, byte[] globalState) throws IOException {
    programs = new ResidentLoop.Program[count];
    done = new boolean[count];
    iterations = new int[count];
    this.width = width;
    byte[][] ranks = rankState == null ? new byte[count][] : split(rankState, count);
    byte[][] globals = new byte[count][];
    if (globalState != null) {
      DataInputStream in = StateCodec.decode(globalState);
      int n = in.readInt();
      if (n != count) throw new IOException("a checkpoint of " + n + " tasks for a run of " + count);
      for (int k = 0; k < count; k++) {
        done[k] = in.readBoolean();
        iterations[k] = in.readInt();
        globals[k] = new byte[in.readInt()];
        in.readFully(globals[k]);
      }
    }
    for (int k = 0; k < count; k++) programs[k] = factory.create(k, nullIfEmpty(ranks[k]), globals[k]);
    progress = new double[count * width];
  }

  /** Program k (to read its final state). */
  public ResidentLoop.Program program(int k) {
    return programs[k];
  }

  @Override
  public boolean iterate(int t, AllReduce ar) throws IOException {
    Arrays.fill(progress, Double.NaN);
    boolean all = true;
    for (int k = 0; k < programs.length; k++) {
      if (done[k]) continue;
      done[k] = programs[k].iterate(iterations[k]++, ar);
      double[] p = programs[k].progress();
      if (p.length > width) throw new IllegalStateException("task " + k + " reports " + p.length + " progress values, above " + width);
      System.arraycopy(p, 0, progress, k * width, p.length);
      all &= done[k];
    }
    return all;
  }

  /** Per program {@code width} values of the iteration it took in the last round (NaN for programs that had stopped). */
  @Override
  public double[] progress() {
    return progress.clone();
  }

  /** Program k's values of a {@link #progress} array, or null when it did not iterate in that round. */
  public static double[] progressOf(double[] values, int k, int width) {
    double[] v = Arrays.copyOfRange(values, k * width, (k + 1) * width);
    return Double.isNaN(v[0]) ? null : v;
  }

  @Override
  public byte[] rankState() throws IOException {
    return StateCodec.encode(out -> {
      out.writeInt(programs.length);
      for (ResidentLoop.Program p : programs) {
        byte[] r = p.rankState();
        out.writeInt(r == null ? 0 : r.length);
        if (r != null) out.write(r);
      }
    });
  }

  @Override
  public byte[] globalState() throws IOException {
    return StateCodec.encode(out -> {
      out.writeInt(programs.length);
      for (int k = 0; k < programs.length; k++) {
        byte[] g = programs[k].globalState();
        out.writeBoolean(done[k]);
        out.writeInt(iterations[k]);
        out.writeInt(g.length);
        out.write(g);
      }
    });
  }

  /** Program k's own global state in a {@link #globalState}, for every k. */
  public static byte[][] programStates(byte[] globalState) throws IOException {
    DataInputStream in = StateCodec.decode(globalState);
    int n = in.readInt();
    byte[][] out = new byte[n][];
    for (int k = 0; k < n; k++) {
      in.readBoolean();
      in.readInt();
      out[k] = new byte[in.readInt()];
      in.readFully(out[k]);
    }
    return out;
  }

  private static byte[] nullIfEmpty(byte[] b) {
    return b == null || b.length == 0 ? null : b;
  }

  private static byte[][] split(byte[] bytes, int count) throws IOException {
    DataInputStream in = StateCodec.decode(bytes);
    int n = in.readInt();
    if (n != count) throw new IOException("a checkpoint of " + n + " tasks for a run of " + count);
    byte[][] out = new byte[n][];
    for (int k = 0; k < n; k++) {
      out[k] = new byte[in.readInt()];
      in.readFully(out[k]);
    }
    return out;
  }
}
