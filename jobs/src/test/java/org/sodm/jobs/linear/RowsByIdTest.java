package org.sodm.jobs.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;

/** A resident BQO task's rows, loaded in any order straight into CSR, come out by id with their labels, checked against the dimension. */
class RowsByIdTest {
  private static TrainRecord record(long id, double y, SparseVector x) {
    return new TrainRecord(id, y, Instances.toAvro(x), -1, 0, List.of(), 0.0, List.of(), 0.0);
  }

  private static SparseVector row(Random r, int dim) {
    double[] dense = new double[dim];
    for (int f = 0; f < dim; f++) if (r.nextDouble() < 0.4) dense[f] = r.nextGaussian();
    return SparseVector.ofDense(dense);
  }

  @Test
  void rowsComeOutByIdWhateverTheLoadOrder() throws IOException {
    Random r = new Random(4);
    int n = 2500;
    long[] ids = new long[n];
    SparseVector[] xs = new SparseVector[n];
    for (int i = 0; i < n; i++) {
      ids[i] = 1000L * ((i * 7919L) % n) + 3; // a permutation of the ids
      xs[i] = row(r, 9);
    }
    long nnz = 0;
    for (SparseVector x : xs) nnz += x.nnz();
    // no size hint; the exact one; one far too small (the arrays grow past it); the 5% more of several blocks
    String[] hints = {null, n + "," + nnz, "1,1", (long) (1.05 * n) + "," + (long) (1.05 * nnz)};
    for (int c = 0; c < 2 * hints.length; c++) {
      boolean shuffled = c % 2 == 0;
      BqoResident.Task t = new BqoResident.Task();
      org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
      if (hints[c / 2] != null) conf.set(LinearKeys.BLOCK_HINT, hints[c / 2]);
      t.beforeLoad(conf);
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) order[i] = i;
      if (!shuffled) java.util.Arrays.sort(order, java.util.Comparator.comparingLong(i -> ids[i]));
      for (int i : order) t.load(record(ids[i], ids[i] % 2 == 0 ? 1 : -1, xs[i]));
      BqoResident.Block b = t.rowsById(9);
      assertEquals(n, b.ids().length);
      double[] w = new double[10];
      for (int f = 0; f < 10; f++) w[f] = r.nextGaussian();
      for (int j = 0; j < n; j++) {
        if (j > 0) assertTrue(b.ids()[j - 1] < b.ids()[j], "ascending ids");
        int i = -1;
        for (int k = 0; k < n && i < 0; k++) if (ids[k] == b.ids()[j]) i = k;
        assertEquals(ids[i] % 2 == 0 ? 1 : -1, b.y()[j]);
        assertEquals(org.sodm.linear.Vectors.dot(xs[i], w, 0), b.x().dot(j, w, 0), 0.0);
      }
    }
  }

  @Test
  void aFeatureBeyondTheDimensionNamesTheFirstSuchRowById() {
    BqoResident.Task t = new BqoResident.Task();
    t.load(record(50, 1, SparseVector.ofDense(0, 0, 0, 0, 1)));
    t.load(record(7, -1, SparseVector.ofDense(1, 2)));
    t.load(record(20, 1, SparseVector.ofDense(0, 0, 0, 0, 0, 3)));
    IOException e = assertThrows(IOException.class, () -> t.rowsById(4));
    assertEquals("row 20 has feature 6 beyond the training dimension 4", e.getMessage());
  }
}
