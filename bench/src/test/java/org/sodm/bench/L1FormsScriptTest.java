package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * bench/l1-forms.sh on the bundled svmguide1 (4 features, unscaled): each L1 form runs and is summarised, and the Newton forms
 * land within their stop of the optimum, which is {@code liblinear-train -s 6 -e 1e-6}'s objective where liblinear-tools is
 * installed (else the forms' lowest f); no temporary file is left. Skipped when the jobs all-jar has not been built (the script times that jar).
 */
class L1FormsScriptTest {
  @org.junit.jupiter.api.io.TempDir Path scratch;

  @Test
  void everyFormRunsAndTheNewtonFormsReachTheOptimum() throws Exception {
    Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    Path script = root.resolve("bench/l1-forms.sh");
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash");
    try (var jars = Files.newDirectoryStream(root.resolve("jobs/target"), "sodm-jobs-*-all.jar")) {
      assumeTrue(jars.iterator().hasNext(), "no jobs all-jar");
    } catch (java.nio.file.NoSuchFileException e) {
      assumeTrue(false, "no jobs/target");
    }
    ProcessBuilder pb = new ProcessBuilder("/bin/bash", script.toString(), root.resolve("sample-data/svmguide1").toString(), "--reps",
        "2", "--eps", "1e-4");
    pb.environment().put("BENCH_CP", System.getProperty("java.class.path"));
    pb.environment().put("TMPDIR", scratch.toString()); // the reference model's temporary file: removed at the end
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "l1-forms.sh timed out");
    if (p.exitValue() == 3) {
      assumeTrue(false, "the jobs jar is not built from this checkout: " + output);
    }
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("3,089 rows, 4 features"), output);
    // the summary: form, first s, median s, iterations, f, relative gap, non-zeros, the run's certified bound (duality gap / f)
    Matcher m = Pattern.compile("(?m)^(glmnet|glmnet-columns|owlqn) +([0-9.]+) +([0-9.]+) +([0-9]+) +([0-9.e+-]+) +([0-9.e+-]+) +([0-9]+)"
        + " +([0-9.e+-]+)$").matcher(output);
    Map<String, Double> gap = new LinkedHashMap<>();
    while (m.find()) {
      gap.put(m.group(1), Double.parseDouble(m.group(6)));
      // the certificate bounds the distance to the optimum (the reference's own tolerance aside)
      assertTrue(Double.parseDouble(m.group(8)) >= Double.parseDouble(m.group(6)) - 1e-7, m.group(1) + ": " + output);
    }
    assertEquals(java.util.List.of("glmnet", "glmnet-columns", "owlqn"), java.util.List.copyOf(gap.keySet()), output);
    boolean reference = output.contains("(liblinear-train -s 6 -e 1e-6)");
    for (var e : gap.entrySet()) {
      // no form below the optimum beyond the reference's own tolerance; the Newton forms within 1e-5 of it at eps 1e-4
      assertTrue(e.getValue() > -1e-7, e.getKey() + " below the optimum: " + output);
      if (!e.getKey().equals("owlqn")) assertTrue(e.getValue() < 1e-5, e.getKey() + " far from the optimum: " + output);
    }
    assertTrue(reference || gap.values().stream().anyMatch(v -> v == 0), output);
    // the two reps of a form give the same f (the methods are deterministic): each run's line has it
    Matcher runs = Pattern.compile("(?m)^([12])\t(glmnet|glmnet-columns|owlqn)\t[0-9.]+\t[0-9]+\t([0-9.e+-]+)\t").matcher(output);
    Map<String, String> first = new LinkedHashMap<>();
    int lines = 0;
    while (runs.find()) {
      lines++;
      String prev = first.putIfAbsent(runs.group(2), runs.group(3));
      if (prev != null) assertEquals(prev, runs.group(3), runs.group(2) + ": " + output);
    }
    assertEquals(6, lines, output);
    try (var left = Files.list(scratch)) {
      assertEquals(java.util.List.of(), left.toList(), "the script's temporary files are removed");
    }
  }
}
