package org.sodm.cli;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What {@code bin/sodm} runs, once per build, in the JVM that writes the jar's class-data-sharing archive
 * ({@code -XX:ArchiveClassesAtExit}): a kernel training, two linear ones (DSVRG, BQO) and a prediction with two of the models, on a small
 * generated data set in a temporary directory, so that the archive holds the classes of every common command - the
 * kernel tree's jobs, the AllReduce runtime and Hadoop's RPC of the linear solvers, the scoring jobs. An archive written
 * at the end of one user command held only that command's classes (a kernel training's archive left ~230 classes of a
 * linear one to be read from the jar).
 *
 * <p>usage: java -XX:ArchiveClassesAtExit=ARCHIVE -cp JAR org.sodm.cli.ArchiveWorkload; exits non-zero when a command
 * fails (the launcher then keeps no archive).
 */
public final class ArchiveWorkload {
  private ArchiveWorkload() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("sodm-archive-");
    try {
      run(dir);
    } finally {
      org.apache.hadoop.fs.FileUtil.fullyDelete(dir.toFile());
    }
  }

  /** The workload's commands, their data and outputs under {@code dir}. */
  static void run(Path dir) throws Exception {
    Path data = dir.resolve("data.libsvm");
    write(data, 400, 6, 1);
    String in = data.toString();
    run("train", "-i", in, "-o", dir.resolve("kernel").toString());
    run("train", "-i", in, "-o", dir.resolve("linear").toString(), "--kernel", "linear"); // ODM: DSVRG
    run("train", "-i", in, "-o", dir.resolve("hinge").toString(), "--kernel", "linear", "--loss", "hinge"); // BQO
    run("predict", "-m", dir.resolve("kernel").toString(), "-i", in, "-o", dir.resolve("kernel-scores").toString());
    run("predict", "-m", dir.resolve("linear").toString(), "-i", in, "-o", dir.resolve("linear-scores").toString());
  }

  static void run(String... args) throws Exception {
    int rc = SodmMain.run(args);
    if (rc != 0) throw new IllegalStateException("sodm " + String.join(" ", args) + " exited with " + rc);
  }

  /** {@code rows} rows of {@code features} features in [-1, 1], labelled by the sign of their sum (a few flipped). */
  static void write(Path file, int rows, int features, long seed) throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
      for (int i = 0; i < rows; i++) {
        StringBuilder line = new StringBuilder();
        double sum = 0;
        for (int j = 1; j <= features; j++) {
          double v = r.nextDouble(-1, 1);
          sum += v;
          line.append(' ').append(j).append(':').append(String.format(Locale.ROOT, "%.4f", v));
        }
        boolean positive = (sum > 0) != (r.nextInt(20) == 0);
        w.write((positive ? "+1" : "-1") + line + "\n");
      }
    }
  }
}
