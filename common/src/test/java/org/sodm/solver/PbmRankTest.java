package org.sodm.solver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sodm.allreduce.InProcessAllReduce;
import org.sodm.allreduce.MemoryCheckpoints;
import org.sodm.allreduce.ResidentLoop;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SparseVector;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;

/**
 * PBM as resident ranks over the in-process AllReduce: the iterates of {@link PbmSolver} bit for
 * bit (same blocks, warm start or zero start, hinge with bias and ODM), and a run killed mid-way
 * and resumed from its checkpoint ends with the same alpha.
 */
class PbmRankTest {
  /** {objective, alpha (global order), iterations, converged} of the ranks, checked equal across ranks. */
  private record Out(double objective, double[] alpha, int iterations, boolean converged) {}

  private static Out run(LibsvmReader.Data d, Loss loss, int[] block, int blocks, double[] alpha0, PbmSolver.Options opts,
      MemoryCheckpoints ckpt, ResidentLoop.Policy policy, int start) throws Exception {
    Kernel k = PbmSolver.problemKernel(KernelSpec.rbf(2).create(), loss);
    int vpi = loss.dual(d.y(), d.size()).variablesPerInstance();
    List<PbmRank> ranks = InProcessAllReduce.run(blocks, ar -> {
      List<Integer> mine = new ArrayList<>();
      for (int i = 0; i < block.length; i++) if (block[i] == ar.rank()) mine.add(i);
      SparseVector[] x = new SparseVector[mine.size()];
      double[] y = new double[mine.size()];
      long[] idx = new long[mine.size()];
      double[] a0 = alpha0 == null ? null : new double[mine.size() * vpi];
      for (int s = 0; s < x.length; s++) {
        int i = mine.get(s);
        x[s] = d.x()[i];
        y[s] = d.y()[i];
        idx[s] = i;
        if (a0 != null) System.arraycopy(alpha0, i * vpi, a0, s * vpi, vpi);
      }
      byte[] state = start > 0 ? ckpt.rankState(ar.rank()) : null;
      PbmRank p = new PbmRank(k, loss, x, y, idx, d.size(), opts, a0, null, state);
      ResidentLoop.run(p, start, ar, policy, ckpt, null);
      return p;
    });
    double[] alpha = new double[d.size() * vpi];
    for (int b = 0; b < blocks; b++) {
      int s = 0;
      for (int i = 0; i < block.length; i++) if (block[i] == b) System.arraycopy(ranks.get(b).alpha(), vpi * s++, alpha, i * vpi, vpi);
      assertEquals(ranks.get(0).objective(), ranks.get(b).objective(), 0.0);
      assertEquals(ranks.get(0).iterations(), ranks.get(b).iterations());
    }
    return new Out(ranks.get(0).objective(), alpha, ranks.get(0).iterations(), ranks.get(0).converged());
  }

  private static void sameAsSolver(Loss loss, int blocks, boolean warm, PbmSolver.Options opts) throws Exception {
    LibsvmReader.Data d = PbmSolverTest.svmguide1();
    int[] block = PbmSolverTest.partition(d.size(), blocks, 11);
    double[] alpha0 = null;
    if (warm) {
      // a warm start as exact mode has one: half of a one-block optimum
      PbmSolver.Result one = PbmSolver.solve(KernelSpec.rbf(2).create(), d.x(), d.y(), loss, new int[d.size()], 1, null, opts);
      alpha0 = one.alpha().clone();
      for (int j = 0; j < alpha0.length; j++) alpha0[j] *= 0.5;
    }
    PbmSolver.Result ref = PbmSolver.solve(KernelSpec.rbf(2).create(), d.x(), d.y(), loss, block, blocks, alpha0, opts);
    Out got = run(d, loss, block, blocks, alpha0, opts, null, ResidentLoop.Policy.none(), 0);
    String what = loss + " K=" + blocks + (warm ? " warm" : "");
    assertTrue(ref.history().size() > 3, what + ": iterations " + ref.history().size());
    assertEquals(ref.history().size(), got.iterations(), what);
    assertEquals(ref.converged(), got.converged(), what);
    assertEquals(ref.objective(), got.objective(), 0.0, what + ": the same objective bit for bit");
    assertArrayEquals(ref.alpha(), got.alpha(), what + ": the same alpha bit for bit");
  }

  @Test
  void hingeWithBiasEqualsThePbmSolverBitForBit() throws Exception {
    sameAsSolver(Loss.hinge(2).withBias(true), 4, false, PbmSolver.Options.defaults().withMaxIterations(40));
    sameAsSolver(Loss.hinge(2), 3, true, PbmSolver.Options.defaults().withMaxIterations(40).withRule(PbmStep.Rule.ARMIJO));
  }

  @Test
  void odmEqualsThePbmSolverBitForBit() throws Exception {
    sameAsSolver(Loss.odm(100, 0.5, 0.5), 2, false, PbmSolver.Options.defaults().withMaxIterations(25));
  }

  @Test
  void aRunKilledMidWayResumesToTheSameAlpha() throws Exception {
    LibsvmReader.Data d = PbmSolverTest.svmguide1();
    Loss loss = Loss.hinge(2);
    int[] block = PbmSolverTest.partition(d.size(), 3, 5);
    PbmSolver.Options opts = PbmSolver.Options.defaults().withMaxIterations(30);
    Out full = run(d, loss, block, 3, null, opts, null, ResidentLoop.Policy.none(), 0);
    MemoryCheckpoints ckpt = new MemoryCheckpoints();
    assertThrows(ResidentLoop.PlantedFault.class, () -> run(d, loss, block, 3, null, opts, ckpt, new ResidentLoop.Policy(3, 0, 2, 7), 0));
    assertEquals(6, ckpt.committed());
    Out resumed = run(d, loss, block, 3, null, opts, ckpt, ResidentLoop.Policy.none(), ckpt.committed());
    assertEquals(full.iterations(), resumed.iterations());
    assertArrayEquals(full.alpha(), resumed.alpha());
    assertEquals(full.objective(), resumed.objective(), 0.0);
  }
}
