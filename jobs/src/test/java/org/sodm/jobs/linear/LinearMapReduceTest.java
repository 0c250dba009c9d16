package org.sodm.jobs.linear;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.avro.hadoop.io.AvroSerialization;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.mrunit.mapreduce.ReduceDriver;
import org.apache.hadoop.mrunit.types.Pair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.SodmConf;
import org.sodm.linear.BqoSums;
import org.sodm.linear.Dsvrg;
import org.sodm.linear.OdmPrimal;
import org.sodm.linear.SvrgInner;
import org.sodm.linear.Vectors;
import org.sodm.solver.Loss;

/** MRUnit tests of the linear jobs' DSVRG mapper and reducer and BQO's sum reducer. */
class LinearMapReduceTest {
  @TempDir Path tmp;

  private Configuration base(Configuration conf, double[] w) throws IOException {
    AvroClasses.trust();
    conf.addResource(SodmConf.DEFAULT_RESOURCE);
    conf.setStrings("io.serializations", "org.apache.hadoop.io.serializer.WritableSerialization", AvroSerialization.class.getName());
    conf.set(SodmConf.LOSS, "odm");
    conf.set(SodmConf.LAMBDA, "5");
    conf.set(SodmConf.THETA, "0.2");
    org.apache.hadoop.fs.Path wf = new org.apache.hadoop.fs.Path(tmp.resolve("w.bin").toString());
    LinearKeys.writeW(conf, wf, w);
    conf.set(LinearKeys.W_FILE, wf.toString());
    conf.setInt(LinearKeys.BLOCKS, 2);
    conf.setInt(LinearKeys.DIM, w.length - 1);
    conf.setInt(LinearKeys.ITERATION, 3);
    return conf;
  }

  /** The mapper emits its gradient part under block - K, then its rows under r K + block in the seeded order. */
  @Test
  void dsvrgMapperEmitsGradientThenRoundRobinKeys() throws IOException {
    MapDriver<AvroKey<TrainRecord>, NullWritable, LongWritable, VecWritable> d = MapDriver.newMapDriver(new DsvrgJob.DsvrgMapper());
    double[] w = {0.3, -0.2, 0.5, 0};
    Configuration conf = base(d.getConfiguration(), w);
    AvroSerialization.setKeyWriterSchema(conf, TrainRecord.getClassSchema());
    AvroSerialization.setKeyReaderSchema(conf, TrainRecord.getClassSchema());
    Random r = new Random(2);
    SparseVector[] x = new SparseVector[5];
    double[] y = new double[5];
    for (int i = 4; i >= 0; i--) { // out of id order: the mapper sorts by id
      x[i] = SparseVector.ofDense(r.nextDouble(), r.nextDouble(), r.nextDouble());
      y[i] = i % 2 == 0 ? 1 : -1;
      d.withInput(new AvroKey<>(TrainRecord.newBuilder().setId((long) i).setY(y[i]).setFeatures(Instances.toAvro(x[i])).setStratum(-1)
          .setBlock(1).setAlpha(List.of()).build()), NullWritable.get());
    }
    org.sodm.jobs.spec.TrainSpec.from(conf).writeTo(conf); // as the driver does
    List<Pair<LongWritable, VecWritable>> out = d.run();
    assertEquals(6, out.size());
    assertEquals(1 - 2, out.get(0).getFirst().get());
    OdmPrimal odm = Loss.odm(5, 0.2, 0.5).odmPrimal();
    double loss = 0;
    double[] h = new double[4];
    for (int i = 0; i < 5; i++) {
      double m = y[i] * Vectors.dot(x[i], w, 0);
      loss += odm.loss(y[i], m);
      Vectors.axpy(odm.coef(y[i], m) * y[i], x[i], h, 0);
    }
    assertEquals(loss, out.get(0).getSecond().scalars()[0], 1e-12);
    assertEquals(5, out.get(0).getSecond().scalars()[1]);
    double[] got = new double[4];
    out.get(0).getSecond().addTo(got);
    assertArrayEquals(h, got, 1e-12);
    int[] order = Dsvrg.order(5, 1, 3, 1);
    for (int k = 0; k < 5; k++) {
      assertEquals(k * 2L + 1, out.get(k + 1).getFirst().get());
      VecWritable v = out.get(k + 1).getSecond();
      assertEquals(y[order[k]], v.scalars()[0]);
      assertEquals(y[order[k]] * Vectors.dot(x[order[k]], w, 0), v.scalars()[1], 1e-12);
      assertEquals(x[order[k]], v.toFeatures());
    }
  }

