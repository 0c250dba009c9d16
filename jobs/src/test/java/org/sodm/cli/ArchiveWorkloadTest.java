package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The workload bin/sodm runs to write the class-data archive: every command of it succeeds, and a failing one is named. */
class ArchiveWorkloadTest {
  @TempDir Path tmp;

  @Test
  void trainsAndPredictsWithBothKinds() throws Exception {
    ArchiveWorkload.run(tmp);
    List<String> lines = Files.readAllLines(tmp.resolve("data.libsvm"));
    assertEquals(400, lines.size());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("+1 ")) && lines.stream().anyMatch(l -> l.startsWith("-1 ")), "both labels");
    for (String m : List.of("kernel", "linear")) {
      assertTrue(Files.isRegularFile(tmp.resolve(m).resolve("model.avro")), m + " model");
      try (var parts = Files.list(tmp.resolve(m + "-scores"))) {
        assertTrue(parts.anyMatch(p -> p.getFileName().toString().startsWith("part-")), m + " predictions");
      }
    }
    String inspect = SodmMainTest.run("inspect", tmp.resolve("linear").toString())[1];
    assertTrue(inspect.contains("linear"), inspect);
  }

  @Test
  void aFailingCommandIsNamed() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> ArchiveWorkload.run("train", "-i", tmp.resolve("missing.libsvm").toString(), "-o", tmp.resolve("m").toString()));
    assertTrue(e.getMessage().startsWith("sodm train -i " + tmp.resolve("missing.libsvm")), e.getMessage());
  }
}
