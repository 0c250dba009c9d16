package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.cli.SodmMainAccess;

/** The real cause of a failure in one line, instead of Hadoop's "NA" or a wrapper's message. */
class CausesTest {
  @TempDir Path tmp;

  @Test
  void eachKindOfCauseIsNamedWithItsPath() {
    Exception perm = new IOException("task failed", new AccessDeniedException("/data/out/part-0"));
    assertTrue(Causes.describe(perm, "ingest").startsWith("permission denied: /data/out/part-0"), Causes.describe(perm, "ingest"));
    String full = Causes.describe(new RuntimeException(new IOException("/tmp/x/part-0: No space left on device")), "level 2");
    assertTrue(full.startsWith("disk full: /tmp/x/part-0: No space left on device") && full.contains("bytes free on /tmp"), full);
    String oom = Causes.describe(new RuntimeException("wrapped", new OutOfMemoryError("Java heap space")), "level 1");
    assertTrue(oom.contains("out of memory in level 1") && oom.contains("--cache-mb") && oom.contains("--max-block-rows"), oom);
    String avro = Causes.describe(new IOException("wrapper", new IOException("Not an Avro data file.")), "ingest of x.avro");
    assertTrue(avro.startsWith("not an Avro file") && avro.contains("x.avro"), avro);
    String named = Causes.describe(new IOException("file:/data/pred/part-m-00000.avro: cannot read Prediction: Not an Avro data file.",
        new IOException("Not an Avro data file.")), "sodm evaluate");
    assertTrue(named.startsWith("not an Avro file: file:/data/pred/part-m-00000.avro: "), "the path an outer message names: " + named);
    assertNull(Causes.known(new IllegalStateException("x", new ArithmeticException("/ by zero")), "level 3"), "not a known cause");
    assertEquals("bad parameter --cost", Causes.describe(new SodmException("bad parameter --cost"), "train"), "a user error as it is");
    String other = Causes.describe(new IllegalStateException("outer", new ArithmeticException("/ by zero")), "level 3");
    assertEquals("ArithmeticException: / by zero (in level 3)", other);
  }

  @Test
  void aCorruptAvroInputIsReportedAsSuchWithoutAStackTrace() throws Exception {
    Path bad = tmp.resolve("rows.avro");
    Files.writeString(bad, "this is not avro\n");
    String[] r = SodmMainAccess.run(List.of("ingest", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D",
        "mapreduce.framework.name=local", "-D", "fs.defaultFS=file:///", "-i", bad.toString(), "-o", tmp.resolve("o").toString())
        .toArray(new String[0]));
    assertEquals("1", r[0]);
    assertTrue(r[2].contains("rows.avro") && !r[2].contains("failed: NA"), r[2]);
    assertFalse(r[2].contains("\tat "), r[2]);
    assertFalse(Files.exists(tmp.resolve("o")), "nothing half-written");
  }
}
