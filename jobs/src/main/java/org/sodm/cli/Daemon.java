package org.sodm.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A warm JVM for the local-mode commands of one user ({@code SODM_DAEMON=1 bin/sodm ...}): a command's whole cost on a
 * small data set is mostly the JVM warming up (class loading, the interpreter, the JIT), which a JVM kept between
 * commands pays once, as Gradle's daemon does. {@code bin/sodm} starts it on first use, in the caller's working directory
 * with the caller's JVM options and environment (a daemon serves only commands whose launcher computed the same key from
 * all of these), and hands it each command line; the command runs as {@link SodmMain} would run it in a fresh JVM, its
 * standard output and error going to two named pipes of the caller, its exit code back over the connection.
 *
 * <p>Security: the daemon listens on the loopback address only; the first line a client sends must be the 256-bit token
 * in {@code DIR/KEY.token}, a file only the user can read (DIR is the user's own 0700 directory); a connection that
 * presents no token, another one, or a request out of the bounds below is answered {@code refused ...} and closed
 * without running anything. Commands run one at a time (a second client waits for the first). The daemon exits after
 * {@code idle} seconds without a command, or when killed (the launcher kills it when its caller is interrupted, as
 * Ctrl-C would stop a command's own JVM), removing its files; after a command that left its heap above
 * {@link #LARGE_HEAP_BYTES} committed, after {@link #LARGE_HEAP_IDLE_SECONDS} without the next.
 *
 * <p>Protocol, lines in UTF-8: {@code sodm-daemon-1}, the token, the working directory (must equal the daemon's), the
 * paths of the standard output and error pipes, the argument count, then per argument its length in bytes on a line and
 * its bytes followed by a newline. Answer: {@code exit CODE} or {@code refused REASON}.
 *
 * <p>usage: java -cp JAR org.sodm.cli.Daemon DIR KEY IDLE_SECONDS
 */
public final class Daemon {
  static final String HELLO = "sodm-daemon-1";
  static final int MAX_ARGS = 10_000;
  static final int MAX_LINE = 1 << 16;
  static final int MAX_ARG_BYTES = 1 << 20;
  /** Seconds a client has to send its request once connected. */
  static final int REQUEST_TIMEOUT_MS = 10_000;

  /** A committed heap above this after a command: the daemon waits {@link #LARGE_HEAP_IDLE_SECONDS} at most for the next. */
  static final long LARGE_HEAP_BYTES = 1L << 30;
  static final int LARGE_HEAP_IDLE_SECONDS = 60;

  private final Path dir;
  private final String key;
  private final int idleSeconds;
  private final long largeHeapBytes;
  private final int largeHeapIdleSeconds;
  private final String token;
  private final String cwd;
  private volatile ServerSocket server;
  private volatile boolean closed;

  Daemon(Path dir, String key, int idleSeconds) throws IOException {
    this(dir, key, idleSeconds, LARGE_HEAP_BYTES, LARGE_HEAP_IDLE_SECONDS);
  }

  /**
   * {@code largeHeapBytes}, {@code largeHeapIdleSeconds}: the parallel collector does not give a grown heap back to the
   * system, so a daemon whose committed heap is above the first after a command (a large training run) waits only the
   * second for the next command before it exits, not {@code idleSeconds}.
   */
  Daemon(Path dir, String key, int idleSeconds, long largeHeapBytes, int largeHeapIdleSeconds) throws IOException {
    this.dir = dir;
    this.key = key;
    this.idleSeconds = idleSeconds;
    this.largeHeapBytes = largeHeapBytes;
    this.largeHeapIdleSeconds = largeHeapIdleSeconds;
    byte[] t = new byte[32];
    new SecureRandom().nextBytes(t);
    this.token = HexFormat.of().formatHex(t);
    this.cwd = Path.of("").toAbsolutePath().toRealPath().toString();
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java -cp JAR org.sodm.cli.Daemon DIR KEY IDLE_SECONDS");
      System.exit(2);
    }
    new Daemon(Path.of(args[0]), args[1], Integer.parseInt(args[2])).serve();
    System.exit(0);
  }

  Path portFile() {
    return dir.resolve(key + ".port");
  }

  Path tokenFile() {
    return dir.resolve(key + ".token");
  }

  /** Listens until idle; writes the token, then the port file (its presence says the daemon is ready). */
  void serve() throws IOException {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      this.server = server;
      if (closed) return;
      server.setSoTimeout(idleSeconds * 1000);
      Path tokenTmp = dir.resolve(key + ".token.tmp");
      Files.deleteIfExists(tokenTmp);
      Files.createFile(tokenTmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(tokenTmp, token + "\n");
      move(tokenTmp, tokenFile());
      Path portTmp = dir.resolve(key + ".port.tmp");
      Files.writeString(portTmp, server.getLocalPort() + " " + ProcessHandle.current().pid() + "\n");
      move(portTmp, portFile());
      Thread onKill = new Thread(this::removeOwnFiles, "sodm-daemon-files");
      Runtime.getRuntime().addShutdownHook(onKill);
      System.err.println("sodm daemon " + ProcessHandle.current().pid() + " on 127.0.0.1:" + server.getLocalPort() + ", " + cwd);
      try {
        int wait = idleSeconds;
        while (true) {
          Socket s;
          try {
            s = server.accept();
          } catch (SocketTimeoutException idle) {
            System.err.printf("sodm daemon: no command for %d s (committed heap %d MB), exiting%n", wait,
                Runtime.getRuntime().totalMemory() >> 20);
            return;
          } catch (java.net.SocketException e) {
            if (closed) return;
            throw e;
          }
          try (s) {
            handle(s);
          } catch (IOException | RuntimeException e) {
            System.err.println("sodm daemon: connection dropped: " + e);
          }
          wait = Runtime.getRuntime().totalMemory() > largeHeapBytes ? Math.min(idleSeconds, largeHeapIdleSeconds) : idleSeconds;
          server.setSoTimeout(wait * 1000);
        }
      } finally {
        removeOwnFiles();
        try {
          Runtime.getRuntime().removeShutdownHook(onKill); // a JVM serving several daemons in turn (the tests) keeps none
        } catch (IllegalStateException shuttingDown) {
          // the hook is running or has run
        }
      }
    }
  }

  /** Stops {@link #serve} (after the command it is running, if any). */
  void close() throws IOException {
    closed = true;
    ServerSocket s = server;
    if (s != null) s.close();
  }

  private void removeOwnFiles() {
    try {
      if (Files.isRegularFile(tokenFile()) && Files.readString(tokenFile()).trim().equals(token)) {
        Files.deleteIfExists(portFile());
        Files.deleteIfExists(tokenFile());
        Files.deleteIfExists(dir.resolve(key + ".log")); // bin/sodm's redirect; a daemon that crashed keeps it
      }
    } catch (IOException e) {
      System.err.println("sodm daemon: could not remove " + portFile() + ": " + e.getMessage());
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** One connection: the request checked, the command run, its exit code answered. */
  void handle(Socket s) throws IOException {
    s.setSoTimeout(REQUEST_TIMEOUT_MS);
    InputStream in = new BufferedInputStream(s.getInputStream());
    OutputStream reply = s.getOutputStream();
    Request r;
    try {
      try {
        r = read(in);
      } catch (SocketTimeoutException e) {
        throw new Refused("incomplete request after " + REQUEST_TIMEOUT_MS / 1000 + " s");
      }
    } catch (Refused e) {
      System.err.println("sodm daemon: refused a connection: " + e.getMessage());
      reply.write(("refused " + e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
      reply.flush();
      s.shutdownOutput();
      // read what the client still sends (bounded): closing on unread input resets the connection, which can take the
      // answer with it, and the client's writes would fail
      byte[] sink = new byte[8192];
      long left = 16L << 20;
      try {
        for (int k; left > 0 && (k = in.read(sink, 0, (int) Math.min(sink.length, left))) > 0; ) left -= k;
      } catch (IOException ignored) {
        // the client went away or took too long: nothing more to tell it
      }
      return;
    }
    s.setSoTimeout(0);
    int code = run(r);
    reply.write(("exit " + code + "\n").getBytes(StandardCharsets.UTF_8));
    reply.flush();
  }

  record Request(String out, String err, String[] args) {}

  /** Thrown for a request the daemon does not run; its message is the reason sent back. */
  static final class Refused extends Exception {
    Refused(String reason) {
      super(reason);
    }
  }

  Request read(InputStream in) throws IOException, Refused {
    if (!HELLO.equals(line(in))) throw new Refused("not a sodm client");
    String t = line(in);
    if (t == null || !MessageDigest.isEqual(t.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))) {
      throw new Refused("wrong token");
    }
    String dirLine = line(in);
    if (!cwd.equals(dirLine)) throw new Refused("working directory " + dirLine + " is not the daemon's " + cwd);
    String out = line(in);
    String err = line(in);
    if (out == null || err == null || !Path.of(out).isAbsolute() || !Path.of(err).isAbsolute()) {
      throw new Refused("the output pipes must be absolute paths");
    }
    int n = number(line(in), MAX_ARGS, "argument count");
    List<String> args = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int len = number(line(in), MAX_ARG_BYTES, "argument length");
      byte[] b = in.readNBytes(len);
      if (b.length != len || in.read() != '\n') throw new Refused("argument " + (i + 1) + " is shorter than its length");
      args.add(new String(b, StandardCharsets.UTF_8));
    }
    return new Request(out, err, args.toArray(new String[0]));
  }

  private static int number(String s, int max, String what) throws Refused {
    try {
      int v = Integer.parseInt(s);
      if (v < 0 || v > max) throw new Refused(what + " " + v + " out of [0, " + max + "]");
      return v;
    } catch (NumberFormatException e) {
      throw new Refused("malformed " + what);
    }
  }

  /** A line without its newline, or null at the end of the stream; at most {@link #MAX_LINE} bytes. */
  private static String line(InputStream in) throws IOException, Refused {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c; (c = in.read()) != '\n'; ) {
      if (c < 0) return b.size() == 0 ? null : b.toString(StandardCharsets.UTF_8);
      if (b.size() >= MAX_LINE) throw new Refused("line longer than " + MAX_LINE + " bytes");
      b.write(c);
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  /** Runs the command line with the standard streams on the caller's pipes; its exit code. */
  static int run(Request r) throws IOException {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    InputStream oldIn = System.in;
    try (PrintStream out = new PrintStream(new FileOutputStream(r.out()), true);
        PrintStream err = new PrintStream(new FileOutputStream(r.err()), true)) {
      System.setOut(out);
      System.setErr(err);
      System.setIn(InputStream.nullInputStream());
      try {
        return SodmMain.execute(OozieAction.confFile(), r.args()).code(); // as SodmMain.main, without its exit
      } catch (Throwable e) {
        err.println("sodm: the daemon's command failed: " + e);
        e.printStackTrace(err);
        return 1;
      } finally {
        out.flush();
        err.flush();
      }
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
      System.setIn(oldIn);
    }
  }
}
