package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bench/parity-grid.sh on the bundled svmguide1 (3,089 rows: sodm's default model is one block, the whole problem's
 * optimum with LIBSVM's offset, so both sides must score the test file alike): the cell's line parses, its delta is
 * the difference of the two accuracies it prints, and a second run takes LIBSVM's result from the cache instead of
 * running svm-train again. Skipped without bash or LIBSVM's tools.
 */
class ParityGridScriptTest {
  @TempDir Path out;

  @Test
  void oneCellAgainstSvmTrainAndTheCache() throws Exception {
    Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    Path script = root.resolve("bench/parity-grid.sh");
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash");
    assumeTrue(onPath("svm-train") && onPath("svm-predict"), "LIBSVM's svm-train / svm-predict not installed");
    String first = run(root, script);
    String[] cell = dataLine(first);
    assertEquals("1", cell[0], first);
    assertEquals("-5", cell[1], first);
    double libsvm = Double.parseDouble(cell[2]);
    double sodm = Double.parseDouble(cell[3]);
    double delta = Double.parseDouble(cell[4]);
    assertTrue(libsvm > 80 && libsvm <= 100, first);
    assertEquals(sodm - libsvm, delta, 0.006, "delta is sodm - LIBSVM: " + first);
    assertEquals(0, delta, 0.1, "one exact block with LIBSVM's offset: LIBSVM's accuracy: " + first);
    assertEquals("1", cell[7], "one block: " + first);

    Path cached;
    try (Stream<Path> s = Files.list(out.resolve("libsvm"))) {
      List<Path> results = s.filter(p -> p.toString().endsWith(".result")).toList();
      assertEquals(1, results.size(), results.toString());
      cached = results.get(0);
    }
    FileTime before = Files.getLastModifiedTime(cached);
    String cachedText = Files.readString(cached);
    String second = run(root, script);
    assertEquals(before, Files.getLastModifiedTime(cached), "the second run reused LIBSVM's result");
    assertEquals(cachedText, Files.readString(cached));
    assertEquals(cell[2], dataLine(second)[2], second);
  }

  private String run(Path root, Path script) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("/bin/bash", script.toString(), root.resolve("sample-data/svmguide1").toString(),
        root.resolve("sample-data/svmguide1.t").toString(), out.toString());
    pb.environment().put("LOG2C", "1");
    pb.environment().put("LOG2G", "-5");
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "parity-grid.sh timed out");
    assertEquals(0, p.exitValue(), output);
    return output;
  }

  /** The one line of the grid: log2c log2g libsvm% sodm% delta libsvm_s sodm_s N blocks. */
  private static String[] dataLine(String output) {
    List<String> lines = output.lines().filter(l -> l.matches("^-?[0-9].*blocks$")).toList();
    assertEquals(1, lines.size(), output);
    String[] f = lines.get(0).trim().split("\\s+");
    assertEquals(9, f.length, lines.get(0));
    return f;
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return true;
    }
    return false;
  }
}
