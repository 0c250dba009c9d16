package org.sodm.jobs.train;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.BlockStats;
import org.sodm.avro.Instance;
import org.sodm.avro.LevelStats;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Provenance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.OutputDir;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelExpansion;
import org.sodm.model.KernelModel;
import org.sodm.model.Model;
import org.sodm.model.ModelCodec;
import org.sodm.model.Routing;

/**
 * {@code sodm train}: SODM Algorithm 1 as a chain of jobs, each phase in its own
 * sub-directory of {@code OUTPUT/work} (written atomically: present means complete):
 *
 * <pre>
 * work/ingest       the training data as Instances (skipped when the input already is an ingest directory)
 * work/validation   the --validation data as Instances
 * work/landmarks    landmarks (stratified) or the k-means sample with its clusters (kmeans)
 * work/level-L ... work/level-1 (or level-0 for one block): data/ (TrainRecords with alpha), stats/ (BlockStats)
 * refine, level-0, pbm/init, pbm/iter-NNNN   exact mode (--exact, see {@link ExactPhase})
 * model.avro        the model of the last level (exact mode: one expansion); train-report.json
 * </pre>
 *
 * {@code --resume} skips the phases that are present, after checking the parameters match.
 *
 * <p>{@code --phase NAME} ({@link Request#phase()}) runs with resume semantics (resuming when
 * OUTPUT holds an earlier run, starting it otherwise) up to and including the phase NAME
 * ({@code ingest}, {@code validation}, {@code landmarks}, {@code level-N}, {@code model}) and
 * stops, so that a workflow runs one phase per step. A phase this run does not have (no
 * validation data, no landmarks for the random partitioner, a level after an early stop) is an
 * empty step. The last progress line then lists every phase as {@code done}, {@code todo} or
 * {@code none} (not part of this run).
 */
public final class TrainPipeline {
  public static final String MODEL = "model.avro";
  public static final String REPORT = "train-report.json";
  public static final String WORK = "work";
  static final String PARAMS = "params.properties";

  /** What the user asked for; {@code phase} (may be null: all) is the last phase to run. */
  public record Request(List<String> inputs, List<String> validation, Path output, boolean resume, String phase) {
    public Request(List<String> inputs, List<String> validation, Path output, boolean resume) {
      this(inputs, validation, output, resume, null);
    }
  }

  /** What a run produced; model and modelPath are null when it stopped before the model phase. */
  public record Result(Model model, Path modelPath, List<LevelStats> levels, double seconds) {}

  /** The phases before the levels, in order (see {@link #phaseRank}). */
  static final List<String> FIRST_PHASES = List.of("ingest", "validation", "landmarks");

  private final Configuration conf;
  private final Request req;
  private final TrainConfig tc;
  private final Consumer<String> progress;
  private final long t0 = System.nanoTime();
  private FileSystem fs;
  private Path work;
  private boolean resume;
  private int stopRank = Integer.MAX_VALUE;

  private TrainPipeline(Configuration conf, Request req, Consumer<String> progress) {
    this.conf = conf;
    this.req = req;
    this.tc = TrainConfig.from(conf);
    this.progress = progress;
  }

  /** Validates every parameter (before any job), then runs the phases. */
  public static Result run(Configuration base, Request req, Consumer<String> progress) throws IOException {
    AvroClasses.trust();
    Configuration conf = new Configuration(base);
    Jobs.localParallelism(conf);
    return new TrainPipeline(conf, req, progress).run();
  }

  private double elapsed() {
    return (System.nanoTime() - t0) / 1e9;
  }

  private void say(String phase, String what, double phaseSeconds) {
    progress.accept(progressLine(phase, what, phaseSeconds, elapsed()));
  }

  /** One progress line of {@code sodm train} (the bench harness parses this layout). */
  public static String progressLine(String phase, String what, double phaseSeconds, double totalSeconds) {
    return String.format(Locale.ROOT, "%-12s %-70s %7.1f s  (total %.1f s)", phase, what, phaseSeconds, totalSeconds);
  }

