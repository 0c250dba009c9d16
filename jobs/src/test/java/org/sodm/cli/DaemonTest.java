package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.testing.LocalConf;

/**
 * {@link Daemon}'s side of {@code SODM_DAEMON=1}: a command sent over its socket runs as in a fresh JVM (its output on the
 * caller's pipes, its exit code answered, the same model bit for bit), and a connection without the token, from another
 * working directory or with a malformed request is refused without running anything, the daemon serving the next one.
 */
class DaemonTest {
  @TempDir Path tmp;
  private Daemon daemon;
  private Thread serving;

  @BeforeEach
  void start() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("d"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    startServing(new Daemon(dir, "k", 60));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(daemon.tokenFile())));
  }

  /** {@code d} serving on a thread of its own (the fields {@link #daemon} and {@link #serving}), once it wrote its port file. */
  private void startServing(Daemon d) throws Exception {
    daemon = d;
    serving = new Thread(() -> {
      try {
        d.serve();
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    }, "daemon-under-test");
    serving.setDaemon(true);
    serving.start();
    for (int i = 0; i < 200 && !Files.exists(d.portFile()); i++) Thread.sleep(25);
    assertTrue(Files.exists(d.portFile()), "the daemon wrote no port file");
  }

  @AfterEach
  void stop() throws Exception {
    daemon.close();
    serving.join(10_000);
    assertFalse(serving.isAlive());
    assertFalse(Files.exists(daemon.portFile()), "the daemon left its port file");
  }

  private int port() throws Exception {
    return Integer.parseInt(Files.readString(daemon.portFile()).trim().split(" ")[0]);
  }

  private String token() throws Exception {
    return Files.readString(daemon.tokenFile()).trim();
  }

  private static String cwd() throws Exception {
    return Path.of("").toAbsolutePath().toRealPath().toString();
  }

  /** What a client gets back: the daemon's answer line and what arrived on the two pipes. */
  record Reply(String answer, String out, String err) {}

  /** Sends the request lines (as the launcher does) with the two pipes made here; reads the pipes while it runs. */
  private Reply send(String token, String dir, String... args) throws Exception {
    Path pipes = Files.createTempDirectory(tmp, "p");
    Path out = pipes.resolve("out");
    Path err = pipes.resolve("err");
    for (Path p : new Path[] {out, err}) {
      Process mk = new ProcessBuilder("mkfifo", p.toString()).start();
      assertTrue(mk.waitFor(10, TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo " + p);
    }
    CompletableFuture<String> o = CompletableFuture.supplyAsync(() -> drain(out));
    CompletableFuture<String> e = CompletableFuture.supplyAsync(() -> drain(err));
    ByteArrayOutputStream req = new ByteArrayOutputStream();
    req.writeBytes((Daemon.HELLO + "\n" + token + "\n" + dir + "\n" + out + "\n" + err + "\n" + args.length + "\n").getBytes(StandardCharsets.UTF_8));
    for (String a : args) {
      byte[] b = a.getBytes(StandardCharsets.UTF_8);
      req.writeBytes((b.length + "\n").getBytes(StandardCharsets.UTF_8));
      req.writeBytes(b);
      req.write('\n');
    }
    String answer = exchange(req.toByteArray());
    if (answer.startsWith("exit ")) return new Reply(answer, o.get(60, TimeUnit.SECONDS), e.get(60, TimeUnit.SECONDS));
    // refused before the pipes were opened: open them here so the readers end
    for (Path p : new Path[] {out, err}) try (OutputStream w = Files.newOutputStream(p)) {
      w.flush();
    }
    return new Reply(answer, o.get(10, TimeUnit.SECONDS), e.get(10, TimeUnit.SECONDS));
  }

  private String exchange(byte[] request) throws Exception {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port())) {
      s.getOutputStream().write(request);
      s.getOutputStream().flush();
      s.shutdownOutput();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
  }

  private static String drain(Path fifo) {
    try (InputStream in = Files.newInputStream(fifo)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  @Test
  void aCommandRunsWithItsOutputOnThePipesAndItsExitCodeAnswered() throws Exception {
    Reply v = send(token(), cwd(), "--version");
    assertEquals("exit 0", v.answer());
    assertTrue(v.out().startsWith("sodm " + SodmMain.version()), v.out());
    assertEquals("", v.err());

    Reply usage = send(token(), cwd(), "train", "--input", "x y\nz", "-o", "o", "--no-such-option");
    assertEquals("exit 2", usage.answer());
    assertEquals("", usage.out());
    assertTrue(usage.err().startsWith("Unknown option: '--no-such-option'"), usage.err());

    Reply failed = send(token(), cwd(), "train", "-i", tmp.resolve("absent").toString(), "-o", tmp.resolve("m").toString());
    assertEquals("exit 1", failed.answer());
    assertTrue(failed.err().contains("absent does not exist"), failed.err());
    assertFalse(Files.exists(tmp.resolve("m")));
  }

  @Test
  void theDaemonsModelIsTheFreshJvmsBitForBit() throws Exception {
    String data = LocalConf.projectDir().resolve("sample-data/svmguide1").toString();
    String local = "hadoop.tmp.dir=" + tmp.resolve("h");
    Reply r = send(token(), cwd(), "train", "-D", local, "-i", data, "-o", tmp.resolve("viaDaemon").toString(), "--scale", "0,1",
        "--gamma", "2", "--loss", "hinge");
    assertEquals("exit 0", r.answer(), r.err());
    assertTrue(r.out().contains("sodm train: done"), r.out());
    assertTrue(r.err().contains("INFO  IngestJob"), "the job logs reach the caller's standard error: " + r.err());
    String[] direct = SodmMainTest.run("train", "-D", local, "-i", data, "-o", tmp.resolve("direct").toString(), "--scale", "0,1", "--gamma", "2",
        "--loss", "hinge");
    assertEquals("0", direct[0], direct[2]);
    for (String m : new String[] {"viaDaemon", "direct"}) {
      assertEquals("0", SodmMainTest.run("export-libsvm", "-o", tmp.resolve(m + ".libsvm").toString(), tmp.resolve(m).toString())[0]);
    }
    assertArrayEquals(Files.readAllBytes(tmp.resolve("direct.libsvm")), Files.readAllBytes(tmp.resolve("viaDaemon.libsvm")));
  }

  @Test
  void requestsWithoutTheTokenFromAnotherDirectoryOrMalformedAreRefusedAndTheNextOneRuns() throws Exception {
    Path ran = tmp.resolve("ran");
    String[] generate = {"generate", "-n", "10", "-o", ran.toString()};
    assertTrue(send("0".repeat(64), cwd(), generate).answer().startsWith("refused wrong token"));
    assertTrue(send(token(), tmp.toRealPath().toString(), generate).answer().startsWith("refused working directory"));
    assertFalse(Files.exists(ran), "a refused request ran its command");
    assertTrue(exchange("GET / HTTP/1.1\n\n".getBytes(StandardCharsets.UTF_8)).startsWith("refused not a sodm client"));
    String t = token();
    assertTrue(exchange((Daemon.HELLO + "\n" + t + "\n" + cwd() + "\n/o\n/e\n99999999\n").getBytes(StandardCharsets.UTF_8))
        .startsWith("refused argument count"));
    assertTrue(exchange((Daemon.HELLO + "\n" + t + "\n" + cwd() + "\n/o\n/e\n1\n5\nab\n").getBytes(StandardCharsets.UTF_8))
        .startsWith("refused argument 1 is shorter"));
    assertTrue(exchange((Daemon.HELLO + "\n" + t + "\n" + cwd() + "\nrelative\n/e\n0\n").getBytes(StandardCharsets.UTF_8))
        .startsWith("refused the output pipes"));
    assertFalse(Files.exists(ran));
    assertEquals("exit 0", send(token(), cwd(), generate).answer());
    assertTrue(Files.exists(ran), "the daemon no longer runs commands after the refusals");
  }

  @Test
  void anIdleDaemonExitsAndRemovesItsFiles() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("idle"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Daemon d = new Daemon(dir, "i", 1);
    long t0 = System.nanoTime();
    d.serve();
    assertTrue((System.nanoTime() - t0) / 1e9 >= 0.9);
    assertFalse(Files.exists(d.portFile()));
    assertFalse(Files.exists(d.tokenFile()));
  }

  /** After a command that left the heap "large" (here: any heap), the daemon waits the shorter idle, not its 60 s. */
  @Test
  void aDaemonWhoseHeapIsLargeAfterACommandExitsAfterTheShorterIdle() throws Exception {
    daemon.close();
    serving.join(10_000);
    Path dir = Files.createDirectory(tmp.resolve("large"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Daemon d = new Daemon(dir, "l", 60, 1, 1);
    startServing(d);
    Thread.sleep(1500);
    assertTrue(serving.isAlive(), "before any command the daemon waits its whole idle time");
    assertEquals("exit 0", send(token(), cwd(), "--version").answer());
    long t0 = System.nanoTime();
    serving.join(20_000);
    assertFalse(serving.isAlive(), "the daemon exited after the shorter idle");
    assertTrue((System.nanoTime() - t0) / 1e9 < 15);
    assertFalse(Files.exists(d.portFile()));
  }
}
