package org.sodm.data;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

/**
 * Avro's {@code array<int>} and {@code array<double>} fields ({@link org.sodm.avro.Features}) held as primitive arrays
 * instead of lists of boxed numbers: {@link Instances} wraps a {@link SparseVector}'s arrays in them and unwraps them again
 * without copying or boxing, and {@link InstanceReader} decodes into them. They are ordinary mutable lists to everything
 * else (Avro's generic reader may clear and refill one it reuses): an array handed out by {@code array()} or wrapped at
 * construction is shared, and the first change copies it, so a {@link SparseVector} built on it never changes.
 */
public final class PrimitiveLists {
  private PrimitiveLists() {}

  /** A list of ints over an int[]. */
  public static final class Ints extends AbstractList<Integer> implements RandomAccess {
    private int[] a;
    private int size;
    private boolean shared;

    /** Wraps {@code values} (not copied; copied before the first change). */
    public Ints(int[] values) {
      this.a = values;
      this.size = values.length;
      this.shared = true;
    }

    @Override
    public Integer get(int i) {
      return getInt(i);
    }

    public int getInt(int i) {
      if (i < 0 || i >= size) throw new IndexOutOfBoundsException("index " + i + ", size " + size);
      return a[i];
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    public Integer set(int i, Integer v) {
      int old = getInt(i);
      own(size);
      a[i] = v;
      return old;
    }

    @Override
    public void add(int i, Integer v) {
      if (i < 0 || i > size) throw new IndexOutOfBoundsException("index " + i + ", size " + size);
      own(size + 1);
      System.arraycopy(a, i, a, i + 1, size - i);
      a[i] = v;
      size++;
      modCount++;
    }

    @Override
    public Integer remove(int i) {
      int old = getInt(i);
      own(size);
      System.arraycopy(a, i + 1, a, i, size - i - 1);
      size--;
      modCount++;
      return old;
    }

    @Override
    public void clear() {
      if (shared) {
        a = new int[0];
        shared = false;
      }
      size = 0;
      modCount++;
    }

    /** The values: the array itself when it is exactly full (shared from then on: the list copies before a change), else a copy. */
    public int[] array() {
      if (size != a.length) return Arrays.copyOf(a, size);
      shared = true;
      return a;
    }

    private void own(int capacity) {
      if (shared || capacity > a.length) {
        a = Arrays.copyOf(a, Math.max(capacity, shared ? a.length : 2 * a.length + 4));
        shared = false;
      }
    }
  }

  /** A list of doubles over a double[]. */
  public static final class Doubles extends AbstractList<Double> implements RandomAccess {
    private double[] a;
    private int size;
    private boolean shared;

    /** Wraps {@code values} (not copied; copied before the first change). */
    public Doubles(double[] values) {
      this.a = values;
      this.size = values.length;
      this.shared = true;
    }

    @Override
    public Double get(int i) {
      return getDouble(i);
    }

    public double getDouble(int i) {
      if (i < 0 || i >= size) throw new IndexOutOfBoundsException("index " + i + ", size " + size);
      return a[i];
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    public Double set(int i, Double v) {
      double old = getDouble(i);
      own(size);
      a[i] = v;
      return old;
    }

    @Override
    public void add(int i, Double v) {
      if (i < 0 || i > size) throw new IndexOutOfBoundsException("index " + i + ", size " + size);
      own(size + 1);
      System.arraycopy(a, i, a, i + 1, size - i);
      a[i] = v;
      size++;
      modCount++;
    }

    @Override
    public Double remove(int i) {
      double old = getDouble(i);
      own(size);
      System.arraycopy(a, i + 1, a, i, size - i - 1);
      size--;
      modCount++;
      return old;
    }

    @Override
    public void clear() {
      if (shared) {
        a = new double[0];
        shared = false;
      }
      size = 0;
      modCount++;
    }

    /** The values: the array itself when it is exactly full (shared from then on: the list copies before a change), else a copy. */
    public double[] array() {
      if (size != a.length) return Arrays.copyOf(a, size);
      shared = true;
      return a;
    }

    private void own(int capacity) {
      if (shared || capacity > a.length) {
        a = Arrays.copyOf(a, Math.max(capacity, shared ? a.length : 2 * a.length + 4));
        shared = false;
      }
    }
  }
}
