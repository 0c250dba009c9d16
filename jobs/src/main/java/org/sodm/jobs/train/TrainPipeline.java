package org.sodm.jobs.train;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.Instance;
import org.sodm.avro.LevelStats;
import org.sodm.data.AvroClasses;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.linear.BqoTrainer;
import org.sodm.jobs.linear.DsvrgTrainer;
import org.sodm.jobs.linear.SaddleTrainer;
import org.sodm.jobs.phase.PhaseRunner;
import org.sodm.jobs.phase.TrainContext;
import org.sodm.jobs.phase.TrainOutput;
import org.sodm.jobs.phase.Trainer;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.OutputGuard;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.KernelModel;
import org.sodm.model.LinearModel;
import org.sodm.model.Model;

/**
 * {@code sodm train}: validates the {@link TrainSpec} (before any job), chooses the
 * {@link Trainer} once from it, and runs the phases through a {@link PhaseRunner}, each in its own
 * sub-directory of {@code OUTPUT/work} (present means complete):
 *
 * <pre>
 * work/ingest, work/validation   the training and --validation data as Instances (ingest is skipped for an ingest directory)
 * ...                            the trainer's phases: {@link KernelTreeTrainer} (landmarks, level-L..1, exact mode's),
 *                                {@link BqoTrainer} / {@link DsvrgTrainer} (partition, bqo | dsvrg)
 * model.avro, train-report.json  written by {@link TrainOutput}
 * </pre>
 *
 * {@code --resume} skips the phases that are present, after checking the parameters match.
 * {@code --phase NAME} runs with resume semantics (resuming when OUTPUT holds an earlier run,
 * starting it otherwise) up to and including the phase NAME and stops; the last progress line
 * then lists every phase as {@code done}, {@code todo} or {@code none} (not part of this run).
 */
public final class TrainPipeline {
  public static final String MODEL = TrainOutput.MODEL;
  public static final String REPORT = TrainOutput.REPORT;
  public static final String WORK = PhaseRunner.WORK;

  /** What the user asked for; {@code phase} (may be null: all) is the last phase to run. */
  public record Request(List<String> inputs, List<String> validation, Path output, boolean resume, String phase) {
    public Request(List<String> inputs, List<String> validation, Path output, boolean resume) {
      this(inputs, validation, output, resume, null);
    }
  }

  /** What a run produced; model and modelPath are null when it stopped before the model phase. */
  public record Result(Model model, Path modelPath, List<LevelStats> levels, double seconds) {}

  private TrainPipeline() {}

  /** The trainer of a spec: BQO, DSVRG, Saddle or TRON for the linear kernel (unless --linear-solver kernel), else the merge tree. */
  static Trainer trainer(TrainSpec spec) {
    TrainSpec.LinearSolver ls = spec.linearSolver();
    if (ls == TrainSpec.LinearSolver.BQO) return new BqoTrainer();
    if (ls == TrainSpec.LinearSolver.DSVRG) return new DsvrgTrainer();
    if (ls == TrainSpec.LinearSolver.SADDLE) return new SaddleTrainer();
    if (ls == TrainSpec.LinearSolver.TRON) return new org.sodm.jobs.linear.TronTrainer();
    return new KernelTreeTrainer();
  }

  /** The phases of a run with this spec, in order. */
  static List<PhaseRunner.Planned> phases(TrainSpec spec, Trainer trainer, boolean validation) {
    List<PhaseRunner.Planned> all = new ArrayList<>();
    all.add(PhaseRunner.Planned.of("ingest", true));
    all.add(PhaseRunner.Planned.of("validation", validation));
    all.addAll(trainer.phases(spec));
    all.add(PhaseRunner.Planned.of("model", true));
    return all;
  }

