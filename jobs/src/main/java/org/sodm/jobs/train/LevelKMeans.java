package org.sodm.jobs.train;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.Seeds;
import org.sodm.data.SparseVector;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.kernel.Kernel;
import org.sodm.partition.AdaptiveSample;
import org.sodm.partition.KernelKMeans;

/**
 * DC-SVM's multilevel clustering (seed 001 Algorithm 1, section 4) for the merge rounds of
 * {@code --partitioner kmeans}: level l's blocks are its own k^l clusters, fitted by two-step
 * kernel k-means on a sample of at most m ({@code --kmeans-sample}) support vectors of the level
 * below (adaptive clustering; all rows when there are fewer support vectors than clusters), with
 * the level's seed ({@link Seeds#levelKMeans}). The sample is drawn in the driver in one pass over
 * the level below (a bottom-k sample on {@link Seeds#levelSampleRank}); it is written as the
 * bottom level's landmarks are (TrainRecords, block = cluster), and {@link MergeMapper} sends
 * every row, with its alpha, to its nearest centre.
 */
final class LevelKMeans {
  private static final Logger LOG = LoggerFactory.getLogger(LevelKMeans.class);
  /** A merge round of --partitioner kmeans: the directory of the level's k-means sample (block = cluster). */
  static final String DIR = "sodm.internal.train.level.kmeans";
  /** The k-means iterations of every level (as the bottom level's, {@link LandmarkJob}). */
  static final int MAX_ITER = 50;

  private LevelKMeans() {}

  /** The fitted clustering of a level and the sample's records (block = cluster, in id order). */
  record Fit(KernelKMeans kmeans, List<TrainRecord> sample, boolean fromSupportVectors, long supportVectors) {}

  /** Fits level {@code level}'s {@code clusters} clusters on the support vectors of {@code below}. */
  static Fit fit(Configuration conf, Path below, int level, int clusters) throws IOException {
    long seed = TrainSpec.of(conf).seed();
    return fit(conf, below, clusters, false, id -> Seeds.levelSampleRank(seed, level, id), Seeds.levelKMeans(seed, level), "level " + level);
  }

  /**
   * Exact mode's partition (seed 004 section 4.3): {@code clusters} clusters fitted on a uniform
   * sample of at most m of all the rows of {@code records}.
   */
  static Fit fitExact(Configuration conf, Path records, int clusters) throws IOException {
    long seed = TrainSpec.of(conf).seed();
    return fit(conf, records, clusters, true, id -> Seeds.exactSampleRank(seed, id), Seeds.exactKMeans(seed), "exact");
  }

  private static Fit fit(Configuration conf, Path below, int clusters, boolean allRows, java.util.function.LongUnaryOperator rank,
      long kmSeed, String what) throws IOException {
    TrainSpec spec = TrainSpec.of(conf);
    AdaptiveSample s = new AdaptiveSample(spec.kmeansSample());
    AvroFiles.forEach(conf, below, TrainRecord.class, r -> {
      s.offer(r.getId(), rank.applyAsLong(r.getId()), Instances.features(r.getFeatures()), allRows || TrainIO.isSupportVector(r));
    });
    long[] ids = s.ids(clusters);
    SparseVector[] pts = s.points(clusters);
    Kernel k = spec.resolvedKernel().create();
    KernelKMeans km = KernelKMeans.fit(pts, k, Math.min(clusters, pts.length), MAX_ITER, kmSeed);
    int[] member = km.memberships();
    List<TrainRecord> out = new ArrayList<>(pts.length);
    for (int i = 0; i < pts.length; i++) {
      out.add(new TrainRecord(ids[i], 0.0, Instances.toAvro(pts[i]), member[i], member[i], List.of(), 0.0, List.of(), 0.0));
    }
    double[] obj = km.objectiveHistory();
    LOG.info("{} kernel k-means: {} clusters on {} sampled {} (of {} support vectors), objective {} -> {}", what, clusters,
        pts.length, s.fromSupportVectors(clusters) ? "support vectors" : "rows", s.supportVectors(), obj[0], obj[obj.length - 1]);
    return new Fit(km, out, s.fromSupportVectors(clusters), s.supportVectors());
  }

  /** Writes a level's sample ({@code dir}/part-r-00000.avro). */
  static void write(Configuration conf, Path dir, Fit f) throws IOException {
    AvroFiles.write(conf, new Path(dir, "part-r-00000.avro"), TrainRecord.getClassSchema(), f.sample());
  }

  /** Rebuilds a level's clustering from its sample directory (as {@link StratifyMapper} does for the bottom level). */
  static KernelKMeans read(Configuration conf, Path dir, int clusters, Kernel k) throws IOException {
    List<TrainRecord> lm = TrainIO.readRecords(conf, dir);
    lm.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    SparseVector[] pts = new SparseVector[lm.size()];
    int[] member = new int[pts.length];
    for (int i = 0; i < pts.length; i++) {
      pts[i] = Instances.features(lm.get(i).getFeatures());
      member[i] = lm.get(i).getBlock();
    }
    return KernelKMeans.fromState(pts, member, Math.min(clusters, pts.length), k, null);
  }
}
