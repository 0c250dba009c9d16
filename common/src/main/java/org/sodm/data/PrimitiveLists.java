package org.sodm.data;

import java.util.AbstractList;
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

  /** The list over an array of type {@code A} (int[] or double[]); element access by the subclass. */
  private abstract static class Base<E, A> extends AbstractList<E> implements RandomAccess {
    A a;
    private int size;
    private boolean shared = true;

    Base(A values, int length) {
      this.a = values;
      this.size = length;
    }

    abstract A newArray(int n);

    abstract int capacity();

    abstract E at(int i);

    abstract void put(int i, E v);

    final void check(int i) {
      if (i < 0 || i >= size) throw new IndexOutOfBoundsException("index " + i + ", size " + size);
    }

    @Override
    public final E get(int i) {
      check(i);
      return at(i);
    }

    @Override
    public final int size() {
      return size;
    }

    @Override
    public final E set(int i, E v) {
      E old = get(i);
      own(size);
      put(i, v);
      return old;
    }

    @Override
    public final void add(int i, E v) {
      if (i < 0 || i > size) throw new IndexOutOfBoundsException("index " + i + ", size " + size);
      own(size + 1);
      System.arraycopy(a, i, a, i + 1, size - i);
      put(i, v);
      size++;
      modCount++;
    }

    @Override
    public final E remove(int i) {
      E old = get(i);
      own(size);
      System.arraycopy(a, i + 1, a, i, size - i - 1);
      size--;
      modCount++;
      return old;
    }

    @Override
    public final void clear() {
      if (shared) {
        a = newArray(0);
        shared = false;
      }
      size = 0;
      modCount++;
    }

    /** The values: the array itself when it is exactly full (shared from then on: the list copies before a change), else a copy. */
    final A values() {
      if (size != capacity()) {
        A c = newArray(size);
        System.arraycopy(a, 0, c, 0, size);
        return c;
      }
      shared = true;
      return a;
    }

    private void own(int needed) {
      if (shared || needed > capacity()) {
        A c = newArray(Math.max(needed, shared ? capacity() : 2 * capacity() + 4));
        System.arraycopy(a, 0, c, 0, size);
        a = c;
        shared = false;
      }
    }
  }

  /** A list of ints over an int[]. */
  public static final class Ints extends Base<Integer, int[]> {
    /** Wraps {@code values} (not copied; copied before the first change). */
    public Ints(int[] values) {
      super(values, values.length);
    }

    public int getInt(int i) {
      check(i);
      return a[i];
    }

    public int[] array() {
      return values();
    }

    @Override
    int[] newArray(int n) {
      return new int[n];
    }

    @Override
    int capacity() {
      return a.length;
    }

    @Override
    Integer at(int i) {
      return a[i];
    }

    @Override
    void put(int i, Integer v) {
      a[i] = v;
    }
  }

  /** A list of doubles over a double[]. */
  public static final class Doubles extends Base<Double, double[]> {
    /** Wraps {@code values} (not copied; copied before the first change). */
    public Doubles(double[] values) {
      super(values, values.length);
    }

    public double getDouble(int i) {
      check(i);
      return a[i];
    }

    public double[] array() {
      return values();
    }

    @Override
    double[] newArray(int n) {
      return new double[n];
    }

    @Override
    int capacity() {
      return a.length;
    }

    @Override
    Double at(int i) {
      return a[i];
    }

    @Override
    void put(int i, Double v) {
      a[i] = v;
    }
  }
}
