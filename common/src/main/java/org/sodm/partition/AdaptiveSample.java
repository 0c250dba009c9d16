package org.sodm.partition;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.sodm.data.SparseVector;

/**
 * The sample of adaptive clustering (DC-SVM, seed 001 section 4): from the second level on, the
 * kernel k-means of a level is fitted on at most {@code m} support vectors of the level below
 * (rows with a non-zero dual variable). Rows stream by once; the sample keeps the {@code m}
 * support vectors of smallest rank (a seeded hash of the id, {@code org.sodm.data.Seeds#levelSampleRank}),
 * so it is a uniform sample that does not depend on the order the rows are read in. Beside it, a
 * sample of all rows is kept for the case of fewer support vectors than clusters (then, as
 * {@link KernelKMeans#fitOnSupportVectors}, the clustering falls back to all rows).
 */
public final class AdaptiveSample {
  private record Item(long rank, long id, SparseVector x) {}

  private final int m;
  private final PriorityQueue<Item> sv;
  private final PriorityQueue<Item> all;
  private long supportVectors;
  private long rows;

  public AdaptiveSample(int m) {
    if (m < 1) throw new IllegalArgumentException("k-means sample size must be >= 1, got " + m);
    this.m = m;
    // max-heaps on rank: the root is the first to leave
    this.sv = new PriorityQueue<>((a, b) -> a.rank != b.rank ? Long.compare(b.rank, a.rank) : Long.compare(b.id, a.id));
    this.all = new PriorityQueue<>((a, b) -> a.rank != b.rank ? Long.compare(b.rank, a.rank) : Long.compare(b.id, a.id));
  }

  /** Offers a row: its id, rank, features (kept as given: copy when the caller reuses them) and whether it is a support vector. */
  public void offer(long id, long rank, SparseVector x, boolean supportVector) {
    rows++;
    Item it = new Item(rank, id, x);
    keep(all, it);
    if (supportVector) {
      supportVectors++;
      keep(sv, it);
    }
  }

  private void keep(PriorityQueue<Item> q, Item it) {
    if (q.size() < m) {
      q.add(it);
    } else if (Long.compare(it.rank, q.peek().rank) < 0 || (it.rank == q.peek().rank && it.id < q.peek().id)) {
      q.poll();
      q.add(it);
    }
  }

  /** Support vectors offered so far. */
  public long supportVectors() {
    return supportVectors;
  }

  public long rows() {
    return rows;
  }

  /** Whether {@link #points} is drawn from the support vectors (else from all rows: fewer support vectors than {@code clusters}). */
  public boolean fromSupportVectors(int clusters) {
    return supportVectors >= clusters;
  }

  /** The sample's ids, in id order. */
  public long[] ids(int clusters) {
    List<Item> l = sorted(clusters);
    long[] out = new long[l.size()];
    for (int i = 0; i < out.length; i++) out[i] = l.get(i).id;
    return out;
  }

  /** The sample's points, in id order. */
  public SparseVector[] points(int clusters) {
    List<Item> l = sorted(clusters);
    SparseVector[] out = new SparseVector[l.size()];
    for (int i = 0; i < out.length; i++) out[i] = l.get(i).x;
    return out;
  }

  private List<Item> sorted(int clusters) {
    List<Item> l = new ArrayList<>(fromSupportVectors(clusters) ? sv : all);
    l.sort((a, b) -> Long.compare(a.id, b.id));
    return l;
  }
}
