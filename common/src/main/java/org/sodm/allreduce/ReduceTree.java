package org.sodm.allreduce;

/**
 * The one place that fixes how an {@link AllReduce} combines the ranks' arrays, so that every
 * transport gives bit-identical results: a binary tree with rank 0 at the root, rank r's parent
 * (r - 1) / 2 and children 2r + 1, 2r + 2. Rank r's subtree value is its own array, combined
 * with its first child's subtree value, then with its second's; the root's value is the result,
 * sent back down the same tree.
 */
public final class ReduceTree {
  private ReduceTree() {}

  /** How two arrays combine. */
  public enum Op {
    SUM, MAX, BROADCAST
  }

  public static int parent(int rank) {
    if (rank <= 0) throw new IllegalArgumentException("rank " + rank + " has no parent");
    return (rank - 1) / 2;
  }

  /** Rank r's children in the order their values are combined. */
  public static int[] children(int rank, int size) {
    int a = 2 * rank + 1;
    int b = 2 * rank + 2;
    if (b < size) return new int[] {a, b};
    if (a < size) return new int[] {a};
    return new int[0];
  }

  /** {@code acc = acc (op) part}, element-wise (BROADCAST keeps acc). */
  public static void combine(Op op, double[] acc, double[] part) {
    if (op == Op.BROADCAST) return;
    if (acc.length != part.length) {
      throw new IllegalArgumentException("AllReduce " + op + " of arrays of different lengths: " + acc.length + " and " + part.length);
    }
    if (op == Op.SUM) {
      for (int k = 0; k < acc.length; k++) acc[k] += part[k];
    } else {
      for (int k = 0; k < acc.length; k++) acc[k] = Math.max(acc[k], part[k]);
    }
  }

  /** The result over all ranks' values ({@code values[r]} of rank r), in the tree's order. */
  public static double[] reduce(Op op, double[][] values) {
    if (op == Op.BROADCAST) return values[0].clone();
    return subtree(op, values, 0);
  }

  private static double[] subtree(Op op, double[][] values, int rank) {
    double[] acc = values[rank].clone();
    for (int c : children(rank, values.length)) combine(op, acc, subtree(op, values, c));
    return acc;
  }
}
