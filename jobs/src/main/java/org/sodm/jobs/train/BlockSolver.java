package org.sodm.jobs.train;

import org.sodm.jobs.spec.TrainSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.avro.BlockStats;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.JobFailure;
import org.sodm.kernel.Kernel;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.Loss;
import org.sodm.solver.NuSvcSolver;
import org.sodm.solver.OffsetSvcSolver;
import org.sodm.solver.SolveReport;
import org.sodm.solver.SolveResult;
import org.sodm.solver.SolverOptions;
import org.sodm.solver.WarmStart;

/**
 * The solve of one block, shared by the solve jobs' tasks ({@link BlockSolveReducer}, {@link SubproblemSolveMapper}): the
 * block's rows in id order in, every row written back to the task's output with its new alpha and block, one BlockStats
 * record per block kept and written when the task has solved all its blocks. See {@link BlockSolveReducer} for the test-only
 * fault injection.
 */
final class BlockSolver {
  private static final Logger LOG = LoggerFactory.getLogger(BlockSolver.class);
  private final TaskInputOutputContext<?, ?, AvroKey<TrainRecord>, NullWritable> context;
  private Kernel kernel;
  private Loss loss;
  private SolverOptions options;
  /** sodm.solver.threads 0: blocks of fewer than {@link BlockMemory#THREADED_BLOCK_ROWS} rows are solved by one thread. */
  private boolean autoThreads;
  private int level;
  private int blocks;
  private int childBlocks;
  /** C's factor in this level's blocks and in the level below ({@link TrainSpec#blockCFactor}). */
  private double cFactor;
  private double childCFactor;
  private boolean carryParked;
  /** The model's level: only the rows with a non-zero alpha are written ({@link TrainKeys#SUPPORT_ONLY}). */
  private boolean supportOnly;
  /** --offset: hinge blocks solved with LIBSVM's unregularised offset ({@link OffsetSvcSolver}). */
  private boolean offset;
  private java.util.Map<Integer, Integer> childSizes;
  /** The run's sub-problems (multi-class, --probability, cv), or null. */
  private org.sodm.model.Subproblems plan;
  private final AvroKey<TrainRecord> out = new AvroKey<>();
  /** The BlockStats of this task's blocks, written to one file when the task ends ({@link #writeStats}). */
  private final List<BlockStats> stats = new ArrayList<>();

  BlockSolver(TaskInputOutputContext<?, ?, AvroKey<TrainRecord>, NullWritable> context) {
    this.context = context;
    AvroClasses.trust();
    Configuration conf = context.getConfiguration();
    try {
      TrainSpec spec = TrainSpec.of(conf);
      kernel = spec.resolvedKernel().create();
      loss = spec.loss();
      boolean map = context.getTaskAttemptID().getTaskType() == org.apache.hadoop.mapreduce.TaskType.MAP;
      options = spec.solver().withThreads(BlockMemory.solveThreads(conf, map ? 0 : context.getNumReduceTasks(), map));
      autoThreads = org.sodm.jobs.spec.Param.SOLVER_THREADS.longValue(conf) == 0;
      level = conf.getInt(TrainKeys.LEVEL, 0);
      blocks = conf.getInt(TrainKeys.BLOCKS, 1);
      childBlocks = conf.getInt(TrainKeys.CHILD_BLOCKS, 0);
      childSizes = TrainKeys.childSizes(conf);
      cFactor = TrainKeys.blockCFactor(conf, spec, blocks);
      childCFactor = childBlocks > 0 ? TrainKeys.blockCFactor(conf, spec, childBlocks) : 1;
      offset = spec.offset();
      plan = TrainKeys.plan(conf);
      supportOnly = conf.getBoolean(TrainKeys.SUPPORT_ONLY, false);
      carryParked = spec.tree().merge() == TrainSpec.Merge.CASCADE && conf.getBoolean(TrainKeys.CASCADE_CARRY, false)
          && childBlocks > 0;
    } catch (RuntimeException e) {
      JobFailure.report(context, "solve task could not start: " + e.getMessage());
      throw e;
    }
  }

