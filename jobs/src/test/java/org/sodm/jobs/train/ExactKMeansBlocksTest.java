package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.TrainRecord;
import org.sodm.data.LibsvmReader;
import org.sodm.data.Scaler;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.KernelSpec;
import org.sodm.testing.LocalConf;

/**
 * Issue 19 item 3: exact mode's PBM runs on its own partition, kernel k-means clusters of a sample
 * (seed 004 section 4.3), with --exact-blocks blocks whatever --fanout and the tree's blocks; with
 * every partitioner it reaches the whole problem's optimum, as does --partitions 1. The reference
 * is independent of the solver under test (projected gradient on the dense kernel matrix,
 * {@link ExactMeansExactTest#referenceObjective}); PBM's Armijo step is taken through the jobs.
 */
class ExactKMeansBlocksTest {
  @TempDir Path tmp;
  private Configuration conf;
  private Path sample;
  private static Double reference;

  @BeforeEach
  void setUp() throws IOException {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(Param.OFFSET.key(), "false"); // the references are the box-constrained dual without LIBSVM's offset (KernelDualSolver)
    sample = tmp.resolve("svmguide1-420");
    List<String> all = Files.readAllLines(LocalConf.sampleData("svmguide1"));
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < all.size() && rows.size() < 420; i += 7) rows.add(all.get(i));
    Files.write(sample, rows);
  }

  private double reference() throws IOException {
    if (reference == null) {
      LibsvmReader.Data d = LibsvmReader.read(sample);
      StatsAccumulator acc = new StatsAccumulator();
      for (int i = 0; i < d.size(); i++) acc.add(d.labels()[i], d.x()[i], i + 1, "x");
      reference = ExactMeansExactTest.referenceObjective(d.scaled(Scaler.fromStats(acc.toAvro(), 0, 1)), KernelSpec.rbf(2).create(), 2);
    }
    return reference;
  }

  private double train(String out) throws IOException {
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(sample.toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), l -> {});
    return r.levels().get(r.levels().size() - 1).getObjective();
  }

  private Set<Integer> blocks(String dir) throws IOException {
    Set<Integer> b = new HashSet<>();
    for (TrainRecord r : TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(tmp.resolve(dir).toString()))) b.add(r.getBlock());
    return b;
  }

  @Test
  void pbmOnKMeansBlocksReachesTheWholeProblemsOptimumWithEveryPartitioner() throws IOException {
    double ref = reference();
    conf.set(SodmConf.PARTITIONS, "1");
    conf.set(SodmConf.EPS, "1e-6");
    double one = train("one");
    assertEquals(ref, one, 1e-4 * Math.abs(ref), "--partitions 1");

    conf.set(SodmConf.PARTITIONS, "8");
    conf.set(SodmConf.FANOUT, "2"); // the tree ends with 2 blocks; PBM takes 3 of its own
    conf.set(SodmConf.EXACT, "true");
    conf.set(SodmConf.EXACT_SINGLE, "never");
    conf.set(SodmConf.EXACT_TOLERANCE, "1e-4");
    conf.set(Param.EXACT_BLOCKS.key(), "3");
    String[][] runs = {{"stratified", "armijo", "jobs"}, {"kmeans", "exact", "allreduce"}, {"random", "armijo", "allreduce"}};
    for (String[] run : runs) {
      conf.set(Param.PARTITIONER.key(), run[0]);
      conf.set(Param.EXACT_LINE_SEARCH.key(), run[1]);
      conf.set(Param.ITERATION_MODE.key(), run[2]);
      String out = String.join("-", run);
      double obj = train(out);
      System.out.printf("exact PBM %s: objective %.10f, reference %.10f, --partitions 1 %.10f (rel. %.2e)%n", out, obj, ref, one,
          (obj - ref) / Math.abs(ref));
      assertEquals(ref, obj, 1e-4 * Math.abs(ref), out);
      assertEquals(one, obj, 1e-4 * Math.abs(one), out + " against --partitions 1");
      assertEquals(2, blocks(out + "/work/level-1/data").size(), "the tree's last level");
      assertEquals(Set.of(0, 1, 2), blocks(out + "/work/pbm/init/data"), "PBM's own 3 k-means blocks");
      if (run[2].equals("jobs")) {
        // the Armijo step was taken through the per-iteration jobs: some iteration stepped with beta in (0, 1]
        java.io.File[] iters = tmp.resolve(out + "/work/pbm").toFile().listFiles((d, n) -> n.startsWith("iter-"));
        assertTrue(iters.length >= 2, "PBM iterations: " + iters.length);
        boolean stepped = false;
        for (java.io.File it : iters) {
          java.util.Properties p = new java.util.Properties();
          try (var in = Files.newInputStream(it.toPath().resolve("step.properties"))) {
            p.load(in);
          }
          double beta = Double.parseDouble(p.getProperty("beta"));
          assertTrue(beta >= 0 && beta <= 1, "beta " + beta);
          // Armijo halves from 1: every step taken is a power of 1/2
          if (beta > 0) {
            stepped = true;
            double l = Math.log(beta) / Math.log(0.5);
            assertEquals(Math.rint(l), l, 1e-9, "Armijo step " + beta + " is a power of 1/2");
          }
        }
        assertTrue(stepped, "no step taken");
      }
    }
  }
}
