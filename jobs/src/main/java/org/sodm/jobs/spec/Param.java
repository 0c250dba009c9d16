package org.sodm.jobs.spec;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The parameter table: every sodm configuration key with its command-line option, type,
 * default, validator and one-line description. Everything else is derived from it: the
 * commands' options ({@link Param#options}), {@code conf/sodm-default.xml} ({@link DefaultsXml},
 * held against this table by a test), the typed {@link TrainSpec} and the provenance of a model.
 *
 * <p>A {@link Kind#FLAG} option takes no value: {@code --bias} sets its key to {@code true},
 * a negated flag such as {@code --no-shrinking} sets it to {@code false}.
 */
public enum Param {
  // ingest
  INGEST_FORMAT("sodm.ingest.format", "auto", Group.INGEST, Type.choice("auto", "libsvm", "csv", "avro"), "--format", "F",
      "Input format: auto (by extension: .avro, .csv/.tsv, else LIBSVM), libsvm, csv or avro."),
  INGEST_LABEL_COLUMN("sodm.ingest.csv.label.column", "1", Group.INGEST, Type.integer(Integer.MIN_VALUE, Integer.MAX_VALUE)
      .and(v -> Long.parseLong(v) != 0, "non-zero (columns are 1-based; -1 = last)"), "--label-column", "N",
      "CSV label column, 1-based; negative counts from the end (-1 = last)."),
  INGEST_DELIMITER("sodm.ingest.csv.delimiter", ",", Group.INGEST,
      Type.text("one character, or tab", v -> v.length() == 1 || v.equalsIgnoreCase("tab") || v.equals("\\t")), "--delimiter", "C",
      "CSV field delimiter (one character; \"tab\" for a tab)."),
  INGEST_HEADER("sodm.ingest.csv.header", "auto", Group.INGEST, Type.choice("auto", "true", "false"), "--header", "auto|true|false",
      "CSV header line: auto (first line is a header when none of its feature fields is a number), true or false."),
  INGEST_SKIP_BAD("sodm.ingest.skip.bad.records", "0", Group.INGEST, Type.integer(0, Long.MAX_VALUE), "--skip-bad-records", "N",
      "Bad lines to skip (counted, a few logged) before failing; 0 fails on the first."),
  INGEST_SPLIT_BYTES("sodm.ingest.split.bytes", "33554432", Group.INGEST, Type.integer(4096, Long.MAX_VALUE), null, null,
      "Size in bytes (default 32 MiB) of the pieces an uncompressed text input is read in by parallel ingest tasks. Fixed by sodm (not the "
          + "file system's block size), so the ingested parts, and the model, are the same on every file system."),
  INGEST_SCALE("sodm.ingest.scale", "none", Group.INGEST, Type.text("none, 0,1 or -1,1", Param::isScale), "--scale", "RANGE",
      "Feature scaling saved with the data and reused by prediction: none, 0,1 or -1,1 (as svm-scale)."),
  INGEST_MAX_LABELS("sodm.ingest.max.labels", "100", Group.INGEST, Type.integer(2, 1_000_000), null, null,
      "Distinct labels allowed (classes); a further label fails the ingest naming where it was found. sodm train uses "
          + "sodm.train.max.classes instead."),
  AVRO_CODEC("sodm.avro.codec", "deflate", Group.COMMON, Type.choice("null", "deflate", "snappy", "zstandard", "xz", "bzip2"), null, null,
      "Compression of the Avro files the driver writes (models, label maps, scalers, samples): null, deflate, snappy, "
          + "zstandard, xz or bzip2. The ingested rows and their statistics (a record per feature), read back at once, are "
          + "written uncompressed."),

  // train: loss
  LOSS("sodm.train.loss", "odm", Group.LOSS, Type.text("odm, hinge (or l1), squared-hinge (or l2), logistic (or lr), nu or hard-margin", Param::isLoss),
      "--loss", "L",
      "Loss: odm (optimal margin distribution, as SODM), hinge (C-SVM, also l1), squared-hinge (also l2), logistic (L2-regularised "
          + "logistic regression, as liblinear-train -s 0; also lr), nu (nu-SVM, as svm-train -s 1) or hard-margin (separable data). "
          + "With --kernel linear nu and hard-margin are trained by Saddle-SVC (seed 002); nu with another kernel by the merge tree "
          + "with nu-SVC blocks; hard-margin and logistic need --kernel linear (logistic: TRON, its models give probabilities)."),
  C("sodm.train.c", "1.0", Group.LOSS, Type.positive(), "-c,--cost", "C", "C of the hinge, squared-hinge and logistic losses (> 0)."),
  LAMBDA("sodm.train.lambda", "10000", Group.LOSS, Type.positive(), "--lambda", "X",
      "ODM lambda: weight of the margin-distribution loss against the regulariser (> 0; the loss is averaged over the rows, "
          + "so it plays the role of C times the row count: tune it like C)."),
  THETA("sodm.train.theta", "0.5", Group.LOSS, Type.real(0, true, 1, false), "--theta", "X",
      "ODM theta: margin deviations up to theta are not penalised, in [0, 1)."),
  MU("sodm.train.mu", "0.5", Group.LOSS, Type.real(0, false, 1, true), "--mu", "X",
      "ODM mu (v in the paper): weight of deviations above the margin mean, in (0, 1]."),
  NU("sodm.train.nu", "", Group.LOSS, Type.text("a number in (0, 1], or empty", Param::isUnitOrEmpty), "--nu", "NU",
      "nu-SVM's nu, in (0, 1] (as svm-train -n: an upper bound on the fraction of margin errors, a lower bound on the fraction of "
          + "support vectors; at most 2 min(n1, n2) / n). Empty: seed 002's default 2 alpha min(n1, n2) / n with alpha = 0.85."),
  BIAS("sodm.train.bias", "false", Group.LOSS, Type.bool(), "--bias", null,
      "Fit a regularised bias through the augmented kernel k + 1 (LIBSVM's bias is an equality constraint instead)."),
  PENALTY(org.sodm.model.LiblinearExport.PENALTY, "l2", Group.LOSS, Type.choice("l2", "l1", "elasticnet"), "--penalty", "P",
      "--loss logistic's and (--kernel linear) squared-hinge's regulariser: l2 (1/2 |w|^2: LIBLINEAR's -s 0 by TRON; squared-hinge "
          + "by BQO's dual, or -s 2 with --linear-solver tron), l1 (|w|_1, LIBLINEAR's -s 6 and -s 5: a sparse w, by "
          + "newGLMNET or OWL-QN, see --l1-solver) or elasticnet (rho |w|_1 + (1 - rho)/2 |w|^2, rho = --l1-ratio: scikit-learn's "
          + "penalty='elasticnet', Spark MLlib's elasticNetParam; by the same methods); --bias's weight is penalised too, as "
          + "LIBLINEAR's -B 1."),
  L1_RATIO("sodm.train.l1.ratio", "", Group.LOSS, Type.text("a number in (0, 1], or empty", Param::isUnitOrEmpty), "--l1-ratio", "RHO",
      "--penalty elasticnet's rho in (0, 1]: the weight of |w|_1, 1 - rho that of 1/2 |w|^2 (scikit-learn's l1_ratio; Spark "
          + "MLlib's elasticNetParam, whose loss is averaged: its regParam lambda is 1 / (C n) here). 1 is --penalty l1. Empty "
          + "(the default): 0.5 with --penalty elasticnet; refused with the other penalties."),
  L1_SOLVER("sodm.train.l1.solver", "auto", Group.LOSS, Type.choice("auto", "glmnet", "owlqn"), "--l1-solver", "S",
      "--penalty l1's and elasticnet's method: glmnet (newGLMNET, LIBLINEAR's -s 6 method: a Newton step per iteration, its L1 "
          + "model solved by coordinate descent; on the dense Hessian X'DX, reduced over the blocks as n^2 doubles for n = d+1 "
          + "weights (multinomial: K(d+1)), when n <= 1024 and the rows hold <= 512 stored values on average (multinomial: values "
          + "times K: a row's part of the Hessian costs its values squared); else by column, LIBLINEAR's own form (any n; a problem "
          + "whose rows are all in one block, which then holds them twice: by row and by column; where that does not fit the "
          + "task's heap, auto takes owlqn); else on the dense Hessian up to 4096 weights), owlqn (OWL-QN, Spark MLlib's: L-BFGS "
          + "on the orthant, n doubles per evaluation; any size, any blocks) or auto: glmnet where one of its forms applies (as "
          + "above, the dense one first), else owlqn."),
  L1_GAP("sodm.train.l1.gap", "", Group.LOSS, Type.text("a number in (0, 1), or empty", Param::isOpenUnitOrEmpty), "--l1-gap", "G",
      "--penalty l1's and elasticnet's stop by duality gap (binary, one-vs-rest and multinomial models): stop when the Fenchel duality gap is "
          + "at most G f, which proves f within G f of the optimum, in place of LIBLINEAR's rule on the pseudo-gradient (-e), which "
          + "can hold far from it on badly scaled data (one pass over the rows' margins and one more scalar sum per iteration). "
          + "Empty (the default): LIBLINEAR's rule; every L1 run reports its final gap either way."),
  OFFSET("sodm.train.offset", "auto", Group.LOSS, Type.autoBool(), "--offset", null,
      "Hinge loss with a kernel: LIBSVM's unregularised offset b (the equality constraint sum y_i alpha_i = 0, solved as LIBSVM's "
          + "Solver), each block with its own b (the averaged model then takes one, see --no-common-offset); exact mode then ends "
          + "with one warm block solve (no PBM). auto (the default): on "
          + "for --loss hinge in the kernel merge tree, unless --bias or sodm.train.exact.single=never; with --exact on more than "
          + "sodm.train.exact.below.rows rows (PBM may follow) the tree's blocks solve without it and exact mode's final solve, "
          + "when it is one warm block, with it; true: on, refused where it cannot apply; false: off."),
  COMMON_OFFSET("sodm.train.offset.common", "true", Group.LOSS, Type.bool(), "--no-common-offset", null,
      "With the offset (--offset) and a model of several averaged blocks: one offset for the averaged function f, in place of "
          + "the mean of the blocks' own offsets: b / a for the a > 0 and b that minimise the hinge loss sum_i C_i max(0, 1 - y_i "
          + "(a f(x_i) + b)) over the blocks' support vectors (see sodm.train.offset.common.scale). --no-common-offset keeps each "
          + "block's own."),
  COMMON_OFFSET_SCALE("sodm.train.offset.common.scale", "true", Group.LOSS, Type.bool(), null, null,
      "Whether the common offset's hinge fit also fits the scale a of the averaged function (true, the default: the mean of "
          + "blocks that disagree is smaller than each, so its unit margin is not theirs) or takes a = 1 (false: the rule before "
          + "2026-11-29)."),
  WEIGHT_POSITIVE("sodm.train.weight.positive", "1.0", Group.LOSS, Type.positive(), "--weight-positive", "W",
      "Class weight of the +1 class (scales C_i, or lambda_i for ODM), as LIBSVM's -wi; binary data only (the +1 label: the larger "
          + "number, as sodm inspect's labels line shows)."),
  WEIGHT_NEGATIVE("sodm.train.weight.negative", "1.0", Group.LOSS, Type.positive(), "--weight-negative", "W",
      "Class weight of the -1 class."),
  CLASS_WEIGHTS("sodm.train.class.weights", "", Group.LOSS, Type.text("LABEL:W[,LABEL:W...]",
      v -> v.isBlank() || v.matches("\\s*[^,]*[^,\\s:][^,]*:[^,:]+(,\\s*[^,]*[^,\\s:][^,]*:[^,:]+)*\\s*")), "--class-weights", "L:W,...",
      "Weights of classes by label, as LIBSVM's -wLABEL W: each scales C (ODM: lambda) for that class's rows; unnamed classes "
          + "weigh 1. Two classes: the same as --weight-positive / --weight-negative. More: one-vs-one, each class pair's task "
          + "with its two classes' weights (LIBSVM); one-vs-rest (--multiclass ovr, --kernel linear) the class's weight and 1 for "
          + "the rest (LIBLINEAR's -wi). Not with nu or hard margin."),
  MULTICLASS("sodm.train.multiclass", "auto", Group.LOSS, Type.choice("auto", "ovo", "ovr", "multinomial"), "--multiclass", "M",
      "More than two labels: ovo (one binary problem per class pair, prediction by votes, as LIBSVM) or ovr (one per class "
          + "against the rest, the largest decision value, as LIBLINEAR); auto = ovo for kernels, ovr for the linear solvers. "
          + "With --loss logistic also multinomial: one softmax model over every class (Spark MLlib's and scikit-learn's "
          + "multi-class logistic regression; two classes: the binary model at 2C, the same optimum)."),
  PROBABILITY("sodm.train.probability", "false", Group.LOSS, Type.bool(), "--probability", null,
      "Fit probability estimates: Platt's sigmoid per binary problem on decision values of an internal cross-validation, "
          + "coupled over the classes (Wu, Lin and Weng 2004); the predicted label is then the most probable class."),
  PROBABILITY_FOLDS("sodm.train.probability.folds", "5", Group.LOSS, Type.integer(2, 100), null, null,
      "Folds of the internal cross-validation that gives --probability its decision values (LIBSVM: 5)."),
  MAX_CLASSES("sodm.train.max.classes", "100", Group.LOSS, Type.integer(2, 100_000), "--max-classes", "N",
      "Most distinct labels a training set may have (a further label fails the ingest naming where it was found)."),

  // train: kernel
  KERNEL("sodm.kernel", "rbf", Group.KERNEL, Type.choice("linear", "poly", "rbf", "sigmoid"), "-k,--kernel", "K",
      "Kernel: linear, poly, rbf or sigmoid (as LIBSVM)."),
  GAMMA("sodm.kernel.gamma", "0", Group.KERNEL, Type.real(0, true, Double.POSITIVE_INFINITY, false), "-g,--gamma", "G",
      "Kernel gamma (rbf, poly, sigmoid); 0 means 1 / number of features, as LIBSVM. An rbf gamma that makes the kernel "
          + "degenerate on the data (gamma x the median squared distance between rows > 100; unscaled features, usually) "
          + "gets a warning that names --scale."),
  COEF0("sodm.kernel.coef0", "0", Group.KERNEL, Type.real(Double.NEGATIVE_INFINITY, false, Double.POSITIVE_INFINITY, false),
      "--coef0", "R", "Kernel coef0 (poly, sigmoid)."),
  DEGREE("sodm.kernel.degree", "3", Group.KERNEL, Type.integer(1, Integer.MAX_VALUE), "--degree", "D", "Kernel degree (poly)."),

  // train: tree
  PARTITIONS("sodm.train.partitions", "0", Group.TREE, Type.integer(0, 1_000_000), "--partitions", "K",
      "Blocks K at the bottom level; 0 = fanout^levels."),
  LEVELS("sodm.train.levels", "auto", Group.TREE, Type.text("auto or an integer in [0, 20]", Param::isLevels), "--levels", "L",
      "Levels L of the merge tree when --partitions is 0 (K = p^L). auto: the shape from the row count and the cache: data of "
          + "at most sodm.train.exact.below.rows rows as L = 2 (p^2 -> p blocks, then the one exact block); larger data ends in "
          + "B = ceil(n / m) blocks, m = floor(sqrt(cache bytes / 4)) the rows whose whole float kernel matrix fits --cache-mb "
          + "(8,192 at 256 MB), one level (no merge round: a merge into the same blocks was measured slower, as accurate). "
          + "Hinge losses whose blocks would solve with C B above sodm.train.auto.block.c: one level of ceil(n / M) larger blocks "
          + "(M = sodm.train.auto.block.rows)."),
  AUTO_BLOCK_C("sodm.train.auto.block.c", "32", Group.TREE, Type.real(0, true, Double.POSITIVE_INFINITY, false), null, null,
      "The automatic tree (--levels auto), hinge and squared hinge with --block-c scaled: when the blocks of m rows would solve "
          + "with C B (times the larger class weight) above this, the tree takes fewer, larger final blocks (sodm.train.auto."
          + "block.rows): a mean of small blocks solved with a large C B lost up to 0.38 point against LIBSVM (ijcnn1, C = 32), "
          + "while at C B <= 32 blocks of m rows were as accurate and 20-30% faster. 0 = always the larger blocks."),
  AUTO_BLOCK_ROWS("sodm.train.auto.block.rows", "0", Group.TREE, Type.integer(0, Long.MAX_VALUE), null, null,
      "The automatic tree's larger final blocks (sodm.train.auto.block.c): at most this many rows. 0 = 3 m (24,576 rows at "
          + "the default 256 MB cache)."),
  AUTO_BOUNDED_SHARE("sodm.train.auto.bounded.share", "0.01", Group.TREE, Type.real(0, true, 1, true), null, null,
      "The automatic tree's separable-blocks rule (hinge, one level of blocks of m rows; sub-problems pooled): when fewer than "
          + "this share of the level's support vectors are at their upper bound C B (each block separated its rows, the hard-margin regime), "
          + "the level is solved again as ceil(n / M) larger blocks (M = sodm.train.auto.block.rows), which are the model. A "
          + "mean of separable blocks lost 0.63 point against LIBSVM (MNIST even / odd, C = 4, gamma = 0.01: 0.04% bounded) "
          + "where 3 larger blocks lost 0.22; none of 54 grid cells on six data sets had fewer than 4% bounded. 0 = off."),
  FANOUT("sodm.train.fanout", "4", Group.TREE, Type.integer(2, Integer.MAX_VALUE), "--fanout", "P",
      "Fan-in p of a merge: block k goes to parent floor(k/p); the tree stops at p blocks or fewer (>= 2)."),
  LANDMARKS("sodm.train.landmarks", "64", Group.TREE, Type.integer(1, 1_000_000), "--landmarks", "S",
      "Landmarks S (strata) for the stratified partitioner (>= 1)."),
  LANDMARK_CANDIDATES("sodm.train.landmark.candidates", "2000", Group.TREE, Type.integer(1, 100_000_000), "--landmark-candidates", "N",
      "Candidates each map task samples for landmark selection (and the kmeans sample); ingest also draws this many rows per "
          + "input file (its sample-c*-s* directory)."),
  LANDMARK_DRIVER_ROWS("sodm.train.landmark.driver.rows", "100000", Group.TREE, Type.integer(0, Long.MAX_VALUE), null, null,
      "Landmarks (or k-means centres) are selected in the driver from the ingest's per-file samples when these hold at most "
          + "this many rows (files x candidates), which saves a job and a pass over the data; else, or with 0, by the landmark job."),
  TRAIN_REDUCERS("sodm.train.reducers", "0", Group.RUNTIME, Type.integer(0, 1_000_000), null, null,
      "Reduce tasks of each solve level (blocks are spread over them; the model does not change). 0 = one per block, except in "
          + "local mode with stratified or random blocks: one per local core, which saves LocalJobRunner's per-task cost; a level of "
          + "more blocks than cores but fewer than twice as many: one per block, all run at once when they take at most half the "
          + "heap together (no core idle through a last round)."),
  PARTITIONER("sodm.train.partitioner", "stratified", Group.TREE, Type.choice("stratified", "kmeans", "random"), "--partitioner", "P",
      "How the bottom blocks are formed: stratified (SODM, eq. 7-8), kmeans (DC-SVM kernel k-means) or random."),
  KMEANS_SAMPLE("sodm.train.kmeans.sample", "1000", Group.TREE, Type.integer(1, 100_000), "--kmeans-sample", "M",
      "--partitioner kmeans (DC-SVM, seed 001 Algorithm 1): each level's two-step kernel k-means is fitted on at most M points: "
          + "at the bottom level a uniform sample of the rows, from the second level on of the support vectors of the level below "
          + "(adaptive clustering); every row then goes to its nearest centre (m = 1000 in the paper)."),
  MERGE("sodm.train.merge", "warm", Group.TREE, Type.choice("warm", "cascade"), "--merge", "M",
      "Merge rounds: warm (SODM: every instance moves up with its alpha as the warm start) or cascade (only support vectors move up)."),
  EARLY_STOP("sodm.train.early.stop", "true", Group.TREE, Type.bool(), "--no-early-stop", null,
      "Stop merging when every block of a round was already converged at its warm start."),
  MAX_BLOCK_ROWS("sodm.train.max.block.rows", "0", Group.TREE, Type.integer(0, Long.MAX_VALUE), "--max-block-rows", "N",
      "Stop merging before blocks would exceed this many rows on average (0 = merge down to fanout blocks); with a fixed bottom "
          + "block size, training time then grows linearly in n."),
  BLOCK_C("sodm.train.block.c", "scaled", Group.TREE, Type.choice("scaled", "same"), "--block-c", "MODE",
      "Hinge losses: C of a block at a level of B blocks. scaled (default): C times B, so that a block of n/B rows weighs its "
          + "errors against ||w||^2 as the whole problem does (C n / m, the same regularised risk), and merged blocks start from "
          + "the mean of their children's alpha; same: the whole problem's C in every block (each block is then more "
          + "regularised, and the average of the last level's blocks is too smooth). ODM averages its loss over the block's rows "
          + "either way."),

  BLOCK_C_ROWS("sodm.train.block.c.rows", "131072", Group.TREE, Type.integer(0, Long.MAX_VALUE), "--block-c-rows", "R",
      "--block-c scaled on more than R rows: a level of B blocks solves with C B R / n, not C B (at least C), so that each block "
          + "weighs its errors as a problem of R rows does. An SMO solve's iterations grow about linearly with C on noisy "
          + "data, so C B would make every block dearer as n grows and the whole training quadratic in n; with the bound the "
          + "cost per block stays the same. 1M synthetic rows (2% noise, C = 4, 41 blocks): C B 441 s, 97.73%; with R = "
          + "131,072 127 s, 97.67%; ijcnn1's pattern at 1M rows (C = 32): C B 89 s, 98.64%; C = 128 per block 79 s, 98.81%. "
          + "0 = no bound (C B at any n)."),

  // train: exact mode
  EXACT("sodm.train.exact", "false", Group.EXACT, Type.bool(), "--exact", null,
      "Exact mode: after the merge tree, solve the whole problem (one global dual, the single-node optimum): PBM iterations over "
          + "the last level's blocks (seed 004 Algorithm 1), or one more merge round into a single block when it fits the cache "
          + "(sodm.train.exact.single). The model is then one kernel expansion."),
  EXACT_BLOCKS("sodm.train.exact.blocks", "auto", Group.EXACT, Type.text("auto or an integer in [1, 1000000]", v -> isAutoOr(v, 1, 1_000_000)),
      "--exact-blocks", "B",
      "Exact mode with PBM: the blocks of PBM's partition (seed 004 section 4.3: kernel k-means clusters, fitted on a uniform "
          + "sample of --kmeans-sample rows, every row to its nearest centre), independent of --fanout and the tree's blocks. "
          + "auto: the reduce slots (local mode: the local reduce tasks, sodm.local.parallelism; a cluster: its reduce capacity)."),
  EXACT_BELOW_ROWS("sodm.train.exact.below.rows", "10000", Group.EXACT, Type.integer(0, Long.MAX_VALUE), null, null,
      "Without --exact, training data of at most this many rows still ends with one exact block: one more merge round of the last "
          + "level's blocks into a single block (the whole problem, warm-started), because averaging a few blocks of n/p rows costs "
          + "accuracy on small data and one block of n rows costs little. 0 = never (the merge tree's averaged blocks, as for larger data)."),
  EXACT_TOLERANCE("sodm.train.exact.tolerance", "0.001", Group.EXACT, Type.positive(), "--exact-tolerance", "E",
      "Exact mode: stop PBM when the max projected-gradient violation of the whole problem is at most this (also the inner "
          + "tolerance of the block subproblems)."),
  EXACT_MAX_ITERATIONS("sodm.train.exact.max.iterations", "200", Group.EXACT, Type.integer(0, Integer.MAX_VALUE),
      "--exact-max-iterations", "N", "Exact mode: at most this many PBM iterations (rounds of one resident job by default; two MapReduce jobs each with --iteration-mode jobs)."),
  EXACT_INNER_EPOCHS("sodm.train.exact.inner.epochs", "20", Group.EXACT, Type.integer(1, Integer.MAX_VALUE), null, null,
      "Exact mode: a block subproblem takes at most this many times its size greedy coordinate steps."),
  EXACT_LINE_SEARCH("sodm.train.exact.line.search", "exact", Group.EXACT, Type.choice("exact", "armijo"), null, null,
      "Exact mode step size: exact (eq. 13, the minimiser of the quadratic along d on [0,1]) or armijo (eq. 8, halving from 1 "
          + "until sufficient decrease, sigma 0.01)."),
  EXACT_REFINE("sodm.train.exact.refine", "true", Group.EXACT, Type.bool(), "--no-refine", null,
      "Exact mode: before PBM, re-solve the problem on the last level's support vectors warm-started from their alpha (DC-SVM's "
          + "refine step). Hinge and squared hinge only (ODM's per-instance terms depend on the problem size). On by default: the "
          + "support vectors of the last level hold nearly all of the final ones, so PBM starts within about 1e-4 of the optimum "
          + "(svmguide1) instead of from the tree's mean model alpha/B."),
  EXACT_SINGLE("sodm.train.exact.single", "auto", Group.EXACT, Type.choice("auto", "always", "never"), null, null,
      "Exact mode: auto | always | never solve the whole problem in one reducer (warm-started from the last level) instead of "
          + "PBM. auto: when the kernel columns of the last level's support vectors fit the cache, SV x N x 4 bytes <= sodm.cache.mb "
          + "(the columns a single-node solve keeps touching), or when SV x N <= sodm.train.exact.single.evaluations."),
  EXACT_SINGLE_EVALUATIONS("sodm.train.exact.single.evaluations", "2000000000", Group.EXACT, Type.integer(0, Long.MAX_VALUE), null,
      null, "Exact mode, auto: the whole problem is one warm-started reducer solve also when SV x N (the kernel evaluations of its "
          + "first gradient, about 10-20 s on one core at 2e9) is at most this; beyond it PBM spreads the work over the blocks. "
          + "0 = by the cache rule alone."),
  EXACT_REFERENCE("sodm.train.exact.reference", "", Group.EXACT, Type.optionalReal(), null, null,
      "Exact mode: a reference optimum of the dual objective (minimised form, e.g. from a tight single-node solve); when set, each "
          + "PBM iteration prints the relative objective error against it."),
  EXACT_GAP("sodm.train.exact.gap", "0", Group.EXACT, Type.real(0, true, Double.POSITIVE_INFINITY, false), null, null,
      "Exact mode: with sodm.train.exact.reference, also stop when the relative objective error is at most this (0: off)."),
  EXACT_ALLOW_UNCONVERGED("sodm.train.exact.allow.unconverged", "false", Group.EXACT, Type.bool(), "--allow-unconverged", null,
      "Exact mode: keep the model of an exact solve that stopped before its tolerance (PBM's iteration cap or a zero step, the "
          + "one-block solve's epoch cap) and exit 0; without it such a run warns, writes the model with converged=false in its "
          + "report and exits non-zero."),

  // train: solver
  EPS("sodm.solver.eps", "0.001", Group.SOLVER, Type.positive(), "-e,--eps", "E",
      "Stop a block's solve when the maximal projected-gradient violation is at most eps (as LIBSVM's -e)."),
  MAX_EPOCHS("sodm.solver.max.epochs", "5000", Group.SOLVER, Type.integer(1, Integer.MAX_VALUE), "--max-epochs", "N",
      "Guard on coordinate-descent epochs per solve (a warning is logged when hit)."),
  SHRINKING("sodm.solver.shrinking", "true", Group.SOLVER, Type.bool(), "--no-shrinking", null,
      "Shrink bound variables during a solve, with a final unshrunk check (as LIBSVM's -h)."),
  PAIRS("sodm.solver.pairs", "true", Group.SOLVER, Type.bool(), null, null,
      "Hinge, squared hinge and ODM: greedy steps over two instances chosen by second-order gain (as LIBSVM's working sets; "
          + "ODM's exact over both pieces of its dual in zeta - beta); false takes one instance per step."),
  TRACE("sodm.solver.trace", "false", Group.SOLVER, Type.bool(), null, null,
      "Log where each block solve spends its time (kernel columns, gradient rebuilds, shrinking), for profiling."),
  SOLVER_THREADS("sodm.solver.threads", "0", Group.SOLVER, Type.integer(0, 4096), null, null,
      "Threads that compute one block solve's kernel columns (the same columns and model at any count). 0 = auto: in local "
          + "mode the task slots over the solve tasks running at once (one block alone on 2 cores: 2), on a cluster the task's "
          + "vcores (mapreduce.reduce.cpu.vcores); blocks of fewer than 8,192 rows one thread."),
  CACHE_MB("sodm.cache.mb", "256", Group.SOLVER, Type.integer(1, 1 << 30), "--cache-mb", "MB",
      "Kernel-column cache per solve, in MB (as LIBSVM's -m)."),

  // train: linear kernel solvers
  LINEAR_SOLVER("sodm.train.linear.solver", "auto", Group.LINEAR, Type.choice("auto", "bqo", "dsvrg", "kernel", "saddle", "tron"),
      "--linear-solver", "S",
      "With --kernel linear: auto (BQO for hinge and squared-hinge, DSVRG for odm, Saddle for nu and hard-margin, TRON for "
          + "logistic and for --penalty l1 / elasticnet), bqo (seed 003 Algorithm 1, distributed dual L1/L2-SVM), dsvrg (seed 000 Algorithm 2, linear ODM in the primal), "
          + "kernel (the SODM merge tree with the linear kernel), saddle (seed 002, Saddle-SVC / Saddle-DSVC: nu-SVM and hard margin) "
          + "or tron (trust-region Newton in the primal, its sums over the blocks by AllReduce: logistic regression, LIBLINEAR's -s 0, "
          + "and squared-hinge, -s 2; also the method of --penalty l1 and elasticnet, which it chooses by --l1-solver)."),
  LINEAR_PARTITIONER("sodm.train.linear.partitioner", "random", Group.LINEAR, Type.choice("random", "stratified"),
      "--linear-partitioner", "P",
      "DSVRG's blocks (when there are 2 or more): random (hash of the id and seed) or stratified (seed 000 Algorithm 2 lines 1-2: "
          + "--landmarks landmarks in the linear kernel's space selected from a row sample, each row's stratum its nearest "
          + "landmark, each (stratum, class) pair dealt evenly over the blocks). BQO's blocks are always random."),
  LINEAR_BLOCKS("sodm.train.linear.blocks", "auto", Group.LINEAR, Type.text("auto or an integer in [1, 1000000]", v -> isAutoOr(v, 1, 1_000_000)),
      "--linear-blocks", "K",
      "BQO / DSVRG / TRON: number of blocks K (one map task each; a block must fit a task's memory). auto: as few as the memory "
          + "allows, K = ceil(non-zeros / sodm.train.linear.block.nonzeros): every extra block costs BQO rounds (on a9a 80 iterations "
          + "with 1 block, 287 with 2, 395 with 4; bench/linear-results.md), more than a second task saves; TRON's iterations do "
          + "not depend on K, and a block's sums use the task's cores."),
  LINEAR_BLOCK_NONZEROS("sodm.train.linear.block.nonzeros", "32000000", Group.LINEAR, Type.integer(1, Long.MAX_VALUE), null, null,
      "--linear-blocks auto: the most stored feature values one block holds (about 12 bytes each in a task's heap, plus ~100 "
          + "bytes per row: 32,000,000 is ~0.5 GB)."),
  LINEAR_EPS("sodm.train.linear.eps", "0.001", Group.LINEAR, Type.positive(), "--linear-eps", "E",
      "BQO: stop when the duality gap certifies the pocket model within eps of the optimum, (P + F) / (-F) <= eps (stronger than eq. 27); DSVRG: stop when |grad p(w)| <= eps |grad p(0)|; "
          + "TRON (logistic): LIBLINEAR's -s 0 stop |grad f(w)| <= eps max(min(n+, n-), 1) / n |grad f(0)| (liblinear-train's -e "
          + "default is 0.01); "
          + "Saddle: stop when the relative gap between the bounds on the hulls' squared distance is <= eps (in (0, 1); also the eps "
          + "of gamma = eps beta / (2 log n))."),
  LINEAR_MAX_ITERATIONS("sodm.train.linear.max.iterations", "1000", Group.LINEAR, Type.integer(1, Integer.MAX_VALUE),
      "--max-iterations", "N", "BQO: at most this many iterations (one MapReduce job each); TRON: Newton iterations."),
  LINEAR_INNER_PASSES("sodm.train.linear.inner.passes", "auto", Group.LINEAR, Type.text("auto or an integer >= 1",
      v -> isAutoOr(v, 1, Integer.MAX_VALUE)), "--inner-passes", "N",
      "BQO: passes of dual coordinate descent over a block's subproblem (eq. 7) per iteration, the same on every block (the "
          + "paper's hybrid rule; fewer when it is solved to 1e-4). auto: 1 with several blocks (measured on a9a and ijcnn1: with "
          + "several alike blocks more passes over-fit each block's subproblem and the summed direction needs a step near 1/K); "
          + "with one block the whole problem, solved as LIBLINEAR does (up to 1000 passes, shrinking kept, to a projected "
          + "gradient of 0.1, ten times smaller at each further iteration the certified gap asks for)."),
  LINEAR_TAU("sodm.train.linear.tau", "0.001", Group.LINEAR, Type.positive(), "--tau", "T",
      "BQO, hinge loss: tau of the tau I term that makes the block Hessian positive definite (eq. 6)."),
  LINEAR_LINE_SEARCH("sodm.train.linear.line.search", "exact", Group.LINEAR, Type.choice("exact", "armijo"), "--line-search", "L",
      "BQO step size: exact (the exact feasible step, eqs. 20-21) or armijo (eq. 12, sigma 0.1, beta 0.5, gamma 0)."),
  LINEAR_EPOCHS("sodm.train.linear.epochs", "30", Group.LINEAR, Type.integer(1, Integer.MAX_VALUE), "--epochs", "E",
      "DSVRG: number of epochs E (one MapReduce job each: full gradient, then one round-robin pass of inner updates)."),
  SADDLE_MAX_ITERATIONS("sodm.train.saddle.max.iterations", "1000000", Group.LINEAR, Type.integer(1, Long.MAX_VALUE),
      "--saddle-iterations", "N",
      "Saddle: at most this many iterations of Algorithm 2 / 4 per beta tried (beta = 1, 0.1, 0.01, 0.001 until one reaches "
          + "--linear-eps; each iteration is 3 AllReduce rounds, plus 2 per projection pass for nu)."),
  SADDLE_CHECK_INTERVAL("sodm.train.saddle.check.interval", "0", Group.LINEAR, Type.integer(0, Long.MAX_VALUE), null, null,
      "Saddle: iterations between duality-gap checks (one resident iteration, progress line and checkpoint opportunity each); 0 = "
          + "the paper's T = d + sqrt(d / (eps beta)), d the padded dimension."),
  ITERATION_MODE("sodm.iteration.mode", "allreduce", Group.LINEAR, Type.choice("allreduce", "jobs"), "--iteration-mode", "M",
      "BQO / DSVRG / exact mode's PBM: allreduce (one map-only job whose K tasks keep their blocks in memory for every iteration and exchange only "
          + "vectors and scalars through an AllReduce coordinated by a tracker in the driver; needs all K tasks running at once) or "
          + "jobs (one MapReduce job per iteration or epoch: slower, but no co-scheduling). Both give the same model."),
  LINEAR_STEP("sodm.train.linear.step", "0", Group.LINEAR, Type.real(0, true, 1, false), "--step", "ETA",
      "DSVRG: step size eta in (0, 1); 0 = 0.5 / L_max with L_max = 1 + lambda max(1, mu) max|x|^2 / (1 - theta)^2."),

  // AllReduce runtime
  ALLREDUCE_RENDEZVOUS_TIMEOUT("sodm.allreduce.rendezvous.timeout", "120", Group.RUNTIME, Type.real(0, false, 86400, true), null, null,
      "AllReduce mode: seconds to wait for all K tasks to register with the tracker; then the job is killed with a message (use "
          + "fewer blocks or --iteration-mode jobs)."),
  ALLREDUCE_OPERATION_TIMEOUT("sodm.allreduce.operation.timeout", "600", Group.RUNTIME, Type.real(0, false, 86400 * 7, true), null, null,
      "AllReduce mode: seconds one AllReduce may wait for a peer task before the run fails (catches a task that hangs with its "
          + "sockets open; DSVRG's other tasks wait for rank 0's inner loop)."),
  ALLREDUCE_CHECKPOINT_ITERATIONS("sodm.allreduce.checkpoint.iterations", "50", Group.RUNTIME, Type.integer(0, Integer.MAX_VALUE),
      null, null, "AllReduce mode: checkpoint the solver state (w, alpha per block, iteration, pocket, history) to the work "
          + "directory every this many iterations (0 = not by count)."),
  ALLREDUCE_CHECKPOINT_SECONDS("sodm.allreduce.checkpoint.seconds", "60", Group.RUNTIME, Type.real(0, true, Double.POSITIVE_INFINITY, false), null,
      null, "AllReduce mode: also checkpoint when this many seconds passed since the last checkpoint (0 = not by time)."),
  ALLREDUCE_MAX_RESTARTS("sodm.allreduce.max.restarts", "3", Group.RUNTIME, Type.integer(0, 1000), null, null,
      "AllReduce mode: after a failed attempt the job is resubmitted from the last checkpoint at most this many times (the "
          + "result is identical to an uninterrupted run)."),
  ALLREDUCE_BIND_HOST("sodm.allreduce.bind.host", "", Group.RUNTIME, Type.text("a host name or address, or empty", v -> !v.contains(" ")),
      null, null, "AllReduce mode: the address the tracker and the tasks bind and advertise (empty = 127.0.0.1 in local mode, "
          + "else the host's address; must be reachable from every NodeManager)."),

  // generate
  GENERATE_ROWS("sodm.generate.rows", "10000", Group.GENERATE, Type.integer(1, Long.MAX_VALUE), "-n,--rows", "N",
      "Rows of synthetic data."),
  GENERATE_FEATURES("sodm.generate.features", "10", Group.GENERATE, Type.integer(1, 1_000_000), "-d,--features", "D",
      "Features of synthetic data (the first min(3, d) carry the class boundary)."),
  GENERATE_NOISE("sodm.generate.noise", "0.0", Group.GENERATE, Type.real(0, true, 0.5, false), "--noise", "P",
      "Probability that a synthetic label is flipped, in [0, 0.5)."),

  // common to all
  LOCAL_PARALLELISM("sodm.local.parallelism", "0", Group.RUNTIME, Type.integer(0, 4096), null, null,
      "Local mode: map and reduce tasks run at once (0 = all cores)."),
  LOCAL_INPROCESS_MAX_BYTES("sodm.local.inprocess.max.bytes", "67108864", Group.RUNTIME, Type.integer(0, Long.MAX_VALUE), null, null,
      "Local mode: map-only jobs, and jobs with reducers whose shuffle (input splits times the copies of a row the map may send) "
          + "totals at most this many bytes, run their tasks on this process's threads without LocalJobRunner (the same tasks, "
          + "outputs and model; no staging directory, job.xml, sort buffer or spilled map output: 0.3-0.4 s less per job); larger "
          + "jobs with reducers, and jobs whose reducers would see equal keys, go through LocalJobRunner. 0: every job through "
          + "LocalJobRunner."),
  LOCAL_FS_IMPL("fs.file.impl", "org.sodm.jobs.support.NioLocalFileSystem", Group.RUNTIME, Type.text("a class name", v -> !v.isBlank()),
      null, null, "Hadoop key: the file: file system. Hadoop's checksummed local file system with permissions set and read through "
          + "java.nio instead of a chmod / ls child process per file when the native hadoop library is absent (thousands per "
          + "training run). Set org.apache.hadoop.fs.LocalFileSystem for Hadoop's own."),
  SEED("sodm.seed", "1", Group.COMMON, Type.integer(Long.MIN_VALUE, Long.MAX_VALUE), "--seed", "S",
      "Seed of every random choice (same inputs, parameters and seed give the same result)."),
  OVERWRITE("sodm.overwrite", "false", Group.RUNTIME, Type.bool(), "--overwrite", null,
      "Replace an existing output directory instead of failing."),
  LOCK_LEASE("sodm.lock.lease.seconds", "60", Group.RUNTIME, Type.integer(1, 86400), null, null,
      "A training run holds a lock beside its output directory (.NAME.sodm-lock) and renews it every third of this; a lock not "
          + "renewed for this long belongs to a run that died and is taken over."),
  PREDICT_MODE("sodm.predict.mode", "global", Group.PREDICT, Type.choice("global", "local"), "--mode", "M",
      "sodm predict --mode: global (the model's decision function) or local (the block of the nearest k-means centre: DC-SVM "
          + "early prediction, or PBM's local model alpha_t + d_r in exact mode; needs a model trained with --partitioner kmeans)."),
  PREDICT_TEXT("sodm.predict.text", "false", Group.PREDICT, Type.bool(), "--text", null,
      "sodm predict --text: also write OUTPUT/predictions.txt as svm-predict writes its output file: a line per scored row in "
          + "input order with the predicted label; with a --probability model a first line 'labels' and the classes in LIBSVM's label "
          + "order, then each row's label and class probabilities (svm-predict -b 1). Written by the driver from the part files.");

  private static boolean isAutoOr(String v, long lo, long hi) {
    if (v.equals("auto")) return true;
    try {
      long l = Long.parseLong(v);
      return l >= lo && l <= hi;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean isLevels(String v) {
    if (v.equals("auto")) return true;
    try {
      int l = Integer.parseInt(v);
      return l >= 0 && l <= 20;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean isLoss(String v) {
    try {
      org.sodm.solver.Loss.canonicalId(v);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Empty, or a number in (0, 1]. */
  private static boolean isUnitOrEmpty(String v) {
    if (v.isEmpty()) return true;
    try {
      double d = Double.parseDouble(v);
      return d > 0 && d <= 1;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean isOpenUnitOrEmpty(String v) {
    if (v.isEmpty()) return true;
    try {
      double d = Double.parseDouble(v);
      return d > 0 && d < 1;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean isScale(String v) {
    try {
      org.sodm.data.Scaler.parseRange(v);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** What a parameter is about; the groups of a training spec go into its provenance. */
  public enum Group { INGEST, LOSS, KERNEL, TREE, EXACT, SOLVER, LINEAR, GENERATE, PREDICT, COMMON, RUNTIME }

  /** How an option is given on the command line. */
  public enum Kind { VALUE, FLAG, NEGATED_FLAG, AUTO_FLAG }

  private final String key;
  private final String defaultValue;
  private final Group group;
  private final Type type;
  private final List<String> options;
  private final String label;
  private final String description;

  Param(String key, String defaultValue, Group group, Type type, String options, String label, String description) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.group = group;
    this.type = type;
    this.options = options == null ? List.of() : List.of(options.split(","));
    this.label = label;
    this.description = description;
  }

  public String key() {
    return key;
  }

  public String defaultValue() {
    return defaultValue;
  }

  public Group group() {
    return group;
  }

  public Type type() {
    return type;
  }

  /** Option names ({@code -c}, {@code --cost}); empty when the parameter is set with -D only. */
  public List<String> options() {
    return options;
  }

  /** The option's value label in --help (null for flags). */
  public String label() {
    return label;
  }

  public String description() {
    return description;
  }

  public Kind kind() {
    if (type instanceof Type.AutoBool && !options.isEmpty()) return Kind.AUTO_FLAG;
    if (!(type instanceof Type.Bool) || options.isEmpty()) return Kind.VALUE;
    return options.get(0).startsWith("--no-") ? Kind.NEGATED_FLAG : Kind.FLAG;
  }

  /** An {@link Kind#AUTO_FLAG}'s option that sets false: --no-NAME. */
  public String negatedName() {
    return "--no-" + optionName().substring(2);
  }

  /** The longest option name, as error messages name it ({@code --cost}), else {@code -D key}. */
  public String optionName() {
    return options.isEmpty() ? "-D " + key : options.get(options.size() - 1);
  }

  /** The description with the option and default, as --help shows it. */
  public String help() {
    String d = description;
    if (kind() == Kind.NEGATED_FLAG) {
      d += " On by default; " + optionName() + " sets " + key + "=false.";
    } else if (kind() == Kind.AUTO_FLAG) {
      d += " (" + key + ", default " + defaultValue + "; " + optionName() + " sets true, " + negatedName() + " false)";
    } else {
      d += " (" + key + (kind() == Kind.FLAG ? "" : ", default " + (defaultValue.isEmpty() ? "none" : defaultValue)) + ")";
    }
    return d;
  }

  /** The description as conf/sodm-default.xml has it (the option named at the end). */
  public String xmlDescription() {
    if (options.isEmpty()) return description;
    if (kind() == Kind.NEGATED_FLAG) return description + " Option " + optionName() + " turns it off.";
    if (kind() == Kind.AUTO_FLAG) return description + " Options " + optionName() + " / " + negatedName() + ".";
    return description + " Option " + String.join(" / ", options) + ".";
  }

  /** Checks a value; throws naming the option and key when it is not one this parameter takes. */
  public String check(String value) {
    if (value == null) throw new BadParameterException("configuration key " + key + " has no value (is sodm-default.xml on the classpath?)");
    String v = value.trim();
    String why = type.problem(v);
    if (why != null) throw new BadParameterException("bad parameter " + optionName() + " (" + key + "): " + why + ", got '" + value + "'");
    return v;
  }

  /** The validated value in {@code conf} (the table's default when the key is absent). */
  public String value(org.apache.hadoop.conf.Configuration conf) {
    return check(conf.get(key, defaultValue));
  }

  public long longValue(org.apache.hadoop.conf.Configuration conf) {
    return Long.parseLong(value(conf));
  }

  public double doubleValue(org.apache.hadoop.conf.Configuration conf) {
    return Double.parseDouble(value(conf));
  }

  public boolean booleanValue(org.apache.hadoop.conf.Configuration conf) {
    return Boolean.parseBoolean(value(conf));
  }

  private static final Map<String, Param> BY_KEY = Arrays.stream(values()).collect(Collectors.toMap(Param::key, Function.identity()));

  /** The parameter of a key, or null. */
  public static Param byKey(String key) {
    return BY_KEY.get(key);
  }

  /**
   * Fails on a {@code sodm.*} key that is not in the table (a misspelt -D key would otherwise be
   * ignored), naming the nearest key; {@code sodm.internal.*} keys are the drivers' own.
   */
  public static void checkKnown(Iterable<Map.Entry<String, String>> conf) {
    for (Map.Entry<String, String> e : conf) {
      String k = e.getKey();
      if (!k.startsWith("sodm.") || k.startsWith("sodm.internal.") || BY_KEY.containsKey(k)) continue;
      String best = null;
      int bestD = Integer.MAX_VALUE;
      for (String known : BY_KEY.keySet()) {
        int d = editDistance(k, known);
        if (d < bestD || (d == bestD && known.compareTo(best) < 0)) {
          bestD = d;
          best = known;
        }
      }
      throw new BadParameterException("unknown configuration key " + k + " (did you mean " + best + "? every key: conf/sodm-default.xml)");
    }
  }

  static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) prev[j] = j;
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        cur[j] = Math.min(Math.min(cur[j - 1], prev[j]) + 1, prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** A CSV input's layout: a model records it with its training parameters, and predict reads a CSV so by default. */
  public static final List<Param> CSV_LAYOUT = List.of(INGEST_LABEL_COLUMN, INGEST_DELIMITER, INGEST_HEADER);

  /** The parameters of some groups, in table order. */
  public static List<Param> of(Group... groups) {
    List<Group> g = List.of(groups);
    return Arrays.stream(values()).filter(p -> g.contains(p.group)).toList();
  }

  /** The value types, each with its validator and a sample of values it must refuse (for the tests). */
  public abstract static sealed class Type {
    /** Null when {@code v} (trimmed) is valid, else why not. */
    abstract String problem(String v);

    /** Values this type refuses, for the table's tests. */
    public abstract List<String> invalidSamples();

    Type and(java.util.function.Predicate<String> extra, String why) {
      Type base = this;
      return new Text(why, v -> base.problem(v) == null && extra.test(v)) {
        @Override
        String problem(String v) {
          String p = base.problem(v);
          return p != null ? p : super.problem(v);
        }

        @Override
        public List<String> invalidSamples() {
          return base.invalidSamples();
        }
      };
    }

    static Type choice(String... values) {
      return new Choice(List.of(values));
    }

    static Type positive() {
      return new Real(0, false, Double.POSITIVE_INFINITY, false);
    }

    static Type real(double lo, boolean loIn, double hi, boolean hiIn) {
      return new Real(lo, loIn, hi, hiIn);
    }

    static Type optionalReal() {
      return new Text("a number, or empty", v -> {
        if (v.isEmpty()) return true;
        try {
          return Double.isFinite(Double.parseDouble(v));
        } catch (NumberFormatException e) {
          return false;
        }
      });
    }

    static Type integer(long lo, long hi) {
      return new Int(lo, hi);
    }

    static Type bool() {
      return new Bool();
    }

    static Type autoBool() {
      return new AutoBool();
    }

    static Type text(String what, java.util.function.Predicate<String> ok) {
      return new Text(what, ok);
    }

    /** One of a fixed list of words (case-insensitive); an error lists them. */
    public static final class Choice extends Type {
      private final List<String> values;

      Choice(List<String> values) {
        this.values = values;
      }

      public List<String> values() {
        return values;
      }

      @Override
      String problem(String v) {
        return values.contains(v.toLowerCase(Locale.ROOT)) ? null : "must be one of " + String.join(", ", values);
      }

      @Override
      public List<String> invalidSamples() {
        return List.of("foo", "");
      }
    }

    /** A finite number in a range. */
    public static final class Real extends Type {
      private final double lo;
      private final double hi;
      private final boolean loIn;
      private final boolean hiIn;

      Real(double lo, boolean loIn, double hi, boolean hiIn) {
        this.lo = lo;
        this.hi = hi;
        this.loIn = loIn;
        this.hiIn = hiIn;
      }

      @Override
      String problem(String v) {
        double d;
        try {
          d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
          return "not a number";
        }
        if (!Double.isFinite(d)) return "must be finite";
        boolean ok = (loIn ? d >= lo : d > lo) && (hiIn ? d <= hi : d < hi);
        return ok ? null : "must be " + range();
      }

      private String range() {
        boolean noLo = lo == Double.NEGATIVE_INFINITY;
        boolean noHi = hi == Double.POSITIVE_INFINITY;
        if (noLo && noHi) return "a finite number";
        if (noHi) return (loIn ? ">= " : "> ") + fmt(lo);
        if (noLo) return (hiIn ? "<= " : "< ") + fmt(hi);
        return "in " + (loIn ? "[" : "(") + fmt(lo) + ", " + fmt(hi) + (hiIn ? "]" : ")");
      }

      private static String fmt(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
      }

      @Override
      public List<String> invalidSamples() {
        List<String> s = new java.util.ArrayList<>(List.of("abc", "NaN", "Infinity"));
        if (lo != Double.NEGATIVE_INFINITY) s.add(loIn ? String.valueOf(lo - 1) : String.valueOf(lo));
        if (hi != Double.POSITIVE_INFINITY) s.add(hiIn ? String.valueOf(hi + 1) : String.valueOf(hi));
        return s;
      }
    }

    /** A whole number in a range. */
    public static final class Int extends Type {
      private final long lo;
      private final long hi;

      Int(long lo, long hi) {
        this.lo = lo;
        this.hi = hi;
      }

      @Override
      String problem(String v) {
        long d;
        try {
          d = Long.parseLong(v);
        } catch (NumberFormatException e) {
          return "not an integer";
        }
        if (d < lo || d > hi) {
          if (hi == Long.MAX_VALUE || hi == Integer.MAX_VALUE) return "must be >= " + lo;
          return "must be in [" + lo + ", " + hi + "]";
        }
        return null;
      }

      @Override
      public List<String> invalidSamples() {
        List<String> s = new java.util.ArrayList<>(List.of("1.5", "x"));
        if (lo != Long.MIN_VALUE) s.add(String.valueOf(lo - 1));
        if (hi != Long.MAX_VALUE) s.add(String.valueOf(hi + 1));
        return s;
      }
    }

    /** true or false. */
    public static final class Bool extends Type {
      @Override
      String problem(String v) {
        return v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false") ? null : "must be true or false";
      }

      @Override
      public List<String> invalidSamples() {
        return List.of("yes", "1");
      }
    }

    /** auto, true or false: a rule decides unless the user does ({@link Kind#AUTO_FLAG}: --NAME and --no-NAME). */
    public static final class AutoBool extends Type {
      @Override
      String problem(String v) {
        return List.of("auto", "true", "false").contains(v.toLowerCase(Locale.ROOT)) ? null : "must be auto, true or false";
      }

      @Override
      public List<String> invalidSamples() {
        return List.of("yes", "");
      }
    }

    /** Free text with a check. */
    public static non-sealed class Text extends Type {
      private final String what;
      private final java.util.function.Predicate<String> ok;

      Text(String what, java.util.function.Predicate<String> ok) {
        this.what = what;
        this.ok = ok;
      }

      @Override
      String problem(String v) {
        return ok.test(v) ? null : "must be " + what;
      }

      @Override
      public List<String> invalidSamples() {
        return java.util.stream.Stream.of("xx", "a b", "").filter(v -> problem(v) != null).toList();
      }
    }
  }
}
