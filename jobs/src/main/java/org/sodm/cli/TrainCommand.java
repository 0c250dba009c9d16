package org.sodm.cli;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.train.TrainPipeline;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "train", sortOptions = false, description = {
    "Train a kernel classifier with SODM's merge tree: ingest (if the input is raw), landmarks, stratified",
    "partition into K blocks solved in reducers, then p-ary merge rounds warm-started from the children's",
    "solutions, down to p blocks; the model (OUTPUT/model.avro) averages the final blocks' decision values.",
    "One progress line per phase and level (with --validation: the accuracy of the model as of that level)."})
public final class TrainCommand extends SodmCommand {
  @Option(names = {"-i", "--input"}, required = true, split = ",", paramLabel = "PATH",
      description = "Training data: LIBSVM/CSV/Avro files, directories, globs, or an ingest directory.")
  List<String> inputs;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Model directory (model.avro, train-report.json, work/).")
  String output;

  @Option(names = {"-t", "--validation"}, split = ",", paramLabel = "PATH", description = "Labelled data scored after every level.")
  List<String> validation;

  @Option(names = "--resume", description = "Continue the run in OUTPUT from its last complete phase (same parameters).")
  boolean resume;

  @Option(names = "--phase", paramLabel = "NAME", description = {
      "Run up to and including this phase, then stop: ingest, validation, landmarks, level-N, model. Resumes the run",
      "in OUTPUT when there is one (as --resume), so each step of a workflow runs one phase (workflows/)."})
  String phase;

  @Option(names = "--overwrite", description = "Replace an existing OUTPUT (sodm.overwrite).")
  Boolean overwrite;

  @Option(names = "--loss", paramLabel = "L", description = "odm | hinge | squared-hinge (sodm.train.loss, default odm).")
  String loss;

  @Option(names = {"-c", "--cost"}, paramLabel = "C", description = "C of hinge / squared hinge (sodm.train.c, default 1).")
  Double c;

  @Option(names = "--lambda", paramLabel = "X", description = "ODM lambda (sodm.train.lambda, default 10000).")
  Double lambda;

  @Option(names = "--theta", paramLabel = "X", description = "ODM theta in [0,1) (sodm.train.theta, default 0.5).")
  Double theta;

  @Option(names = "--mu", paramLabel = "X", description = "ODM mu in (0,1] (sodm.train.mu, default 0.5).")
  Double mu;

  @Option(names = "--bias", description = "Regularised bias via the kernel k + 1 (sodm.train.bias).")
  Boolean bias;

  @Option(names = "--weight-positive", paramLabel = "W", description = "Weight of the +1 class (sodm.train.weight.positive, default 1).")
  Double weightPositive;

  @Option(names = "--weight-negative", paramLabel = "W", description = "Weight of the -1 class (sodm.train.weight.negative, default 1).")
  Double weightNegative;

  @Option(names = {"-k", "--kernel"}, paramLabel = "K", description = "linear | poly | rbf | sigmoid (sodm.kernel, default rbf).")
  String kernel;

  @Option(names = {"-g", "--gamma"}, paramLabel = "G", description = "Kernel gamma; 0 = 1/features (sodm.kernel.gamma, default 0).")
  Double gamma;

  @Option(names = "--coef0", paramLabel = "R", description = "Kernel coef0 (sodm.kernel.coef0, default 0).")
  Double coef0;

  @Option(names = "--degree", paramLabel = "D", description = "Polynomial degree (sodm.kernel.degree, default 3).")
  Integer degree;

  @Option(names = "--partitions", paramLabel = "K", description = "Bottom-level blocks; 0 = fanout^levels (sodm.train.partitions, default 0).")
  Integer partitions;

  @Option(names = "--levels", paramLabel = "L", description = "Tree levels when --partitions is 0 (sodm.train.levels, default 2).")
  Integer levels;

  @Option(names = "--fanout", paramLabel = "P", description = "Blocks merged into one, >= 2 (sodm.train.fanout, default 4).")
  Integer fanout;

