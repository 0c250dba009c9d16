package org.sodm.model;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.sodm.data.SparseVector;

/**
 * The policy for features a model never saw, the same for every model: a feature whose index is
 * above the training data's largest index ({@link Model#dimension()}) is ignored, and counted
 * here. Thread-safe: one instance may count for parallel scorers.
 */
public final class UnseenFeatures {
  private final LongAdder rows = new LongAdder();
  private final LongAdder values = new LongAdder();
  private final AtomicInteger smallest = new AtomicInteger(Integer.MAX_VALUE);

  /**
   * {@code x} without its features above {@code dimension} (itself when it has none, or when the
   * dimension is unknown: 0); what was dropped is counted in {@code counts} when it is not null.
   */
  public static SparseVector drop(SparseVector x, int dimension, UnseenFeatures counts) {
    if (dimension <= 0 || x.nnz() == 0 || x.maxIndex() <= dimension) return x;
    int[] idx = x.indices();
    int keep = 0;
    while (keep < idx.length && idx[keep] <= dimension) keep++;
    if (counts != null) counts.record(idx[keep], idx.length - keep);
    return new SparseVector(Arrays.copyOf(idx, keep), Arrays.copyOf(x.values(), keep));
  }

  /** One row had {@code count} unseen feature values, the smallest index {@code firstIndex}. */
  public void record(int firstIndex, long count) {
    rows.increment();
    values.add(count);
    smallest.accumulateAndGet(firstIndex, Math::min);
  }

  /** Adds counts made elsewhere (another task). */
  public void add(long rowCount, long valueCount, int smallestIndex) {
    if (rowCount == 0) return;
    rows.add(rowCount);
    values.add(valueCount);
    smallest.accumulateAndGet(smallestIndex, Math::min);
  }

  public long rows() {
    return rows.sum();
  }

  public long values() {
    return values.sum();
  }

  /** Smallest unseen index met, or 0 when none was. */
  public int smallestIndex() {
    return rows() == 0 ? 0 : smallest.get();
  }

  /** The warning for the user, or null when nothing was dropped. */
  public String warning(int dimension) {
    if (rows() == 0) return null;
    return String.format("%,d row(s) had %,d feature value(s) with an index above the model's training dimension %d "
        + "(smallest: %d); they were ignored, as features the model never saw", rows(), values(), dimension, smallestIndex());
  }
}
