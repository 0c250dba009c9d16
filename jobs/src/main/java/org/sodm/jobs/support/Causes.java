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
    String known = known(t, where, output);
    if (known != null) return known;
    Throwable r = root(t);
    String m = r.getMessage();
    return (r instanceof SodmException || r instanceof IllegalArgumentException) && m != null ? m
        : r.getClass().getSimpleName() + (m == null ? "" : ": " + m) + " (in " + where + ")";
  }

  /**
   * The description of a cause users meet (permission denied, disk full, out of memory, not an
   * Avro file, no such file), or null when {@code t} is none of these.
   */
  public static String known(Throwable t, String where) {
    return known(t, where, null);
  }

  private static String known(Throwable t, String where, String output) {
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
        String path = pathNamed(chain);
        return "not an Avro file: " + (path != null && !where.contains(path) ? path + ": " : "") + m + " (" + where + ")";
      }
      if (c instanceof FileNotFoundException || c instanceof NoSuchFileException) {
        return "no such file: " + m;
      }
    }
    return null;
  }

  /** The first path named in the messages of {@code chain} (innermost first), searched from the outermost. */
  private static String pathNamed(java.util.List<Throwable> chain) {
    java.util.regex.Pattern p = java.util.regex.Pattern.compile("\\S*/[^\\s;,()']+");
    for (int i = chain.size() - 1; i >= 0; i--) {
      java.util.regex.Matcher mm = p.matcher(String.valueOf(chain.get(i).getMessage()));
      if (mm.find()) return mm.group().replaceAll("[:.]+$", "");
    }
    return null;
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
