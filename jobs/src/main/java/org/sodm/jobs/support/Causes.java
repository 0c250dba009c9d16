package org.sodm.jobs.support;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;

/**
 * The one-line real cause of a failure, for users: permission denied (with the path), disk full
 * (with the path and the free space), out of memory (with the phase and the options that bound
 * memory), a file that is not Avro, a missing file; otherwise the root exception's own message.
 */
public final class Causes {
  private Causes() {}

  /** The innermost cause. */
  public static Throwable root(Throwable t) {
    Throwable r = t;
    while (r.getCause() != null && r.getCause() != r) r = r.getCause();
    return r;
  }

  /** A one-line description of why {@code t} happened, {@code where} naming the phase or task. */
  public static String describe(Throwable t, String where) {
    return describe(t, where, null);
  }

  /**
   * As {@link #describe(Throwable, String)}; {@code output} (or null), the command's output path,
   * names where a disk filled up when the error itself does not (a local write's "No space left
   * on device" carries no path).
   */
  public static String describe(Throwable t, String where, String output) {
    java.util.List<Throwable> chain = new java.util.ArrayList<>();
    for (Throwable c = t; c != null && !chain.contains(c); c = c.getCause()) chain.add(0, c); // innermost first
    for (Throwable c : chain) {
      String m = String.valueOf(c.getMessage());
      if (c instanceof OutOfMemoryError) {
        return "out of memory in " + where + " (" + m + "): give the JVM more heap (SODM_JAVA_OPTS=-Xmx..., or "
            + "mapreduce.map/reduce.memory.mb and .java.opts on a cluster), or bound the work: --cache-mb, --max-block-rows, "
            + "more --partitions or --linear-blocks";
      }
      if (c instanceof AccessDeniedException || c.getClass().getName().endsWith("AccessControlException")
          || m.toLowerCase(Locale.ROOT).contains("permission denied")) {
        return "permission denied: " + m;
      }
      if (m.contains("No space left on device") || m.contains("DiskOutOfSpace") || m.contains("quota")) {
        String free = freeSpace(m);
        if (free.isEmpty() && output != null) free = freeSpace(output.replaceFirst("^file:", ""));
        String what = m.startsWith("disk full: ") ? m.substring("disk full: ".length()) : m;
        return "disk full: " + what + (output != null && !m.contains(output) ? " (writing under " + output + ")" : "") + free;
      }
      if (m.startsWith("Not an Avro data file") || m.contains("Not a data file")) {
        return "not an Avro file: " + m + " (" + where + ")";
      }
      if (c instanceof FileNotFoundException || c instanceof NoSuchFileException) {
        return "no such file: " + m;
      }
    }
    Throwable r = root(t);
    String m = r.getMessage();
    return (r instanceof SodmException || r instanceof IllegalArgumentException) && m != null ? m
        : r.getClass().getSimpleName() + (m == null ? "" : ": " + m) + " (in " + where + ")";
  }

  private static String freeSpace(String message) {
    java.util.regex.Matcher p = java.util.regex.Pattern.compile("(/[^\\s:]+)").matcher(message);
    if (!p.find()) return "";
    java.io.File f = new java.io.File(p.group(1));
    while (f != null && !f.exists()) f = f.getParentFile();
    if (f == null) return "";
    String device = "";
    try {
      java.nio.file.FileStore store = java.nio.file.Files.getFileStore(f.toPath());
      device = ", device " + store.name() + " (" + store.type() + ")";
    } catch (IOException | RuntimeException e) {
      // no file store to name
    }
    return String.format(Locale.ROOT, " (%,d bytes free on %s%s)", f.getUsableSpace(), f, device);
  }

  /** Body of a task's run(). */
  public interface TaskBody {
    void run() throws IOException, InterruptedException;
  }

  /**
   * Runs a task's body; any failure is reported to the driver ({@link JobFailure}) with its real
   * cause before the task fails, so the driver does not have to print Hadoop's "NA".
   */
  public static void reporting(org.apache.hadoop.mapreduce.TaskAttemptContext context, String what, TaskBody body)
      throws IOException, InterruptedException {
    try {
      body.run();
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      JobFailure.report(context, describe(e, what + " (" + context.getTaskAttemptID() + ")"));
      throw e;
    }
  }
}
