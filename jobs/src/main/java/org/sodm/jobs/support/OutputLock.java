package org.sodm.jobs.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.Consumer;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A lock on an output directory for the length of a run: the file {@code .NAME.sodm-lock} beside
 * the directory, created atomically ({@link FileSystem#create} with overwrite false, atomic on
 * HDFS too) and holding the holder's host, pid, user and start time. The holder renews its lease
 * (the file's modification time) every third of {@code leaseMillis}; a lock whose lease expired,
 * or whose holder ran on this host and is gone (killed with SIGKILL), is taken over, with a message. A second run on a locked
 * directory fails naming the holder.
 */
public final class OutputLock implements AutoCloseable {
  private final FileSystem fs;
  private final Path file;
  private final Thread renewer;
  private volatile boolean closed;

  private OutputLock(FileSystem fs, Path file, long leaseMillis) {
    this.fs = fs;
    this.file = file;
    this.renewer = new Thread(() -> {
      while (!closed) {
        try {
          Thread.sleep(Math.max(1, leaseMillis / 3));
          if (!closed) fs.setTimes(file, System.currentTimeMillis(), -1);
        } catch (InterruptedException e) {
          return;
        } catch (IOException e) {
          // the next renewal retries; a lease that lapses lets another run take over, which it reports
        }
      }
    }, "sodm-lock-renewer");
    renewer.setDaemon(true);
  }

  /** The lock file of an output directory. */
  public static Path fileOf(Path output) {
    return new Path(output.getParent(), "." + output.getName() + ".sodm-lock");
  }

  /** Takes the lock of {@code output} (qualified) or fails naming its holder. */
  public static OutputLock acquire(FileSystem fs, Path output, long leaseMillis, Consumer<String> progress) throws IOException {
    Path file = fileOf(output);
    fs.mkdirs(file.getParent());
    for (int attempt = 0; ; attempt++) {
      try (OutputStream o = fs.create(file, false)) {
        o.write(holder().getBytes(StandardCharsets.UTF_8));
        break;
      } catch (FileAlreadyExistsException e) {
        String who = read(fs, file);
        long age = System.currentTimeMillis() - fs.getFileStatus(file).getModificationTime();
        boolean dead = holderIsDeadHere(who);
        if ((age <= leaseMillis && !dead) || attempt > 0) {
          throw new SodmException("output " + output + " is in use by another sodm run (" + who + ", lock " + file
              + " renewed " + age / 1000 + " s ago); wait for it to finish, or remove the lock if that run is gone");
        }
        progress.accept("taking over the lock of " + output + ": its holder (" + who + ") " + (dead
            ? "is no longer running on this host" : "has not renewed it for " + age / 1000 + " s (lease " + leaseMillis / 1000 + " s)"));
        fs.delete(file, false);
      }
    }
    OutputLock lock = new OutputLock(fs, file, leaseMillis);
    lock.renewer.start();
    return lock;
  }

  /** True when the lock names this host and a process id that is not alive (a run killed with SIGKILL). */
  static boolean holderIsDeadHere(String who) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^host (\\S+), pid (\\d+),").matcher(who);
    if (!m.find() || !m.group(1).equals(hostName())) return false;
    long pid = Long.parseLong(m.group(2));
    return pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown-host";
    }
  }

  private static String holder() {
    return "host " + hostName() + ", pid " + ProcessHandle.current().pid() + ", user " + System.getProperty("user.name") + ", started "
        + Instant.now() + " (" + ManagementFactory.getRuntimeMXBean().getName() + ")";
  }

  /**
   * The holder's description. The holder creates the file and then writes it, so a run that
   * comes a moment later can find it empty: read again for up to 2 s before giving up.
   */
  private static String read(FileSystem fs, Path file) throws IOException {
    for (int i = 0; ; i++) {
      String who;
      try (InputStream in = fs.open(file)) {
        who = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      } catch (java.io.FileNotFoundException e) {
        return "a run that has just finished";
      }
      if (!who.isEmpty() || i >= 40) return who.isEmpty() ? "a run that has not yet written its name into the lock" : who;
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "unknown (interrupted while reading the lock)";
      }
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    renewer.interrupt();
    fs.delete(file, false);
  }
}
