package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.MulticlassModel;
import org.sodm.model.Subproblems;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.Loss;
import org.sodm.solver.SolverOptions;
import org.sodm.testing.LocalConf;

/**
 * Exact mode of a multi-class problem by PBM ({@code --exact-single never}, or sub-problems beyond one warm solve): each
 * sub-problem's exact mode in turn (phases pbm-init-tN, pbm-tN), reaching each binary sub-problem's own optimum as an
 * in-process {@link KernelDualSolver} solve of that sub-problem's rows computes it (not the pipeline); with --class-weights,
 * each task's optimum under its weights.
 */
class MulticlassExactPbmTest {
  @TempDir Path tmp;

  /** Three Gaussian blobs in 3 dimensions (labels 1, 2, 3), 270 rows, values about [-2, 3]. */
  private Path blobs() throws IOException {
    return org.sodm.testing.Blobs.write(tmp.resolve("blobs.libsvm"), new int[] {90, 90, 90}, 1.2, 0.7, 29, true, 5);
  }

  private Configuration conf(String scheme) {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
    conf.set(SodmConf.GAMMA, "0.5");
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(SodmConf.EXACT, "true");
    conf.set(SodmConf.EXACT_SINGLE, "never");
    conf.set(SodmConf.EXACT_REFINE, "false");
    conf.set(Param.EXACT_BLOCKS.key(), "2");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    conf.set("sodm.train.multiclass", scheme);
    return conf;
  }

  @Test
  @SuppressWarnings("unchecked")
  void everySubproblemReachesItsOwnOptimumByPbm() throws Exception {
    Path data = blobs();
    LibsvmReader.Data d = LibsvmReader.read(data);
    double[] classWeight = {1, 5, 0.5};
    for (String[] run : new String[][] {{"ovo", ""}, {"ovr", "2:5,3:0.5"}, {"ovo", "2:5,3:0.5"}}) {
      String scheme = run[0];
      boolean weighted = !run[1].isEmpty();
      Path out = tmp.resolve("pbm-" + scheme + (weighted ? "-weighted" : ""));
      List<String> progress = new ArrayList<>();
      Configuration conf = conf(scheme);
      conf.set(Param.CLASS_WEIGHTS.key(), run[1]);
      scheme += weighted ? " --class-weights " + run[1] : "";
      // ovr with --merge cascade: the last level's stats count only the rows it solved; every row goes to the exact solve
      if (scheme.equals("ovr")) conf.set(Param.MERGE.key(), "cascade");
      TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data.toString()), null,
          new org.apache.hadoop.fs.Path(out.toString()), false), progress::add);
      MulticlassModel m = (MulticlassModel) r.model();
      Subproblems plan = m.plan();
      assertEquals(3, plan.tasks());
      Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(out.resolve(TrainPipeline.REPORT).toFile(),
          Map.class);
      Map<String, Object> exact = (Map<String, Object>) report.get("exact");
      assertEquals("pbm", exact.get("method"), scheme);
      assertEquals(Boolean.TRUE, exact.get("converged"), scheme + ": " + String.join("\n", progress));
      for (int t = 0; t < 3; t++) {
        assertTrue(Files.isDirectory(out.resolve("work/pbm-t" + t + "/resident")), scheme + ": task " + t + "'s PBM phase");
      }

      // the reference: each task's binary problem solved in one process, independently of the jobs; with class weights, the
      // task's two classes' (one against one) or the class's and 1 for the rest (one against the rest)
      double reference = 0;
      for (int t = 0; t < 3; t++) {
        int neg = plan.negativeClass(t);
        Loss loss = !weighted ? Loss.hinge(1)
            : Loss.hinge(1).withWeights(classWeight[plan.positiveClass(t)], neg < 0 ? 1 : classWeight[neg]);
        List<SparseVector> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (int i = 0; i < d.size(); i++) {
          double yi = plan.y(t, m.classes().indexOf(d.labels()[i]));
          if (yi == 0) continue;
          x.add(d.x()[i]);
          y.add(yi);
        }
        reference += new KernelDualSolver(KernelSpec.rbf(0.5).create(), new SolverOptions(1e-7, 1_000_000, true, 64L << 20, 7))
            .solve(x.toArray(new SparseVector[0]), y.stream().mapToDouble(Double::doubleValue).toArray(), loss, null)
            .report().dualObjective();
      }
      double ours = ((Number) exact.get("objective")).doubleValue();
      assertEquals(reference, ours, 1e-4 * Math.abs(reference), scheme + ": the sum of the tasks' objectives");
      int correct = 0;
      for (int i = 0; i < d.size(); i++) if (m.predict(d.x()[i]).equals(d.labels()[i])) correct++;
      assertTrue(correct > (weighted ? 0.7 : 0.8) * d.size(), scheme + ": training accuracy " + correct + " of " + d.size());
    }
  }
}
