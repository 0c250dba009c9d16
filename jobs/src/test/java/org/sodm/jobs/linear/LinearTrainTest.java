package org.sodm.jobs.linear;

import org.sodm.jobs.spec.TrainSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Instance;
import org.sodm.data.Instances;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.predict.PredictJob;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.linear.Bqo;
import org.sodm.linear.BqoBlock;
import org.sodm.linear.BqoState;
import org.sodm.linear.Dsvrg;
import org.sodm.linear.OdmPrimal;
import org.sodm.linear.SvmLoss;
import org.sodm.model.LinearModel;
import org.sodm.model.Model;
import org.sodm.partition.RandomPartitioner;
import org.sodm.solver.Loss;
import org.sodm.testing.LocalConf;

/** sodm train --kernel linear end to end in local mode: BQO and DSVRG as MapReduce equal their single-node arithmetic. */
class LinearTrainTest {
  @TempDir Path tmp;

  private TrainPipeline.Result train(Configuration conf, String name, List<String> lines) throws Exception {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        List.of(LocalConf.sampleData("svmguide1.t").toString()), new org.apache.hadoop.fs.Path(tmp.resolve(name).toString()), false),
        lines::add);
  }

  /** The training rows as the tasks see them: sorted by id, scaled, +-1, with their blocks. */
  private record Data(SparseVector[] x, double[] y, int[] block) {}

  private Data ingested(Configuration conf, Path out, int k) throws Exception {
    IngestJob.Result ing = IngestJob.read(conf, new org.apache.hadoop.fs.Path(out.resolve("work/ingest").toString()));
    List<Instance> rows = new ArrayList<>();
    for (org.apache.hadoop.fs.Path p : AvroFiles.dataFiles(conf, new org.apache.hadoop.fs.Path(ing.dir(), IngestJob.DATA))) {
      if (p.getName().endsWith(".avro")) rows.addAll(AvroFiles.readAll(conf, p, Instance.class));
    }
    rows.sort(Comparator.comparingLong(Instance::getId));
    Scaler s = ing.scaler();
    LabelMap lm = ing.labelMap();
    int n = rows.size();
    Data d = new Data(new SparseVector[n], new double[n], new int[n]);
    for (int i = 0; i < n; i++) {
      d.x()[i] = s.apply(Instances.features(rows.get(i).getFeatures()));
      d.y()[i] = lm.signed(rows.get(i).getLabel());
      d.block()[i] = RandomPartitioner.partitionOf(rows.get(i).getId(), k, 1);
    }
    return d;
  }

  @Test
  void bqoTrainsPredictsAndEqualsSingleNode() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.KERNEL, "linear");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LINEAR_EPS, "0.03");
    List<String> lines = new ArrayList<>();
    TrainPipeline.Result r = train(conf, "bqo", lines);
    Model read = ModelFiles.read(conf, r.modelPath());
    assertTrue(read instanceof LinearModel, lines.toString());
    LinearModel m = (LinearModel) read;
    assertEquals("bqo", m.solver(), lines.toString());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("bqo 0 ")), lines.toString());
    assertTrue(r.levels().get(0).getValidationAccuracy() > 0.85, "validation accuracy " + r.levels().get(0).getValidationAccuracy());

    // the same arithmetic on one machine: same blocks (hash of id), rows sorted by id, same pass seeds. The default
    // (--linear-blocks auto, --inner-passes auto): svmguide1's 12,356 values are far below one block's 32,000,000, so one
    // block, and one block is solved as LIBLINEAR solves it (up to 1000 passes to a projected gradient of 0.1, ten times
    // smaller at each later iteration)
    assertTrue(lines.stream().noneMatch(l -> l.startsWith("blocks")), "one block, dealt by its task: " + lines);
    Data d = ingested(conf, tmp.resolve("bqo"), 1);
    Bqo.Result ref = Bqo.train(d.x(), d.y(), d.block(), 1, Loss.hinge(1).svmPrimal(), new BqoBlock.Options(1000, 1e-3, 0.1, 0.1),
        BqoState.Options.defaults().withEps(0.03), 1, null);
    double[] w = m.w();
    for (int f = 0; f < w.length; f++) assertEquals(ref.pocket()[f], w[f], 1e-8 * (1 + Math.abs(w[f])), "w[" + f + "]");
    assertEquals(ref.state().pocketPrimal(), r.levels().get(0).getObjective(), 1e-9 * ref.state().pocketPrimal());

    // predict with the written model: the map-only job's accuracy equals the model's own
    PredictJob.Result p = PredictJob.run(conf, r.modelPath(), List.of(LocalConf.sampleData("svmguide1.t").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("pred").toString()));
    assertEquals(4000, p.rows());
    assertEquals(r.levels().get(0).getValidationAccuracy(), p.metrics().accuracy(), 1e-12);
  }

  @Test
  void dsvrgTrainsAndEqualsSingleNode() throws Exception {
    Configuration conf = OdmTestConf.create(tmp, "3");
    conf.set(SodmConf.LINEAR_EPS, "1e-9");
    List<String> lines = new ArrayList<>();
    TrainPipeline.Result r = train(conf, "dsvrg", lines);
    assertTrue(r.model() instanceof LinearModel, lines.toString());
    LinearModel m = (LinearModel) r.model();
    assertEquals("dsvrg", m.solver(), lines.toString());
    List<Double> objectives = new ArrayList<>();
    for (String l : lines) {
      if (l.startsWith("dsvrg ") && l.contains("primal p(w)")) {
        objectives.add(Double.parseDouble(l.replaceAll(".*primal p\\(w\\) +([^ ]+).*", "$1")));
      }
    }
    assertEquals(5, objectives.size(), lines.toString());
    for (int l = 1; l < objectives.size(); l++) assertTrue(objectives.get(l) < objectives.get(l - 1), objectives.toString());

    Data d = ingested(conf, tmp.resolve("dsvrg"), 3);
    OdmPrimal odm = Loss.odm(8, 0.3, 0.5).odmPrimal();
    Dsvrg.Result ref = Dsvrg.train(d.x(), d.y(), d.block(), 3, odm, 0, 4, 1, null);
    assertEquals(ref.finalObjective(), r.levels().get(0).getObjective(), 1e-9 * ref.finalObjective());
    double[] w = m.w();
    for (int f = 0; f < w.length; f++) assertEquals(ref.w()[f], w[f], 1e-8 * (1 + Math.abs(w[f])), "w[" + f + "]");
    // lambda = 8 fits loosely (the README's ODM default is 10000); better than the 50% of a constant guess
    assertTrue(r.levels().get(0).getValidationAccuracy() > 0.6, "accuracy " + r.levels().get(0).getValidationAccuracy());
  }

  @Test
  void badSolverChoicesFailNamingTheKey() {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.LINEAR_SOLVER, "bqo");
    conf.set(SodmConf.LOSS, "odm");
    IllegalArgumentException e = assertThrows(org.sodm.jobs.spec.BadParameterException.class, () -> TrainSpec.from(conf));
    assertTrue(e.getMessage().contains("--linear-solver") && e.getMessage().contains(SodmConf.LINEAR_SOLVER), e.getMessage());
    conf.set(SodmConf.LINEAR_SOLVER, "fast");
    e = assertThrows(org.sodm.jobs.spec.BadParameterException.class, () -> TrainSpec.from(conf));
    assertTrue(e.getMessage().contains("'fast'") && e.getMessage().contains("auto, bqo, dsvrg, kernel"), e.getMessage());
    conf.set(SodmConf.LINEAR_SOLVER, "auto");
    conf.set(SodmConf.KERNEL, "linear");
    assertEquals(TrainSpec.LinearSolver.DSVRG, TrainSpec.from(conf).linearSolver());
    conf.set(SodmConf.LOSS, "squared-hinge");
    assertEquals(TrainSpec.LinearSolver.BQO, TrainSpec.from(conf).linearSolver());
    conf.set(SodmConf.KERNEL, "rbf");
    org.junit.jupiter.api.Assertions.assertNull(TrainSpec.from(conf).linearSolver(), "another kernel: the merge tree");
  }
}
