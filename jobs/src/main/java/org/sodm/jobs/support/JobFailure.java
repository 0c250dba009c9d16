package org.sodm.jobs.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * Carries a task's fatal error message back to the driver, in local mode and on YARN alike:
 * the failing task writes its message to a file under a directory the driver chose
 * ({@link #DIR_KEY}), and the driver reads the messages when the job fails.
 */
public final class JobFailure {
  public static final String DIR_KEY = "sodm.internal.failure.dir";

  private JobFailure() {}

  /**
   * Records {@code message} for the driver (best effort: the task fails anyway). The first
   * message of an attempt is kept: it is the most specific one (a task that reported its own
   * error then fails with it through {@link Causes#reporting}).
   */
  public static void report(TaskAttemptContext context, String message) {
    String dir = context.getConfiguration().get(DIR_KEY);
    if (dir == null) return;
    // local mode runs the tasks in the driver's JVM: keep the message in memory too, for when the
    // file cannot be written (the disk that filled up is often the one the output is on)
    List<String> here = IN_PROCESS.computeIfAbsent(dir, d -> java.util.Collections.synchronizedList(new ArrayList<>()));
    if (here.size() < 20) here.add(message);
    try {
      Path p = new Path(dir, context.getTaskAttemptID().toString() + ".txt");
      FileSystem fs = p.getFileSystem(context.getConfiguration());
      // the directory the driver chose lies in the run's output; when that is gone the run has ended
      // (a task still stopping after its job was killed): writing would recreate a deleted directory
      if (!fs.exists(p.getParent().getParent()) || fs.exists(p)) return;
      try (OutputStream out = fs.create(p, true)) {
        out.write(message.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException | RuntimeException | org.apache.hadoop.fs.FSError e) {
      // the task is failing with the same message; nothing more to do
    }
  }

  /** Messages of tasks that ran in this JVM (local mode), by failure directory. */
  private static final java.util.Map<String, List<String>> IN_PROCESS = new java.util.concurrent.ConcurrentHashMap<>();

  /** The messages recorded by failed tasks, sorted. */
  public static List<String> read(Configuration conf) throws IOException {
    List<String> out = new ArrayList<>();
    String dir = conf.get(DIR_KEY);
    if (dir == null) return out;
    List<String> here = IN_PROCESS.remove(dir);
    Path d = new Path(dir);
    FileSystem fs = d.getFileSystem(conf);
    if (!fs.exists(d)) {
      if (here != null) out.addAll(here);
      out.sort(null);
      return out;
    }
    for (FileStatus f : fs.listStatus(d)) {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(f.getPath()), StandardCharsets.UTF_8))) {
        StringBuilder sb = new StringBuilder();
        String line;
        while ((line = r.readLine()) != null) sb.append(sb.length() > 0 ? "\n" : "").append(line);
        out.add(sb.toString());
      }
    }
    if (out.isEmpty() && here != null) out.addAll(here);
    out.sort(null);
    return out;
  }
}
