package org.sodm.jobs.predict;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockModel;
import org.sodm.avro.ModelRecord;
import org.sodm.cli.SodmMainAccess;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.model.ModelCodec;
import org.sodm.testing.LocalConf;

/** Issue 15 item 3: a model carries a digest of its records, verified on every load; a changed model is refused. */
class ModelIntegrityTest {
  @TempDir Path tmp;
  private Configuration conf;
  private Path model;

  @BeforeEach
  void train() throws Exception {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(SodmConf.PARTITIONS, "1");
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.AVRO_CODEC, "null"); // raw bytes, so that a flipped byte decodes into another number
    TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("m").toString()), false), line -> { });
    model = tmp.resolve("copy.avro"); // copied without its .crc, as a user copying the file would
    Files.copy(tmp.resolve("m").resolve("model.avro"), model);
  }

  private org.apache.hadoop.fs.Path hp(Path p) {
    return new org.apache.hadoop.fs.Path(p.toString());
  }

  @Test
  void theWrittenModelVerifiesAndAChangedCoefficientIsRefused() throws Exception {
    ModelRecord r = ModelFiles.readRecord(conf, hp(model));
    assertNotNull(r.getDigest());
    assertEquals(r.getDigest().toString(), ModelCodec.digest(r), "the digest is of the content");
    BlockModel b = r.getBlocks().get(0);
    List<Double> coef = new ArrayList<>(b.getCoef());
    coef.set(coef.size() / 2, coef.get(coef.size() / 2) * 1.0000001);
    b.setCoef(coef);
    Path changed = tmp.resolve("changed.avro");
    AvroFiles.writeOne(conf, hp(changed), ModelRecord.getClassSchema(), r);
    SodmException e = assertThrows(SodmException.class, () -> ModelFiles.read(conf, hp(changed)));
    assertTrue(e.getMessage().contains("corrupt") && e.getMessage().contains(changed.toString()), e.getMessage());
    // a model written before digests existed still loads
    r.setDigest(null);
    AvroFiles.writeOne(conf, hp(tmp.resolve("old.avro")), ModelRecord.getClassSchema(), r);
    assertNotNull(ModelFiles.read(conf, hp(tmp.resolve("old.avro"))));
  }

  @Test
  void everyFlippedByteOfTheRecordsIsRefusedByEveryCommand() throws Exception {
    byte[] good = Files.readAllBytes(model);
    assertNotNull(ModelFiles.read(conf, hp(model)));
    int refused = 0;
    int tried = 0;
    for (int pos = good.length / 3; pos < good.length - 40; pos += Math.max(1, good.length / 60)) {
      byte[] bad = good.clone();
      bad[pos] ^= 0x10;
      Files.write(model, bad);
      tried++;
      try {
        ModelFiles.read(conf, hp(model));
      } catch (SodmException e) {
        refused++;
      }
    }
    assertEquals(tried, refused, "every flip refused");
    String[] r = SodmMainAccess.run("inspect", model.toString());
    assertEquals("1", r[0]);
    assertTrue(r[2].contains(model.toString()), r[2]);
    r = SodmMainAccess.run("predict", "-D", "mapreduce.framework.name=local", "-m", model.toString(), "-i",
        LocalConf.sampleData("svmguide1.t").toString(), "-o", tmp.resolve("p").toString());
    assertEquals("1", r[0], r[1] + r[2]);
    assertFalse(Files.exists(tmp.resolve("p")));
  }
}