  /** The reducer sums the gradient parts, then applies the inner updates in key order. */
  @Test
  void dsvrgReducerStepsInKeyOrder() throws IOException {
    ReduceDriver<LongWritable, VecWritable, IntWritable, VecWritable> d = ReduceDriver.newReduceDriver(new DsvrgJob.DsvrgReducer());
    double[] w = {0.1, 0.4, 0};
    Configuration conf = base(d.getConfiguration(), w);
    conf.set(SodmConf.LINEAR_STEP, "0.05");
    double[] h0 = {0.5, -1, 0};
    double[] h1 = {0.25, 0.5, 0};
    d.withInput(new LongWritable(-2), List.of(VecWritable.ofDense(new double[] {1.5, 2, 1.0}, h0)));
    d.withInput(new LongWritable(-1), List.of(VecWritable.ofDense(new double[] {0.5, 2, 2.0}, h1)));
    SparseVector[] x = {SparseVector.ofDense(1, 0.5), SparseVector.ofDense(0.2, 1), SparseVector.ofDense(0.7, 0.7)};
    double[] y = {1, -1, 1};
    double[] snap = {0.3, -0.2, 1.5};
    for (int i = 0; i < 3; i++) d.withInput(new LongWritable(i), List.of(VecWritable.ofFeatures(new double[] {y[i], snap[i]}, x[i])));
    org.sodm.jobs.spec.TrainSpec.from(conf).writeTo(conf); // as the driver does
    List<Pair<IntWritable, VecWritable>> out = d.run();
    OdmPrimal odm = Loss.odm(5, 0.2, 0.5).odmPrimal();
    double[] gbar = {(0.5 + 0.25) / 4, (-1 + 0.5) / 4, 0};
    SvrgInner ref = new SvrgInner(odm, 0.05, w, gbar);
    for (int i = 0; i < 3; i++) ref.step(x[i], y[i], snap[i]);
    double[] got = new double[3];
    out.get(0).getSecond().addTo(got);
    assertArrayEquals(ref.w(), got, 1e-12);
    double[] s = out.get(0).getSecond().scalars();
    assertEquals(OdmPrimal.objective(Vectors.squaredNorm(w), 2.0, 4), s[DsvrgJob.OBJECTIVE], 1e-12);
    assertEquals(4, s[DsvrgJob.ROWS]);
    assertEquals(3, s[DsvrgJob.STEPS]);
  }

  /** BQO's reduce: Delta w summed, scalars summed except min lambda (min) and the violation (max). */
  @Test
  void sumReducerCombines() throws IOException {
    ReduceDriver<IntWritable, VecWritable, IntWritable, VecWritable> d = ReduceDriver.newReduceDriver(new BqoJob.SumReducer());
    Configuration conf = d.getConfiguration();
    conf.setInt(LinearKeys.DIM, 3);
    BqoSums a = new BqoSums(0, 0, 0, 1.5, 0, 0, 0, 0, 3, 0, 0.5, 0);
    BqoSums b = new BqoSums(0, 0, 0, 2, 0, 0, 0, 0, 1.25, 0, 0.25, 0);
    List<VecWritable> vals = new ArrayList<>();
    vals.add(VecWritable.ofDense(a.toArray(), new double[] {1, 0, 2, 0}));
    vals.add(VecWritable.ofDense(b.toArray(), new double[] {0, 3, -2, 1}));
    d.withInput(new IntWritable(0), vals);
    VecWritable out = d.run().get(0).getSecond();
    double[] dw = new double[4];
    out.addTo(dw);
    assertArrayEquals(new double[] {1, 3, 0, 1}, dw, 0);
    BqoSums sums = BqoSums.fromArray(out.scalars());
    assertEquals(3.5, sums.eD());
    assertEquals(1.25, sums.minLambda());
    assertEquals(0.5, sums.violation());
  }
}