  /**
   * Writes this task's BlockStats, one record per block in the order solved, to {@code part-r-NNNNN.avro} (a map task's: part-m-) of the
   * level's stats directory (named by the task, so a re-executed attempt rewrites the same file with the same records:
   * the solves are deterministic). One file per task, not per block: 325 class pairs of a 26-class problem made 325 files
   * that the driver read back three times.
   */
  void writeStats() throws IOException {
    if (stats.isEmpty()) return;
    Path dir = new Path(context.getConfiguration().get(TrainKeys.STATS_DIR));
    AvroFiles.write(context.getConfiguration(), new Path(dir, String.format("part-%s-%05d.avro",
        context.getTaskAttemptID().getTaskType() == org.apache.hadoop.mapreduce.TaskType.MAP ? "m" : "r",
        context.getTaskAttemptID().getTaskID().getId())), BlockStats.getClassSchema(), stats);
  }

  /**
   * Whether row i of n is left out of the model's level ({@link #supportOnly}): it has no non-zero variable among
   * {@code alpha[i * vars .. (i + 1) * vars)}, and it is not the block's last row with nothing written before it.
   */
  private boolean omitted(double[] alpha, int vars, int i, int n, boolean written) {
    if (!supportOnly || (!written && i == n - 1)) return false;
    for (int j = i * vars; j < (i + 1) * vars; j++) if (alpha[j] != 0) return false;
    return true;
  }

  /** The options a block of {@code n} rows is solved with: one thread below {@link BlockMemory#THREADED_BLOCK_ROWS} rows (auto). */
  private SolverOptions optionsFor(int n) {
    return options.withThreads(BlockMemory.blockThreads(options.threads(), autoThreads, n));
  }

  /** Heap held by the block's vectors: arrays of indices and values plus object headers. */
  static long dataBytes(SparseVector[] x) {
    long b = 0;
    for (SparseVector v : x) b += 80 + 12L * v.nnz();
    return b;
  }

