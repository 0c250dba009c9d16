package org.sodm.jobs.predict;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockModel;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.TaskModel;
import org.sodm.data.LibsvmParser;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.model.ModelCodec;
import org.sodm.model.MulticlassModel;
import org.sodm.testing.LocalConf;

/**
 * Model format 2 (the support vector table) beside format 1: the resource {@code multiclass-format1-probability.avro} was
 * written before the table existed (at 6434977: {@code sodm train -i blobs4.libsvm -o M --loss hinge -c 1 --probability}).
 * It still verifies its digest and scores every test row as its format 2 rewrite does, bit for bit; training it again
 * now writes format 2 with the same tasks, coefficients and sigmoids.
 */
class ModelFormatTest {
  @TempDir Path tmp;

  private static Path resource(String name) throws Exception {
    return Path.of(ModelFormatTest.class.getResource("/multiclass/" + name).toURI());
  }

  @Test
  void aFormat1MulticlassModelReadsAsItsFormat2Rewrite() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    ModelRecord before = ModelFiles.readRecord(conf, new org.apache.hadoop.fs.Path(resource("multiclass-format1-probability.avro").toString()));
    assertEquals(1, before.getFormatVersion());
    assertNull(before.getSupportVectors());
    MulticlassModel m1 = (MulticlassModel) ModelCodec.fromAvro(before); // its digest verified with format 1's schema
    ModelRecord rewritten = ModelCodec.toAvro(m1);
    assertEquals(2, rewritten.getFormatVersion());
    assertEquals(m1.distinctSupportVectors(), rewritten.getSupportVectors().getIds().size());
    MulticlassModel m2 = (MulticlassModel) ModelCodec.fromAvro(rewritten);
    LibsvmParser parser = new LibsvmParser();
    List<String> rows = Files.readAllLines(resource("blobs4.t.libsvm"));
    assertEquals(225, rows.size());
    for (String line : rows) {
      org.sodm.data.SparseVector x = parser.parse(line).features();
      MulticlassModel.Scored a = m1.score(x);
      MulticlassModel.Scored b = m2.score(x);
      assertEquals(a.index(), b.index(), line);
      assertArrayEquals(a.probabilities(), b.probabilities(), 0.0, line);
    }

    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
    conf.setBoolean(Param.PROBABILITY.key(), true);
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(resource("blobs4.libsvm").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("again").toString()), false), l -> {});
    ModelRecord now = ModelFiles.readRecord(conf, r.modelPath());
    assertEquals(2, now.getFormatVersion());
    assertEquals(rewritten.getSupportVectors(), now.getSupportVectors());
    List<TaskModel> was = before.getMulticlass().getTasks();
    for (int t = 0; t < was.size(); t++) {
      TaskModel a = was.get(t);
      TaskModel b = now.getMulticlass().getTasks().get(t);
      assertEquals(a.getPlattA(), b.getPlattA(), "task " + t);
      assertEquals(a.getPlattB(), b.getPlattB(), "task " + t);
      assertEquals(a.getBlocks().size(), b.getBlocks().size());
      for (int k = 0; k < a.getBlocks().size(); k++) {
        BlockModel x = a.getBlocks().get(k);
        BlockModel y = b.getBlocks().get(k);
        assertEquals(x.getIds(), y.getIds(), "task " + t);
        assertEquals(x.getCoef(), y.getCoef(), "task " + t);
        assertEquals(x.getBias(), y.getBias(), "task " + t);
        assertTrue(y.getVectors().isEmpty());
      }
    }
  }
}
