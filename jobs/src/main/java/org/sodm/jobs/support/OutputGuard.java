package org.sodm.jobs.support;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What sodm may delete: an output directory is replaced ({@code --overwrite}) only when sodm
 * wrote it (it holds the marker file {@link #MARKER}) or it is empty, and never when it equals,
 * contains or lies inside one of the command's inputs (training, validation or prediction data,
 * a model). Checked before anything is deleted or written.
 */
public final class OutputGuard {
  /** The marker of a directory sodm wrote (hidden from Hadoop's input formats by its underscore). */
  public static final String MARKER = "_SODM";

  private OutputGuard() {}

  /**
   * Fails, naming both paths, when {@code output} equals, contains or lies inside any of
   * {@code inputs} (paths, or globs: each path a glob matches).
   */
  public static void checkDisjoint(Configuration conf, Path output, List<String> inputs, String role) throws IOException {
    if (inputs == null) return;
    FileSystem fs = output.getFileSystem(conf);
    String out = withSlash(fs.makeQualified(output));
    for (String in : inputs) {
      Path p = new Path(in);
      FileSystem ifs = p.getFileSystem(conf);
      List<Path> paths = new java.util.ArrayList<>();
      if (p.toString().matches(".*[*?\\[{].*")) {
        FileStatus[] matches = ifs.globStatus(p);
        if (matches != null) for (FileStatus m : matches) paths.add(m.getPath());
      } else {
        paths.add(p);
      }
      for (Path q : paths) {
        String s = withSlash(ifs.makeQualified(q));
        if (out.equals(s) || s.startsWith(out) || out.startsWith(s)) {
          String how = out.equals(s) ? "is" : s.startsWith(out) ? "contains" : "lies inside";
          throw new SodmException("output " + fs.makeQualified(output) + " " + how + " the " + role + " " + in
              + ": refusing to write there (choose another output directory)");
        }
      }
    }
  }

  /**
   * Before {@code target} is replaced: fails unless it does not exist, is an empty directory, or
   * holds the marker (an earlier sodm output).
   */
  public static void checkReplaceable(FileSystem fs, Path target) throws IOException {
    if (!fs.exists(target)) return;
    FileStatus st = fs.getFileStatus(target);
    if (st.isDirectory() && (fs.listStatus(target).length == 0 || fs.exists(new Path(target, MARKER)))) return;
    throw new SodmException("--overwrite: " + target + " was not written by sodm (" + (st.isDirectory() ? "no " + MARKER
        + " marker in it" : "it is a file") + "); refusing to delete it: remove it yourself or choose another output");
  }

  /** Marks {@code dir} as written by sodm. */
  public static void mark(FileSystem fs, Path dir, String what) throws IOException {
    try (OutputStream o = fs.create(new Path(dir, MARKER), true)) {
      o.write(("written by sodm " + Version.get() + ": " + what + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String withSlash(Path p) {
    String s = p.toString();
    return s.endsWith("/") ? s : s + "/";
  }

  /** Writes the bytes of a file ({@link #writeAtomically}). */
  @FunctionalInterface
  public interface StreamBody {
    void write(java.io.OutputStream out) throws IOException;
  }

  /**
   * Writes {@code target} under a hidden temporary name beside it, then puts it in place of {@code target} (which the caller
   * has checked may be replaced): a failure leaves neither a partial file nor the temporary one.
   */
  public static void writeAtomically(FileSystem fs, Path target, StreamBody body) throws IOException {
    Path t = fs.makeQualified(target);
    Path temp = new Path(t.getParent(), "." + t.getName() + ".tmp-" + java.util.UUID.randomUUID());
    try {
      try (java.io.OutputStream o = fs.create(temp, false)) {
        body.write(o);
      }
      if (fs.exists(t)) fs.delete(t, false);
      if (!fs.rename(temp, t)) throw new IOException("cannot rename " + temp + " to " + t);
    } finally {
      if (fs.exists(temp)) fs.delete(temp, false);
    }
  }
}
