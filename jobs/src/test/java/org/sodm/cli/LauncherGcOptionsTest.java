package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.testing.LocalConf;

/**
 * bin/sodm's garbage collector and heap pages in local mode: the parallel collector by default, none of its own when SODM_JAVA_OPTS selects
 * one (two collectors on one command line stop the JVM: "Conflicting collector combinations"), what SODM_GC_OPTS says when
 * it is set. bin/sodm runs from a copy of the project's layout whose jars are empty files and whose {@code java} is a stand-in
 * that prints its arguments.
 */
class LauncherGcOptionsTest {
  @TempDir Path tmp;

  @BeforeEach
  void layout() throws Exception {
    Files.createDirectories(tmp.resolve("bin"));
    Files.copy(LocalConf.projectDir().resolve("bin/sodm"), tmp.resolve("bin/sodm"));
    Files.createDirectories(tmp.resolve("jobs/target"));
    Files.createFile(tmp.resolve("jobs/target/sodm-jobs-0-all.jar"));
    Files.createFile(tmp.resolve("jobs/target/sodm-jobs-0-cluster.jar"));
    Path java = tmp.resolve("path/java");
    Files.createDirectories(java.getParent());
    Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** The java arguments bin/sodm gives for {@code sodm --version} with {@code env}. */
  private List<String> javaArgs(Map<String, String> env) throws Exception {
    return javaArgs(env, "--version");
  }

  /** The java arguments bin/sodm gives for {@code sodm ARGS} with {@code env}. */
  private List<String> javaArgs(Map<String, String> env, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("bash", tmp.resolve("bin/sodm").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("SODM_"));
    pb.environment().put("PATH", tmp.resolve("path") + ":/usr/bin:/bin");
    pb.environment().put("SODM_LOCAL", "1");
    pb.environment().put("SODM_CDS", "0");
    pb.environment().putAll(env);
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    String out = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.exitValue(), out);
    return Arrays.asList(out.split("\n"));
  }

  /**
   * The Vector API module for the commands that score RBF sums: predict, and a kernel train, cv or grid whether or not it
   * has a validation set (its common offset scores the support vectors: the module must not depend on --validation, or
   * that option would change the model's offset bits); not for a linear one, nor for the other commands.
   */
  @Test
  void theVectorModuleForEveryKernelTrainingAndPrediction() throws Exception {
    String module = "jdk.incubator.vector";
    for (String[] args : List.of(new String[] {"predict", "-i", "x", "-m", "m", "-o", "o"}, new String[] {"train", "-i", "x", "-o", "o"},
        new String[] {"train", "-i", "x", "-o", "o", "-t", "y"}, new String[] {"cv", "-i", "x", "-v", "5"},
        new String[] {"grid", "-i", "x", "-o", "o"}, new String[] {"train", "-i", "x", "-o", "o", "--kernel", "poly"})) {
      List<String> a = javaArgs(Map.of(), args);
      int at = a.indexOf("--add-modules");
      assertTrue(at >= 0 && a.get(at + 1).equals(module), String.join(" ", args) + ": " + a);
      assertTrue(at < a.indexOf("-jar"), "a JVM option, before the jar: " + a);
    }
    for (String[] args : List.of(new String[] {"--version"}, new String[] {"train", "-i", "x", "-o", "o", "--kernel", "linear"},
        new String[] {"train", "-i", "x", "-o", "o", "--kernel=linear", "-t", "y"}, new String[] {"cv", "-k", "linear", "-i", "x"},
        new String[] {"grid", "-klinear", "-i", "x"}, new String[] {"train", "-D", "sodm.kernel=linear", "-i", "x", "-o", "o"},
        new String[] {"inspect", "m"})) {
      assertFalse(javaArgs(Map.of(), args).contains(module), String.join(" ", args));
    }
    assertFalse(javaArgs(Map.of("SODM_VECTOR", "0"), "train", "-i", "x", "-o", "o").contains(module), "SODM_VECTOR=0");
    assertTrue(javaArgs(Map.of("SODM_VECTOR", "1"), "--version").contains(module), "SODM_VECTOR=1");
  }

  @Test
  void theParallelCollectorUnlessTheJavaOptionsChooseOne() throws Exception {
    List<String> plain = javaArgs(Map.of());
    assertTrue(plain.contains("-XX:+UseParallelGC"), plain.toString());
    assertTrue(plain.contains("-Xmx3g") && plain.contains("-jar") && plain.get(plain.size() - 1).equals("--version"), plain.toString());

    List<String> own = javaArgs(Map.of("SODM_JAVA_OPTS", "-Xmx1g -XX:+UseG1GC"));
    assertTrue(own.contains("-XX:+UseG1GC") && own.contains("-Xmx1g"), own.toString());
    assertFalse(own.contains("-XX:+UseParallelGC"), "one collector on the command line: " + own);

    List<String> heapOnly = javaArgs(Map.of("SODM_JAVA_OPTS", "-Xmx1g"));
    assertTrue(heapOnly.contains("-XX:+UseParallelGC") && heapOnly.contains("-Xmx1g"), heapOnly.toString());

    List<String> g1 = javaArgs(Map.of("SODM_GC_OPTS", ""));
    assertFalse(g1.stream().anyMatch(a -> a.matches("-XX:\\+Use.*GC")), "the JVM's default collector: " + g1);
    List<String> serial = javaArgs(Map.of("SODM_GC_OPTS", "-XX:+UseSerialGC"));
    assertTrue(serial.contains("-XX:+UseSerialGC") && !serial.contains("-XX:+UseParallelGC"), serial.toString());
  }

  /**
   * Transparent huge pages for the heap when the kernel gives them on request ([madvise]), not when it gives them always or
   * never (the JVM would warn), nor when the kernel's setting cannot be read, nor when SODM_JAVA_OPTS or SODM_PAGE_OPTS
   * decides.
   */
  @Test
  void hugePagesWhenTheKernelGivesThemOnRequest() throws Exception {
    String thp = "-XX:+UseTransparentHugePages";
    Path sysfs = tmp.resolve("thp-enabled");
    Files.writeString(sysfs, "always [madvise] never\n");
    List<String> madvise = javaArgs(Map.of("SODM_THP_SYSFS", sysfs.toString()));
    assertTrue(madvise.contains(thp) && madvise.contains("-XX:+UseParallelGC"), madvise.toString());
    assertFalse(javaArgs(Map.of("SODM_THP_SYSFS", sysfs.toString(), "SODM_PAGE_OPTS", "")).contains(thp));
    List<String> own = javaArgs(Map.of("SODM_THP_SYSFS", sysfs.toString(), "SODM_JAVA_OPTS", "-Xmx1g -XX:-UseTransparentHugePages"));
    assertTrue(own.contains("-XX:-UseTransparentHugePages") && !own.contains(thp), own.toString());
    for (String setting : new String[] {"[always] madvise never\n", "always madvise [never]\n"}) {
      Files.writeString(sysfs, setting);
      assertFalse(javaArgs(Map.of("SODM_THP_SYSFS", sysfs.toString())).contains(thp), setting);
    }
    assertFalse(javaArgs(Map.of("SODM_THP_SYSFS", tmp.resolve("absent").toString())).contains(thp));
  }
}
