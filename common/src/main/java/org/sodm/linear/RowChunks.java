package org.sodm.linear;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.function.IntConsumer;
import org.sodm.allreduce.TaskPrograms;

/**
 * A block's rows cut into chunks of {@value #CHUNK} (a block of fewer rows is one chunk) for sums over the rows: each chunk's sum
 * is taken on its own (on {@code threads} threads, or in turn) and the chunks' sums are then added in chunk order, so every sum
 * depends on the rows alone, not on the threads.
 */
abstract class RowChunks {
  /** Rows per chunk of the sums. */
  static final int CHUNK = 1 << 17;

  private final int rows;
  private final int chunks;
  private final int threads;
  private ExecutorService pool;

  RowChunks(int rows, int threads) {
    this.rows = rows;
    this.chunks = Math.max(1, (rows + CHUNK - 1) / CHUNK);
    this.threads = Math.max(1, Math.min(threads, chunks));
  }

  final int chunks() {
    return chunks;
  }

  /** Runs {@code body} for every chunk index. */
  final void forChunks(IntConsumer body) throws IOException {
    if (threads > 1 && pool == null) pool = TaskPrograms.pool(threads, "sodm-rows-");
    TaskPrograms.forEach(threads > 1 ? pool : null, chunks, body);
  }

  /** Chunk c's first row. */
  final int from(int c) {
    return c * CHUNK;
  }

  /** Chunk c's end (exclusive). */
  final int to(int c) {
    return Math.min(rows, (c + 1) * CHUNK);
  }

  /** The scalar sum over the chunks of {@code part(c)}, in chunk order. */
  final double sum(ChunkSum part) throws IOException {
    double[] parts = new double[chunks];
    forChunks(c -> parts[c] = part.of(c));
    double s = 0;
    for (double v : parts) s += v;
    return s;
  }

  /** A chunk's scalar sum. */
  interface ChunkSum {
    double of(int c);
  }

  /** A chunk's vector sum, added to {@code out}. */
  interface ChunkVector {
    void add(int c, double[] out);
  }

  /**
   * Adds every chunk's vector sum to {@code out}: one chunk straight into it, more each into its own zeroed vector of
   * {@code holder} (reused between calls; returned), added in chunk order.
   */
  final double[][] addChunks(double[][] holder, double[] out, ChunkVector part) throws IOException {
    if (chunks == 1) {
      part.add(0, out);
      return holder;
    }
    double[][] ps = holder;
    if (ps == null || ps[0].length != out.length) {
      ps = new double[chunks][out.length];
    } else {
      for (double[] p : ps) java.util.Arrays.fill(p, 0.0);
    }
    double[][] parts = ps;
    forChunks(c -> part.add(c, parts[c]));
    for (double[] p : parts) for (int j = 0; j < p.length; j++) out[j] += p[j];
    return parts;
  }
}
