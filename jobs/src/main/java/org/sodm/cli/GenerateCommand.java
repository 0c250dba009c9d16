package org.sodm.cli;

import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.data.SyntheticData;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "generate", sortOptions = false,
    header = "Write synthetic LIBSVM data with a known nonlinear boundary.",
    description = {
    "Write synthetic LIBSVM data with a known nonlinear boundary: x uniform in [-1,1]^d, label +1",
    "inside a ball in the first min(3,d) coordinates (radius balancing the classes), labels flipped",
    "with probability --noise (Bayes accuracy 1 - noise). Ends in .gz: gzip-compressed.",
    "--overwrite replaces only a file sodm generate wrote (.NAME.sodm-generated beside it gives its length)."})
public final class GenerateCommand extends SodmCommand {
  @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "Output file (any Hadoop file system).")
  String output;

  @Override
  protected java.util.List<Param> params() {
    return java.util.List.of(Param.GENERATE_ROWS, Param.GENERATE_FEATURES, Param.GENERATE_NOISE, Param.SEED, Param.OVERWRITE);
  }

  @Override
  protected String quietSays() {
    return "";
  }

  @Override
  protected void applyOptions(Configuration conf) {
    // every option is a table parameter
  }

  /** Beside a generated file: what wrote it and its length (--overwrite replaces only such a file, unchanged). */
  static final String MARKER = ".sodm-generated";

  private static boolean writtenHere(FileSystem fs, Path target, Path marker) throws java.io.IOException {
    if (!fs.getFileStatus(target).isFile() || !fs.exists(marker)) return false;
    String text;
    try (java.io.InputStream in = fs.open(marker)) {
      text = new String(in.readNBytes(4096), StandardCharsets.UTF_8).trim();
    }
    return text.endsWith("; length " + fs.getFileStatus(target).getLen());
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    long n = Param.GENERATE_ROWS.longValue(conf);
    int d = (int) Param.GENERATE_FEATURES.longValue(conf);
    double p = Param.GENERATE_NOISE.doubleValue(conf);
    long s = Param.SEED.longValue(conf);
    Path target = new Path(output);
    FileSystem fs = target.getFileSystem(conf);
    Path dir = target.getParent() == null ? new Path(".") : target.getParent();
    Path marker = new Path(dir, "." + target.getName() + MARKER);
    if (fs.exists(target)) {
      if (!Param.OVERWRITE.booleanValue(conf)) {
        throw new SodmException("output " + target + " already exists (remove it or pass --overwrite)");
      }
      if (!writtenHere(fs, target, marker)) {
        throw new SodmException("--overwrite: " + fs.makeQualified(target) + " was not written by sodm generate (no " + marker.getName()
            + " beside it giving its length); refusing to replace it: remove it yourself or choose another output");
      }
    }
    Path tmp = new Path(dir, "." + target.getName() + ".tmp");
    long t0 = System.nanoTime();
    try {
      try (OutputStream raw = fs.create(tmp, true);
          OutputStream o = output.endsWith(".gz") ? new GZIPOutputStream(raw, 1 << 16) : raw;
          Writer w = new BufferedWriter(new OutputStreamWriter(o, StandardCharsets.UTF_8), 1 << 16)) {
        SyntheticData.write(w, n, d, p, s);
      }
      if (fs.exists(target)) fs.delete(target, false);
      if (!fs.rename(tmp, target)) throw new SodmException("cannot rename " + tmp + " to " + target);
      try (OutputStream o = fs.create(marker, true)) {
        o.write(String.format(java.util.Locale.ROOT, "sodm generate: rows %d, features %d, noise %s, seed %d; length %d%n", n, d, p, s,
            fs.getFileStatus(target).getLen()).getBytes(StandardCharsets.UTF_8));
      }
    } finally {
      fs.delete(tmp, false);
    }
    out().printf("generated %,d rows x %d features (noise %.3f, seed %d) in %.1f s: %s%n", n, d, p, s,
        (System.nanoTime() - t0) / 1e9, fs.makeQualified(target));
    return 0;
  }
}
