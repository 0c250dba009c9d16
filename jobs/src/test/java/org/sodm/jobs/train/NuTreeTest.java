package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelModel;
import org.sodm.solver.Loss;
import org.sodm.solver.NuSvcSolver;
import org.sodm.solver.SolverOptions;
import org.sodm.testing.LocalConf;

/**
 * {@code --loss nu} with a non-linear kernel: the merge tree with nu-SVC blocks ({@link NuSvcSolver}).
 * One block is the single-node nu-SVC; four blocks merged to two stay close to it on the test set.
 */
class NuTreeTest {
  @TempDir Path tmp;

  private Configuration conf(int partitions) {
    Configuration c = LocalConf.create(tmp);
    c.set(SodmConf.LOSS, "nu");
    c.set(SodmConf.NU, "0.3");
    c.set(SodmConf.KERNEL, "rbf");
    c.set(SodmConf.GAMMA, "2");
    c.set(SodmConf.INGEST_SCALE, "0,1");
    c.set(SodmConf.PARTITIONS, Integer.toString(partitions));
    c.set(SodmConf.FANOUT, "2");
    c.set(SodmConf.LANDMARKS, "16");
    c.set("sodm.train.exact.below.rows", "0");
    return c;
  }

  private TrainPipeline.Result train(Configuration c, String name, List<String> lines) throws Exception {
    return TrainPipeline.run(c, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), List.of(),
        new org.apache.hadoop.fs.Path(tmp.resolve(name).toString()), false), lines::add);
  }

  private static double accuracy(KernelModel m, LibsvmReader.Data test) {
    int right = 0;
    for (int i = 0; i < test.size(); i++) {
      double f = m.decision(test.x()[i]);
      if ((f >= 0 ? 1.0 : -1.0) == m.labels().signed(test.labels()[i])) right++;
    }
    return (double) right / test.size();
  }

  @Test
  void oneBlockIsNuSvcAndTheTreeStaysClose() throws Exception {
    KernelModel one = (KernelModel) train(conf(1), "one", new ArrayList<>()).model();
    assertEquals(Loss.nu(0.3), one.loss());
    assertEquals(1, one.blockCount());
    // the same solve in process on the scaled rows: the same decision function
    LibsvmReader.Data d = LibsvmReader.read(LocalConf.sampleData("svmguide1"));
    SparseVector[] x = new SparseVector[d.size()];
    double[] y = new double[d.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = one.scaler().apply(d.x()[i]);
      y[i] = one.labels().signed(d.labels()[i]);
    }
    NuSvcSolver.Result ref = new NuSvcSolver(new KernelSpec(KernelSpec.Type.RBF, 2, 0, 3).create(), SolverOptions.defaults())
        .solve(x, y, 0.3);
    assertEquals(ref.supportVectors(), one.supportVectors());
    LibsvmReader.Data test = LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
    var expansion = ref.expansion(new KernelSpec(KernelSpec.Type.RBF, 2, 0, 3).create(), x);
    for (int i = 0; i < 200; i++) {
      double f = expansion.decision(one.scaler().apply(test.x()[i]));
      assertEquals(f, one.decision(test.x()[i]), 1e-9 * (1 + Math.abs(f)), "test row " + i);
    }
    double accOne = accuracy(one, test);
    assertTrue(accOne > 0.94, "one block: " + accOne); // LIBSVM svm-train -s 1 -n 0.3 -g 2 on [0,1]-scaled data: 94.75%

    List<String> lines = new ArrayList<>();
    KernelModel tree = (KernelModel) train(conf(4), "tree", lines).model();
    assertEquals(2, tree.blockCount(), lines.toString());
    double accTree = accuracy(tree, test);
    assertTrue(Math.abs(accTree - accOne) < 0.01, "tree " + accTree + " vs one block " + accOne);
    // each block's offset is its own (-rho / r), not 0
    assertTrue(tree.block(0).bias() != 0 && tree.block(1).bias() != 0);
  }

  @Test
  void defaultNuAndInfeasibleNu() throws Exception {
    Configuration def = conf(1);
    def.unset(SodmConf.NU);
    KernelModel m = (KernelModel) train(def, "default", new ArrayList<>()).model();
    assertEquals(2 * 0.85 * 1089 / 3089.0, ((Loss.Nu) m.loss()).nu(), 1e-15);

    Configuration bad = conf(4);
    bad.set(SodmConf.NU, "0.8");
    List<String> lines = new ArrayList<>();
    BadParameterException e = assertThrows(BadParameterException.class, () -> train(bad, "bad", lines));
    assertTrue(e.getMessage().contains("--nu") && e.getMessage().contains("nu = 0.8 is infeasible"), e.getMessage());
    assertTrue(lines.stream().noneMatch(l -> l.contains("landmarks ")), "no job after ingest: " + lines);

    Configuration never = conf(4);
    never.set("sodm.train.exact.single", "never");
    assertTrue(assertThrows(BadParameterException.class, () -> train(never, "never", new ArrayList<>())).getMessage()
        .contains("no PBM"));
  }
}
