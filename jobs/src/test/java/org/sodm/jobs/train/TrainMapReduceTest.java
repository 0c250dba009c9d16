package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.hadoop.io.AvroSerialization;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapred.AvroValue;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.mrunit.mapreduce.ReduceDriver;
import org.apache.hadoop.mrunit.types.Pair;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockStats;
import org.sodm.avro.Instance;
import org.sodm.avro.LabelMapRecord;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.LabelMap;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.kernel.Kernel;
import org.sodm.kernel.KernelSpec;
import org.sodm.partition.LandmarkSelector;
import org.sodm.partition.StratumAssigner;
import org.sodm.solver.KernelDualSolver;
import org.sodm.solver.Loss;
import org.sodm.solver.SolveResult;

/** MRUnit tests of every mapper and reducer of the training jobs. */
class TrainMapReduceTest {
  @TempDir Path tmp;
  private final KernelSpec rbf = KernelSpec.rbf(0.5);

  private Configuration base(Configuration conf) throws IOException {
    AvroClasses.trust();
    conf.addResource(SodmConf.DEFAULT_RESOURCE);
    conf.setStrings("io.serializations", "org.apache.hadoop.io.serializer.WritableSerialization",
        AvroSerialization.class.getName());
    SpecForTests.kernel(conf, rbf);
    Path ingest = tmp.resolve("ingest");
    java.nio.file.Files.createDirectories(ingest);
    AvroFiles.writeOne(conf, new org.apache.hadoop.fs.Path(ingest.resolve(IngestJob.LABELS).toString()),
        LabelMapRecord.getClassSchema(), new LabelMap("a", "b").toAvro());
    conf.set(TrainKeys.INGEST_DIR, ingest.toString());
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
    return conf;
  }

  private static SparseVector[] points(int n, long seed) {
    java.util.Random r = new java.util.Random(seed);
    SparseVector[] x = new SparseVector[n];
    for (int i = 0; i < n; i++) x[i] = SparseVector.ofDense(r.nextGaussian(), r.nextGaussian(), r.nextGaussian());
    return x;
  }

  @Test
  void stratifyMapperAssignsNearestLandmarkAndDealsBlocks() throws IOException {
    MapDriver<AvroKey<Instance>, NullWritable, BlockKey, TrainRow> d = MapDriver.newMapDriver(new StratifyMapper());
    Configuration conf = base(d.getConfiguration());
    AvroSerialization.setKeyWriterSchema(conf, Instance.getClassSchema());
    AvroSerialization.setKeyReaderSchema(conf, Instance.getClassSchema());
    AvroSerialization.setValueWriterSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setValueReaderSchema(conf, TrainRecord.getClassSchema());
    SparseVector[] lm = points(5, 1);
    List<TrainRecord> lmRecs = new ArrayList<>();
    for (int s = 0; s < lm.length; s++) lmRecs.add(new TrainRecord((long) s, 0.0, Instances.toAvro(lm[s]), s, -1, List.of(), 0.0, List.of(), 0.0));
    java.nio.file.Files.createDirectories(tmp.resolve("lm"));
    AvroFiles.write(conf, new org.apache.hadoop.fs.Path(tmp.resolve("lm/part-r-00000.avro").toString()),
        TrainRecord.getClassSchema(), lmRecs);
    conf.set(TrainKeys.LANDMARKS_DIR, tmp.resolve("lm").toString());
    conf.set(SodmConf.PARTITIONER, "stratified");
    conf.setInt(TrainKeys.BLOCKS, 4);
    SparseVector[] x = points(40, 2);
    for (int i = 0; i < x.length; i++) {
      d.withInput(new AvroKey<>(Instances.toAvro(i + 1, i % 2 == 0 ? "a" : "b", x[i])), NullWritable.get());
    }
    SpecForTests.write(conf);
    List<Pair<BlockKey, TrainRow>> out = d.run();
    assertEquals(40, out.size());
    StratumAssigner ref = new StratumAssigner(rbf.create(), lm);
    int[] perBlock = new int[4];
    for (int i = 0; i < 40; i++) {
      TrainRecord r = out.get(i).getSecond().toRecord();
      assertEquals(i + 1, r.getId());
      assertEquals(i % 2 == 0 ? -1.0 : 1.0, r.getY());
      assertEquals(ref.assign(x[i]), r.getStratum(), "stratum = nearest landmark in the RKHS");
      assertEquals(r.getBlock(), out.get(i).getFirst().block());
      assertEquals(r.getId(), out.get(i).getFirst().id());
      perBlock[r.getBlock()]++;
    }
    for (int b : perBlock) assertTrue(b >= 5 && b <= 15, "blocks roughly balanced: " + java.util.Arrays.toString(perBlock));
  }

