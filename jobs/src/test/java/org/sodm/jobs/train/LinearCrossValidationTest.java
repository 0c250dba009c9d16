package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/** sodm cv with the linear solvers (BQO, DSVRG): every (task, fold) trained without its fold, against liblinear-train -v. */
class LinearCrossValidationTest {
  @TempDir Path tmp;

  @SuppressWarnings("unchecked")
  private Map<String, Object> cv(String data, String loss, String solver, boolean bias, String multiclass) throws Exception {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, loss);
    conf.set(SodmConf.C, "1");
    conf.set("sodm.kernel", "linear");
    conf.set("sodm.train.linear.solver", solver);
    conf.setBoolean("sodm.train.bias", bias);
    if (multiclass != null) conf.set("sodm.train.multiclass", multiclass);
    conf.setInt(TrainKeys.CV_FOLDS, 5);
    Path out = tmp.resolve("cv-" + loss + solver + bias + multiclass);
    TrainPipeline.run(conf, new TrainPipeline.Request(List.of(data), null, new org.apache.hadoop.fs.Path(out.toString()), false), l -> {});
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(out.resolve(TrainPipeline.REPORT).toFile(), Map.class);
    return (Map<String, Object>) report.get("cv");
  }

  private static double liblinear(Path scratch, String data, String... args) throws Exception {
    Path scaled = scratch.resolve("scaled-" + Path.of(data).getFileName());
    if (!Files.exists(scaled)) LibsvmTools.run(scaled, "svm-scale", "-l", "0", "-u", "1", data);
    String[] cmd = new String[args.length + 5];
    cmd[0] = "liblinear-train";
    cmd[1] = "-q";
    cmd[2] = "-v";
    cmd[3] = "5";
    System.arraycopy(args, 0, cmd, 4, args.length);
    cmd[cmd.length - 1] = scaled.toString();
    String out = LibsvmTools.run(null, cmd);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("Cross Validation Accuracy = ([0-9.]+)%").matcher(out);
    assertTrue(m.find(), out);
    return Double.parseDouble(m.group(1)) / 100;
  }

  private static boolean liblinearInstalled() {
    return Files.isExecutable(Path.of("/usr/bin/liblinear-train")) && LibsvmTools.installed();
  }

  /** svmguide1 [0,1], hinge C = 1, 5 folds, BQO without and with bias: within 1 point of liblinear-train -s 3 -v 5 (-B -1 / 1). */
  @Test
  @SuppressWarnings("unchecked")
  void bqoWithinOnePointOfLiblinearV() throws Exception {
    String data = LocalConf.sampleData("svmguide1").toString();
    for (boolean bias : new boolean[] {false, true}) {
      Map<String, Object> cv = cv(data, "hinge", "bqo", bias, null);
      assertEquals(3089, ((Number) cv.get("rows")).intValue());
      List<Map<String, Object>> folds = (List<Map<String, Object>>) cv.get("folds");
      assertEquals(5, folds.size());
      long rows = 0;
      for (Map<String, Object> f : folds) {
        long n = ((Number) f.get("rows")).longValue();
        assertTrue(n == 617 || n == 618, "fold sizes within +-1: " + n);
        rows += n;
      }
      assertEquals(3089, rows);
      double ours = ((Number) cv.get("accuracy")).doubleValue();
      assertTrue(ours > (bias ? 0.93 : 0.88), "cv accuracy " + ours);
      if (!liblinearInstalled()) continue;
      double theirs = liblinear(tmp, data, "-s", "3", "-c", "1", "-B", bias ? "1" : "-1");
      assertEquals(theirs, ours, 0.01, "sodm cv (bqo, bias " + bias + ") " + ours + " vs liblinear-train -v 5 " + theirs);
    }
  }

  /**
   * DSVRG (ODM only, no LIBLINEAR peer) runs its folds too. No accuracy peer here: DSVRG's ODM with the default parameters reaches
   * 52.5% on svmguide1.t in plain training as well (sodm train), so an agreement test would measure that, not the folds; the
   * folds' wiring is {@code DealerHeldOutTest}'s.
   */
  @Test
  @SuppressWarnings("unchecked")
  void dsvrgRunsEveryFold() throws Exception {
    Map<String, Object> cv = cv(LocalConf.sampleData("svmguide1").toString(), "odm", "dsvrg", true, null);
    assertEquals(3089, ((Number) cv.get("rows")).intValue());
    assertEquals(5, ((List<?>) cv.get("folds")).size());
  }
}
