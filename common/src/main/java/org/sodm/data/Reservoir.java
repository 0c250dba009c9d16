package org.sodm.data;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

/**
 * A seeded uniform sample of at most {@code capacity} items of a stream (reservoir sampling,
 * Vitter's algorithm R): after n offers every item is in the sample with probability
 * min(1, capacity / n), and the same seed and stream give the same sample.
 */
public final class Reservoir<T> {
  private final int capacity;
  private final SplittableRandom random;
  private final UnaryOperator<T> keep;
  private final List<T> items = new ArrayList<>();
  private long seen;

  /**
   * @param keep applied to an item only when it enters the sample (a copy, for streams that
   *     reuse their objects; {@code UnaryOperator.identity()} otherwise)
   */
  public Reservoir(int capacity, long seed, UnaryOperator<T> keep) {
    if (capacity < 0) throw new IllegalArgumentException("reservoir capacity must be >= 0, got " + capacity);
    this.capacity = capacity;
    this.random = new SplittableRandom(seed);
    this.keep = keep;
  }

  public void offer(T item) {
    seen++;
    if (capacity == 0) return;
    if (items.size() < capacity) {
      items.add(keep.apply(item));
    } else {
      long j = random.nextLong(seen);
      if (j < capacity) items.set((int) j, keep.apply(item));
    }
  }

  /** The sample (unmodifiable view, in slot order). */
  public List<T> items() {
    return Collections.unmodifiableList(items);
  }

  /** Items offered so far. */
  public long seen() {
    return seen;
  }
}
