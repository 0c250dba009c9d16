package org.sodm.allreduce;

import java.io.IOException;

/**
 * All-gather over an {@link AllReduce}: every rank contributes an array of its own length and gets
 * the concatenation of all of them in rank order. Two collective sums: the lengths (each rank's in
 * its own slot), then the payloads, each at its offset in an array of zeros; adding zeros is exact,
 * so every rank gets every payload bit for bit.
 */
public final class Gather {
  private Gather() {}

  /** {concatenation, offsets}: offsets[r] is where rank r's part starts; offsets[size] is the total length. */
  public static double[][] all(AllReduce ar, double[] mine) throws IOException {
    double[] lengths = new double[ar.size()];
    lengths[ar.rank()] = mine.length;
    lengths = ar.sum(lengths);
    double[] offsets = new double[ar.size() + 1];
    for (int r = 0; r < ar.size(); r++) offsets[r + 1] = offsets[r] + lengths[r];
    double[] all = new double[(int) offsets[ar.size()]];
    System.arraycopy(mine, 0, all, (int) offsets[ar.rank()], mine.length);
    return new double[][] {ar.sum(all), offsets};
  }
}
