package org.sodm.jobs.predict;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.hadoop.io.AvroSerialization;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.mrunit.types.Pair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Instance;
import org.sodm.avro.Prediction;
import org.sodm.data.AvroClasses;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.model.Model;
import org.sodm.testing.LocalConf;

class PredictTest {
  @TempDir Path tmp;

  private TrainPipeline.Result smallModel(Configuration conf) throws Exception {
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.LEVELS, "1");
    conf.set(SodmConf.INGEST_SCALE, "-1,1");
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("synthetic-2k.libsvm").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("m").toString()), false), s -> {});
  }

  @Test
  void predictMapperScoresWithTheCachedModel() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    TrainPipeline.Result r = smallModel(conf);
    MapDriver<AvroKey<Instance>, NullWritable, AvroKey<Prediction>, NullWritable> d = MapDriver.newMapDriver(new PredictMapper());
    Configuration dc = d.getConfiguration();
    AvroClasses.trust();
    dc.setStrings("io.serializations", "org.apache.hadoop.io.serializer.WritableSerialization", AvroSerialization.class.getName());
    // MRUnit copies input and output keys with one key schema: a union of both record types
    org.apache.avro.Schema both = org.apache.avro.Schema.createUnion(Instance.getClassSchema(), Prediction.getClassSchema());
    AvroSerialization.setKeyWriterSchema(dc, both);
    AvroSerialization.setKeyReaderSchema(dc, both);
    d.withCacheFile(r.modelPath().toUri());
    dc.set(PredictMapper.MODEL_KEY, r.modelPath().toUri().toString()); // as PredictJob records it
    SparseVector a = SparseVector.ofDense(0.1, 0.2, 0.1, 0.5, -0.5);
    SparseVector b = SparseVector.ofDense(0.9, -0.9, 0.8, 0, 0);
    d.withInput(new AvroKey<>(Instances.toAvro(1, "1", a)), NullWritable.get());
    d.withInput(new AvroKey<>(Instances.toAvro(2, null, b)), NullWritable.get());
    List<Pair<AvroKey<Prediction>, NullWritable>> out = d.run();
    Model m = r.model();
    Prediction pa = out.get(0).getFirst().datum();
    Prediction pb = out.get(1).getFirst().datum();
    // batched over the merged expansion: the direct sum up to the rounding of another summation order
    assertEquals(m.decision(a), pa.getDecision(), 1e-12 * Math.max(1, Math.abs(m.decision(a))));
    assertEquals(m.predict(a), pa.getPredicted());
    assertEquals("1", pa.getLabel());
    assertNull(pb.getLabel());
    assertEquals(m.decision(b), pb.getDecision(), 1e-12 * Math.max(1, Math.abs(m.decision(b))));
    assertTrue(pa.getDecision() > 0 && pb.getDecision() < 0, "inside the ball is +1, the corner is -1");
  }

  /** Local mode splits the scored file over the cores; the predictions and metrics are those of one task. */
  @Test
  void splitOverLocalCoresGivesTheSamePredictions() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    TrainPipeline.Result r = smallModel(conf);
    String input = LocalConf.sampleData("synthetic-2k.libsvm").toString();
    Configuration one = new Configuration(conf);
    one.setInt(org.sodm.jobs.support.Jobs.LOCAL_PARALLELISM, 1);
    PredictJob.Result a = PredictJob.run(one, r.modelPath(), List.of(input), new org.apache.hadoop.fs.Path(tmp.resolve("p1").toString()));
    Configuration two = new Configuration(conf);
    two.setInt(org.sodm.jobs.support.Jobs.LOCAL_PARALLELISM, 2);
    two.setLong(PredictJob.MIN_SPLIT_KEY, 4096);
    PredictJob.Result b = PredictJob.run(two, r.modelPath(), List.of(input), new org.apache.hadoop.fs.Path(tmp.resolve("p2").toString()));
    List<Path> parts;
    try (var f = Files.list(tmp.resolve("p2"))) {
      parts = f.filter(p -> p.getFileName().toString().startsWith("part-m-")).toList();
    }
    assertTrue(parts.size() >= 2, "split into map tasks: " + parts);
    assertEquals(sorted(conf, "p1"), sorted(conf, "p2"));
    assertEquals(a.rows(), b.rows());
    assertEquals(a.metrics().accuracy(), b.metrics().accuracy(), 0.0);
  }

  /**
   * Uncompressed raw input is parsed and scored in one job (ScoringIngestMapper): every prediction (id, label, decision value,
   * predicted label) equals the one of the ingested directory scored by PredictMapper; gzip text (one parsing task per file)
   * is ingested first and scored over the cores, with the same decision values; a malformed line fails naming the file and
   * line, with no output left behind.
   */
  @Test
  void rawInputScoredInOneJobEqualsTheIngestedDirectory() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    TrainPipeline.Result r = smallModel(conf);
    Path raw = LocalConf.sampleData("synthetic-2k.libsvm");
    Path gz = tmp.resolve("rows.libsvm.gz");
    try (var o = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      o.write(Files.readAllBytes(raw));
    }
    Configuration ic = new Configuration(conf);
    ic.set(SodmConf.INGEST_SCALE, "none");
    org.sodm.jobs.ingest.IngestJob.run(ic, List.of(raw.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("ingested").toString()));
    PredictJob.Result viaDir = PredictJob.run(conf, r.modelPath(), List.of(tmp.resolve("ingested").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("p-dir").toString()));
    PredictJob.Result direct = PredictJob.run(conf, r.modelPath(), List.of(raw.toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("p-raw").toString()));
    PredictJob.Result zipped = PredictJob.run(conf, r.modelPath(), List.of(gz.toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("p-gz").toString()));
    List<String> want = sorted(conf, "p-dir");
    assertEquals(2000, want.size());
    assertEquals(want, sorted(conf, "p-raw"));
    assertEquals(decisions(conf, "p-dir"), decisions(conf, "p-gz"), "gzip: the same rows in the same order");
    assertEquals(viaDir.metrics().accuracy(), direct.metrics().accuracy(), 0.0);
    assertEquals(viaDir.metrics().auc(), zipped.metrics().auc(), 0.0);
    try (var f = Files.list(tmp.resolve("p-raw"))) {
      assertTrue(f.noneMatch(p -> List.of("_stats", "_unseen", "_failures", "predictions").contains(p.getFileName().toString())),
          "no _stats / _unseen / _failures left");
    }

    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(raw));
    lines.set(1233, "+1 1:0.5 2:oops");
    Path bad = tmp.resolve("bad.libsvm");
    Files.write(bad, lines);
    Exception e = assertThrows(Exception.class, () -> PredictJob.run(conf, r.modelPath(), List.of(bad.toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("p-bad").toString())));
    assertTrue(e.getMessage().contains("bad.libsvm:1234"), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("p-bad")), "nothing written on failure");
  }

  /**
   * A binary model and test rows labelled with neither of its labels: every row is scored, those rows are errors in the
   * accuracy (svm-predict's count), false positives when predicted +1, outside the AUC; the warning names each label, its
   * rows and first line; the raw one-job path and an ingested directory agree.
   */
  @Test
  void rowsOfALabelTheModelDoesNotHaveAreScoredAndCountAsErrors() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    TrainPipeline.Result r = smallModel(conf);
    List<String> rows = new java.util.ArrayList<>(Files.readAllLines(LocalConf.sampleData("synthetic-2k.libsvm")).subList(0, 300));
    for (int i : new int[] {10, 20, 30}) rows.set(i, "3" + rows.get(i).substring(rows.get(i).indexOf(' ')));
    rows.set(40, "7" + rows.get(40).substring(rows.get(40).indexOf(' ')));
    Path data = tmp.resolve("other.libsvm");
    Files.write(data, rows);
    PredictJob.Result p = PredictJob.run(conf, r.modelPath(), List.of(data.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("p-other").toString()));
    assertEquals(300, p.rows());
    assertEquals("4 rows are labelled with none of the model's labels (-1, 1): '3' (3 rows, first at file:" + data + ":11), '7' "
        + "(1 row, at file:" + data + ":41); scored as any row, they count as errors in the accuracy, as svm-predict counts them",
        p.unknownLabels());
    // the same rows with the model's labels, independently: the metrics of the 296 rows and the 4 others' predictions
    List<Prediction> preds = org.sodm.jobs.support.AvroFiles.readDir(conf, new org.apache.hadoop.fs.Path(tmp.resolve("p-other").toString()),
        Prediction.class);
    assertEquals(300, preds.size());
    long correct = 0, otherPos = 0, tp = 0, fp = 0;
    for (Prediction q : preds) {
      String label = q.getLabel().toString();
      String predicted = q.getPredicted().toString();
      boolean known = label.equals("1") || label.equals("-1");
      if (known && label.equals(predicted)) correct++;
      if (!known && predicted.equals("1")) otherPos++;
      if (known && predicted.equals("1")) {
        if (label.equals("1")) tp++;
        else fp++;
      }
    }
    org.sodm.model.Metrics m = p.metrics();
    assertEquals(300, m.n());
    assertEquals(4, m.other());
    assertEquals(otherPos, m.otherPositive());
    assertEquals((double) correct / 300, m.accuracy(), 1e-15);
    assertEquals((double) tp / (tp + fp + otherPos), m.precision(), 1e-15);
    // an ingested directory of the same rows: the same warning's counts and the same metrics
    Configuration ic = new Configuration(conf);
    ic.set(SodmConf.INGEST_SCALE, "none");
    org.sodm.jobs.ingest.IngestJob.run(ic, List.of(data.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("other-ingested").toString()));
    PredictJob.Result viaDir = PredictJob.run(conf, r.modelPath(), List.of(tmp.resolve("other-ingested").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("p-other-dir").toString()));
    assertEquals(p.unknownLabels(), viaDir.unknownLabels());
    assertEquals(m, viaDir.metrics());
  }

  /** Decision values in row order (the ids are byte offsets, which the extra features move). */
  private List<Double> decisions(Configuration conf, String dir) throws Exception {
    List<Prediction> all = org.sodm.jobs.support.AvroFiles.readDir(conf, new org.apache.hadoop.fs.Path(tmp.resolve(dir).toString()),
        Prediction.class);
    return all.stream().sorted((x, y) -> Long.compare(x.getId(), y.getId())).map(Prediction::getDecision).toList();
  }

  private List<String> sorted(Configuration conf, String dir) throws Exception {
    List<Prediction> all = org.sodm.jobs.support.AvroFiles.readDir(conf, new org.apache.hadoop.fs.Path(tmp.resolve(dir).toString()),
        Prediction.class);
    return all.stream().sorted((x, y) -> Long.compare(x.getId(), y.getId())).map(Object::toString).toList();
  }

  /**
   * The one policy for features a model never saw (index above the training data's largest): ignored and
   * counted, for a kernel model without a scaler (where they used to enter the RBF distance) and for a
   * linear model with one. The decision values equal those of the rows without the extra features.
   */
  @Test
  void featuresTheModelNeverSawAreIgnoredAndCounted() throws Exception {
    List<String> rows = Files.readAllLines(LocalConf.sampleData("synthetic-2k.libsvm")).subList(0, 40);
    java.util.List<String> extra = new java.util.ArrayList<>();
    for (int i = 0; i < rows.size(); i++) extra.add(i % 4 == 0 ? rows.get(i) + " 9:0.7 12:-3.5" : i % 4 == 1 ? rows.get(i) + " 6:1" : rows.get(i));
    Path plain = tmp.resolve("plain.libsvm");
    Path more = tmp.resolve("more.libsvm");
    Files.write(plain, rows);
    Files.write(more, extra);
    for (String kind : List.of("rbf", "linear")) {
      Configuration conf = LocalConf.create(tmp);
      conf.set(SodmConf.LOSS, "hinge");
      conf.set(SodmConf.LEVELS, "1");
      conf.set(SodmConf.KERNEL, kind);
      conf.set(SodmConf.INGEST_SCALE, kind.equals("rbf") ? "none" : "-1,1");
      TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("synthetic-2k.libsvm").toString()), null,
          new org.apache.hadoop.fs.Path(tmp.resolve("m-" + kind).toString()), false), s -> {});
      Model m = ModelFiles.read(conf, r.modelPath());
      assertEquals(5, m.dimension(), "the model records the training data's dimension");
      PredictJob.Result a = PredictJob.run(conf, r.modelPath(), List.of(plain.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("pa-" + kind).toString()));
      PredictJob.Result b = PredictJob.run(conf, r.modelPath(), List.of(more.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("pb-" + kind).toString()));
      assertEquals(decisions(conf, "pa-" + kind), decisions(conf, "pb-" + kind), kind + ": unseen features change nothing");
      assertNull(a.unseenWarning());
      assertEquals(20, b.unseen().rows(), kind);
      assertEquals(10 * 2 + 10, b.unseen().values(), kind);
      assertEquals(6, b.unseen().smallestIndex(), kind);
      assertTrue(b.unseenWarning().contains("20 row(s)") && b.unseenWarning().contains("dimension 5") && b.unseenWarning().contains("smallest: 6"),
          b.unseenWarning());
      // the model's own scoring follows the same policy
      SparseVector x = SparseVector.ofDense(0.1, 0.2, 0.1, 0.5, -0.5, 4, 0, 0, 9);
      assertEquals(m.decision(SparseVector.ofDense(0.1, 0.2, 0.1, 0.5, -0.5)), m.decision(x), 0.0);
    }
  }

  /** The exported model gives svm-predict's accuracy equal to ours (runs when LIBSVM is installed). */
  /**
   * --text: predictions.txt has one line per input row, in input order although the file was scored by several map tasks
   * (their parts merged by id), each the label the model itself predicts for that row; where svm-predict is installed, its
   * output file for the exported model is the same text (but for rows at a tie). A --probability model's file starts with
   * the labels line and gives each row's class probabilities as the model computes them.
   */
  @Test
  void textIsSvmPredictsOutputFileInInputOrder() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    TrainPipeline.Result r = smallModel(conf);
    // the files are given in the order whose names do not sort: the lines follow the order given (checked: sorted order fails)
    Path data = Files.copy(LocalConf.sampleData("synthetic-2k.libsvm"), tmp.resolve("a-synthetic-2k.libsvm"));
    Configuration two = new Configuration(conf);
    two.setInt(org.sodm.jobs.support.Jobs.LOCAL_PARALLELISM, 2);
    two.setLong(PredictJob.MIN_SPLIT_KEY, 4096);
    two.setBoolean(SodmConf.PREDICT_TEXT, true);
    // a small file first: the larger file's splits are the first map tasks (largest first), so its parts come first by name
    Path small = tmp.resolve("z-first-100.libsvm");
    Files.write(small, Files.readAllLines(data).subList(0, 100));
    PredictJob.run(two, r.modelPath(), List.of(small.toString(), data.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("t").toString()));
    try (var f = Files.list(tmp.resolve("t"))) {
      assertTrue(f.filter(p -> p.getFileName().toString().startsWith("part-m-")).count() >= 3, "scored by several map tasks");
    }
    try (var f = Files.list(tmp.resolve("t"))) {
      assertEquals(List.of(), f.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(PredictionsText.PART_PREFIX)).toList(),
          "the map tasks' text parts are merged and removed");
    }
    List<String> text = Files.readAllLines(tmp.resolve("t").resolve(PredictionsText.FILE));
    var d = org.sodm.data.LibsvmReader.read(data);
    assertEquals(100 + d.size(), text.size());
    int ties = 0;
    for (int i = 0; i < text.size(); i++) {
      double f = r.model().decision(d.x()[i < 100 ? i : i - 100]);
      if (Math.abs(f) < 1e-9) {
        ties++;
        continue;
      }
      String label = r.model().labels().original(f); // "1" or "-1": svm-predict prints the same number
      assertEquals(Long.toString((long) Double.parseDouble(label)), text.get(i), "line " + (i + 1));
    }
    assertTrue(ties < 5, ties + " ties");
    assertTrue(text.contains("1") && text.contains("-1"));
    text = text.subList(100, text.size());
    if (Files.isExecutable(Path.of("/usr/bin/svm-predict")) && Files.isExecutable(Path.of("/usr/bin/svm-scale"))) {
      List<String> theirs = svmPredict(r, data);
      int differ = 0;
      for (int i = 0; i < d.size(); i++) if (!theirs.get(i).equals(text.get(i)) && Math.abs(r.model().decision(d.x()[i])) > 1e-9) differ++;
      assertEquals(0, differ, "lines that differ from svm-predict's output file");
    }
    // a --probability model (4 classes): the labels line, then each row's label and probabilities as the model scores it
    Path model = Path.of(PredictTest.class.getResource("/multiclass/multiclass-format1-probability.avro").toURI());
    Path test = Path.of(PredictTest.class.getResource("/multiclass/blobs4.t.libsvm").toURI());
    two.setLong(PredictJob.MIN_SPLIT_KEY, 1024);
    PredictJob.run(two, new org.apache.hadoop.fs.Path(model.toString()), List.of(test.toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("tp").toString()));
    org.sodm.model.MulticlassModel mm = (org.sodm.model.MulticlassModel) ModelFiles.read(conf, new org.apache.hadoop.fs.Path(model.toString()));
    assertTrue(mm.hasProbabilities());
    List<String> lines = Files.readAllLines(tmp.resolve("tp").resolve(PredictionsText.FILE));
    var t = org.sodm.data.LibsvmReader.read(test);
    assertEquals(t.size() + 1, lines.size());
    // the columns in LIBSVM's label order (the training file's order of first appearance), as svm-predict -b 1 writes them
    List<String> firstSeen = new java.util.ArrayList<>();
    for (String l : org.sodm.testing.LibsvmTools.labels(Path.of(PredictTest.class.getResource("/multiclass/blobs4.libsvm").toURI()))) {
      if (!firstSeen.contains(l)) firstSeen.add(l);
    }
    assertNotEquals(mm.classes(), firstSeen, "the test needs a training file whose first labels are not in order");
    assertEquals("labels " + String.join(" ", firstSeen), lines.get(0));
    for (int i = 0; i < t.size(); i++) {
      org.sodm.model.MulticlassModel.Scored sc = mm.score(t.x()[i]);
      double[] columns = new double[firstSeen.size()];
      for (int k = 0; k < columns.length; k++) columns[k] = sc.probabilities()[mm.classes().indexOf(firstSeen.get(k))];
      assertEquals(org.sodm.model.SvmPredictText.line(mm.classes().get(sc.index()), columns), lines.get(i + 1), "row " + (i + 1));
    }
  }

  @Test
  void svmPredictAgreesWithTheExportedModel() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/svm-predict")), "svm-predict not installed");
    Configuration conf = LocalConf.create(tmp);
    TrainPipeline.Result r = smallModel(conf);
    Path data = LocalConf.sampleData("synthetic-2k.libsvm");
    List<String> theirs = svmPredict(r, data);
    var d = org.sodm.data.LibsvmReader.read(data);
    int agree = 0;
    for (int i = 0; i < d.size(); i++) {
      double f = r.model().decision(d.x()[i]);
      if (Math.abs(f) < 1e-9) continue; // sign at an exact tie may differ
      if (Double.parseDouble(theirs.get(i)) == Double.parseDouble(r.model().labels().original(f))) agree++;
      else fail("row " + (i + 1) + ": svm-predict " + theirs.get(i) + ", sodm f=" + f);
    }
    assertTrue(agree > 1990, "agreement " + agree);
  }

  /** svm-predict's output file for the model exported (export-libsvm) and the data scaled by its range (svm-scale -r). */
  private List<String> svmPredict(TrainPipeline.Result r, Path data) throws Exception {
    Path lib = tmp.resolve("model.libsvm");
    try (var w = Files.newBufferedWriter(lib)) {
      org.sodm.model.LibsvmExport.write(r.model(), w);
    }
    Path range = tmp.resolve("range");
    try (var w = Files.newBufferedWriter(range)) {
      org.sodm.model.LibsvmExport.writeRange(r.model().scaler(), w);
    }
    Path scaled = tmp.resolve("scaled");
    org.sodm.testing.LibsvmTools.run(scaled, "svm-scale", "-r", range.toString(), data.toString());
    return org.sodm.testing.LibsvmTools.predict(scaled, lib, tmp);
  }
}
