package org.sodm.jobs.train;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.Instance;
import org.sodm.avro.Provenance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.Scaler;
import org.sodm.data.Seeds;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmException;
import org.sodm.kernel.KernelSpec;
import org.sodm.model.KernelModel;
import org.sodm.model.Model;
import org.sodm.model.ModelCodec;
import org.sodm.model.MulticlassModel;
import org.sodm.model.Platt;
import org.sodm.model.Subproblems;
import org.sodm.solver.Loss;

/**
 * The models of a multi-class (or --probability) run from one level's records: block
 * {@code s * B + b} is block b of sub-problem s; each sub-problem's blocks make a binary
 * {@link KernelModel} as {@link ModelBuilder} builds one. {@link #model} assembles the full
 * problems (slot 0) into a {@link MulticlassModel}; {@link #platt} fits the sigmoids on the
 * held-out decision values of the fold models.
 */
final class SubproblemModels {
  private final Subproblems plan;
  private final List<String> classes;
  private final int blocksPerSub;
  private final ModelBuilder[] builders;

  /** Each support vector's features once, shared by the sub-problems' builders (their records of a row hold the same). */
  private final java.util.Map<Long, org.sodm.data.SparseVector> vectors = new java.util.HashMap<>();

  SubproblemModels(Subproblems plan, List<String> classes, int blocksPerSub) {
    this.plan = plan;
    this.classes = classes;
    this.blocksPerSub = blocksPerSub;
    this.builders = new ModelBuilder[plan.count()];
  }

  /** Adds one record of the level; takes {@code r} (its block becomes the block within its sub-problem). */
  void add(TrainRecord r) {
    int sub = r.getBlock() / blocksPerSub;
    if (sub >= builders.length) throw new IllegalStateException("record of block " + r.getBlock() + " is beyond " + builders.length + " sub-problems");
    ModelBuilder b = builders[sub];
    if (b == null) builders[sub] = b = new ModelBuilder(vectors);
    r.setBlock(r.getBlock() % blocksPerSub); // the record is the caller's to give (a fresh one per record read)
    b.add(r);
  }

  /** The binary model of every sub-problem (fails naming a sub-problem without rows). */
  KernelModel[] all(KernelSpec kernel, Loss loss, Scaler scaler) {
    return all(kernel, loss, scaler, null);
  }

  /**
   * The same with each block's offset (nu-SVC, --offset) from {@code biases}, keyed by the level's block {@code s * B + b};
   * null: none.
   */
  KernelModel[] all(KernelSpec kernel, Loss loss, Scaler scaler, java.util.Map<Integer, Double> biases) {
    return all(kernel, t -> loss, scaler, biases);
  }

  /** The same with each task's own loss ({@code lossOfTask}: nu-SVC's nu per task). */
  KernelModel[] all(KernelSpec kernel, java.util.function.IntFunction<Loss> lossOfTask, Scaler scaler,
      java.util.Map<Integer, Double> biases) {
    KernelModel[] out = new KernelModel[builders.length];
    for (int s = 0; s < out.length; s++) {
      int t = plan.task(s);
      if (builders[s] == null) {
        int f = plan.heldOutFold(s);
        throw new SodmException("sub-problem " + describe(t) + (f < 0 ? "" : " without fold " + f) + " has no training rows"
            + (f < 0 ? "" : " (a class has fewer rows than --probability's folds?)"));
      }
      java.util.Map<Integer, Double> own = null;
      if (biases != null) {
        own = new java.util.HashMap<>();
        for (int b = 0; b < blocksPerSub; b++) {
          Double v = biases.get(s * blocksPerSub + b);
          if (v != null) own.put(b, v);
        }
      }
      out[s] = builders[s].build(kernel, lossOfTask.apply(t), ModelCodec.taskLabels(classes, plan, t), scaler, null, own);
    }
    return out;
  }

  String describe(int t) {
    int n = plan.negativeClass(t);
    String pos = classes.get(plan.positiveClass(t));
    return n < 0 ? "'" + pos + "' vs rest" : "'" + classes.get(n) + "' vs '" + pos + "'";
  }

