package org.sodm.jobs.train;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmException;
import org.sodm.model.Subproblems;

/**
 * {@link SubproblemSolveJob}'s task: for each of its sub-problems, the rows of the sub-problem's classes outside its
 * held-out fold, in id order, each with the sub-problem's y (the rows and labels {@link StratifyMapper} sends a block of
 * one), solved by {@link BlockSolver}.
 */
public class SubproblemSolveMapper extends Mapper<IntWritable, NullWritable, AvroKey<TrainRecord>, NullWritable> {
  private BlockSolver solver;
  private Rows rows;
  private Subproblems plan;

  @Override
  public void run(Context context) throws IOException, InterruptedException {
    org.sodm.jobs.support.Causes.reporting(context, "SubproblemSolveMapper", () -> {
      super.run(context);
      solver.writeStats(); // after every sub-problem of the task solved: a failed attempt leaves no stats file
    });
  }

  @Override
  protected void setup(Context context) throws IOException {
    AvroClasses.trust();
    Configuration conf = context.getConfiguration();
    solver = new BlockSolver(context);
    plan = TrainKeys.plan(conf);
    String token = conf.get(SubproblemSolveJob.TOKEN);
    try {
      rows = token == null ? Rows.load(conf) : SubproblemSolveJob.SHARED.computeIfAbsent(token, k -> {
        try {
          return Rows.load(conf);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  @Override
  protected void map(IntWritable key, NullWritable nothing, Context context) throws IOException, InterruptedException {
    int sub = key.get();
    int task = plan.task(sub);
    int heldOut = plan.heldOutFold(sub);
    List<TrainRow> recs = new ArrayList<>();
    for (int i = 0; i < rows.id.length; i++) {
      double y = plan.y(task, rows.cls[i]);
      if (y == 0 || (heldOut >= 0 && rows.fold[i] == heldOut)) continue;
      recs.add(new TrainRow().set(rows.id[i], y, rows.x[i], -1, sub)); // one block per sub-problem: block = sub-problem
    }
    solver.solve(sub, recs);
  }

  /** The ingested rows in id order: scaled features, class index and fold (-1 without folds). Immutable once loaded. */
  static final class Rows {
    final long[] id;
    final int[] cls;
    final int[] fold;
    final SparseVector[] x;

    private Rows(long[] id, int[] cls, int[] fold, SparseVector[] x) {
      this.id = id;
      this.cls = cls;
      this.fold = fold;
      this.x = x;
    }

    /** Reads {@link SubproblemSolveJob#DATA}: the label's class, the scaler applied, the fold as the stratify map draws it. */
    static Rows load(Configuration conf) throws IOException {
      Subproblems plan = TrainKeys.plan(conf);
      Scaler scaler = TrainKeys.scaler(conf);
      long seed = org.sodm.jobs.spec.TrainSpec.of(conf).seed();
      List<String> classes = TrainKeys.classes(conf);
      Map<String, Integer> classIndex = new HashMap<>();
      for (int c = 0; c < classes.size(); c++) classIndex.put(classes.get(c), c);
      String cv = conf.get(TrainKeys.CV_FOLDS_FILE);
      CvFolds cvFolds = cv == null ? null : CvFolds.read(conf, new Path(cv));
      // streamed: one row's record at a time (not the whole data set as records), then put in id order
      List<long[]> meta = new ArrayList<>(); // {id, class}
      List<SparseVector> vectors = new ArrayList<>();
      AvroFiles.forEach(conf, new Path(conf.get(SubproblemSolveJob.DATA)), Instance.class, in -> {
        long rowId = in.getId();
        if (in.getLabel() == null) throw new SodmException("training row " + rowId + " has no label");
        Integer c = classIndex.get(in.getLabel().toString());
        if (c == null) {
          throw new SodmException("training row " + rowId + " has label '" + in.getLabel() + "', not one of the classes " + classIndex.keySet());
        }
        meta.add(new long[] {rowId, c});
        SparseVector v = Instances.features(in.getFeatures());
        vectors.add(scaler == null ? v : scaler.apply(v));
      });
      int n = meta.size();
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) order[i] = i;
      java.util.Arrays.sort(order, (a, b) -> Long.compare(meta.get(a)[0], meta.get(b)[0]));
      long[] id = new long[n];
      int[] cls = new int[n];
      int[] fold = new int[n];
      SparseVector[] x = new SparseVector[n];
      for (int i = 0; i < n; i++) {
        long[] m = meta.get(order[i]);
        id[i] = m[0];
        cls[i] = (int) m[1];
        fold[i] = StratifyMapper.fold(cvFolds, plan, seed, id[i]);
        x[i] = vectors.get(order[i]);
      }
      return new Rows(id, cls, fold, x);
    }
  }
}
