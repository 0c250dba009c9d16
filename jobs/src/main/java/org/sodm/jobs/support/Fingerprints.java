package org.sodm.jobs.support;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * What a run's inputs were: per file (globs and directories expanded) its length, modification
 * time and, where the file system offers one (HDFS), its checksum. {@code --resume} compares them,
 * so a run never continues on an input that was edited in place.
 */
public final class Fingerprints {
  /** The prefix of the fingerprint keys in a run's parameters. */
  public static final String PREFIX = "sodm.internal.input.";

  private Fingerprints() {}

  /** {@code PREFIX + path} -> "length=..., modified=..., checksum=..." for every file of {@code inputs}. */
  public static Map<String, String> of(Configuration conf, List<String> inputs) throws IOException {
    Map<String, String> out = new TreeMap<>();
    if (inputs == null) return out;
    for (String in : inputs) {
      Path p = new Path(in);
      FileSystem fs = p.getFileSystem(conf);
      FileStatus[] matches = fs.globStatus(p);
      if (matches == null) continue; // a missing input fails at ingest, naming it
      for (FileStatus m : matches) {
        if (m.isDirectory()) {
          RemoteIterator<LocatedFileStatus> it = fs.listFiles(m.getPath(), true);
          while (it.hasNext()) add(out, fs, it.next());
        } else {
          add(out, fs, m);
        }
      }
    }
    return out;
  }

  private static void add(Map<String, String> out, FileSystem fs, FileStatus f) throws IOException {
    String name = f.getPath().getName();
    if (name.startsWith(".") || name.endsWith(".crc")) return;
    FileChecksum c = fs.getFileChecksum(f.getPath());
    out.put(PREFIX + fs.makeQualified(f.getPath()), "length=" + f.getLen() + ", modified=" + f.getModificationTime()
        + (c == null ? "" : ", checksum=" + c));
  }
}
