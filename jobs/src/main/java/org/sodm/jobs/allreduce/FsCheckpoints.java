package org.sodm.jobs.allreduce;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.allreduce.ResidentLoop;

/**
 * Checkpoints in the run's work directory: every rank writes {@code ckpt-N.tmp/rank-R.bin}
 * (rank 0 also {@code global.bin}), then rank 0 renames the directory to {@code ckpt-N} (atomic
 * on HDFS and the local file system) and deletes the older ones. N is the iteration to resume
 * at; {@code _DONE} marks the final state. Only committed directories are ever read.
 */
public final class FsCheckpoints implements ResidentLoop.Checkpoints {
  private static final Pattern NAME = Pattern.compile("ckpt-(\\d+)");
  static final String DONE = "_DONE";
  static final String GLOBAL = "global.bin";

  /** A committed checkpoint. */
  public record Committed(Path dir, int next, boolean done) {}

  private final Configuration conf;
  private final Path root;

  public FsCheckpoints(Configuration conf, Path root) {
    this.conf = conf;
    this.root = root;
  }

  private Path tmp(int next) {
    return new Path(root, String.format("ckpt-%06d.tmp", next));
  }

  public static String rankFile(int rank) {
    return String.format("rank-%05d.bin", rank);
  }

  @Override
  public void write(int next, int rank, byte[] rankState, byte[] globalState) throws IOException {
    FileSystem fs = root.getFileSystem(conf);
    if (rankState != null) put(fs, new Path(tmp(next), rankFile(rank)), rankState);
    if (globalState != null) put(fs, new Path(tmp(next), GLOBAL), globalState);
  }

  @Override
  public void commit(int next, boolean done) throws IOException {
    FileSystem fs = root.getFileSystem(conf);
    Path t = tmp(next);
    fs.mkdirs(t);
    if (done) put(fs, new Path(t, DONE), new byte[0]);
    Path target = new Path(root, String.format("ckpt-%06d", next));
    fs.delete(target, true);
    if (!fs.rename(t, target)) throw new IOException("cannot commit checkpoint " + t + " as " + target);
    for (FileStatus st : fs.listStatus(root)) {
      if (!st.getPath().equals(target)) fs.delete(st.getPath(), true);
    }
  }

  /** The newest committed checkpoint under {@code root}, or null. */
  public static Committed latest(Configuration conf, Path root) throws IOException {
    FileSystem fs = root.getFileSystem(conf);
    if (!fs.exists(root)) return null;
    Committed best = null;
    for (FileStatus st : fs.listStatus(root)) {
      Matcher m = NAME.matcher(st.getPath().getName());
      if (!st.isDirectory() || !m.matches()) continue;
      int n = Integer.parseInt(m.group(1));
      if (best == null || n > best.next()) best = new Committed(st.getPath(), n, fs.exists(new Path(st.getPath(), DONE)));
    }
    return best;
  }

  /** A file of a committed checkpoint, or null when it has none of that name. */
  public static byte[] read(Configuration conf, Path dir, String name) throws IOException {
    Path p = new Path(dir, name);
    FileSystem fs = p.getFileSystem(conf);
    if (!fs.exists(p)) return null;
    try (InputStream in = fs.open(p)) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      in.transferTo(b);
      return b.toByteArray();
    }
  }

  private static void put(FileSystem fs, Path p, byte[] bytes) throws IOException {
    try (OutputStream out = fs.create(p, true)) {
      out.write(bytes);
    }
  }
}
