package org.sodm.jobs.train;

import org.sodm.jobs.spec.TrainSpec;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.jobs.support.SodmConf;

/**
 * A merge round, map side: block k of the level below goes to parent floor(k/p) (with
 * {@code --partitioner kmeans}: every row to the nearest of the level's own k-means centres,
 * {@link LevelKMeans}) with its
 * alpha (the parent's warm start is the concatenation of its children's solutions, Algorithm 1
 * lines 10-12). With {@code --merge cascade} only support vectors move up into the parent's solve; in the
 * tree's levels ({@link TrainKeys#CASCADE_CARRY}) the other rows travel along unsolved with alpha = 0,
 * so that exact mode's round finds every row (issue 19 item 6). Multi-class: block s * B + b
 * (sub-problem s, local block b of B) goes to s * B' + floor(b/p), B' the blocks per sub-problem of
 * the parent level.
 */
public class MergeMapper extends Mapper<AvroKey<TrainRecord>, NullWritable, BlockKey, TrainRow> {
  @Override
  public void run(Context context) throws java.io.IOException, InterruptedException {
    org.sodm.jobs.support.Causes.reporting(context, "MergeMapper", () -> super.run(context));
  }

  private int fanout;
  private boolean cascade;
  private boolean carry;
  private final BlockKey key = new BlockKey();
  private final TrainRow value = new TrainRow();

  @Override
  protected void setup(Context context) {
    AvroClasses.trust();
    TrainSpec spec = TrainSpec.of(context.getConfiguration());
    fanout = spec.tree().fanout();
    cascade = spec.tree().merge() == TrainSpec.Merge.CASCADE;
    org.apache.hadoop.conf.Configuration conf = context.getConfiguration();
    carry = conf.getBoolean(TrainKeys.CASCADE_CARRY, false);
    String km = conf.get(LevelKMeans.DIR);
    if (km != null) { // DC-SVM's multilevel clustering: the parent is the nearest of this level's centres
      try {
        kmeans = LevelKMeans.read(conf, new org.apache.hadoop.fs.Path(km), conf.getInt(TrainKeys.BLOCKS, 0), spec.resolvedKernel().create());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot read the level's k-means sample " + km, e);
      }
    }
    if (TrainKeys.subproblems(conf) > 1) {
      below = conf.getInt(TrainKeys.BLOCKS_BELOW, 0);
      blocks = conf.getInt(TrainKeys.BLOCKS, 0);
      if (below <= 0 || blocks <= 0) throw new IllegalStateException("a multi-class merge round needs " + TrainKeys.BLOCKS_BELOW);
    }
  }

  /** --partitioner kmeans (binary): this level's clusters ({@link LevelKMeans}); null: parent floor(b/p). */
  private org.sodm.partition.KernelKMeans kmeans;

  /** Multi-class: blocks per sub-problem below and at this level (0: one sub-problem, block ids are local). */
  private int below;
  private int blocks;

  /** The parent of block b: floor(b / p), within b's sub-problem. */
  int parent(int b) {
    if (below == 0) return b / fanout;
    int sub = b / below;
    return sub * blocks + (b % below) / fanout;
  }

  @Override
  protected void map(AvroKey<TrainRecord> in, NullWritable nothing, Context context) throws IOException, InterruptedException {
    TrainRecord r = in.datum();
    if (cascade && !carry && !TrainIO.isSupportVector(r)) return; // (with carry the reducer solves only the support vectors)
    value.set(r);
    int parent = kmeans != null ? kmeans.assign(org.sodm.data.Instances.features(r.getFeatures())) : parent(r.getBlock());
    context.write(key.set(parent, r.getId()), value);
  }
}
