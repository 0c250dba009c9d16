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
import org.sodm.jobs.support.SodmConf;
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

  @Option(names = {"-n", "--rows"}, paramLabel = "N", description = "Rows (sodm.generate.rows, default 10000).")
  Long rows;

  @Option(names = {"-d", "--features"}, paramLabel = "D", description = "Features (sodm.generate.features, default 10).")
  Integer features;

  @Option(names = "--noise", paramLabel = "P", description = "Label flip probability in [0,0.5) (sodm.generate.noise, default 0).")
  Double noise;

  @Option(names = "--seed", paramLabel = "S", description = "Random seed (sodm.seed, default 1).")
  Long seed;

  @Option(names = "--overwrite", description = "Replace an existing file (sodm.overwrite).")
  Boolean overwrite;

  @Override
  protected void applyOptions(Configuration conf) {
    set(conf, SodmConf.GENERATE_ROWS, rows);
    set(conf, SodmConf.GENERATE_FEATURES, features);
    set(conf, SodmConf.GENERATE_NOISE, noise);
    set(conf, SodmConf.SEED, seed);
    set(conf, SodmConf.OVERWRITE, overwrite);
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    long n = SodmConf.requireLong(conf, SodmConf.GENERATE_ROWS);
    int d = (int) SodmConf.requireLong(conf, SodmConf.GENERATE_FEATURES);
    double p = SodmConf.requireDouble(conf, SodmConf.GENERATE_NOISE);
    long s = SodmConf.requireLong(conf, SodmConf.SEED);
    if (n < 1) throw new SodmException("--rows must be >= 1, got " + n);
    if (d < 1) throw new SodmException("--features must be >= 1, got " + d);
    if (!(p >= 0 && p < 0.5)) throw new SodmException("--noise must be in [0, 0.5), got " + p);
    Path target = new Path(output);
    FileSystem fs = target.getFileSystem(conf);
    if (fs.exists(target) && !conf.getBoolean(SodmConf.OVERWRITE, false)) {
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
