package org.sodm.jobs.predict;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.Instances;
import org.sodm.jobs.support.SodmException;
import org.sodm.testing.LocalConf;

/** The driver's half of predict --text: the map tasks' text parts put in input order, and overlapping parts refused. */
class PredictionsTextTest {
  @TempDir Path tmp;

  private void part(Path dir, long first, long last, String... lines) throws Exception {
    Files.write(dir.resolve(String.format(Locale.ROOT, "%s%016x-%016x.txt", PredictionsText.PART_PREFIX, first, last)), List.of(lines));
  }

  @Test
  void partsFollowTheOrderTheInputsWereGivenAndOverlapsFail() throws Exception {
    Configuration conf = LocalConf.create(tmp);
    Path parts = Files.createDirectories(tmp.resolve("parts"));
    long f0 = Instances.idAtOffset(0, 0);
    long f1 = Instances.idAtOffset(1, 0);
    part(parts, f1 + 40, f1 + 90, "c", "d"); // file 1, its second split
    part(parts, f0, f0 + 30, "e");
    part(parts, f1, f1 + 20, "a", "b"); // file 1, its first split
    // file 1 was given first (sorted ordinal 1, place 0): its lines, in byte order, before file 0's
    assertEquals(3, PredictionsText.write(conf, new org.apache.hadoop.fs.Path(parts.toString()), new org.apache.hadoop.fs.Path(tmp.toString()),
        null, new int[] {1, 0}));
    assertEquals(List.of("a", "b", "c", "d", "e"), Files.readAllLines(tmp.resolve(PredictionsText.FILE)));
    try (var f = Files.list(parts)) {
      assertEquals(0, f.count(), "the parts are removed");
    }

    Path bad = Files.createDirectories(tmp.resolve("bad"));
    part(bad, f0, f0 + 50, "x");
    part(bad, f0 + 40, f0 + 60, "y");
    Path out = Files.createDirectories(tmp.resolve("out"));
    SodmException e = assertThrows(SodmException.class, () -> PredictionsText.write(conf, new org.apache.hadoop.fs.Path(bad.toString()),
        new org.apache.hadoop.fs.Path(out.toString()), null, null));
    assertTrue(e.getMessage().contains("overlap") && e.getMessage().contains(String.format(Locale.ROOT, "%016x", f0 + 40)), e.getMessage());
    assertFalse(Files.exists(out.resolve(PredictionsText.FILE)), "nothing half-written");
  }
}
