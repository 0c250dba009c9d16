package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * bench/run.sh --self-check: the split is deterministic, disjoint and complete, svm-scale's [0,1]
 * scaling is reproduced on the test side by the range file, svm-train's output parses. Skipped when
 * bash or ../shared/datasets is absent; the script itself skips the parts whose tools are missing.
 */
class BenchScriptTest {
  @Test
  void selfCheck() throws Exception {
    Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    Path script = root.resolve("bench/run.sh");
    Path data = root.resolve("../shared/datasets").normalize();
    assumeTrue(Files.exists(script), "no bench/run.sh");
    assumeTrue(Files.isDirectory(data), "no data sets at " + data);
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash");
    ProcessBuilder pb = new ProcessBuilder("/bin/bash", script.toString(), "--self-check", "--datasets", data.toString());
    pb.environment().put("BENCH_CP", System.getProperty("java.class.path"));
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "self-check timed out");
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("self-check: all passed"), output);
    assertTrue(output.contains("ok: split: same seed, same files"), output);
  }
}