  /** Validates every parameter (before any job), then runs the phases. */
  public static Result run(Configuration base, Request req, Consumer<String> progress) throws IOException {
    long t0 = System.nanoTime();
    AvroClasses.trust();
    Configuration conf = new Configuration(base);
    Jobs.localParallelism(conf);
    TrainSpec spec = TrainSpec.from(conf);
    ClassWeights.check(spec); // a malformed entry, or a loss without class weights, fails before any job
    Trainer trainer = trainer(spec);
    boolean hasValidation = req.validation() != null && !req.validation().isEmpty();
    OutputGuard.checkDisjoint(conf, req.output(), req.inputs(), "input");
    OutputGuard.checkDisjoint(conf, req.output(), req.validation(), "validation input");
    PhaseRunner runner = new PhaseRunner(conf, req.output(), req.phase(), progress, t0);
    runner.plan(phases(spec, trainer, hasValidation), trainer::conditional);
    boolean overwrite = Param.OVERWRITE.booleanValue(conf);
    boolean resume = req.resume() || (runner.phased() && runner.hasEarlierRun() && !overwrite);
    java.util.Map<String, String> params = new java.util.TreeMap<>(spec.values());
    params.put("sodm.internal.inputs", String.join(",", req.inputs()));
    params.putAll(org.sodm.jobs.support.Fingerprints.of(conf, req.inputs()));
    params.putAll(org.sodm.jobs.support.Fingerprints.of(conf, req.validation()));
    try (runner) {
      runner.prepare(params, resume, overwrite);
      IngestJob.Result data = ingest(conf, runner, req.inputs(), "ingest", trainer.readsIngestSample(spec));
      List<String> classes = classes(data.stats());
      if (classes.size() < 2) {
        throw new SodmException("training needs at least two labels; " + req.inputs() + " has " + classes.size() + ": " + classes);
      }
      if (spec.multinomial() && classes.size() == 2) {
        TrainSpec binary = spec.multinomialOfTwoClasses();
        runner.note("multiclass   multinomial of two classes: binary logistic regression at C = 2 x " + spec.values().get(Param.C.key())
            + " = " + binary.values().get(Param.C.key()) + ", the same optimum (w = w_2 - w_1; its sigmoid is the softmax)");
        spec = binary;
      }
      org.sodm.model.Subproblems plan = plan(spec, data, classes, conf.getInt(TrainKeys.CV_FOLDS, 0));
      if (plan != null) TrainKeys.setPlan(conf, plan, classes);
      spec = ClassWeights.apply(conf, spec, classes);
      if (plan != null && !plan.full()) { // sodm cv: every row's fold, stratified, before the stratify job reads it
        Path folds = new Path(runner.work(), "cv-folds.bin");
        CvFolds.write(conf, new Path(data.dir(), IngestJob.DATA), classes, plan.folds(), spec.seed(), folds);
        conf.set(TrainKeys.CV_FOLDS_FILE, folds.toString());
      }
      spec.checkRows(data.stats().getRows());
      List<Instance> validationRows = null;
      if (hasValidation) {
        IngestJob.Result v = ingest(conf, runner, req.validation(), "validation", false);
        List<String> unknown = v.stats().getLabels().stream().map(l -> l.getLabel().toString())
            .filter(l -> !classes.contains(l)).toList();
        if (!unknown.isEmpty()) {
          throw new SodmException("--validation " + req.validation() + " has labels " + unknown + " that the training data "
              + req.inputs() + " does not have (its labels: " + String.join(", ", classes) + ")");
        }
        validationRows = AvroFiles.readDir(conf, new Path(v.dir(), IngestJob.DATA), Instance.class);
        conf.set(org.sodm.jobs.phase.ValidationScoring.DIR_KEY, new Path(v.dir(), IngestJob.DATA).toString()); // map-task scoring (cluster)
      } else {
        runner.passed("validation", "none");
      }
      spec = spec.withDimension(data.stats().getDimension());
      String scaleWarning = KernelScaleCheck.warning(conf, spec, data);
      if (scaleWarning != null) runner.note("warning      " + scaleWarning);
      spec = KernelTreeTrainer.resolveNu(spec, data, plan, classes, conf);
      conf.setBoolean(TrainKeys.EXACT_OFFSET, exactOffset(spec, data));
      spec = resolveOffset(spec, data, runner);
      spec.writeTo(conf);
      TrainContext ctx = new TrainContext(conf, spec, runner, data, validationRows, req.inputs());
      Trainer.Trained t = trainer.train(ctx);
      long tm = System.nanoTime();
      Path modelPath = TrainOutput.write(runner, t);
      runner.say("model", String.format(Locale.ROOT, "%s -> %s", describe(t.model()), modelPath), (System.nanoTime() - tm) / 1e9);
      if (t.report().get("exact") instanceof java.util.Map<?, ?> ex && Boolean.FALSE.equals(ex.get("converged"))
          && !spec.allowUnconverged()) {
        throw new SodmException(String.format(Locale.ROOT, "the exact solve did not converge (violation %s > tolerance %s, %s); "
            + "the model %s records converged=false. Raise --exact-max-iterations (PBM) or --max-epochs (one block), or pass "
            + "--allow-unconverged to accept it", ex.get("violation"), ex.get("tolerance"), ex.get("method"), modelPath));
      }
      return new Result(t.model(), modelPath, t.levels(), runner.elapsed());
    } catch (PhaseRunner.StopAfterPhase stop) {
      runner.reportStopped(new Path(runner.out(), MODEL));
      return new Result(null, null, List.of(), runner.elapsed());
    }
  }