  /**
   * Solves block {@code block} from its rows in id order: warm-starts from the alpha they carry (cold when any is missing, as
   * at the bottom level), writes every row back with its new alpha and block, and keeps its BlockStats for
   * {@link #writeStats}.
   */
  void solve(int block, List<TrainRow> recs) throws IOException, InterruptedException {
    // cascade merge round: only the children's support vectors are solved; the others are carried along with alpha = 0
    // (MergeMapper sends them with TrainKeys.CASCADE_CARRY), so that every level holds every row for exact mode
    List<TrainRow> parked = new ArrayList<>();
    if (carryParked) {
      List<TrainRow> solved = new ArrayList<>();
      for (TrainRow r : recs) (r.isSupportVector() ? solved : parked).add(r);
      recs = solved;
    }
    int n = recs.size();
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    int positives = 0;
    if (loss instanceof Loss.Nu) {
      // multi-class: the block's task has its own nu (block b of sub-problem s is s * blocks + b)
      Loss.Nu nu = (Loss.Nu) (plan == null ? loss : TrainKeys.taskLoss(context.getConfiguration(), loss, plan.task(block / blocks)));
      solveNu(block, recs, nu.nu());
      return;
    }
    // multi-class with per-class weights: the task's two classes' (--class-weights)
    Loss loss = plan == null ? this.loss : TrainKeys.taskLoss(context.getConfiguration(), this.loss, plan.task(block / blocks));
    int vars = loss.dual(new double[] {1}, 1).variablesPerInstance();
    double[] alpha0 = new double[n * vars];
    boolean warm = true;
    int[] child = new int[n];
    for (int i = 0; i < n; i++) {
      TrainRow r = recs.get(i);
      child[i] = r.block;
      x[i] = r.features();
      y[i] = r.y;
      if (y[i] > 0) positives++;
      double[] a = r.alpha;
      if (a.length != vars) {
        warm = false;
      } else {
        System.arraycopy(a, 0, alpha0, i * vars, vars);
      }
    }
    double[] alpha;
    BlockStats s;
    SolverOptions options = optionsFor(n);
    KernelDualSolver solver = new KernelDualSolver(kernel, options);
    try {
      // the block's loss (hinge: C times the level's factor, TrainSpec#blockCFactor) and the children's alpha scaled to it
      Loss blockLoss = WarmStart.blockLoss(loss, cFactor);
      if (warm && n > 0) WarmStart.apply(alpha0, vars, WarmStart.factors(loss, cFactor, childCFactor, child, childSizes));
      if (offset) {
        Loss.Hinge h = (Loss.Hinge) blockLoss;
        long t0 = System.nanoTime();
        OffsetSvcSolver.Result r = new OffsetSvcSolver(kernel, options).solve(x, y, h.c() * h.weights().positive(),
            h.c() * h.weights().negative(), warm ? alpha0 : null);
        if (!r.converged()) LOG.warn("level {} block {}: stopped at the iteration limit (violation {})", level, block, r.maxViolation());
        alpha = r.alpha();
        s = new BlockStats(level, block, n, positives, r.objective(), r.initialViolation(), r.maxViolation(),
            (int) Math.min(Integer.MAX_VALUE, r.iterations() / Math.max(1, n)), r.supportVectors(), r.kernelEvaluations(), r.cacheHits(),
            (System.nanoTime() - t0) / 1e9, r.peakCacheBytes() + dataBytes(x) + 32L * n, r.converged(), r.bias(),
            h.atUpperBound(alpha, y));
      } else {
        SolveResult res = solver.solve(x, y, blockLoss, warm ? alpha0 : null);
        SolveReport rep = res.report();
        if (!rep.converged()) {
          LOG.warn("level {} block {}: not converged after {} epochs (violation {} > eps {}); raise --max-epochs",
              level, block, rep.epochs(), rep.maxViolation(), options.eps());
        }
        alpha = res.alpha();
        s = new BlockStats(level, block, n, positives, rep.dualObjective(), rep.initialViolation(), rep.maxViolation(),
            rep.epochs(), rep.supportVectors(), rep.kernelEvaluations(), rep.cacheHits(), rep.seconds(),
            solver.lastPeakCacheBytes() + dataBytes(x) + 64L * n * vars, rep.converged(), 0.0,
            blockLoss instanceof Loss.Hinge bh ? bh.atUpperBound(alpha, y) : -1);
      }
    } catch (RuntimeException e) {
      String msg = "solve of block " + block + " at level " + level + " (" + n + " instances) failed: " + e;
      JobFailure.report(context, msg);
      throw e;
    }
    boolean written = false;
    for (int i = 0; i < n; i++) {
      if (omitted(alpha, vars, i, n, written)) continue;
      List<Double> a = new ArrayList<>(vars);
      for (int j = 0; j < vars; j++) a.add(alpha[i * vars + j]);
      out.datum(recs.get(i).toRecord(a, block));
      context.write(out, NullWritable.get());
      written = true;
    }
    for (TrainRow r : supportOnly ? List.<TrainRow>of() : parked) {
      List<Double> zero = new ArrayList<>(vars);
      for (int j = 0; j < vars; j++) zero.add(0.0);
      out.datum(r.toRecord(zero, block));
      context.write(out, NullWritable.get());
    }
    stats.add(s);
    context.getCounter("sodm.solve", "blocks").increment(1);
    context.getCounter("sodm.solve", "epochs").increment(s.getEpochs());
    context.getCounter("sodm.solve", "support vectors").increment(s.getSupportVectors());
    context.getCounter("sodm.solve", "kernel evaluations").increment(s.getKernelEvaluations());
    failOnceForTests(block);
  }