  @Test
  void mergeMapperSendsBlockToParentAndCascadeKeepsOnlySupportVectors() throws IOException {
    MapDriver<AvroKey<TrainRecord>, NullWritable, BlockKey, TrainRow> d = MapDriver.newMapDriver(new MergeMapper());
    Configuration conf = base(d.getConfiguration());
    AvroSerialization.setKeyWriterSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setKeyReaderSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setValueWriterSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setValueReaderSchema(conf, TrainRecord.getClassSchema());
    conf.setInt(SodmConf.FANOUT, 4);
    SparseVector v = SparseVector.ofDense(1, 2);
    d.withInput(new AvroKey<>(new TrainRecord(7L, 1.0, Instances.toAvro(v), 0, 9, List.of(0.5), 0.0, List.of(), 0.0)), NullWritable.get());
    d.withInput(new AvroKey<>(new TrainRecord(8L, -1.0, Instances.toAvro(v), 0, 3, List.of(0.0), 0.0, List.of(), 0.0)), NullWritable.get());
    SpecForTests.write(conf);
    List<Pair<BlockKey, TrainRow>> out = d.run();
    assertEquals(2, out.size());
    assertEquals(new BlockKey(2, 7), out.get(0).getFirst());
    assertEquals(List.of(0.5), out.get(0).getSecond().toRecord().getAlpha(), "alpha travels up as the warm start");
    assertEquals(new BlockKey(0, 8), out.get(1).getFirst());

    MapDriver<AvroKey<TrainRecord>, NullWritable, BlockKey, TrainRow> c = MapDriver.newMapDriver(new MergeMapper());
    Configuration cc = c.getConfiguration();
    cc.addResource(d.getConfiguration());
    for (var e : d.getConfiguration()) cc.set(e.getKey(), e.getValue());
    cc.set(SodmConf.MERGE, "cascade");
    c.withInput(new AvroKey<>(new TrainRecord(7L, 1.0, Instances.toAvro(v), 0, 9, List.of(0.5), 0.0, List.of(), 0.0)), NullWritable.get());
    c.withInput(new AvroKey<>(new TrainRecord(8L, -1.0, Instances.toAvro(v), 0, 3, List.of(0.0), 0.0, List.of(), 0.0)), NullWritable.get());
    SpecForTests.write(cc);
    List<Pair<BlockKey, TrainRow>> co = c.run();
    assertEquals(1, co.size());
    assertEquals(7L, co.get(0).getSecond().id);
  }

