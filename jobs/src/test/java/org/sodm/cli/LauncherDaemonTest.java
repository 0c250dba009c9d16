package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.testing.LocalConf;

/**
 * bin/sodm's side of {@code SODM_DAEMON=1}, end to end with a real JVM: the first command starts the daemon, the next one
 * runs in it (its standard output and error and exit code as without it), {@code SODM_DAEMON=stop} stops it, and a daemon
 * directory other users could enter is not used. bin/sodm runs from a copy of the project's layout whose jar is a
 * manifest naming this test's class path.
 */
class LauncherDaemonTest {
  @TempDir Path tmp;
  private Path daemonDir;

  @BeforeEach
  void layout() throws Exception {
    Files.createDirectories(tmp.resolve("bin"));
    Files.copy(LocalConf.projectDir().resolve("bin/sodm"), tmp.resolve("bin/sodm"));
    Files.createDirectories(tmp.resolve("jobs/target"));
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, SodmMain.class.getName());
    m.getMainAttributes().put(Attributes.Name.CLASS_PATH, Stream.of(cp.split(File.pathSeparator)).filter(s -> !s.isEmpty())
        .map(s -> new File(s).toURI().toString()).collect(Collectors.joining(" ")));
    try (OutputStream o = new JarOutputStream(Files.newOutputStream(tmp.resolve("jobs/target/sodm-jobs-0-all.jar")), m)) {
      o.flush();
    }
    Files.createFile(tmp.resolve("jobs/target/sodm-jobs-0-cluster.jar"));
    Files.createDirectories(tmp.resolve("t"));
    Process id = new ProcessBuilder("id", "-u").start();
    String uid = new String(id.getInputStream().readAllBytes()).trim();
    assertTrue(id.waitFor(10, TimeUnit.SECONDS));
    daemonDir = tmp.resolve("t/sodm-daemon-" + uid);
  }

  @AfterEach
  void stopDaemons() throws Exception {
    sodm(Map.of("SODM_DAEMON", "stop"));
  }

  /** {rc, stdout, stderr} of {@code bash bin/sodm args} in tmp with the daemon's environment and {@code env}. */
  private String[] sodm(Map<String, String> env, String... args) throws Exception {
    String[] cmd = new String[args.length + 2];
    cmd[0] = "bash";
    cmd[1] = tmp.resolve("bin/sodm").toString();
    System.arraycopy(args, 0, cmd, 2, args.length);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("SODM_"));
    Map<String, String> e = new HashMap<>(Map.of("SODM_LOCAL", "1", "SODM_CDS", "0", "SODM_DAEMON", "1", "SODM_DAEMON_IDLE", "120",
        "SODM_JAVA_OPTS", "-Xmx256m", "TMPDIR", tmp.resolve("t").toString()));
    e.putAll(env);
    pb.environment().putAll(e);
    Process p = pb.start();
    CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "bin/sodm did not finish");
    return new String[] {Integer.toString(p.exitValue()), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS)};
  }

  private static String read(java.io.InputStream in) {
    try {
      return new String(in.readAllBytes());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private long portFiles() throws Exception {
    if (!Files.isDirectory(daemonDir)) return 0;
    try (Stream<Path> s = Files.list(daemonDir)) {
      return s.filter(f -> f.getFileName().toString().endsWith(".port")).count();
    }
  }

  @Test
  void theSecondCommandRunsInTheWarmJvmAsInItsOwnAndStopStopsIt() throws Exception {
    String[] cold = sodm(Map.of("SODM_DAEMON", "0"), "--version");
    assertEquals("0", cold[0], cold[2]);
    assertEquals(0, portFiles());

    String[] first = sodm(Map.of(), "--version");
    assertEquals("0", first[0], first[2]);
    assertEquals(cold[1], first[1]);
    assertTrue(first[2].contains("starting a daemon"), first[2]);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(daemonDir)));
    assertEquals(1, portFiles());

    String[] second = sodm(Map.of(), "--version");
    assertEquals("0", second[0], second[2]);
    assertEquals(cold[1], second[1]);
    assertEquals("", second[2]);

    // a linear train: no Vector API module (a kernel train's JVM has it, hence another daemon, and its cold run's stderr
    // starts with the JVM's warning about the module)
    String[] usage = sodm(Map.of(), "train", "-i", "in p\u00fct\nline", "-o", "o", "--kernel", "linear", "--no-such-option");
    String[] usageCold = sodm(Map.of("SODM_DAEMON", "0"), "train", "-i", "in p\u00fct\nline", "-o", "o", "--kernel", "linear",
        "--no-such-option");
    assertEquals("2", usage[0]);
    assertEquals(usageCold[1], usage[1]);
    assertEquals(usageCold[2], usage[2]);
    assertTrue(usage[2].startsWith("Unknown option: '--no-such-option'"), usage[2]);
    assertEquals(1, portFiles(), "the same key, the same daemon");

    String[] otherOptions = sodm(Map.of("SODM_JAVA_OPTS", "-Xmx200m"), "--version");
    assertEquals("0", otherOptions[0]);
    assertTrue(otherOptions[2].contains("starting a daemon"), "other JVM options, another daemon: " + otherOptions[2]);
    assertEquals(2, portFiles());

    // the Vector API's scoring (predict, a kernel train / cv / grid, SODM_VECTOR=1): a daemon of its own, whose JVM has the
    // module (a cold run without it, SODM_VECTOR=0, computes the offset on the scalar path; one daemon for both would change
    // its model's bits)
    String[] vector = sodm(Map.of("SODM_VECTOR", "1"), "--version");
    assertEquals("0", vector[0], vector[2]);
    assertEquals(cold[1], vector[1]);
    assertTrue(vector[2].contains("starting a daemon"), vector[2]);
    assertEquals(3, portFiles(), "the Vector API module, another daemon");
    String[] vectorAgain = sodm(Map.of("SODM_VECTOR", "1"), "--version");
    assertEquals("0", vectorAgain[0], vectorAgain[2]);
    assertEquals(cold[1], vectorAgain[1]);
    assertEquals("", vectorAgain[2], "run in that daemon (the module's warning is in its log)");
    assertEquals(3, portFiles());

    String[] stop = sodm(Map.of("SODM_DAEMON", "stop"));
    assertEquals("0", stop[0], stop[2]);
    for (int i = 0; i < 200 && portFiles() > 0; i++) Thread.sleep(50);
    assertEquals(0, portFiles(), "the stopped daemons removed their files");
  }

  @Test
  void aCommandTheDaemonRefusesRunsInItsOwnJvm() throws Exception {
    String[] first = sodm(Map.of(), "--version");
    assertEquals("0", first[0], first[2]);
    Path token;
    try (Stream<Path> s = Files.list(daemonDir)) {
      token = s.filter(f -> f.getFileName().toString().endsWith(".token")).findFirst().orElseThrow();
    }
    Files.writeString(token, "0".repeat(64) + "\n");
    String[] refused = sodm(Map.of(), "--version");
    assertEquals("0", refused[0], refused[2]);
    assertEquals(first[1], refused[1]);
    assertTrue(refused[2].contains("the daemon refused the command (wrong token); running without it"), refused[2]);
  }

  @Test
  void aDaemonDirectoryOthersCanEnterIsNotUsed() throws Exception {
    Files.createDirectories(daemonDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    Files.setPosixFilePermissions(daemonDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    String[] r = sodm(Map.of(), "--version");
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].startsWith("sodm "), r[1]);
    assertTrue(r[2].contains("is not a directory of this user's with mode 700"), r[2]);
    assertEquals(0, portFiles());
  }
}
