package org.sodm.jobs.phase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.sodm.avro.FeatureStats;
import org.sodm.data.SparseVector;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.ingest.IngestJob;

/** The data fingerprint of a model's provenance: a function of the statistics, and of every one of them. */
class FingerprintTest {

  private static IngestJob.Result data(double lastValue) {
    StatsAccumulator s = new StatsAccumulator();
    s.add("+1", new SparseVector(new int[] {1, 3}, new double[] {0.5, 2}), 1, "f:1");
    s.add("-1", new SparseVector(new int[] {2, 3}, new double[] {-1, lastValue}), 2, "f:2");
    FeatureStats stats = s.toAvro();
    return new IngestJob.Result(new Path("/nowhere"), stats, null, null, 0);
  }

  @Test
  void equalStatisticsGiveEqualFingerprintsAndAnyChangeAnother() {
    String a = TrainContext.fingerprint(data(4));
    assertEquals(a, TrainContext.fingerprint(data(4)));
    assertTrue(a.startsWith("rows=2 features=3 nnz=4 sha256(stats)="), a);
    assertEquals("rows=2 features=3 nnz=4 sha256(stats)=".length() + 24, a.length(), a);
    assertNotEquals(a, TrainContext.fingerprint(data(4.000000000000001)), "the last bit of one feature's maximum");
  }
}
