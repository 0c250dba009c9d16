package org.sodm.jobs.linear;

import static org.junit.jupiter.api.Assertions.*;

import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Instance;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.phase.MulticlassKeys;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.testing.LocalConf;

/** sodm cv with a linear solver: the dealer leaves out exactly the rows of the held-out fold, for every fold. */
class DealerHeldOutTest {
  @TempDir Path tmp;

  @Test
  void dealsEveryRowButTheHeldOutFolds() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    IngestJob.Result data = IngestJob.run(conf, List.of(LocalConf.sampleData("svmguide1").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("in").toString()));
    List<Instance> rows = AvroFiles.readDir(conf, new org.apache.hadoop.fs.Path(data.dir(), IngestJob.DATA), Instance.class);
    long[] ids = rows.stream().mapToLong(Instance::getId).sorted().toArray();
    int k = 4;
    Path file = tmp.resolve("folds.bin");
    try (DataOutputStream o = new DataOutputStream(Files.newOutputStream(file))) { // the format sodm cv's driver writes
      o.writeInt(ids.length);
      for (long id : ids) o.writeLong(id);
      for (long id : ids) o.writeByte((int) Math.floorMod(id * 7 + 3, k));
    }
    org.sodm.jobs.spec.TrainSpec.from(conf).withDimension(4).writeTo(conf);
    conf.set(LinearKeys.INGEST_DIR, data.dir().toString());
    conf.set(MulticlassKeys.CV_FOLDS_FILE, file.toString());
    assertEquals(rows.size(), count(new Dealer(conf), rows, -1, k)); // no held-out fold: every row
    for (int f = 0; f < k; f++) {
      int held = f;
      Configuration c = new Configuration(conf);
      c.setInt(LinearKeys.HELD_OUT_FOLD, f);
      Dealer d = new Dealer(c);
      assertEquals(rows.size() - rows.stream().filter(r -> Math.floorMod(r.getId() * 7 + 3, k) == held).count(), count(d, rows, f, k));
    }
  }

  /** Rows dealt; fails when a held-out row is dealt or another is not. */
  private static long count(Dealer d, List<Instance> rows, int heldOut, int k) throws Exception {
    long n = 0;
    for (Instance in : rows) {
      boolean out = heldOut >= 0 && Math.floorMod(in.getId() * 7 + 3, k) == heldOut;
      boolean dealt = d.deal(in) != null;
      assertEquals(!out, dealt, "row " + in.getId() + " fold " + Math.floorMod(in.getId() * 7 + 3, k) + " held out " + heldOut);
      if (dealt) n++;
    }
    return n;
  }
}
