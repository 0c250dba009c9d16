package org.sodm.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.solver.Loss;

/** BQO and DSVRG as resident ranks over the in-process AllReduce: equal to the single-node solvers; resumed runs identical. */
class AllReduceRanksTest {
  static final int K = 3;

  /** Block k's rows. */
  static DsvrgRank.Block block(LibsvmReader.Data d, int[] b, int k) {
    List<Integer> m = new ArrayList<>();
    for (int i = 0; i < b.length; i++) if (b[i] == k) m.add(i);
    SparseVector[] x = new SparseVector[m.size()];
    double[] y = new double[m.size()];
    for (int j = 0; j < m.size(); j++) {
      x[j] = d.x()[m.get(j)];
      y[j] = d.y()[m.get(j)];
    }
    return new DsvrgRank.Block(k, x, y);
  }

  static BqoState runBqo(LibsvmReader.Data d, int[] b, int dim, MemoryCheckpoints ckpt, ResidentLoop.Policy policy, int start)
      throws Exception {
    SvmLoss loss = Loss.hinge(1).svmPrimal();
    List<BqoState> states = InProcessAllReduce.run(K, ar -> {
      DsvrgRank.Block own = block(d, b, ar.rank());
      byte[] rs = start > 0 ? ckpt.rankState(ar.rank()) : null;
      byte[] gs = start > 0 ? ckpt.globalState() : null;
      BqoRank p = new BqoRank(own.x(), own.y(), own.id(), dim, loss, BqoBlock.Options.defaults(),
          BqoState.Options.defaults().withEps(0.01), 1, rs, gs);
      ResidentLoop.run(p, start, ar, policy, ckpt, null);
      return p.state();
    });
    for (BqoState s : states) assertArrayEquals(states.get(0).pocket(), s.pocket());
    return states.get(0);
  }

  @Test
  void bqoEqualsSingleNodeAndResumesIdentically() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    int[] b = LinearTestData.randomBlocks(d.x().length, K, 5);
    Bqo.Result ref = Bqo.train(d.x(), d.y(), b, K, Loss.hinge(1).svmPrimal(), BqoBlock.Options.defaults(),
        BqoState.Options.defaults().withEps(0.01), 1, null);
    BqoState full = runBqo(d, b, dim, new MemoryCheckpoints(), ResidentLoop.Policy.none(), 0);
    assertTrue(full.history().size() > 5, "iterations " + full.history().size());
    assertEquals(ref.state().history().size(), full.history().size());
    assertEquals(ref.state().pocketPrimal(), full.pocketPrimal(), 1e-12 * ref.state().pocketPrimal());
    for (int f = 0; f <= dim; f++) assertEquals(ref.pocket()[f], full.pocket()[f], 1e-12 * (1 + Math.abs(ref.pocket()[f])));

