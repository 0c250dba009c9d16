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

@Command(name = "generate", sortOptions = false, description = {
    "Write synthetic LIBSVM data with a known nonlinear boundary: x uniform in [-1,1]^d, label +1",
    "inside a ball in the first min(3,d) coordinates (radius balancing the classes), labels flipped",
    "with probability --noise (Bayes accuracy 1 - noise). Ends in .gz: gzip-compressed."})
public final class GenerateCommand extends SodmCommand {
  @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "Output file (any Hadoop file system).")
  String output;

  @Override
  protected java.util.List<Param> params() {
    return java.util.List.of(Param.GENERATE_ROWS, Param.GENERATE_FEATURES, Param.GENERATE_NOISE, Param.SEED, Param.OVERWRITE);
  }

  @Override
  protected void applyOptions(Configuration conf) {
    // every option is a table parameter
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    long n = Param.GENERATE_ROWS.longValue(conf);
    int d = (int) Param.GENERATE_FEATURES.longValue(conf);
    double p = Param.GENERATE_NOISE.doubleValue(conf);
    long s = Param.SEED.longValue(conf);
    Path target = new Path(output);
    FileSystem fs = target.getFileSystem(conf);
    if (fs.exists(target) && !Param.OVERWRITE.booleanValue(conf)) {
      throw new SodmException("output " + target + " already exists (remove it or pass --overwrite)");
    }
    Path tmp = new Path(target.getParent() == null ? new Path(".") : target.getParent(), "." + target.getName() + ".tmp");
    long t0 = System.nanoTime();
    try {
      try (OutputStream raw = fs.create(tmp, true);
          OutputStream o = output.endsWith(".gz") ? new GZIPOutputStream(raw, 1 << 16) : raw;
          Writer w = new BufferedWriter(new OutputStreamWriter(o, StandardCharsets.UTF_8), 1 << 16)) {
        SyntheticData.write(w, n, d, p, s);
      }
      if (fs.exists(target)) fs.delete(target, false);
      if (!fs.rename(tmp, target)) throw new SodmException("cannot rename " + tmp + " to " + target);
    } finally {
      fs.delete(tmp, false);
    }
    out().printf("generated %,d rows x %d features (noise %.3f, seed %d) in %.1f s: %s%n", n, d, p, s,
        (System.nanoTime() - t0) / 1e9, fs.makeQualified(target));
    return 0;
  }
}
