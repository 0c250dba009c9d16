package org.sodm.jobs.support;

import java.io.IOException;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * An output directory written atomically: everything goes to a hidden sibling
 * {@code .NAME.tmp-UUID}, which is renamed to the final name on {@link #commit()} and deleted on
 * {@link #close()} otherwise. So a failed command never leaves partial output under the final name.
 */
public final class OutputDir implements AutoCloseable {
  private final FileSystem fs;
  private final Path target;
  private final Path temp;
  private boolean committed;

  private OutputDir(FileSystem fs, Path target, Path temp) {
    this.fs = fs;
    this.target = target;
    this.temp = temp;
  }

  /**
   * Prepares {@code target}. Fails, naming the path, when it exists and {@code overwrite} is
   * false, or when it exists and was not written by sodm ({@link OutputGuard#checkReplaceable}).
   */
  public static OutputDir create(Configuration conf, Path target, boolean overwrite) throws IOException {
    FileSystem fs = target.getFileSystem(conf);
    Path qualified = fs.makeQualified(target);
    if (fs.exists(qualified) && !overwrite) {
      throw new SodmException("output " + qualified + " already exists (remove it or pass --overwrite)");
    }
    OutputGuard.checkReplaceable(fs, qualified);
    Path temp = new Path(qualified.getParent(), "." + qualified.getName() + ".tmp-" + UUID.randomUUID());
    if (!fs.mkdirs(temp)) throw new IOException("cannot create " + temp);
    return new OutputDir(fs, qualified, temp);
  }

  /**
   * Deletes the temporary directories that killed runs left in {@code dir} (children named
   * {@code .NAME.tmp-UUID}: a process killed with SIGKILL cannot remove its own); returns how
   * many. For a directory only one run uses at a time, such as a training work directory on
   * {@code --resume}.
   */
  public static int removeStale(FileSystem fs, Path dir) throws IOException {
    if (!fs.isDirectory(dir)) return 0;
    int n = 0;
    for (org.apache.hadoop.fs.FileStatus s : fs.listStatus(dir)) {
      if (s.isDirectory() && STALE.matcher(s.getPath().getName()).matches() && fs.delete(s.getPath(), true)) n++;
    }
    return n;
  }

  private static final java.util.regex.Pattern STALE =
      java.util.regex.Pattern.compile("\\..+\\.tmp-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  /** Where to write now. */
  public Path temp() {
    return temp;
  }

  public Path target() {
    return target;
  }

  /** Moves the temporary directory to the final name (replacing an old one when allowed). */
  public void commit() throws IOException {
    OutputGuard.mark(fs, temp, target.getName());
    if (fs.exists(target)) {
      OutputGuard.checkReplaceable(fs, target);
      if (!fs.delete(target, true)) throw new IOException("cannot replace " + target);
    }
    if (!fs.rename(temp, target)) throw new IOException("cannot rename " + temp + " to " + target);
    committed = true;
  }

  @Override
  public void close() throws IOException {
    if (!committed) fs.delete(temp, true);
  }
}
