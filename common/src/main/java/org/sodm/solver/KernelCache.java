package org.sodm.solver;

/**
 * LRU cache of kernel-matrix columns (as LIBSVM's Cache), stored as float (default, as LIBSVM)
 * or double, bounded by a byte budget. Column {@code p} holds Q[p][0..len) for positions p of the solver's current order;
 * a request for a longer prefix extends the cached part. The budget counts the per-position
 * bookkeeping (about 24 bytes per position) plus every cached array (16-byte header + 4 bytes
 * (float) or 8 (double) per entry, rounded up to 8); when a column cannot fit even after evicting everything else it
 * is computed into one working buffer outside the cache (length n, not counted), so memory
 * stays within budget + 8n bytes for any problem size.
 */
public final class KernelCache {

  /** Computes Q[pos][from..to) into {@code out[from..to)}. */
  public interface Filler {
    void fill(int pos, int from, int to, float[] out);

    void fill(int pos, int from, int to, double[] out);
  }

  static final long PER_POSITION_BYTES = 8 + 4 + 4 + 4 + 4;

  private final int n;
  private final long budget;
  private final boolean doubles;
  private final float[][] data;
  private final double[][] ddata;
  private final int[] len;
  // LRU doubly linked circular list over positions; sentinel = n; head (LRU) = next[n].
  private final int[] prev;
  private final int[] next;
  private final float[] scratch;
  private final double[] dscratch;
  private long used;
  private long peak;
  private long hits;
  private long misses;

  public KernelCache(int n, long budgetBytes) {
    this(n, budgetBytes, false);
  }

  /** @param doubles store double columns (use {@link #getDouble}) instead of float ({@link #get}) */
  public KernelCache(int n, long budgetBytes, boolean doubles) {
    this.n = n;
    this.budget = budgetBytes;
    this.doubles = doubles;
    this.data = doubles ? null : new float[n][];
    this.ddata = doubles ? new double[n][] : null;
    this.len = new int[n];
    this.prev = new int[n + 1];
    this.next = new int[n + 1];
    prev[n] = n;
    next[n] = n;
    this.scratch = doubles ? null : new float[n];
    this.dscratch = doubles ? new double[n] : null;
    this.used = PER_POSITION_BYTES * n;
    this.peak = used;
  }

  long arrayBytes(int length) {
    return (16L + (doubles ? 8L : 4L) * length + 7) & ~7L;
  }

  public boolean doubles() {
    return doubles;
  }

  private int cachedLength(int p) {
    return doubles ? ddata[p].length : data[p].length;
  }

  private boolean present(int p) {
    return doubles ? ddata[p] != null : data[p] != null;
  }

  private void unlink(int p) {
    next[prev[p]] = next[p];
    prev[next[p]] = prev[p];
  }

  private void linkTail(int p) {
    int last = prev[n];
    next[last] = p;
    prev[p] = last;
    next[p] = n;
    prev[n] = p;
  }

  private void evict(int p) {
    unlink(p);
    used -= arrayBytes(cachedLength(p));
    if (doubles) ddata[p] = null;
    else data[p] = null;
    len[p] = 0;
  }

  /**
   * Q[pos][0..need) (the returned array may be longer; entries past {@code need} are not
   * meaningful unless cached). The result may be the shared working buffer: use it before the
   * next call.
   */
  public float[] get(int pos, int need, Filler filler) {
    float[] col = data[pos];
    int have = 0;
    if (col != null) {
      if (len[pos] >= need) {
        hits++;
        unlink(pos);
        linkTail(pos);
        return col;
      }
      misses++;
      have = len[pos];
      unlink(pos);
      if (col.length >= need) {
        // a recycled array long enough: extend in place
        filler.fill(pos, have, need, col);
        len[pos] = need;
        linkTail(pos);
        return col;
      }
      used -= arrayBytes(col.length);
      data[pos] = null;
      len[pos] = 0;
    } else {
      misses++;
    }
    long want = arrayBytes(need);
    float[] nc = null;
    while (used + want > budget && next[n] != n) {
      int victim = next[n];
      float[] vc = data[victim];
      if (vc.length >= need && vc.length <= 2L * need + 64) {
        // recycle the least recently used array (no allocation, no garbage)
        unlink(victim);
        data[victim] = null;
        len[victim] = 0;
        used -= arrayBytes(vc.length);
        nc = vc;
        want = arrayBytes(vc.length);
        break;
      }
      evict(victim);
    }
    if (used + want <= budget) {
      if (nc == null) nc = new float[need];
      if (have > 0) System.arraycopy(col, 0, nc, 0, have);
      filler.fill(pos, have, need, nc);
      data[pos] = nc;
      len[pos] = need;
      used += want;
      if (used > peak) peak = used;
      linkTail(pos);
      return nc;
    }
    if (have > 0) System.arraycopy(col, 0, scratch, 0, have);
    filler.fill(pos, have, need, scratch);
    return scratch;
  }

