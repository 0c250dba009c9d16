package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.KernelExpansion;
import org.sodm.model.KernelModel;
import org.sodm.model.MulticlassModel;
import org.sodm.model.Subproblems;
import org.sodm.testing.LocalConf;

/**
 * The multi-class bottom level without the shuffle ({@link SubproblemSolveJob}) against the shuffle's ({@link SolveJob},
 * {@link SubproblemSolveJob#KEY} false): the same model to the last bit - every task's support vectors, coefficients and
 * offsets, the Platt sigmoids - and the same cross-validation, on the 4-class blobs, 450 rows.
 */
class SubproblemSolveJobTest {
  @TempDir Path tmp;

  private Configuration conf(boolean subproblemJob) {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "4");
    conf.set(SodmConf.GAMMA, "1");
    conf.setBoolean(SubproblemSolveJob.KEY, subproblemJob);
    return conf;
  }

  private MulticlassModel train(Configuration conf, String out, List<String> progress) throws IOException {
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(MulticlassTrainTest.resource("blobs4.libsvm").toString()),
        null, new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), progress::add);
    return assertInstanceOf(MulticlassModel.class, r.model());
  }

  /** The stats files the bottom level wrote: part-m-* from the sub-problem job's map tasks, part-r-* from the reducers. */
  private List<String> statsFiles(String out) throws IOException {
    try (Stream<Path> s = Files.list(tmp.resolve(out).resolve("work").resolve("level-2").resolve("stats"))) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".avro")).sorted().toList();
    }
  }

  private static void assertSameModel(MulticlassModel a, MulticlassModel b) {
    assertEquals(a.plan().tasks(), b.plan().tasks());
    for (int t = 0; t < a.plan().tasks(); t++) {
      KernelModel x = (KernelModel) a.subModel(t);
      KernelModel y = (KernelModel) b.subModel(t);
      assertEquals(x.blockCount(), y.blockCount(), "task " + t);
      for (int blk = 0; blk < x.blockCount(); blk++) {
        KernelExpansion ex = x.block(blk);
        KernelExpansion ey = y.block(blk);
        assertEquals(ex.size(), ey.size(), "task " + t + " support vectors");
        assertEquals(ex.bias(), ey.bias(), 0, "task " + t + " offset");
        for (int i = 0; i < ex.size(); i++) {
          assertEquals(x.supportVectorId(blk, i), y.supportVectorId(blk, i), "task " + t + " vector " + i);
          assertEquals(ex.coef(i), ey.coef(i), 0, "task " + t + " coefficient " + i);
        }
      }
      if (a.hasProbabilities()) {
        assertEquals(a.platt(t).a(), b.platt(t).a(), 0, "task " + t + " sigmoid A");
        assertEquals(a.platt(t).b(), b.platt(t).b(), 0, "task " + t + " sigmoid B");
      }
    }
  }

  @Test
  void ovoAndProbabilitiesEqualTheShufflesModelsBitForBit() throws IOException {
    for (boolean probability : new boolean[] {false, true}) {
      List<String> progress = new ArrayList<>();
      Configuration on = conf(true);
      Configuration off = conf(false);
      on.setBoolean(Param.PROBABILITY.key(), probability);
      off.setBoolean(Param.PROBABILITY.key(), probability);
      MulticlassModel direct = train(on, "direct-" + probability, progress);
      MulticlassModel shuffled = train(off, "shuffled-" + probability, new ArrayList<>());
      assertEquals(probability, direct.hasProbabilities());
      assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 2") && l.contains((probability ? 36 : 6) + " blocks")),
          String.join("\n", progress));
      assertTrue(statsFiles("direct-" + probability).stream().allMatch(n -> n.startsWith("part-m-")), "map tasks solved: "
          + statsFiles("direct-" + probability));
      assertTrue(statsFiles("shuffled-" + probability).stream().allMatch(n -> n.startsWith("part-r-")), "reducers solved: "
          + statsFiles("shuffled-" + probability));
      assertSameModel(direct, shuffled);
    }
  }

  @Test
  void crossValidationEqualsTheShuffles() throws IOException {
    Map<String, Object> direct = cv(true, "cv-direct");
    Map<String, Object> shuffled = cv(false, "cv-shuffled");
    assertEquals(shuffled.get("folds"), direct.get("folds"));
    assertEquals(shuffled.get("accuracy"), direct.get("accuracy"));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> cv(boolean subproblemJob, String out) throws IOException {
    Configuration c = conf(subproblemJob);
    c.setInt(TrainKeys.CV_FOLDS, 5);
    TrainPipeline.run(c, new TrainPipeline.Request(List.of(MulticlassTrainTest.resource("blobs4.libsvm").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), s -> {});
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(tmp.resolve(out).resolve(TrainPipeline.REPORT)
        .toFile(), Map.class);
    return (Map<String, Object>) report.get("cv");
  }

  /** Sub-problems are dealt largest first to the least loaded task, each task's in increasing order, every one once. */
  @Test
  void assignmentDealsEverySubproblemOnceLargestFirst() {
    Subproblems plan = new Subproblems(5, Subproblems.Scheme.OVO, 5, true);
    long[] counts = {100, 400, 50, 300, 200};
    Configuration c = new Configuration(false);
    SubproblemSolveJob.assign(c, plan, counts, 8);
    String[] tasks = c.get(SubproblemSolveJob.SPLITS).split(";");
    String[] costs = c.get(SubproblemSolveJob.COSTS).split(";");
    assertEquals(8, tasks.length);
    boolean[] seen = new boolean[plan.count()];
    double[] load = new double[8];
    for (int t = 0; t < 8; t++) {
      int prev = -1;
      for (String s : tasks[t].split(",")) {
        int sub = Integer.parseInt(s);
        assertTrue(sub > prev, "increasing within a task");
        prev = sub;
        assertFalse(seen[sub], "sub-problem " + sub + " twice");
        seen[sub] = true;
        double n = SubproblemSolveJob.rows(plan, counts, sub);
        load[t] += n * n;
      }
      assertEquals(Math.round(load[t]), Long.parseLong(costs[t]), "task " + t + "'s cost");
    }
    for (boolean b : seen) assertTrue(b);
    // largest first to the least loaded: no task exceeds the lightest by more than the largest single cost
    double max = 0;
    for (int s = 0; s < plan.count(); s++) max = Math.max(max, Math.pow(SubproblemSolveJob.rows(plan, counts, s), 2));
    double hi = java.util.Arrays.stream(load).max().getAsDouble();
    double lo = java.util.Arrays.stream(load).min().getAsDouble();
    assertTrue(hi - lo <= max, hi + " - " + lo + " > " + max);
    // a sub-problem without its fold has (F - 1) / F of its task's rows
    assertEquals(500, SubproblemSolveJob.rows(plan, counts, plan.sub(0, -1)), 1e-9); // classes 0 and 1
    assertEquals(400, SubproblemSolveJob.rows(plan, counts, plan.sub(0, 2)), 1e-9);
  }
}