    // a fault before iteration 5 with checkpoints every 2 iterations: resumed from iteration 4, the same model bit for bit
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    assertThrows(ResidentLoop.PlantedFault.class, () -> runBqo(d, b, dim, ckpt, new ResidentLoop.Policy(2, 0, 1, 5), 0));
    assertEquals(4, ckpt.committed());
    BqoState resumed = runBqo(d, b, dim, ckpt, ResidentLoop.Policy.none(), ckpt.committed());
    assertTrue(ckpt.done());
    assertArrayEquals(full.pocket(), resumed.pocket());
    assertEquals(full.history(), resumed.history());
  }

  @Test
  void dsvrgEqualsSingleNodeAndResumesIdentically() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    int[] b = LinearTestData.randomBlocks(d.x().length, K, 9);
    OdmPrimal odm = Loss.odm(8, 0.3, 0.5).odmPrimal();
    Dsvrg.Result ref = Dsvrg.train(d.x(), d.y(), b, K, odm, 0, 4, 1, null);
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    ResidentLoop.Checkpoints[] sink = {ckpt};
    InProcessAllReduce.RankTask<double[]> task = ar -> {
      List<DsvrgRank.Block> all = new ArrayList<>();
      for (int k = 0; k < K; k++) all.add(block(d, b, k));
      int start = ckpt.committed() > 0 && !ckpt.done() ? ckpt.committed() : 0;
      DsvrgRank p = new DsvrgRank(odm, all.get(ar.rank()), ar.rank() == 0 ? all : null, dim, 0, 4, 1e-12, 1,
          start > 0 ? ckpt.globalState() : null);
      ResidentLoop.run(p, start, ar, new ResidentLoop.Policy(1, 0, start > 0 ? -1 : 2, 3), sink[0], null);
      assertEquals(5, p.history().size());
      assertEquals(ref.finalObjective(), p.history().get(4).objective(), 1e-12 * ref.finalObjective());
      return p.w();
    };
    assertThrows(ResidentLoop.PlantedFault.class, () -> InProcessAllReduce.run(K, task));
    assertEquals(3, ckpt.committed());
    List<double[]> resumed = InProcessAllReduce.run(K, task);
    MemoryCheckpoints fresh = new MemoryCheckpoints();
    sink[0] = fresh;
    ckpt.commit(-1, false); // forget: a run from scratch
    List<double[]> full = InProcessAllReduce.run(K, ar -> {
      List<DsvrgRank.Block> all = new ArrayList<>();
      for (int k = 0; k < K; k++) all.add(block(d, b, k));
      DsvrgRank p = new DsvrgRank(odm, all.get(ar.rank()), ar.rank() == 0 ? all : null, dim, 0, 4, 1e-12, 1, null);
      ResidentLoop.run(p, 0, ar, ResidentLoop.Policy.none(), null, null);
      return p.w();
    });
    for (int r = 0; r < K; r++) assertArrayEquals(full.get(0), resumed.get(r));
    for (int f = 0; f <= dim; f++) assertEquals(ref.w()[f], full.get(0)[f], 1e-12 * (1 + Math.abs(ref.w()[f])));
  }

  /** DSVRG task {@code u} of two: u = 0 the rows as given, u = 1 every other row with its label flipped. */
  static DsvrgRank.Block taskBlock(DsvrgRank.Block b, int u) {
    if (u == 0) return b;
    List<SparseVector> x = new ArrayList<>();
    List<Double> y = new ArrayList<>();
    for (int i = 0; i < b.x().length; i += 2) {
      x.add(b.x()[i]);
      y.add(-b.y()[i]);
    }
    return new DsvrgRank.Block(b.id(), x.toArray(new SparseVector[0]), y.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /**
   * Two DSVRG tasks of different lengths (4 and 7 epochs) run together as one {@link org.sodm.allreduce.TaskPrograms}: each ends
   * with exactly the w of a run of that task alone; the short task stops reporting after its last epoch; a run failed at round 5
   * (checkpoints every 2 rounds) and resumed from round 4 ends identical.
   */
  @Test
  void taskProgramsEqualEachTaskAloneAndResume() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    int[] b = LinearTestData.randomBlocks(d.x().length, K, 9);
    OdmPrimal odm = Loss.odm(8, 0.3, 0.5).odmPrimal();
    int[] epochs = {4, 7};
    List<double[]> alone = new ArrayList<>();
    for (int u = 0; u < 2; u++) {
      int task = u;
      alone.add(InProcessAllReduce.run(K, ar -> {
        List<DsvrgRank.Block> all = new ArrayList<>();
        for (int k = 0; k < K; k++) all.add(taskBlock(block(d, b, k), task));
        DsvrgRank p = new DsvrgRank(odm, all.get(ar.rank()), ar.rank() == 0 ? all : null, dim, 0, epochs[task], 1e-12, 1, null);
        ResidentLoop.run(p, 0, ar, ResidentLoop.Policy.none(), null, null);
        return p.w();
      }).get(0));
    }
    assertTrue(Vectors.squaredNorm(alone.get(0)) > 0 && !java.util.Arrays.equals(alone.get(0), alone.get(1)));
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    List<double[]> reported = new ArrayList<>();
    ResidentLoop.Listener listener = (t, v) -> reported.add(v);
    InProcessAllReduce.RankTask<double[][]> together = ar -> {
      List<DsvrgRank.Block> all = new ArrayList<>();
      for (int k = 0; k < K; k++) all.add(block(d, b, k));
      int start = ckpt.committed() > 0 && !ckpt.done() ? ckpt.committed() : 0;
      org.sodm.allreduce.TaskPrograms p = new org.sodm.allreduce.TaskPrograms(2, 4, (u, rs, gs) -> new DsvrgRank(odm,
          taskBlock(all.get(ar.rank()), u), ar.rank() == 0 ? all.stream().map(x -> taskBlock(x, u)).toList() : null, dim, 0, epochs[u],
          1e-12, 1, gs), start > 0 ? ckpt.rankState(ar.rank()) : null, start > 0 ? ckpt.globalState() : null);
      ResidentLoop.run(p, start, ar, new ResidentLoop.Policy(2, 0, start > 0 ? -1 : 1, 5), ckpt, ar.rank() == 0 ? listener : null);
      return new double[][] {((DsvrgRank) p.program(0)).w(), ((DsvrgRank) p.program(1)).w()};
    };
    assertThrows(ResidentLoop.PlantedFault.class, () -> InProcessAllReduce.run(K, together));
    assertEquals(4, ckpt.committed());
    reported.clear();
    List<double[][]> resumed = InProcessAllReduce.run(K, together);
    for (int r = 0; r < K; r++) {
      assertArrayEquals(alone.get(0), resumed.get(r)[0], "task 0, rank " + r);
      assertArrayEquals(alone.get(1), resumed.get(r)[1], "task 1, rank " + r);
    }
    // resumed at round 4: rounds 4..7; task 0 (epochs 0..4) reports only in round 4, task 1 in every round
    assertEquals(4, reported.size());
    assertEquals(4.0, reported.get(0)[0]);
    assertTrue(Double.isNaN(reported.get(1)[0]));
    assertEquals(7.0, reported.get(3)[4]);
  }

  /**
   * In a group of one rank with 2 threads, a round's programs (three BQO tasks of different lengths) run at once on the pool's
   * threads and end bit for bit as on one thread, which runs them all on the caller's thread.
   */
  @Test
  void oneRankProgramsRunAtOnceAndEndAsOnOneThread() throws Exception {
    LibsvmReader.Data d = LinearTestData.svmguide1();
    int dim = Vectors.dimension(d.x());
    int n = d.x().length;
    List<double[][]> ends = new ArrayList<>();
    List<java.util.Set<String>> threadNames = new ArrayList<>();
    for (int threads : new int[] {1, 2}) {
      java.util.Set<String> names = java.util.concurrent.ConcurrentHashMap.newKeySet();
      List<BqoRank> ranks = new ArrayList<>();
      org.sodm.allreduce.TaskPrograms p = new org.sodm.allreduce.TaskPrograms(3, 8, (u, rs, gs) -> {
        int m = u == 2 ? n / 2 : n;
        SparseVector[] x = java.util.Arrays.copyOf(d.x(), m);
        double[] y = java.util.Arrays.copyOf(d.y(), m);
        if (u == 1) for (int i = 0; i < m; i += 2) y[i] = -y[i];
        BqoRank r = new BqoRank(x, y, 0, dim, Loss.hinge(1 + u).svmPrimal(), BqoBlock.Options.defaults(),
            BqoState.Options.defaults().withEps(1e-3), 5, rs, gs);
        ranks.add(r);
        return new ResidentLoop.Program() {
          @Override
          public boolean iterate(int t, org.sodm.allreduce.AllReduce ar) throws java.io.IOException {
            names.add(Thread.currentThread().getName());
            return r.iterate(t, ar);
          }

          @Override
          public double[] progress() {
            return r.progress();
          }

          @Override
          public byte[] rankState() throws java.io.IOException {
            return r.rankState();
          }

          @Override
          public byte[] globalState() throws java.io.IOException {
            return r.globalState();
          }
        };
      }, null, null, threads);
      InProcessAllReduce.run(1, ar -> ResidentLoop.run(p, 0, ar, ResidentLoop.Policy.none(), null, null));
      double[][] pockets = new double[3][];
      for (int u = 0; u < 3; u++) pockets[u] = ranks.get(u).state().pocket();
      assertTrue(ranks.get(0).state().history().size() != ranks.get(1).state().history().size()
          || ranks.get(1).state().history().size() != ranks.get(2).state().history().size(), "tasks of different lengths");
      ends.add(pockets);
      threadNames.add(names);
    }
    for (int u = 0; u < 3; u++) assertArrayEquals(ends.get(0)[u], ends.get(1)[u], "task " + u);
    assertTrue(threadNames.get(0).stream().noneMatch(t -> t.startsWith("sodm-task-programs")), threadNames.get(0).toString());
    assertTrue(threadNames.get(1).stream().filter(t -> t.startsWith("sodm-task-programs")).count() >= 2, threadNames.get(1).toString());
  }
}