  /**
   * Whether --offset auto ({@code spec} not yet resolved) is turned off only by --exact on more than
   * sodm.train.exact.below.rows rows ({@link TrainKeys#EXACT_OFFSET}).
   */
  static boolean exactOffset(TrainSpec spec, IngestJob.Result data) {
    long rows = data.stats().getRows();
    return spec.offsetAuto() && spec.exact().on() && !spec.resolveOffset(rows).offset()
        && spec.with(org.sodm.jobs.spec.Param.EXACT, "false").resolveOffset(rows).offset();
  }

  /** --offset auto ({@link TrainSpec#resolveOffset}) for the ingested rows, with a line saying what it chose for the hinge tree. */
  static TrainSpec resolveOffset(TrainSpec spec, IngestJob.Result data, PhaseRunner runner) {
    if (!spec.offsetAuto()) return spec;
    TrainSpec r = spec.resolveOffset(data.stats().getRows());
    if (r.offset()) {
      runner.note("offset       LIBSVM's unregularised offset b per block (sodm.train.offset auto: hinge with a kernel; --no-offset "
          + "turns it off)");
    } else if (spec.loss() instanceof org.sodm.solver.Loss.Hinge && !spec.loss().bias() && spec.linearSolver() == null) {
      runner.note(String.format(Locale.ROOT, "offset       %s (sodm.train.offset auto: %s)", exactOffset(spec, data)
          ? "LIBSVM's in exact mode's final solve when that is one block (none in the tree's blocks before it, none in PBM)" : "none",
          spec.exact().on()
          ? String.format(Locale.ROOT, "--exact on %,d rows > %,d may end with PBM, which keeps no equality constraint",
              data.stats().getRows(), spec.exact().belowRows())
          : "sodm.train.exact.single=never"));
    }
    return r;
  }

  /** The classes of an ingest's statistics, in class-index order ({@link org.sodm.data.Labels#ORDER}). */
  static List<String> classes(org.sodm.avro.FeatureStats stats) {
    List<String> out = new ArrayList<>();
    for (var l : stats.getLabels()) out.add(l.getLabel().toString());
    out.sort(org.sodm.data.Labels.ORDER);
    return out;
  }

  /** Rows per class, in the order of {@code classes}. */
  static long[] classCounts(org.sodm.avro.FeatureStats stats, List<String> classes) {
    long[] n = new long[classes.size()];
    for (var l : stats.getLabels()) n[classes.indexOf(l.getLabel().toString())] = l.getCount();
    return n;
  }

  /**
   * The sub-problems of a run: null for two classes without --probability (the binary run, as
   * before multi-class existed); else the scheme's tasks over the classes, each with
   * --probability's folds. A class of one row is trained, as by LIBSVM (the fold models without
   * it have one class: {@link org.sodm.model.Platt#fit} takes their infinite decisions as +-1).
   */
  static org.sodm.model.Subproblems plan(TrainSpec spec, IngestJob.Result data, List<String> classes, int cvFolds) {
    if (classes.size() > spec.maxClasses()) { // an ingest directory given as input was not ingested with this limit
      throw TrainSpec.bad(Param.MAX_CLASSES, "the training data has " + classes.size() + " distinct labels, more than " + spec.maxClasses());
    }
    if (classes.size() > 2 && !spec.loss().weights().equals(org.sodm.solver.Loss.Weights.NONE)) {
      throw TrainSpec.bad(Param.WEIGHT_POSITIVE, "the training data has " + classes.size() + " classes " + classes + "; --weight-positive "
          + "and --weight-negative weigh the two classes of binary data; per-class weights: --class-weights LABEL:W,... (LIBSVM's "
          + "-wi)");
    }
    if (classes.size() == 2 && !spec.probabilityModel() && cvFolds == 0) return null;
    if (cvFolds > 0) {
      if (spec.probability()) throw TrainSpec.bad(Param.PROBABILITY, "sodm cv measures accuracy; it does not fit probabilities");
      return new org.sodm.model.Subproblems(classes.size(), spec.multiclass(), cvFolds, false);
    }
    return new org.sodm.model.Subproblems(classes.size(), spec.multiclass(), spec.plattFolds(), true);
  }