  private Result run() throws IOException {
    Path out = req.output();
    fs = out.getFileSystem(conf);
    out = fs.makeQualified(out);
    work = new Path(out, WORK);
    List<Integer> plannedBlocks = tc.levelBlocks();
    int plannedTop = plannedBlocks.get(plannedBlocks.size() - 1) > 1 ? plannedBlocks.size() : plannedBlocks.size() - 1;
    resume = req.resume();
    if (req.phase() != null) {
      stopRank = phaseRank(req.phase(), plannedTop, plannedBlocks.size());
      resume = resume || (fs.exists(new Path(work, PARAMS)) && !conf.getBoolean(SodmConf.OVERWRITE, false));
    }
    prepareWork(out);

    // ingest
    IngestJob.Result data = ingest(req.inputs(), "ingest");
    if (data.labelMap() == null) {
      throw new SodmException("training needs exactly two labels; " + req.inputs() + " has " + data.stats().getLabels().size()
          + ": " + data.stats().getLabels().stream().map(l -> l.getLabel()).toList());
    }
    tc.checkRows(data.stats().getRows());
    if (stopAfter(0)) return stopped(out, plannedTop, plannedBlocks.size());
    IngestJob.Result validation = req.validation() == null || req.validation().isEmpty() ? null : ingest(req.validation(), "validation");
    if (stopAfter(1)) return stopped(out, plannedTop, plannedBlocks.size());
    List<Instance> validationRows = validation == null ? null : AvroFiles.readDir(conf, new Path(validation.dir(), IngestJob.DATA), Instance.class);

    if (org.sodm.jobs.linear.LinearTrainer.selected(conf, tc)) { // --kernel linear: BQO / DSVRG (issue 9)
      return org.sodm.jobs.linear.LinearTrainer.train(conf, tc, data, req.inputs(), validationRows, out, progress);
    }
    KernelSpec kernel = tc.kernel(data.stats().getDimension());
    conf.set(TrainKeys.INGEST_DIR, data.dir().toString());
    TrainKeys.setKernel(conf, kernel);
    List<Integer> levelBlocks = tc.levelBlocks(data.stats().getRows());
    conf.setInt(TrainKeys.BLOCKS, levelBlocks.get(0));

    // landmarks / k-means centres
    if (tc.partitioner != TrainConfig.Partitioner.RANDOM && levelBlocks.get(0) > 1) {
      Path lm = new Path(work, "landmarks");
      if (!fs.exists(lm)) {
        long t = System.nanoTime();
        try (OutputDir od = OutputDir.create(conf, lm, false)) {
          String mode = tc.partitioner == TrainConfig.Partitioner.KMEANS ? "kmeans" : "stratified";
          if (!LandmarkJob.fromSample(conf, data.dir(), new Path(od.temp(), "data"), mode)) {
            LandmarkJob.run(conf, new Path(data.dir(), IngestJob.DATA), new Path(od.temp(), "data"), mode);
          }
          fs.delete(new Path(od.temp(), "_failures"), true);
          od.commit();
        }
        int count = TrainIO.readRecords(conf, new Path(lm, "data")).size();
        say(tc.partitioner == TrainConfig.Partitioner.KMEANS ? "kmeans" : "landmarks",
            tc.partitioner == TrainConfig.Partitioner.KMEANS
                ? String.format(Locale.ROOT, "%d clusters fitted on a sample of %d", levelBlocks.get(0), count)
                : String.format(Locale.ROOT, "%d landmarks (strata), kernel %s", count, kernel),
            (System.nanoTime() - t) / 1e9);
      } else {
        progress.accept("landmarks    (complete, resumed)");
      }
      conf.set(TrainKeys.LANDMARKS_DIR, new Path(lm, "data").toString());
    }
    if (stopAfter(2)) return stopped(out, plannedTop, plannedBlocks.size());

    // levels
    int top = plannedTop; // levels keep their planned numbers when --max-block-rows stops the tree early
    List<LevelStats> levels = new ArrayList<>();
    Path previous = new Path(data.dir(), IngestJob.DATA);
    Path last = null;
    for (int i = 0; i < levelBlocks.size(); i++) {
      int level = top - i;
      int blocks = levelBlocks.get(i);
      Path dir = new Path(work, "level-" + level);
      long t = System.nanoTime();
      boolean resumed = fs.exists(dir);
      if (!resumed) {
        try (OutputDir od = OutputDir.create(conf, dir, false)) {
          SolveJob.run(conf, previous, i == 0, level, blocks, new Path(od.temp(), "data"), new Path(od.temp(), "stats"));
          fs.delete(new Path(od.temp(), "_failures"), true);
          od.commit();
        }
      }
      double wall = (System.nanoTime() - t) / 1e9;
      List<BlockStats> stats = TrainIO.readStats(conf, new Path(dir, "stats"));
      long tv = System.nanoTime();
      Model levelModel = validationRows == null ? null : buildModel(new Path(dir, "data"), kernel, data, List.of(), "");
      Double acc = levelModel == null ? null : accuracy(levelModel, validationRows);
      double validationSeconds = (System.nanoTime() - tv) / 1e9;
      LevelStats ls = levelStats(level, stats, wall, acc);
      levels.add(ls);
      say(resumed ? "level " + level + "*" : "level " + level, String.format(Locale.ROOT,
          "%4d blocks  obj %12.6g  viol %.2e  SV %,7d  mem %4d MB%s", ls.getBlocks(), ls.getObjective(), ls.getMaxViolation(),
          ls.getSupportVectors(), (ls.getMaxBlockMemoryBytes() + (1 << 19)) >> 20, acc == null ? ""
              : String.format(Locale.ROOT, "  acc %.2f%% (scored in %.1f s)", 100 * acc, validationSeconds)), wall);
      previous = new Path(dir, "data");
      last = previous;
      if (i > 0 && tc.earlyStop && ls.getMaxInitialViolation() <= tc.solver.eps() && i + 1 < levelBlocks.size()) {
        progress.accept(String.format(Locale.ROOT, "early stop: every block of level %d was converged at its warm start", level));
        break;
      }
      if (stopAfter(FIRST_PHASES.size() + i)) return stopped(out, plannedTop, plannedBlocks.size());
    }
    if (levelBlocks.size() < plannedBlocks.size()) {
      progress.accept(String.format(Locale.ROOT, "stop: merging %d blocks further would exceed --max-block-rows %d",
          levelBlocks.get(levelBlocks.size() - 1), tc.maxBlockRows));
    }
    if (stopAfter(FIRST_PHASES.size() + levelBlocks.size() - 1)) return stopped(out, plannedTop, plannedBlocks.size());

    // exact mode (issue 8): the whole problem from the last level's solution
    java.util.function.UnaryOperator<TrainRecord> transform = null;
    int merges = levels.size() - 1;
    ExactPhase.Result exactResult = null;
    boolean bySize = tc.exactBySize(data.stats().getRows(), levels.get(levels.size() - 1).getBlocks());
    if (tc.exact || bySize) {
      LevelStats top1 = levels.get(levels.size() - 1);
      ExactPhase.Result ex = new ExactPhase(conf, fs, work, tc, progress).run(last, data.stats().getRows(), top1.getBlocks(),
          top1.getSupportVectors(), bySize);
      last = ex.data();
      exactResult = ex;
      double beta = ex.beta();
      transform = r -> {
        TrainRecord c = ExactPhase.finalRecord(r, beta, tc.loss);
        c.setBlock(0);
        return c;
      };
      Model exModel = buildModel(last, kernel, data, List.of(), "", transform);
      Double acc = validationRows == null ? null : accuracy(exModel, validationRows);
      levels.add(new LevelStats(0, 1, ex.objective(), ex.violation(), Double.NaN, exModel.supportVectors(), 0L, ex.seconds(), 0L,
          acc));
      say("exact", String.format(Locale.ROOT, "%s%s obj %.10g viol %.2e%s%s",
          bySize ? String.format(Locale.ROOT, "(n <= %d rows) ", tc.exactBelowRows) : "",
          ex.pbm() ? ex.iterations() + " PBM iterations," : "one block,",
          ex.objective(), ex.violation(), ex.converged() ? "" : " (not converged)",
          acc == null ? "" : String.format(Locale.ROOT, "  acc %.2f%%", 100 * acc)), ex.seconds());
    }

    // model
    long tm = System.nanoTime();
    KernelModel model = buildModel(last, kernel, data, levels, String.join(",", req.inputs()), transform);
    if (tc.partitioner == TrainConfig.Partitioner.KMEANS && levelBlocks.get(0) > 1) {
      model = model.withRouting(routing(model, kernel, levelBlocks.get(0), merges, exactResult));
    }
    Path modelPath = new Path(out, MODEL);
    Path tmp = new Path(out, "." + MODEL + ".tmp");
    AvroFiles.writeOne(conf, tmp, ModelRecord.getClassSchema(), ModelCodec.toAvro(model));
    fs.delete(modelPath, false);
    if (!fs.rename(tmp, modelPath)) throw new IOException("cannot rename " + tmp + " to " + modelPath);
    writeReport(new Path(out, REPORT), model, levels);
    say("model", String.format(Locale.ROOT, "%d block(s), %,d support vectors -> %s", model.blockCount(), model.supportVectors(),
        modelPath), (System.nanoTime() - tm) / 1e9);
    return new Result(model, modelPath, levels, elapsed());
  }