  @Test
  void blockSolveReducerSolvesTheBlockAndWritesStats() throws IOException {
    ReduceDriver<BlockKey, TrainRow, AvroKey<TrainRecord>, NullWritable> d =
        ReduceDriver.newReduceDriver(new BlockSolveReducer());
    Configuration conf = base(d.getConfiguration());
    AvroSerialization.setKeyWriterSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setKeyReaderSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setValueWriterSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setValueReaderSchema(conf, TrainRecord.getClassSchema());
    conf.set(TrainKeys.STATS_DIR, tmp.resolve("stats").toString());
    conf.setInt(TrainKeys.LEVEL, 2);
    conf.setLong(TrainKeys.TREE_ROWS, 30); // the driver's (KernelTreeTrainer) rows of the tree
    conf.set(SodmConf.EPS, "1e-8");
    SparseVector[] x = points(30, 3);
    double[] y = new double[30];
    List<TrainRow> vals = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      y[i] = x[i].get(1) + 0.3 * x[i].get(2) > 0 ? 1 : -1;
      vals.add(new TrainRow().set(new TrainRecord((long) i, y[i], Instances.toAvro(x[i]), 0, 5, List.of(), 0.0, List.of(), 0.0)));
    }
    d.withInput(new BlockKey(1, 0), vals);
    SpecForTests.write(conf);
    List<Pair<AvroKey<TrainRecord>, NullWritable>> out = d.run();
    assertEquals(30, out.size());
    // reference: the single-node solver on the same block, checked by its KKT violation
    SolveResult ref = new KernelDualSolver(rbf.create(), new org.sodm.solver.SolverOptions(1e-8, 100000, false, 1 << 20, 99))
        .solve(x, y, Loss.hinge(1), null);
    for (int i = 0; i < 30; i++) {
      TrainRecord r = out.get(i).getFirst().datum();
      assertEquals(1, r.getBlock(), "record takes the block being solved");
      assertEquals(ref.alpha()[i], r.getAlpha().get(0), 1e-5);
      assertTrue(r.getAlpha().get(0) >= 0 && r.getAlpha().get(0) <= 1 + 1e-12, "box constraint");
    }
    // one stats file per task, written when the task has solved all its blocks
    List<BlockStats> all = TrainIO.readStats(conf, new org.apache.hadoop.fs.Path(tmp.resolve("stats").toString()));
    assertEquals(1, all.size());
    assertEquals(1, new java.io.File(tmp.resolve("stats").toFile(), "part-r-00000.avro").exists() ? 1 : 0, "the task's file");
    BlockStats s = all.get(0);
    assertEquals(1, s.getBlock());
    assertEquals(30, s.getSize());
    assertEquals(2, s.getLevel());
    assertTrue(s.getMaxViolation() <= 1e-8);
    assertEquals(ref.report().dualObjective(), s.getObjective(), 1e-8);
  }

  @Test
  void landmarkMapperAndReducerSelectGreedyLandmarksFromTheUnion() throws IOException {
    MapDriver<AvroKey<Instance>, NullWritable, LongWritable, AvroValue<TrainRecord>> m =
        MapDriver.newMapDriver(new LandmarkJob.SampleMapper());
    Configuration conf = base(m.getConfiguration());
    AvroSerialization.setKeyWriterSchema(conf, Instance.getClassSchema());
    AvroSerialization.setKeyReaderSchema(conf, Instance.getClassSchema());
    AvroSerialization.setValueWriterSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setValueReaderSchema(conf, TrainRecord.getClassSchema());
    conf.set(LandmarkJob.MODE, "stratified");
    conf.setInt(SodmConf.LANDMARKS, 4);
    conf.setInt(SodmConf.LANDMARK_CANDIDATES, 1000);
    SparseVector[] x = points(25, 4);
    for (int i = 0; i < x.length; i++) m.withInput(new AvroKey<>(Instances.toAvro(i + 1, "a", x[i])), NullWritable.get());
    SpecForTests.write(conf);
    List<Pair<LongWritable, AvroValue<TrainRecord>>> cand = m.run();
    assertEquals(4, cand.size(), "each split proposes its own S landmarks");
    Kernel k = rbf.create();
    int[] want = LandmarkSelector.select(x, k, 4, conf.getLong(SodmConf.SEED, 1)).sourceIndex();
    java.util.Set<Long> wantIds = new java.util.TreeSet<>();
    for (int w : want) wantIds.add((long) w + 1);
    java.util.Set<Long> got = new java.util.TreeSet<>();
    for (var p : cand) got.add(p.getFirst().get());
    assertEquals(wantIds, got);

    ReduceDriver<LongWritable, AvroValue<TrainRecord>, AvroKey<TrainRecord>, NullWritable> r =
        ReduceDriver.newReduceDriver(new LandmarkJob.SelectReducer());
    Configuration rc = r.getConfiguration();
    for (var e : conf) rc.set(e.getKey(), e.getValue());
    rc.setInt(SodmConf.LANDMARKS, 2);
    AvroSerialization.setKeyWriterSchema(rc, TrainRecord.getClassSchema());
    AvroSerialization.setKeyReaderSchema(rc, TrainRecord.getClassSchema());
    for (var p : cand) r.withInput(p.getFirst(), List.of(p.getSecond()));
    SpecForTests.write(rc);
    List<Pair<AvroKey<TrainRecord>, NullWritable>> fin = r.run();
    assertEquals(2, fin.size());
    SparseVector[] pool = new SparseVector[cand.size()];
    for (int i = 0; i < pool.length; i++) pool[i] = Instances.features(cand.get(i).getSecond().datum().getFeatures());
    int[] finalWant = LandmarkSelector.select(pool, k, 2, conf.getLong(SodmConf.SEED, 1)).sourceIndex();
    for (int t = 0; t < 2; t++) {
      assertEquals(t, fin.get(t).getFirst().datum().getStratum());
      assertEquals(cand.get(finalWant[t]).getFirst().get(), fin.get(t).getFirst().datum().getId());
    }
  }
}