  @Option(names = "--landmarks", paramLabel = "S", description = "Landmarks / strata (sodm.train.landmarks, default 64).")
  Integer landmarks;

  @Option(names = "--landmark-candidates", paramLabel = "N", description = "Candidates sampled per map task (sodm.train.landmark.candidates, default 2000).")
  Integer candidates;

  @Option(names = "--partitioner", paramLabel = "P", description = "stratified | kmeans | random (sodm.train.partitioner, default stratified).")
  String partitioner;

  @Option(names = "--merge", paramLabel = "M", description = "warm | cascade (sodm.train.merge, default warm).")
  String merge;

  @Option(names = "--max-block-rows", paramLabel = "N", description = "Stop merging before blocks exceed N rows; 0 = no limit (sodm.train.max.block.rows, default 0).")
  Long maxBlockRows;

  @Option(names = "--no-early-stop", description = "Run every merge round even when blocks start converged (sodm.train.early.stop=false).")
  boolean noEarlyStop;

  @Option(names = {"-e", "--eps"}, paramLabel = "E", description = "Stopping tolerance on the max violation (sodm.solver.eps, default 0.001).")
  Double eps;

  @Option(names = "--max-epochs", paramLabel = "N", description = "Epoch guard per solve (sodm.solver.max.epochs, default 5000).")
  Integer maxEpochs;

  @Option(names = "--no-shrinking", description = "Disable shrinking (sodm.solver.shrinking=false).")
  boolean noShrinking;

  @Option(names = "--cache-mb", paramLabel = "MB", description = "Kernel cache per solve in MB (sodm.cache.mb, default 256).")
  Integer cacheMb;

  @Option(names = "--scale", paramLabel = "RANGE", description = "none | 0,1 | -1,1 scaling of raw input, kept in the model (sodm.ingest.scale, default none).")
  String scale;

  @Option(names = "--seed", paramLabel = "S", description = "Seed of every random choice (sodm.seed, default 1).")
  Long seed;

  @Option(names = "--linear-solver", paramLabel = "S", description = "With --kernel linear: auto | bqo | dsvrg | kernel (sodm.train.linear.solver, default auto = bqo for hinge/squared-hinge, dsvrg for odm).")
  String linearSolver;

  @Option(names = "--linear-blocks", paramLabel = "K", description = "BQO/DSVRG blocks, one map task each (sodm.train.linear.blocks, default 4).")
  Integer linearBlocks;

  @Option(names = "--linear-eps", paramLabel = "E", description = "BQO relative duality gap (eq. 27) / DSVRG relative gradient norm to stop at (sodm.train.linear.eps, default 0.001).")
  Double linearEps;

  @Option(names = "--max-iterations", paramLabel = "N", description = "BQO iterations at most (sodm.train.linear.max.iterations, default 1000).")
  Integer maxIterations;

  @Option(names = "--inner-passes", paramLabel = "N", description = "BQO coordinate-descent passes per block and iteration (sodm.train.linear.inner.passes, default 1).")
  Integer innerPasses;

  @Option(names = "--tau", paramLabel = "T", description = "BQO hinge: tau of the tau I term (sodm.train.linear.tau, default 0.001).")
  Double tau;

  @Option(names = "--line-search", paramLabel = "L", description = "BQO step: exact | armijo (sodm.train.linear.line.search, default exact).")
  String lineSearch;

  @Option(names = "--epochs", paramLabel = "E", description = "DSVRG epochs (sodm.train.linear.epochs, default 30).")
  Integer epochs;

  @Option(names = "--step", paramLabel = "ETA", description = "DSVRG step size; 0 = 0.5 / L_max (sodm.train.linear.step, default 0).")
  Double step;

  @Option(names = "--iteration-mode", paramLabel = "M", description = "BQO/DSVRG: allreduce (one resident job, the K tasks exchange through an AllReduce) | jobs (one MapReduce job per iteration) (sodm.iteration.mode, default allreduce).")
  String iterationMode;