  private static String describe(Model m) {
    if (m instanceof org.sodm.model.MulticlassModel mm && mm.softmax()) {
      LinearModel l = (LinearModel) mm.subModel(0);
      return String.format(Locale.ROOT, "%d classes, multinomial (one softmax model, with probabilities), linear (%s), %d weights a class",
          mm.classes().size(), l.solver(), l.w().length);
    }
    if (m instanceof org.sodm.model.MulticlassModel mm && mm.subModel(0) instanceof LinearModel l) { // linear tasks: weights, no SV
      return String.format(Locale.ROOT, "%d classes, %s %d task(s)%s, linear (%s), %d weights a task", mm.classes().size(),
          mm.scheme().id(), mm.plan().tasks(), mm.hasProbabilities() ? " with probabilities" : "", l.solver(), l.w().length);
    }
    if (m instanceof org.sodm.model.MulticlassModel mm) {
      return String.format(Locale.ROOT, "%d classes, %s %d task(s)%s, %,d support vectors (%,d distinct)", mm.classes().size(),
          mm.scheme().id(), mm.plan().tasks(), mm.hasProbabilities() ? " with probabilities" : "", mm.supportVectors(),
          mm.distinctSupportVectors());
    }
    if (m instanceof LinearModel l) return String.format(Locale.ROOT, "linear (%s), %d weights", l.solver(), l.w().length);
    KernelModel k = (KernelModel) m;
    return String.format(Locale.ROOT, "%d block(s), %,d support vectors", k.blockCount(), k.supportVectors());
  }

  /**
   * Ingest of the training or validation data as a phase; an ingest directory given as input is used as it is.
   * {@code sample}: whether it draws the per-file row sample ({@link IngestJob#SAMPLE_KEY}).
   */
  static IngestJob.Result ingest(Configuration conf, PhaseRunner runner, List<String> inputs, String phase, boolean sample)
      throws IOException {
    if (inputs.size() == 1) {
      Path p = new Path(inputs.get(0));
      FileSystem ifs = p.getFileSystem(conf);
      if (ifs.isDirectory(p) && ifs.exists(new Path(p, IngestJob.STATS))) {
        IngestJob.Result r = IngestJob.read(conf, p);
        runner.note(String.format(Locale.ROOT, "%-12s %s is an ingest directory: %,d rows", phase, p, r.stats().getRows()));
        runner.passed(phase, "external");
        return r;
      }
    }
    IngestJob.Result[] result = new IngestJob.Result[1];
    PhaseRunner.Done d = runner.run(phase, new PhaseRunner.Phase() {
      @Override
      public String name() {
        return phase;
      }

      @Override
      public void write(Path temp) throws IOException {
        Configuration c = new Configuration(conf);
        c.setBoolean(Param.OVERWRITE.key(), true); // the runner's temporary directory exists already
        if (phase.equals("validation")) c.set(Param.INGEST_SCALE.key(), "none"); // the model's scaler applies
        // the classes a training set may have: --max-classes (validation: any number, unknown labels are refused by name)
        c.set(Param.INGEST_MAX_LABELS.key(), phase.equals("validation") ? "1000000" : Integer.toString(TrainSpec.from(conf).maxClasses()));
        c.set(IngestJob.MAX_LABELS_NAME, Param.MAX_CLASSES.key() + ", " + Param.MAX_CLASSES.optionName());
        if (!sample) c.setBoolean(IngestJob.SAMPLE_KEY, false);
        result[0] = IngestJob.run(c, inputs, temp);
      }

      @Override
      public String summary(Path dir, boolean resumed) throws IOException {
        // a fresh run keeps what it wrote (reading the statistics back took ~0.2 s at 2M features); a resumed one reads it
        IngestJob.Result r = resumed || result[0] == null ? IngestJob.read(conf, dir) : result[0].at(dir.getFileSystem(conf).makeQualified(dir));
        result[0] = r;
        return resumed ? String.format(Locale.ROOT, "(complete, resumed) %,d rows", r.stats().getRows())
            : String.format(Locale.ROOT, "%,d rows, %d features, labels %s", r.stats().getRows(), r.stats().getDimension(),
                r.stats().getLabels().stream().map(l -> l.getLabel() + "=" + l.getCount()).toList());
      }
    });
    return result[0];
  }
}