  /**
   * The position of a phase in the run: ingest 0, validation 1, landmarks 2, then the levels from
   * the top one down, then model. Fails (before any job) naming the phases when NAME is not one.
   */
  static int phaseRank(String name, int top, int levels) {
    int i = FIRST_PHASES.indexOf(name);
    if (i >= 0) return i;
    if (name.equals("model")) return FIRST_PHASES.size() + levels;
    if (name.startsWith("level-")) {
      try {
        int level = Integer.parseInt(name.substring("level-".length()));
        if (level <= top && level > top - levels) return FIRST_PHASES.size() + top - level;
      } catch (NumberFormatException e) {
        // falls through to the error
      }
    }
    throw new SodmException("--phase " + name + ": this run's phases are " + String.join(", ", phaseNames(top, levels)));
  }

  static List<String> phaseNames(int top, int levels) {
    List<String> names = new ArrayList<>(FIRST_PHASES);
    for (int l = top; l > top - levels; l--) names.add("level-" + l);
    names.add("model");
    return names;
  }

  private boolean stopAfter(int rank) {
    return rank >= stopRank;
  }

  /** The end of a --phase run: says which phases are complete, returns no model. */
  private Result stopped(Path out, int top, int levels) throws IOException {
    StringBuilder sb = new StringBuilder("phases:");
    for (String name : phaseNames(top, levels)) {
      Path p = name.equals("model") ? new Path(out, MODEL) : new Path(work, name);
      boolean done = fs.exists(p) || (name.equals("ingest") && req.inputs().size() == 1 && isIngestDir(new Path(req.inputs().get(0))));
      boolean none = (name.equals("validation") && (req.validation() == null || req.validation().isEmpty()))
          || (name.equals("landmarks") && (tc.partitioner == TrainConfig.Partitioner.RANDOM || tc.levelBlocks().get(0) <= 1));
      sb.append(' ').append(name).append('=').append(done ? "done" : none ? "none" : "todo");
    }
    progress.accept(String.format(Locale.ROOT, "stopped after phase %s (--phase)", req.phase()));
    progress.accept(sb.toString());
    return new Result(null, null, List.of(), elapsed());
  }