  /**
   * A nu-SVC block ({@link NuSvcSolver}, from LIBSVM's start: no warm start): alpha = [alpha_i / r], so that y alpha is the
   * coefficient of k(x_i, .) in the block's function, and the block's offset -rho / r in its stats. A block whose class sizes
   * cannot carry nu (nu &gt; 2 min(n1, n2) / n_b) is solved with that largest feasible nu, with a warning and a counter.
   */
  private void solveNu(int block, List<TrainRow> recs, double nu) throws IOException, InterruptedException {
    int n = recs.size();
    SparseVector[] x = new SparseVector[n];
    double[] y = new double[n];
    int positives = 0;
    for (int i = 0; i < n; i++) {
      x[i] = recs.get(i).features();
      y[i] = recs.get(i).y;
      if (y[i] > 0) positives++;
    }
    if (positives == 0 || positives == n) {
      String msg = "nu-SVC: block " + block + " at level " + level + " holds " + n + " rows of one class only; use the stratified "
          + "partitioner or fewer partitions (--partitions)";
      JobFailure.report(context, msg);
      throw new IOException(msg);
    }
    double feasible = 2.0 * Math.min(positives, n - positives) / n;
    double nuBlock = nu;
    if (nu > feasible) {
      nuBlock = feasible;
      LOG.warn("level {} block {}: nu = {} is infeasible for its class sizes ({} and {}); solved with nu = {}", level, block, nu,
          positives, n - positives, feasible);
      context.getCounter("sodm.solve", "nu-SVC blocks with a smaller nu").increment(1);
    }
    NuSvcSolver.Result res;
    long t0 = System.nanoTime();
    try {
      res = new NuSvcSolver(kernel, optionsFor(n)).solve(x, y, nuBlock);
    } catch (RuntimeException e) {
      String msg = "nu-SVC solve of block " + block + " at level " + level + " (" + n + " instances) failed: " + e;
      JobFailure.report(context, msg);
      throw e;
    }
    if (!res.converged()) LOG.warn("level {} block {}: nu-SVC stopped at its iteration limit (violation {})", level, block, res.maxViolation());
    boolean written = false;
    for (int i = 0; i < n; i++) {
      if (omitted(res.coef(), 1, i, n, written)) continue;
      written = true;
      out.datum(recs.get(i).toRecord(List.of(res.coef()[i] * y[i]), block));
      context.write(out, NullWritable.get());
    }
    BlockStats s = new BlockStats(level, block, n, positives, res.objective(), res.initialViolation(), res.maxViolation(),
        (int) Math.min(Integer.MAX_VALUE, res.iterations() / Math.max(1, n)), res.supportVectors(), res.kernelEvaluations(),
        res.cacheHits(), (System.nanoTime() - t0) / 1e9, res.peakCacheBytes() + dataBytes(x) + 32L * n, res.converged(), res.bias(), -1);
    stats.add(s);
    context.getCounter("sodm.solve", "blocks").increment(1);
    context.getCounter("sodm.solve", "support vectors").increment(res.supportVectors());
    context.getCounter("sodm.solve", "kernel evaluations").increment(res.kernelEvaluations());
    failOnceForTests(block);
  }

  /** The test-only fault injection (see the class comment). */
  private void failOnceForTests(int block) throws IOException {
    Configuration c = context.getConfiguration();
    String dir = c.get(BlockSolveReducer.FAIL_ONCE_DIR);
    if (dir == null || block != c.getInt(BlockSolveReducer.FAIL_ONCE_BLOCK, 0)) return;
    if (c.get(BlockSolveReducer.FAIL_ONCE_LEVEL) != null && c.getInt(BlockSolveReducer.FAIL_ONCE_LEVEL, 0) != level) return;
    Path marker = new Path(dir, "level-" + level + "-block-" + block);
    if (marker.getFileSystem(c).createNewFile(marker)) {
      String msg = "injected failure (test only, " + BlockSolveReducer.FAIL_ONCE_DIR + "): first attempt of block " + block + " at level " + level
          + ", " + context.getTaskAttemptID();
      JobFailure.report(context, msg);
      throw new IOException(msg);
    }
  }
}