  /** As {@link #get} for a cache built with double storage. */
  public double[] getDouble(int pos, int need, Filler filler) {
    double[] col = ddata[pos];
    int have = 0;
    if (col != null) {
      if (len[pos] >= need) {
        hits++;
        unlink(pos);
        linkTail(pos);
        return col;
      }
      misses++;
      have = len[pos];
      unlink(pos);
      if (col.length >= need) {
        // a recycled array long enough: extend in place
        filler.fill(pos, have, need, col);
        len[pos] = need;
        linkTail(pos);
        return col;
      }
      used -= arrayBytes(col.length);
      ddata[pos] = null;
      len[pos] = 0;
    } else {
      misses++;
    }
    long want = arrayBytes(need);
    double[] nc = null;
    while (used + want > budget && next[n] != n) {
      int victim = next[n];
      double[] vc = ddata[victim];
      if (vc.length >= need && vc.length <= 2L * need + 64) {
        // recycle the least recently used array (no allocation, no garbage)
        unlink(victim);
        ddata[victim] = null;
        len[victim] = 0;
        used -= arrayBytes(vc.length);
        nc = vc;
        want = arrayBytes(vc.length);
        break;
      }
      evict(victim);
    }
    if (used + want <= budget) {
      if (nc == null) nc = new double[need];
      if (have > 0) System.arraycopy(col, 0, nc, 0, have);
      filler.fill(pos, have, need, nc);
      ddata[pos] = nc;
      len[pos] = need;
      used += want;
      if (used > peak) peak = used;
      linkTail(pos);
      return nc;
    }
    if (have > 0) System.arraycopy(col, 0, dscratch, 0, have);
    filler.fill(pos, have, need, dscratch);
    return dscratch;
  }

  /** Swaps positions i and j (their columns and the i/j entries of every cached column). */
  public void swap(int i, int j) {
    if (i == j) return;
    if (i > j) {
      int t = i;
      i = j;
      j = t;
    }
    boolean ci = present(i);
    boolean cj = present(j);
    if (ci) unlink(i);
    if (cj) unlink(j);
    if (doubles) {
      double[] td = ddata[i];
      ddata[i] = ddata[j];
      ddata[j] = td;
    } else {
      float[] td = data[i];
      data[i] = data[j];
      data[j] = td;
    }
    int tl = len[i];
    len[i] = len[j];
    len[j] = tl;
    if (cj) linkTail(i);
    if (ci) linkTail(j);
    for (int h = next[n]; h != n; ) {
      int nh = next[h];
      if (len[h] > i) {
        if (len[h] > j) {
          if (doubles) {
            double[] c = ddata[h];
            double t = c[i];
            c[i] = c[j];
            c[j] = t;
          } else {
            float[] c = data[h];
            float t = c[i];
            c[i] = c[j];
            c[j] = t;
          }
        } else {
          evict(h);
        }
      }
      h = nh;
    }
  }

  /**
   * Applies the swaps (pi[t], pj[t]) for t &lt; count, in order: the same result as calling
   * {@link #swap} for each, but every cached column is visited once (its entries stay in the
   * CPU cache while all swaps are applied to it) instead of once per swap.
   */
  public void swapAll(int[] pi, int[] pj, int count) {
    for (int t = 0; t < count; t++) {
      int i = pi[t];
      int j = pj[t];
      if (i == j) continue;
      boolean ci = present(i);
      boolean cj = present(j);
      if (ci) unlink(i);
      if (cj) unlink(j);
      if (doubles) {
        double[] td = ddata[i];
        ddata[i] = ddata[j];
        ddata[j] = td;
      } else {
        float[] td = data[i];
        data[i] = data[j];
        data[j] = td;
      }
      int tl = len[i];
      len[i] = len[j];
      len[j] = tl;
      if (cj) linkTail(i);
      if (ci) linkTail(j);
    }
    for (int h = next[n]; h != n; ) {
      int nh = next[h];
      int l = len[h];
      boolean drop = false;
      if (doubles) {
        double[] c = ddata[h];
        for (int t = 0; t < count; t++) {
          int i = Math.min(pi[t], pj[t]);
          int j = Math.max(pi[t], pj[t]);
          if (l > i) {
            if (l > j) {
              double x = c[i];
              c[i] = c[j];
              c[j] = x;
            } else {
              drop = true;
              break;
            }
          }
        }
      } else {
        float[] c = data[h];
        for (int t = 0; t < count; t++) {
          int i = Math.min(pi[t], pj[t]);
          int j = Math.max(pi[t], pj[t]);
          if (l > i) {
            if (l > j) {
              float x = c[i];
              c[i] = c[j];
              c[j] = x;
            } else {
              drop = true;
              break;
            }
          }
        }
      }
      if (drop) evict(h);
      h = nh;
    }
  }

  /** True when {@code col} is the shared working buffer (overwritten by the next uncached get). */
  public boolean isScratch(Object col) {
    return col == scratch || col == dscratch;
  }

  public long bytesUsed() {
    return used;
  }

  public long peakBytes() {
    return peak;
  }

  public long budget() {
    return budget;
  }

  public long hits() {
    return hits;
  }

  public long misses() {
    return misses;
  }

  /** Number of cached columns. */
  public int cachedColumns() {
    int c = 0;
    for (int h = next[n]; h != n; h = next[h]) c++;
    return c;
  }
}