  @Option(names = "--exact", description = "After the merge tree, solve the whole problem: PBM iterations over the last level's blocks, or one block when it fits the cache (sodm.train.exact).")
  Boolean exact;

  @Option(names = "--exact-tolerance", paramLabel = "E", description = "Exact mode: stop at this max violation (sodm.train.exact.tolerance, default 0.001).")
  Double exactTolerance;

  @Option(names = "--exact-max-iterations", paramLabel = "N", description = "Exact mode: at most N PBM iterations (sodm.train.exact.max.iterations, default 200).")
  Integer exactMaxIterations;

  @Option(names = "--no-refine", description = "Exact mode: skip the re-solve on the last level's support vectors before PBM (DC-SVM refine; sodm.train.exact.refine=false).")
  boolean noRefine;

  @Override
  protected void applyOptions(Configuration conf) {
    set(conf, SodmConf.EXACT, exact);
    set(conf, SodmConf.EXACT_TOLERANCE, exactTolerance);
    set(conf, SodmConf.EXACT_MAX_ITERATIONS, exactMaxIterations);
    if (noRefine) conf.setBoolean(SodmConf.EXACT_REFINE, false);
    set(conf, SodmConf.OVERWRITE, overwrite);
    set(conf, SodmConf.LOSS, loss);
    set(conf, SodmConf.C, c);
    set(conf, SodmConf.LAMBDA, lambda);
    set(conf, SodmConf.THETA, theta);
    set(conf, SodmConf.MU, mu);
    set(conf, SodmConf.BIAS, bias);
    set(conf, SodmConf.WEIGHT_POSITIVE, weightPositive);
    set(conf, SodmConf.WEIGHT_NEGATIVE, weightNegative);
    set(conf, SodmConf.KERNEL, kernel);
    set(conf, SodmConf.GAMMA, gamma);
    set(conf, SodmConf.COEF0, coef0);
    set(conf, SodmConf.DEGREE, degree);
    set(conf, SodmConf.PARTITIONS, partitions);
    set(conf, SodmConf.LEVELS, levels);
    set(conf, SodmConf.FANOUT, fanout);
    set(conf, SodmConf.LANDMARKS, landmarks);
    set(conf, SodmConf.LANDMARK_CANDIDATES, candidates);
    set(conf, SodmConf.PARTITIONER, partitioner);
    set(conf, SodmConf.MERGE, merge);
    if (noEarlyStop) conf.setBoolean(SodmConf.EARLY_STOP, false);
    set(conf, SodmConf.MAX_BLOCK_ROWS, maxBlockRows);
    set(conf, SodmConf.EPS, eps);
    set(conf, SodmConf.MAX_EPOCHS, maxEpochs);
    if (noShrinking) conf.setBoolean(SodmConf.SHRINKING, false);
    set(conf, SodmConf.CACHE_MB, cacheMb);
    set(conf, SodmConf.INGEST_SCALE, scale);
    set(conf, SodmConf.SEED, seed);
    set(conf, SodmConf.LINEAR_SOLVER, linearSolver);
    set(conf, SodmConf.LINEAR_BLOCKS, linearBlocks);
    set(conf, SodmConf.LINEAR_EPS, linearEps);
    set(conf, SodmConf.LINEAR_MAX_ITERATIONS, maxIterations);
    set(conf, SodmConf.LINEAR_INNER_PASSES, innerPasses);
    set(conf, SodmConf.LINEAR_TAU, tau);
    set(conf, SodmConf.LINEAR_LINE_SEARCH, lineSearch);
    set(conf, SodmConf.LINEAR_EPOCHS, epochs);
    set(conf, SodmConf.LINEAR_STEP, step);
    set(conf, SodmConf.ITERATION_MODE, iterationMode);
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(inputs, validation, new Path(output), resume, phase),
        line -> out().println("sodm train: " + line));
    if (r.modelPath() == null) {
      out().printf("sodm train: phase %s complete in %.1f s%n", phase, r.seconds());
    } else {
      out().printf("sodm train: done in %.1f s: %s%n", r.seconds(), r.modelPath());
    }
    return 0;
  }
}
