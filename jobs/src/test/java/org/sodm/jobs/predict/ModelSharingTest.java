package org.sodm.jobs.predict;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LabelMap;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelExpansion;
import org.sodm.model.KernelModel;
import org.sodm.model.Model;
import org.sodm.solver.Loss;
import org.sodm.testing.LocalConf;

/** The driver's model shared with its in-process tasks, and the split rule that weighs a model's cost per row. */
class ModelSharingTest {
  @TempDir Path tmp;

  private static KernelModel model(int supportVectors) {
    SparseVector[] sv = new SparseVector[supportVectors];
    double[] c = new double[supportVectors];
    long[][] ids = {new long[supportVectors]};
    for (int i = 0; i < supportVectors; i++) {
      sv[i] = SparseVector.ofDense(i % 7, i % 3);
      c[i] = 1;
      ids[0][i] = i;
    }
    KernelSpec ks = KernelSpec.rbf(1);
    return new KernelModel(ks, Loss.hinge(1), LabelMap.of(List.of("-1", "1")), null, new int[] {0}, ids,
        new KernelExpansion[] {new KernelExpansion(ks.create(), sv, c, 0)}, null);
  }

  @Test
  void aTaskInTheDriversJvmTakesTheSharedModelUntilItIsWithdrawn() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    org.apache.hadoop.fs.Path missing = new org.apache.hadoop.fs.Path(tmp.resolve("no-such-model.avro").toString());
    Model m = model(3);
    try (ModelFiles.Shared s = ModelFiles.share(conf, m)) {
      assertSame(m, ModelFiles.readVerifiedByDriver(conf, missing), "the driver's object, the file not read");
      assertThrows(Exception.class, () -> ModelFiles.readVerifiedByDriver(new Configuration(false), missing),
          "a task without the job's token (another JVM's view) reads the file");
    }
    assertThrows(Exception.class, () -> ModelFiles.readVerifiedByDriver(conf, missing), "withdrawn: the file is read");
  }

  @Test
  void predictLeavesNoSharedModelBehindAndScoresAsTheDriver() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("m").toString()), false), s -> {});
    int before = ModelFiles.sharedCount();
    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(tmp.resolve("p").toString());
    PredictJob.Result pr = PredictJob.run(conf, r.modelPath(), List.of(LocalConf.sampleData("svmguide1.t").toString()), out);
    assertEquals(before, ModelFiles.sharedCount(), "the job's share withdrawn");
    assertTrue(pr.rows() > 0);
  }

  @Test
  void theSmallestSplitShrinksWithTheModelsKernelEvaluationsPerRow() {
    Configuration conf = new Configuration(false);
    assertEquals(1L << 20, PredictJob.minSplitBytes(conf, model(100)), "a cheap model: 1 MB");
    assertEquals(1L << 20, PredictJob.minSplitBytes(conf, model((int) PredictJob.CHEAP_ROW)));
    assertEquals((1L << 20) / 4, PredictJob.minSplitBytes(conf, model(4 * (int) PredictJob.CHEAP_ROW)), "4x the cost: a quarter");
    assertEquals(64L << 10, PredictJob.minSplitBytes(conf, model(100 * (int) PredictJob.CHEAP_ROW)), "floor 64 KB");
    conf.setLong(PredictJob.MIN_SPLIT_KEY, 4096);
    assertEquals(4096, PredictJob.minSplitBytes(conf, model(100 * (int) PredictJob.CHEAP_ROW)), "a smaller configured minimum stands");
  }
}
