package org.sodm.jobs.predict;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Prediction;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.model.KernelExpansion;
import org.sodm.model.KernelModel;
import org.sodm.testing.LocalConf;

/**
 * {@code sodm predict}'s map tasks (batched rows x support vectors over the merged expansion, the
 * file split over two local tasks) against the driver's direct per-row, per-block sum, on every row
 * of svmguide1.t and of the ijcnn1 sample, for averaged models of several blocks: decision values
 * within 1e-12 of the sum of the absolute terms (and of |f| itself where f is not a small
 * difference of large terms), labels identical.
 */
class DistributedScoringTest {
  @TempDir Path tmp;

  private void check(String train, String test, String range, String c, String gamma, int partitions) throws Exception {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, c);
    conf.set(SodmConf.GAMMA, gamma);
    conf.set(SodmConf.INGEST_SCALE, range);
    conf.set(SodmConf.PARTITIONS, Integer.toString(partitions));
    conf.set(SodmConf.LEVELS, "2"); // partitions -> partitions/4 averaged blocks
    conf.setLong(SodmConf.EXACT_BELOW_ROWS, 0);
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData(train).toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("m-" + train).toString()), false), s -> {});
    KernelModel model = (KernelModel) r.model();
    assertTrue(model.blockCount() > 1, "an averaged model: " + model.blockCount() + " block(s)");

    Configuration two = new Configuration(conf);
    two.setInt(org.sodm.jobs.support.Jobs.LOCAL_PARALLELISM, 2);
    two.setLong(PredictJob.MIN_SPLIT_KEY, 4096);
    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(tmp.resolve("p-" + test).toString());
    PredictJob.Result pr = PredictJob.run(two, r.modelPath(), List.of(LocalConf.sampleData(test).toString()), out);
    List<Prediction> preds = AvroFiles.readDir(conf, out, Prediction.class);
    preds.sort(Comparator.comparingLong(Prediction::getId)); // ids follow the rows' order in the file
    long tasks = AvroFiles.dataFiles(conf, out).stream().filter(p -> p.getName().startsWith("part-m-")).count();
    assertTrue(tasks >= 2, "scored by " + tasks + " map task(s)");

    LibsvmReader.Data d = LibsvmReader.read(LocalConf.sampleData(test));
    assertEquals(d.size(), preds.size());
    assertEquals(d.size(), pr.rows());
    int near = 0;
    for (int i = 0; i < d.size(); i++) {
      SparseVector x = model.prepare(d.x()[i]);
      double direct = model.decisionPrepared(x); // the driver's path: each block's own sum, then their mean
      double scale = 0; // sum of |terms| over the blocks, / B: the size of any summation order's rounding
      for (int b = 0; b < model.blockCount(); b++) {
        KernelExpansion e = model.block(b);
        scale += Math.abs(e.bias());
        for (int j = 0; j < e.size(); j++) scale += Math.abs(e.coef(j) * e.kernel().eval(e.supportVector(j), x));
      }
      scale /= model.blockCount();
      Prediction p = preds.get(i);
      double err = Math.abs(p.getDecision() - direct);
      assertTrue(err <= 1e-12 * scale, "row " + (i + 1) + ": map task " + p.getDecision() + ", driver " + direct);
      if (Math.abs(direct) >= 1e-3 * scale) {
        assertTrue(err <= 1e-12 * Math.abs(direct), "row " + (i + 1) + ": relative " + err / Math.abs(direct));
      } else {
        near++;
      }
      assertEquals(model.labels().original(direct), p.getPredicted(), "row " + (i + 1));
    }
    assertTrue(near < d.size() / 10, near + " rows with f near 0 of " + d.size());
  }

  @Test
  void svmguide1EveryRow() throws Exception {
    check("svmguide1", "svmguide1.t", "0,1", "1", "1", 16);
  }

  @Test
  void ijcnn1SampleEveryRow() throws Exception {
    check("ijcnn1-12k.xz", "ijcnn1-5k.t.xz", "none", "32", "2", 16);
  }
}