  /** The multi-class model of the full problems, with the sigmoids (or null). */
  MulticlassModel model(KernelModel[] all, KernelSpec kernel, Loss loss, Scaler scaler, Platt[] platt, Provenance provenance) {
    Subproblems tasks = new Subproblems(plan.classes(), plan.scheme());
    Model[] sub = new Model[plan.tasks()];
    for (int t = 0; t < sub.length; t++) sub[t] = all[plan.sub(t, plan.full() ? -1 : 0)]; // cv: fold 0's models
    return new MulticlassModel(kernel, loss, scaler, classes, tasks, sub, platt, provenance);
  }

  /**
   * Platt's sigmoid per task, fitted on the decision values of the rows of each fold by the
   * task's model trained without that fold (LIBSVM's internal cross-validation). The training
   * rows are read once from {@code data}; each fold's models share their kernel evaluations.
   */
  Platt[] platt(Configuration conf, Path data, KernelModel[] all, KernelSpec kernel, Loss loss, Scaler scaler, long seed)
      throws IOException {
    int folds = plan.folds();
    Subproblems tasks = new Subproblems(plan.classes(), plan.scheme());
    MulticlassModel[] byFold = new MulticlassModel[folds];
    for (int f = 0; f < folds; f++) {
      Model[] sub = new Model[plan.tasks()];
      for (int t = 0; t < sub.length; t++) sub[t] = all[plan.sub(t, f)];
      byFold[f] = new MulticlassModel(kernel, loss, scaler, classes, tasks, sub, null, null);
    }
    java.util.Map<String, Integer> classIndex = new java.util.HashMap<>();
    for (int c = 0; c < classes.size(); c++) classIndex.put(classes.get(c), c);
    List<double[]> dec = new ArrayList<>();
    List<double[]> lab = new ArrayList<>();
    int[] count = new int[plan.tasks()];
    for (int t = 0; t < plan.tasks(); t++) {
      dec.add(new double[1024]);
      lab.add(new double[1024]);
    }
    List<Instance> batch = new ArrayList<>();
    Runnable flush = () -> {
      int n = batch.size();
      double[][] f = new double[n][];
      int[] cls = new int[n];
      IntStream.range(0, n).parallel().forEach(i -> {
        Instance in = batch.get(i);
        cls[i] = classIndex.get(in.getLabel().toString());
        int fold = Seeds.fold(seed, in.getId(), folds);
        SparseVector x = Instances.features(in.getFeatures());
        f[i] = byFold[fold].decisionValues(scaler == null ? x : scaler.apply(x), cls[i]); // only the tasks of its class
      });
      for (int i = 0; i < n; i++) {
        for (int t = 0; t < plan.tasks(); t++) {
          double y = plan.y(t, cls[i]);
          if (y == 0) continue;
          if (count[t] == dec.get(t).length) {
            dec.set(t, java.util.Arrays.copyOf(dec.get(t), 2 * count[t]));
            lab.set(t, java.util.Arrays.copyOf(lab.get(t), 2 * count[t]));
          }
          dec.get(t)[count[t]] = f[i][t];
          lab.get(t)[count[t]++] = y;
        }
      }
      batch.clear();
    };
    AvroFiles.forEach(conf, data, Instance.class, in -> {
      batch.add(in); // a fresh record per row read
      if (batch.size() == 8192) flush.run();
    });
    flush.run();
    Platt[] out = new Platt[plan.tasks()];
    for (int t = 0; t < out.length; t++) {
      out[t] = Platt.fit(java.util.Arrays.copyOf(dec.get(t), count[t]), java.util.Arrays.copyOf(lab.get(t), count[t]));
      if (!Double.isFinite(out[t].a()) || !Double.isFinite(out[t].b())) {
        throw new SodmException(String.format(Locale.ROOT, "Platt's fit of %s gave A = %s, B = %s", describe(t), out[t].a(), out[t].b()));
      }
    }
    return out;
  }
}
