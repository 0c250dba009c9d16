package org.sodm.jobs.linear;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.linear.Dsvrg;
import org.sodm.linear.OdmPrimal;
import org.sodm.model.LinearModel;
import org.sodm.solver.Loss;
import org.sodm.testing.LocalConf;

/**
 * DSVRG on the stratified partition (seed 000 Algorithm 2 lines 1-2, issue 19 item 4): each
 * row's stratum is its nearest landmark, every (stratum, class) pair is dealt evenly over the
 * blocks within each ingested part (the per-stream bound of StreamingStratifiedAssigner: counts
 * differ by at most 1), and the model is the in-memory {@link Dsvrg} on the same blocks.
 */
class DsvrgStratifiedTest {
  @TempDir Path tmp;

  @Test
  void stratifiedBlocksKeepTheBalanceBoundAndTheModelIsTheInMemoryDsvrgOnThem() throws Exception {
    Configuration conf = OdmTestConf.create(tmp, "3");
    conf.set(SodmConf.LINEAR_EPS, "1e-9");
    conf.set(Param.LINEAR_PARTITIONER.key(), "stratified");
    List<String> lines = new ArrayList<>();
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        List.of(LocalConf.sampleData("svmguide1.t").toString()), new org.apache.hadoop.fs.Path(tmp.resolve("s").toString()), false),
        lines::add);
    assertTrue(lines.stream().anyMatch(l -> l.contains("stratified:")), String.join("\n", lines));
    LinearModel m = (LinearModel) r.model();
    // the strata's landmarks come from the training ingest's row sample; the validation ingest draws none
    assertTrue(java.nio.file.Files.isDirectory(tmp.resolve("s/work/ingest/" + IngestJob.sampleDirName(conf))));
    try (var v = java.nio.file.Files.list(tmp.resolve("s/work/validation"))) {
      assertTrue(v.noneMatch(p -> p.getFileName().toString().startsWith("sample-")), "a sample of the validation set");
    }

    // the blocks, and which ingested part (stream) each row came from
    List<TrainRecord> recs = new ArrayList<>();
    for (org.apache.hadoop.fs.Path p : AvroFiles.dataFiles(conf, new org.apache.hadoop.fs.Path(tmp.resolve("s/work/partition/blocks").toString()))) {
      if (p.getName().startsWith("block-")) recs.addAll(AvroFiles.readAll(conf, p, TrainRecord.class));
    }
    assertEquals(3089, recs.size());
    Map<Long, String> part = new HashMap<>();
    for (org.apache.hadoop.fs.Path p : AvroFiles.dataFiles(conf, new org.apache.hadoop.fs.Path(tmp.resolve("s/work/ingest/" + IngestJob.DATA).toString()))) {
      if (!p.getName().endsWith(".avro")) continue;
      for (Instance in : AvroFiles.readAll(conf, p, Instance.class)) part.put(in.getId(), p.getName());
    }
    // strata: the nearest landmark (Euclidean, the linear kernel's feature space), computed here by brute force
    List<TrainRecord> lm = AvroFiles.readAll(conf, new org.apache.hadoop.fs.Path(tmp.resolve("s/work/partition/" + LinearStrata.FILE).toString()),
        TrainRecord.class);
    lm.sort((a, b) -> Integer.compare(a.getStratum(), b.getStratum()));
    assertTrue(lm.size() >= 2, "landmarks " + lm.size());
    Map<String, int[]> counts = new HashMap<>();
    java.util.Set<Integer> strata = new java.util.HashSet<>();
    for (TrainRecord t : recs) {
      SparseVector x = Instances.features(t.getFeatures());
      int best = -1;
      double bd = Double.POSITIVE_INFINITY;
      for (int s = 0; s < lm.size(); s++) {
        SparseVector l = Instances.features(lm.get(s).getFeatures());
        double d = x.squaredNorm() + l.squaredNorm() - 2 * x.dot(l);
        if (d < bd - 1e-12) {
          bd = d;
          best = s;
        }
      }
      assertEquals(best, t.getStratum(), "row " + t.getId());
      strata.add(t.getStratum());
      counts.computeIfAbsent(part.get(t.getId()) + "/" + t.getStratum() + "/" + (t.getY() > 0), k -> new int[3])[t.getBlock()]++;
    }
    assertTrue(strata.size() >= 2, "strata used: " + strata);
    for (Map.Entry<String, int[]> e : counts.entrySet()) {
      int[] c = e.getValue();
      int max = Math.max(c[0], Math.max(c[1], c[2]));
      int min = Math.min(c[0], Math.min(c[1], c[2]));
      assertTrue(max - min <= 1, "stream/stratum/class " + e.getKey() + ": " + java.util.Arrays.toString(c));
    }

    // the model is the in-memory DSVRG on the same blocks (rows in id order, as the tasks hold them)
    recs.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    int n = recs.size();
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    int[] block = new int[n];
    for (int i = 0; i < n; i++) {
      x[i] = Instances.features(recs.get(i).getFeatures());
      y[i] = recs.get(i).getY();
      block[i] = recs.get(i).getBlock();
    }
    OdmPrimal odm = Loss.odm(8, 0.3, 0.5).odmPrimal();
    Dsvrg.Result ref = Dsvrg.train(x, y, block, 3, odm, 0, 4, 1, null);
    assertEquals(ref.finalObjective(), r.levels().get(0).getObjective(), 1e-9 * ref.finalObjective());
    double[] w = m.w();
    for (int f = 0; f < w.length; f++) assertEquals(ref.w()[f], w[f], 1e-8 * (1 + Math.abs(w[f])), "w[" + f + "]");
    System.out.printf("DSVRG stratified (%d strata): primal %.10f, accuracy %.4f%n", strata.size(), ref.finalObjective(),
        r.levels().get(0).getValidationAccuracy());
  }
}
