package org.sodm.jobs.predict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * The predict task finds its model in the distributed cache by the URI PredictJob recorded, not by position: under Oozie
 * the launcher's own files can come first in the cache (the validation scoring job met that in the Oozie test).
 */
class PredictModelFileTest {
  @Test
  void theModelIsFoundByItsUriWhereverItIsInTheCache() throws IOException {
    URI oozie = URI.create("hdfs://nn/user/oozie/share/lib/oozie-sharelib.jar");
    URI model = URI.create("hdfs://nn/models/m1/model.avro");
    URI other = URI.create("hdfs://nn/models/m2/model.avro");
    assertEquals(model.toString(), PredictMapper.modelFile(model.toString(), new URI[] {oozie, other, model}).toUri().toString());
    assertEquals(model.toString(), PredictMapper.modelFile(model.toString(), new URI[] {model}).toUri().toString());
  }

  @Test
  void aMissingModelOrKeyIsNamed() {
    URI oozie = URI.create("hdfs://nn/user/oozie/share/lib/oozie-sharelib.jar");
    IOException e = assertThrows(IOException.class, () -> PredictMapper.modelFile("hdfs://nn/models/m1/model.avro", new URI[] {oozie}));
    assertTrue(e.getMessage().contains("hdfs://nn/models/m1/model.avro") && e.getMessage().contains("oozie-sharelib.jar"), e.getMessage());
    IOException k = assertThrows(IOException.class, () -> PredictMapper.modelFile(null, new URI[] {oozie}));
    assertTrue(k.getMessage().contains(PredictMapper.MODEL_KEY), k.getMessage());
    assertThrows(IOException.class, () -> PredictMapper.modelFile("hdfs://nn/m.avro", null));
  }
}
