package org.sodm.jobs.train;

import org.sodm.jobs.spec.TrainSpec;
import java.io.IOException;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.Kernel;
import org.sodm.partition.KernelKMeans;
import org.sodm.partition.RandomPartitioner;
import org.sodm.partition.StratumAssigner;
import org.sodm.partition.StreamingStratifiedAssigner;

/**
 * Bottom level, map side: scales the instance, maps its label to +-1, assigns its stratum
 * (nearest landmark in the RKHS, eq. 7) and its block: stratified (each (stratum, class) pair
 * dealt evenly over the K blocks as records stream by; seeded by the ingested part, so a re-executed
 * task deals the same way), kmeans (nearest centre) or random (hash of id and seed).
 */
public class StratifyMapper extends Mapper<AvroKey<Instance>, NullWritable, BlockKey, TrainRow> {
  @Override
  public void run(Context context) throws java.io.IOException, InterruptedException {
    org.sodm.jobs.support.Causes.reporting(context, "StratifyMapper", () -> super.run(context));
  }

  private Scaler scaler;
  private LabelMap labels;
  private StratumAssigner strata;
  private KernelKMeans kmeans;
  private StreamingStratifiedAssigner dealer;
  private TrainSpec.Partitioner partitioner;
  private int blocks;
  private long seed;
  private final BlockKey key = new BlockKey();
  /** Multi-class (or --probability): the sub-problems, the class of each label, a dealer per sub-problem; else null. */
  private org.sodm.model.Subproblems plan;
  private final java.util.Map<String, Integer> classIndex = new java.util.HashMap<>();
  private StreamingStratifiedAssigner[] dealers;
  /** sodm cv: every row's fold; null otherwise (probability folds: a hash of the id). */
  private CvFolds cvFolds;
  private long streamKey;
  private int[] subs;
  private double[] ys;
  private int members;
  private final TrainRow value = new TrainRow();

