package org.sodm.data;

import java.util.Arrays;

/**
 * Feature index to a dense slot number (0, 1, 2, ... in order of first appearance): memory grows
 * with the number of distinct features, not with the largest index, so index 2^31 - 1 costs what
 * index 5 costs. A direct table while the indices are small (up to {@link #DIRECT_LIMIT}), an
 * open-addressing hash table after; the slot numbers do not change when it switches. Not
 * thread-safe.
 */
public final class FeatureSlots {
  /** Largest index served by the direct table (4 MB of ints). */
  static final int DIRECT_LIMIT = 1 << 20;

  private int[] direct = new int[16]; // slot + 1 by index - 1, 0 = absent; null once hashed
  private int[] keys; // hash mode: feature index, 0 = empty
  private int[] vals; // hash mode: slot
  private int size;
  private int maxIndex;

  /** Slots assigned so far. */
  public int size() {
    return size;
  }

  /** Largest index given a slot (0 when none). */
  public int maxIndex() {
    return maxIndex;
  }

  /** The slot of {@code index} (>= 1), or -1 when it has none. */
  public int get(int index) {
    if (direct != null) return index <= direct.length ? direct[index - 1] - 1 : -1;
    int mask = keys.length - 1;
    for (int h = mix(index) & mask;; h = (h + 1) & mask) {
      if (keys[h] == index) return vals[h];
      if (keys[h] == 0) return -1;
    }
  }

  /** The slot of {@code index} (>= 1), assigning the next one when it has none. */
  public int slot(int index) {
    if (index < 1) throw new IllegalArgumentException("feature index must be >= 1, got " + index);
    if (direct != null) {
      if (index <= direct.length) {
        int s = direct[index - 1];
        if (s != 0) return s - 1;
        direct[index - 1] = size + 1;
        return assigned(index);
      }
      if (index <= DIRECT_LIMIT) {
        direct = Arrays.copyOf(direct, Math.min(DIRECT_LIMIT, Math.max(index, 2 * direct.length)));
        direct[index - 1] = size + 1;
        return assigned(index);
      }
      toHash();
    }
    int s = get(index);
    if (s >= 0) return s;
    if (2 * (size + 1) > keys.length) rehash(2 * keys.length);
    put(index, size);
    return assigned(index);
  }

  private int assigned(int index) {
    maxIndex = Math.max(maxIndex, index);
    return size++;
  }

  /** The indices with a slot, ascending, and beside each its slot: {indices, slots}. */
  public int[][] sorted() {
    long[] pairs = new long[size];
    int n = 0;
    if (direct != null) {
      for (int i = 0; i < direct.length; i++) if (direct[i] != 0) pairs[n++] = ((long) (i + 1) << 32) | (direct[i] - 1);
    } else {
      for (int h = 0; h < keys.length; h++) if (keys[h] != 0) pairs[n++] = ((long) keys[h] << 32) | vals[h];
    }
    Arrays.sort(pairs);
    int[] idx = new int[size];
    int[] slot = new int[size];
    for (int k = 0; k < size; k++) {
      idx[k] = (int) (pairs[k] >>> 32);
      slot[k] = (int) pairs[k];
    }
    return new int[][] {idx, slot};
  }

  private void toHash() {
    int cap = 16;
    while (cap < 4 * Math.max(size, 4)) cap <<= 1;
    keys = new int[cap];
    vals = new int[cap];
    for (int i = 0; i < direct.length; i++) if (direct[i] != 0) put(i + 1, direct[i] - 1);
    direct = null;
  }

  private void rehash(int cap) {
    int[] k = keys;
    int[] v = vals;
    keys = new int[cap];
    vals = new int[cap];
    for (int h = 0; h < k.length; h++) if (k[h] != 0) put(k[h], v[h]);
  }

  private void put(int index, int slot) {
    int mask = keys.length - 1;
    int h = mix(index) & mask;
    while (keys[h] != 0) h = (h + 1) & mask;
    keys[h] = index;
    vals[h] = slot;
  }

  private static int mix(int x) {
    int h = x * 0x9E3779B9;
    return h ^ (h >>> 16);
  }
}
