package org.sodm.data;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A bottom-k sample: the {@code capacity} items of smallest rank (ranks are distinct, e.g. a
 * seeded hash of a unique id, {@link Seeds#ingestSampleRank}). With a hash rank it is a uniform
 * sample without replacement; unlike a reservoir it does not depend on the order or grouping of
 * the stream, so samples of the parts of a file merge ({@link #merge}) into exactly the sample
 * of the whole file.
 */
public final class BottomK<T> {
  private record Entry<T>(long rank, T item) {}

  private final int capacity;
  /** A max-heap on rank: the head is the item to evict. */
  private final PriorityQueue<Entry<T>> heap;

  public BottomK(int capacity) {
    if (capacity < 0) throw new IllegalArgumentException("sample capacity must be >= 0, got " + capacity);
    this.capacity = capacity;
    this.heap = new PriorityQueue<>(Math.max(1, capacity), Comparator.comparingLong((Entry<T> e) -> e.rank).reversed());
  }

  /** True when an item of this rank would enter the sample (so the caller may skip copying it). */
  public boolean wants(long rank) {
    return capacity > 0 && (heap.size() < capacity || rank < heap.peek().rank);
  }

  /** Offers an item; returns whether it entered the sample. */
  public boolean offer(long rank, T item) {
    if (!wants(rank)) return false;
    if (heap.size() == capacity) heap.poll();
    heap.add(new Entry<>(rank, item));
    return true;
  }

  /** Adds every item of another sample. */
  public void merge(BottomK<T> o) {
    for (Entry<T> e : o.heap) offer(e.rank, e.item);
  }

  public int size() {
    return heap.size();
  }

  /** The sampled items, in no particular order. */
  public List<T> items() {
    List<T> out = new ArrayList<>(heap.size());
    for (Entry<T> e : heap) out.add(e.item);
    return out;
  }
}