  @Override
  protected void setup(Context context) throws IOException {
    AvroClasses.trust();
    Configuration conf = context.getConfiguration();
    try {
      scaler = TrainKeys.scaler(conf);
      labels = TrainKeys.plan(conf) == null ? TrainKeys.labels(conf) : null; // multi-class: no label map, the classes
      TrainSpec spec = TrainSpec.of(conf);
      partitioner = spec.tree().partitioner();
      blocks = conf.getInt(TrainKeys.BLOCKS, 1);
      seed = spec.seed();
      Kernel k = spec.resolvedKernel().create();
      if (blocks == 1) {
        partitioner = TrainSpec.Partitioner.RANDOM; // one block: nothing to partition
      } else if (partitioner != TrainSpec.Partitioner.RANDOM) {
        List<TrainRecord> lm = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(conf.get(TrainKeys.LANDMARKS_DIR)));
        SparseVector[] pts = new SparseVector[lm.size()];
        if (partitioner == TrainSpec.Partitioner.STRATIFIED) {
          lm.sort((a, b) -> Integer.compare(a.getStratum(), b.getStratum()));
          for (int i = 0; i < pts.length; i++) pts[i] = Instances.features(lm.get(i).getFeatures());
          strata = new StratumAssigner(spec.resolvedKernel().strataKernel().create(), pts);
        } else {
          lm.sort((a, b) -> Long.compare(a.getId(), b.getId()));
          int[] member = new int[pts.length];
          for (int i = 0; i < pts.length; i++) {
            pts[i] = Instances.features(lm.get(i).getFeatures());
            member[i] = lm.get(i).getBlock();
          }
          kmeans = KernelKMeans.fromState(pts, member, blocks, k, null);
        }
      }
      FileSplit split = org.sodm.jobs.support.FilePiece.unwrap(context.getInputSplit());
      // one split per ingested part (WholeFileAvroInputFormat): start is 0
      streamKey = split.getPath().getName().hashCode() * 1_000_003L + split.getStart();
      dealer = new StreamingStratifiedAssigner(blocks, seed, streamKey);
      plan = TrainKeys.plan(conf);
      if (plan != null) {
        List<String> classes = TrainKeys.classes(conf);
        for (int c = 0; c < classes.size(); c++) classIndex.put(classes.get(c), c);
        String cv = conf.get(TrainKeys.CV_FOLDS_FILE);
        if (cv != null) cvFolds = CvFolds.read(conf, new org.apache.hadoop.fs.Path(cv));
        dealers = new StreamingStratifiedAssigner[plan.count()];
        subs = new int[plan.count()];
        ys = new double[plan.count()];
        dealers[0] = dealer;
      }
    } catch (IOException | RuntimeException e) {
      JobFailure.report(context, "stratify task could not start: " + e);
      throw e;
    }
  }

  @Override
  protected void map(AvroKey<Instance> in, NullWritable nothing, Context context) throws IOException, InterruptedException {
    Instance inst = in.datum();
    if (inst.getLabel() == null) {
      String msg = "training row " + inst.getId() + " has no label";
      JobFailure.report(context, msg);
      throw new IOException(msg);
    }
    if (plan != null) {
      mapSubproblems(inst, context);
      return;
    }
    double y;
    try {
      y = labels.signed(inst.getLabel());
    } catch (IllegalArgumentException e) {
      JobFailure.report(context, e.getMessage());
      throw e;
    }
    SparseVector x = Instances.features(inst.getFeatures());
    if (scaler != null) x = scaler.apply(x);
    int stratum;
    int block;
    switch (partitioner) {
      case STRATIFIED:
        stratum = strata.assign(x);
        block = dealer.next(2 * stratum + (y > 0 ? 1 : 0));
        break;
      case KMEANS:
        stratum = kmeans.assign(x);
        block = stratum;
        break;
      default:
        stratum = -1;
        block = RandomPartitioner.partitionOf(inst.getId(), blocks, seed);
    }
    context.write(key.set(block, inst.getId()), value.set(inst.getId(), y, x, stratum, block));
  }

  /**
   * Multi-class: the row goes to every sub-problem of its class (and fold), with that
   * sub-problem's y; its stratum is computed once, its block dealt per sub-problem (each
   * sub-problem its own deck per (stratum, class), as a binary run deals), and the key's block
   * is s * K + b, so the reducers solve all sub-problems' blocks in the same job.
   */
  private void mapSubproblems(Instance inst, Context context) throws IOException, InterruptedException {
    Integer c = classIndex.get(inst.getLabel().toString());
    if (c == null) {
      String msg = "training row " + inst.getId() + " has label '" + inst.getLabel() + "', not one of the classes " + classIndex.keySet();
      JobFailure.report(context, msg);
      throw new IOException(msg);
    }
    SparseVector x = Instances.features(inst.getFeatures());
    if (scaler != null) x = scaler.apply(x);
    int stratum = switch (partitioner) {
      case STRATIFIED -> strata.assign(x);
      case KMEANS -> kmeans.assign(x);
      default -> -1;
    };
    int fold = fold(cvFolds, plan, seed, inst.getId());
    members = 0;
    plan.forEach(c, fold, (sub, y) -> {
      subs[members] = sub;
      ys[members++] = y;
    });
    for (int m = 0; m < members; m++) {
      int sub = subs[m];
      double y = ys[m];
      int block = switch (partitioner) {
        case STRATIFIED -> dealer(sub).next(2 * stratum + (y > 0 ? 1 : 0));
        case KMEANS -> stratum;
        default -> RandomPartitioner.partitionOf(inst.getId(), blocks, seed);
      };
      int global = sub * blocks + block;
      context.write(key.set(global, inst.getId()), value.set(inst.getId(), y, x, stratum, global));
    }
  }

  /** A row's fold: sodm cv's ({@code cvFolds}), else a seeded hash of its id over --probability's folds, else -1. */
  static int fold(CvFolds cvFolds, org.sodm.model.Subproblems plan, long seed, long id) {
    return cvFolds != null ? cvFolds.of(id) : plan.folds() > 0 ? org.sodm.data.Seeds.fold(seed, id, plan.folds()) : -1;
  }

  private StreamingStratifiedAssigner dealer(int sub) {
    StreamingStratifiedAssigner d = dealers[sub];
    if (d == null) dealers[sub] = d = new StreamingStratifiedAssigner(blocks, seed, org.sodm.data.Seeds.mix(streamKey, sub));
    return d;
  }
}
