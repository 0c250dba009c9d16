package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Instance;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/** sodm cv: stratified folds, and the cross-validation accuracy against svm-train -v. */
class CrossValidationTest {
  @TempDir Path tmp;

  @Test
  void foldsAreStratifiedWithinOneRowPerClassAndSeeded() throws IOException {
    Configuration conf = LocalConf.create(tmp);
    Path blobs = MulticlassTrainTest.resource("blobs4.libsvm");
    IngestJob.Result data = IngestJob.run(conf, List.of(blobs.toString()), new org.apache.hadoop.fs.Path(tmp.resolve("in").toString()));
    List<String> classes = List.of("1", "2", "3", "4");
    org.apache.hadoop.fs.Path dataDir = new org.apache.hadoop.fs.Path(data.dir(), IngestJob.DATA);
    for (int k : new int[] {3, 5, 7}) {
      CvFolds f = CvFolds.write(conf, dataDir, classes, k, 9, new org.apache.hadoop.fs.Path(tmp.resolve("f" + k).toString()));
      CvFolds back = CvFolds.read(conf, new org.apache.hadoop.fs.Path(tmp.resolve("f" + k).toString()));
      Map<String, int[]> perClass = new HashMap<>();
      int[] total = new int[k];
      List<Instance> rows = AvroFiles.readDir(conf, dataDir, Instance.class);
      for (Instance in : rows) {
        int fold = f.of(in.getId());
        assertEquals(fold, back.of(in.getId()));
        perClass.computeIfAbsent(in.getLabel().toString(), c -> new int[k])[fold]++;
        total[fold]++;
      }
      for (int[] c : perClass.values()) {
        int min = java.util.Arrays.stream(c).min().getAsInt();
        int max = java.util.Arrays.stream(c).max().getAsInt();
        assertTrue(max - min <= 1, k + " folds: " + java.util.Arrays.toString(c));
      }
      assertTrue(java.util.Arrays.stream(total).max().getAsInt() - java.util.Arrays.stream(total).min().getAsInt() <= 1);
      // another seed deals other rows
      CvFolds g = CvFolds.write(conf, dataDir, classes, k, 10, new org.apache.hadoop.fs.Path(tmp.resolve("g" + k).toString()));
      long moved = rows.stream().filter(in -> g.of(in.getId()) != f.of(in.getId())).count();
      assertTrue(moved > rows.size() / 2, "seed 10 vs 9: " + moved + " rows in another fold");
    }
  }

  /** svmguide1 scaled, hinge C = 2, gamma = 2, 5 folds: within 1 point of svm-train -v 5 on the same scaling. */
  @Test
  void svmguide1WithinOnePointOfSvmTrainV() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "2");
    conf.set(SodmConf.GAMMA, "2");
    conf.setInt(TrainKeys.CV_FOLDS, 5);
    Path data = LocalConf.sampleData("svmguide1");
    List<String> progress = new java.util.ArrayList<>();
    TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data.toString()), null, new org.apache.hadoop.fs.Path(tmp.resolve("cv").toString()),
        false), progress::add);
    @SuppressWarnings("unchecked")
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(tmp.resolve("cv").resolve(TrainPipeline.REPORT).toFile(),
        Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> cv = (Map<String, Object>) report.get("cv");
    double ours = ((Number) cv.get("accuracy")).doubleValue();
    assertEquals(3089, ((Number) cv.get("rows")).intValue());
    assertEquals(5, ((List<?>) cv.get("folds")).size());
    assertTrue(ours > 0.94, "cv accuracy " + ours);
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("cv fold 4")), String.join("\n", progress));
    if (!LibsvmTools.installed()) return;
    Path scaled = tmp.resolve("scaled");
    LibsvmTools.run(scaled, "svm-scale", "-l", "0", "-u", "1", data.toString());
    String out = LibsvmTools.run(null, "svm-train", "-q", "-v", "5", "-c", "2", "-g", "2", scaled.toString());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("Cross Validation Accuracy = ([0-9.]+)%").matcher(out);
    assertTrue(m.find(), out);
    double theirs = Double.parseDouble(m.group(1)) / 100;
    assertEquals(theirs, ours, 0.01, "sodm cv " + ours + " vs svm-train -v 5 " + theirs);
    assertTrue(Files.exists(tmp.resolve("cv").resolve("work").resolve("cv-folds.bin")));
  }
}
