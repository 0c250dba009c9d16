package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.LabelMap;
import org.sodm.data.SparseVector;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelExpansion;
import org.sodm.model.KernelModel;
import org.sodm.solver.Loss;

/** A level's model from its records: per block the support vectors in id order, coefficient y alpha, features shared by id. */
class ModelBuilderTest {
  private static TrainRecord record(long id, double y, SparseVector x, int block, double alpha) {
    return new TrainRecord(id, y, Instances.toAvro(x), 0, block, List.of(alpha), 0.0, List.of(), 0.0);
  }

  @Test
  void blocksHoldTheirSupportVectorsInIdOrderAndBuildersShareEachRowsFeatures() {
    Random r = new Random(3);
    int n = 40;
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = SparseVector.ofDense(r.nextGaussian(), r.nextGaussian());
      y[i] = r.nextBoolean() ? 1 : -1;
    }
    Map<Long, SparseVector> shared = new HashMap<>();
    ModelBuilder[] builders = {new ModelBuilder(shared), new ModelBuilder(shared), new ModelBuilder()};
    double[][][] alpha = new double[3][2][n]; // [builder][block][row]
    for (int b = 0; b < 3; b++) {
      List<TrainRecord> recs = new ArrayList<>();
      for (int blk = 0; blk < 2; blk++) {
        for (int i = 0; i < n; i++) {
          alpha[b][blk][i] = r.nextDouble() < 0.5 ? 0 : r.nextDouble();
          recs.add(record(i, y[i], x[i], blk, alpha[b][blk][i]));
        }
      }
      java.util.Collections.shuffle(recs, r); // the level's files in any order
      for (TrainRecord t : recs) builders[b].add(t);
    }
    KernelSpec ks = KernelSpec.rbf(1);
    KernelModel[] m = new KernelModel[3];
    for (int b = 0; b < 3; b++) m[b] = builders[b].build(ks, Loss.hinge(1), LabelMap.of(List.of("-1", "1")), null, null);
    for (int b = 0; b < 3; b++) {
      assertEquals(2, m[b].blockCount());
      for (int blk = 0; blk < 2; blk++) {
        KernelExpansion e = m[b].block(blk);
        int k = 0;
        for (int i = 0; i < n; i++) {
          if (alpha[b][blk][i] == 0) continue;
          assertEquals(i, m[b].supportVectorId(blk, k), "id order");
          assertEquals(y[i] * alpha[b][blk][i], e.coef(k), 0, "coefficient y alpha");
          assertArrayEquals(x[i].values(), e.supportVector(k).values(), 0);
          assertArrayEquals(x[i].indices(), e.supportVector(k).indices());
          k++;
        }
        assertEquals(k, e.size(), "only the non-zero alphas");
      }
    }
    // the two sharing builders hold one features object per row; the third its own
    for (int blk = 0; blk < 2; blk++) {
      for (int k = 0; k < m[0].block(blk).size(); k++) {
        long id = m[0].supportVectorId(blk, k);
        assertSame(shared.get(id), m[0].block(blk).supportVector(k));
      }
      for (int k = 0; k < m[1].block(blk).size(); k++) assertSame(shared.get(m[1].supportVectorId(blk, k)), m[1].block(blk).supportVector(k));
      for (int k = 0; k < m[2].block(blk).size(); k++) assertNotSame(shared.get(m[2].supportVectorId(blk, k)), m[2].block(blk).supportVector(k));
    }
  }
}
