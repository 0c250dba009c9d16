package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmReader;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.KernelModel;
import org.sodm.testing.LibsvmTools;
import org.sodm.testing.LocalConf;

/**
 * --offset: LIBSVM's model class (an unregularised offset), so that sodm's exact model is svm-train's: on svmguide1 at
 * LIBSVM's default parameters (C = 1, gamma = 1/4, [0,1]-scaled) the same dual objective and the same test labels; in the
 * tree, each block keeps its own offset.
 */
class OffsetTrainTest {
  @TempDir Path tmp;

  private Configuration conf() {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
    conf.set(SodmConf.GAMMA, "0.25");
    conf.set(Param.OFFSET.key(), "true");
    return conf;
  }

  private TrainPipeline.Result train(Configuration conf, String out) throws Exception {
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false), l -> {});
  }

  @Test
  @SuppressWarnings("unchecked")
  void exactModelIsLibsvms() throws Exception {
    TrainPipeline.Result r = train(conf(), "exact");
    KernelModel m = (KernelModel) r.model();
    assertEquals(1, m.blockCount());
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(
        tmp.resolve("exact").resolve(TrainPipeline.REPORT).toFile(), Map.class);
    double ours = ((Number) ((Map<String, Object>) report.get("exact")).get("objective")).doubleValue();
    LibsvmReader.Data test = LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
    List<String> labels = new ArrayList<>();
    int correct = 0;
    for (int i = 0; i < test.size(); i++) {
      labels.add(m.predict(test.x()[i]));
      if (labels.get(i).equals(test.labels()[i])) correct++;
    }
    double acc = (double) correct / test.size();
    assertTrue(acc > 0.94, "accuracy " + acc);
    Assumptions.assumeTrue(LibsvmTools.installed(), "svm-train not installed: the comparison with LIBSVM is skipped");
    Path range = tmp.resolve("range");
    Path trainS = tmp.resolve("train.scaled");
    Path testS = tmp.resolve("test.scaled");
    LibsvmTools.run(trainS, "svm-scale", "-l", "0", "-u", "1", "-s", range.toString(), LocalConf.sampleData("svmguide1").toString());
    LibsvmTools.run(testS, "svm-scale", "-r", range.toString(), LocalConf.sampleData("svmguide1.t").toString());
    Path model = tmp.resolve("svm.model");
    String out = LibsvmTools.run(null, "svm-train", "-c", "1", "-g", "0.25", "-e", "0.001", trainS.toString(), model.toString());
    java.util.regex.Matcher om = java.util.regex.Pattern.compile("obj = (-?[0-9.e+-]+)").matcher(out);
    assertTrue(om.find(), out);
    double theirs = Double.parseDouble(om.group(1));
    assertEquals(theirs, ours, 2e-4 * Math.abs(theirs), "dual objective: sodm " + ours + ", svm-train " + theirs);
    List<String> libsvm = LibsvmTools.predict(testS, model, tmp);
    int same = 0;
    for (int i = 0; i < labels.size(); i++) if (Double.parseDouble(labels.get(i)) == Double.parseDouble(libsvm.get(i))) same++;
    assertTrue(same >= labels.size() - 2, "labels equal to svm-predict's on " + same + " of " + labels.size());
  }

  /** In the tree each block has its own offset: the 4 averaged blocks' model has non-zero, different offsets. */
  @Test
  void treeBlocksKeepTheirOffsets() throws Exception {
    Configuration conf = conf();
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    KernelModel m = (KernelModel) train(conf, "tree").model();
    assertEquals(4, m.blockCount());
    java.util.Set<Double> offsets = new java.util.HashSet<>();
    for (int b = 0; b < 4; b++) offsets.add(m.block(b).bias());
    assertEquals(4, offsets.size(), "four blocks, four offsets: " + offsets);
    assertFalse(offsets.contains(0.0));
  }

  @Test
  void refusedWhereItDoesNotApply() {
    Configuration odm = conf();
    odm.set(SodmConf.LOSS, "odm");
    assertThrows(BadParameterException.class, () -> train(odm, "odm"));
    Configuration both = conf();
    both.setBoolean("sodm.train.bias", true);
    assertThrows(BadParameterException.class, () -> train(both, "both"));
    Configuration never = conf();
    never.set(SodmConf.EXACT_SINGLE, "never");
    assertThrows(BadParameterException.class, () -> train(never, "never"));
  }
}