  private boolean isIngestDir(Path p) throws IOException {
    FileSystem ifs = p.getFileSystem(conf);
    return ifs.isDirectory(p) && ifs.exists(new Path(p, IngestJob.STATS));
  }

  private void prepareWork(Path out) throws IOException {
    Properties params = new Properties();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith("sodm.") && !e.getKey().startsWith("sodm.internal.") && !e.getKey().equals(SodmConf.OVERWRITE)
          && !e.getKey().equals(Jobs.LOCAL_PARALLELISM) && !e.getKey().equals(SodmConf.TRAIN_REDUCERS)) {
        params.setProperty(e.getKey(), conf.get(e.getKey()));
      }
    }
    params.setProperty("sodm.internal.inputs", String.join(",", req.inputs()));
    Path pp = new Path(work, PARAMS);
    if (resume) {
      if (!fs.exists(pp)) throw new SodmException("--resume: " + work + " holds no earlier run (no " + PARAMS + ")");
      Properties old = new Properties();
      try (InputStream in = fs.open(pp)) {
        old.load(in);
      }
      List<String> diff = new ArrayList<>();
      for (String k : new java.util.TreeSet<>(union(old.stringPropertyNames(), params.stringPropertyNames()))) {
        if (!sameValue(old.getProperty(k), params.getProperty(k))) {
          diff.add(k + " was " + old.getProperty(k) + ", now " + params.getProperty(k));
        }
      }
      if (!diff.isEmpty()) throw new SodmException("--resume with different parameters: " + String.join("; ", diff));
      int stale = OutputDir.removeStale(fs, work);
      progress.accept("resuming from " + work + (stale > 0 ? " (removed " + stale + " unfinished phase director"
          + (stale == 1 ? "y" : "ies") + " of the interrupted run)" : ""));
      return;
    }
    if (fs.exists(out)) {
      if (!conf.getBoolean(SodmConf.OVERWRITE, false)) {
        throw new SodmException("output " + out + " already exists (pass --resume to continue it, or --overwrite)");
      }
      fs.delete(out, true);
    }
    fs.mkdirs(work);
    try (OutputStream o = fs.create(pp, true)) {
      params.store(o, "sodm train parameters");
    }
  }

  /** Equal as text, or as numbers ("2" and "2.0" are the same C). */
  static boolean sameValue(String a, String b) {
    if (java.util.Objects.equals(a, b)) return true;
    if (a == null || b == null) return false;
    try {
      return Double.parseDouble(a.trim()) == Double.parseDouble(b.trim());
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static java.util.Set<String> union(java.util.Set<String> a, java.util.Set<String> b) {
    java.util.Set<String> u = new java.util.HashSet<>(a);
    u.addAll(b);
    return u;
  }

  private IngestJob.Result ingest(List<String> inputs, String phase) throws IOException {
    if (inputs.size() == 1) {
      Path p = new Path(inputs.get(0));
      FileSystem ifs = p.getFileSystem(conf);
      if (ifs.isDirectory(p) && ifs.exists(new Path(p, IngestJob.STATS))) {
        IngestJob.Result r = IngestJob.read(conf, p);
        progress.accept(String.format(Locale.ROOT, "%-12s %s is an ingest directory: %,d rows", phase, p, r.stats().getRows()));
        return r;
      }
    }
    Path dir = new Path(work, phase);
    if (!fs.exists(dir)) {
      long t = System.nanoTime();
      Configuration c = new Configuration(conf);
      c.setBoolean(SodmConf.OVERWRITE, false);
      if (phase.equals("validation")) c.set(SodmConf.INGEST_SCALE, "none"); // the model's scaler applies
      IngestJob.Result r = IngestJob.run(c, inputs, dir);
      say(phase, String.format(Locale.ROOT, "%,d rows, %d features, labels %s", r.stats().getRows(), r.stats().getDimension(),
          r.stats().getLabels().stream().map(l -> l.getLabel() + "=" + l.getCount()).toList()), (System.nanoTime() - t) / 1e9);
      return r;
    }
    IngestJob.Result r = IngestJob.read(conf, dir);
    progress.accept(String.format(Locale.ROOT, "%-12s (complete, resumed) %,d rows", phase, r.stats().getRows()));
    return r;
  }

  private KernelModel buildModel(Path levelData, KernelSpec kernel, IngestJob.Result data, List<LevelStats> levels, String input)
      throws IOException {
    return buildModel(levelData, kernel, data, levels, input, null);
  }

  /** {@code transform} (or null) maps each record before it goes into the model (exact mode: final alpha, block 0). */
  private KernelModel buildModel(Path levelData, KernelSpec kernel, IngestJob.Result data, List<LevelStats> levels, String input,
      java.util.function.UnaryOperator<TrainRecord> transform) throws IOException {
    ModelBuilder b = new ModelBuilder();
    AvroFiles.forEach(conf, levelData, TrainRecord.class, r -> b.add(transform == null ? r : transform.apply(r)));
    Map<String, String> params = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith("sodm.") && !e.getKey().startsWith("sodm.internal.")) params.put(e.getKey(), conf.get(e.getKey()));
    }
    Provenance prov = new Provenance(org.sodm.cli.SodmMain.version(), Instant.now().toString(), input,
        fingerprint(data), new HashMap<>(params), new ArrayList<>(levels));
    return b.build(kernel, tc.loss, data.labelMap(), data.scaler(), prov);
  }

  /**
   * Local prediction routing (kmeans partitioner): the k-means sample and memberships of
   * work/landmarks; cluster c was bottom block c and, after {@code merges} rounds, is in final
   * block c / p^merges. Exact mode with PBM adds, per final block r, the correction (1 - beta) d_r
   * of the last iteration (local model alpha_t + d_{S_r}); in exact mode with one block every
   * cluster routes to the one global block.
   */
  private Routing routing(KernelModel model, KernelSpec kernel, int clusters, int merges, ExactPhase.Result ex) throws IOException {
    List<TrainRecord> sample = TrainIO.readRecords(conf, new Path(new Path(work, "landmarks"), "data"));
    SparseVector[] pts = new SparseVector[sample.size()];
    int[] mem = new int[pts.length];
    for (int i = 0; i < pts.length; i++) {
      pts[i] = Instances.features(sample.get(i).getFeatures());
      mem[i] = sample.get(i).getBlock();
    }
    int k = Math.min(clusters, pts.length);
    org.sodm.partition.KernelKMeans km = org.sodm.partition.KernelKMeans.fromState(pts, mem, k, kernel.create(), null);
    int[] finalId = new int[k];
    for (int c = 0; c < k; c++) {
      int b = c;
      for (int m = 0; m < merges; m++) b /= tc.fanout;
      finalId[c] = b;
    }
    int[] cb = new int[k];
    if (ex == null || !ex.pbm()) {
      Map<Integer, Integer> index = new HashMap<>();
      for (int b = 0; b < model.blockCount(); b++) index.put(model.blockId(b), b);
      for (int c = 0; c < k; c++) cb[c] = ex != null ? 0 : index.getOrDefault(finalId[c], 0);
      return new Routing(km, cb, null, null);
    }
    Map<Integer, List<SparseVector>> vec = new TreeMap<>();
    Map<Integer, List<Double>> coef = new TreeMap<>();
    for (int c = 0; c < k; c++) {
      vec.computeIfAbsent(finalId[c], x -> new ArrayList<>());
      coef.computeIfAbsent(finalId[c], x -> new ArrayList<>());
    }
    for (TrainRecord r : TrainIO.readRecords(conf, ex.data())) {
      double dg = PbmJobs.gamma(r.getDelta());
      vec.computeIfAbsent(r.getBlock(), x -> new ArrayList<>());
      coef.computeIfAbsent(r.getBlock(), x -> new ArrayList<>());
      if (dg == 0) continue;
      vec.get(r.getBlock()).add(Instances.features(r.getFeatures()));
      coef.get(r.getBlock()).add(r.getY() * (1 - ex.beta()) * dg);
    }
    org.sodm.kernel.Kernel base = kernel.create();
    KernelExpansion[] local = new KernelExpansion[vec.size()];
    int[] ids = new int[vec.size()];
    Map<Integer, Integer> index = new HashMap<>();
    int b = 0;
    for (Map.Entry<Integer, List<SparseVector>> e : vec.entrySet()) {
      double[] c = coef.get(e.getKey()).stream().mapToDouble(Double::doubleValue).toArray();
      double bias = 0;
      if (tc.loss.bias()) for (double v : c) bias += v;
      local[b] = new KernelExpansion(base, e.getValue().toArray(new SparseVector[0]), c, bias);
      ids[b] = e.getKey();
      index.put(e.getKey(), b++);
    }
    for (int c = 0; c < k; c++) cb[c] = index.get(finalId[c]);
    return new Routing(km, cb, local, ids);
  }

  static String fingerprint(IngestJob.Result data) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] h = md.digest(data.stats().toString().getBytes(StandardCharsets.UTF_8));
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < 12; i++) sb.append(String.format("%02x", h[i]));
      return String.format(Locale.ROOT, "rows=%d features=%d nnz=%d sha256(stats)=%s", data.stats().getRows(),
          data.stats().getDimension(), data.stats().getNonZeros(), sb);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Accuracy of a model on labelled instances, scored on all cores. */
  public static double accuracy(Model m, List<Instance> rows) {
    long correct = IntStream.range(0, rows.size()).parallel().filter(i -> {
      Instance in = rows.get(i);
      SparseVector x = Instances.features(in.getFeatures());
      return m.predict(x).equals(in.getLabel());
    }).count();
    return rows.isEmpty() ? Double.NaN : (double) correct / rows.size();
  }

  private static LevelStats levelStats(int level, List<BlockStats> stats, double wall, Double acc) {
    double obj = 0;
    double viol = 0;
    double init = 0;
    long sv = 0;
    long evals = 0;
    long mem = 0;
    for (BlockStats s : stats) {
      mem = Math.max(mem, s.getMemoryBytes());
      obj += s.getObjective();
      viol = Math.max(viol, s.getMaxViolation());
      init = Math.max(init, s.getInitialViolation());
      sv += s.getSupportVectors();
      evals += s.getKernelEvaluations();
    }
    return new LevelStats(level, stats.size(), obj, viol, init, sv, evals, wall, mem, acc);
  }

  /** A JSON number, or null for NaN and infinities (an exact level has no initial violation). */
  static String json(double v, String format) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, format, v) : "null";
  }

  private void writeReport(Path p, KernelModel model, List<LevelStats> levels) throws IOException {
    StringBuilder sb = new StringBuilder("{\n  \"levels\": [\n");
    for (int i = 0; i < levels.size(); i++) {
      LevelStats l = levels.get(i);
      sb.append(String.format(Locale.ROOT,
          "    {\"level\": %d, \"blocks\": %d, \"objective\": %s, \"maxViolation\": %s, \"maxInitialViolation\": %s, "
              + "\"supportVectors\": %d, \"kernelEvaluations\": %d, \"wallSeconds\": %.3f, \"maxBlockMemoryBytes\": %d, "
              + "\"validationAccuracy\": %s}%s\n",
          l.getLevel(), l.getBlocks(), json(l.getObjective(), "%.10g"), json(l.getMaxViolation(), "%.4g"),
          json(l.getMaxInitialViolation(), "%.4g"), l.getSupportVectors(),
          l.getKernelEvaluations(), l.getWallSeconds(), l.getMaxBlockMemoryBytes(),
          l.getValidationAccuracy() == null ? "null" : String.format(Locale.ROOT, "%.6f", l.getValidationAccuracy()),
          i + 1 < levels.size() ? "," : ""));
    }
    sb.append(String.format(Locale.ROOT, "  ],\n  \"blocks\": %d,\n  \"supportVectors\": %d,\n  \"seconds\": %.3f\n}\n",
        model.blockCount(), model.supportVectors(), elapsed()));
    try (OutputStream o = fs.create(p, true)) {
      o.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }
  }
}
