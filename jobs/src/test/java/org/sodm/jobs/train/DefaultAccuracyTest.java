package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/**
 * Issue 18 item 0: the default model at LIBSVM's default parameters (hinge, C = 1, gamma = 1/d)
 * on ijcnn1 (sample-data/ijcnn1-12k.xz, 12,000 training rows, 5,000 test rows; see
 * sample-data/README.md). 12,000 rows are above sodm.train.exact.below.rows, so the default is
 * the automatic tree: two averaged blocks of 6,000 rows (90.56%; C B = 2, so blocks of m rows). The fixed 16 -> 4 tree scores
 * 90.54% with C per block scaled ({@code --block-c scaled}) and 89.62% with the whole problem's C
 * in every block ({@code --block-c same}, the rule before issue 18), against the single block's
 * 90.50% and svm-train's 90.56%; the block-mode test below runs a fixed tree.
 */
class DefaultAccuracyTest {
  @TempDir Path tmp;
  private Configuration conf;

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.C, "1");
  }

  private double accuracy(String out) throws IOException {
    return last(out).getValidationAccuracy();
  }

  private org.sodm.avro.LevelStats last(String out) throws IOException {
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("ijcnn1-12k.xz").toString()),
        List.of(LocalConf.sampleData("ijcnn1-5k.t.xz").toString()), new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false),
        l -> {});
    return r.levels().get(r.levels().size() - 1);
  }

  /**
   * At ijcnn1's tuned parameters (C = 32, gamma = 2) a mean of small blocks loses accuracy, and the automatic tree's final
   * blocks of up to 3m rows are what keeps it: with a 16 MB cache (m = 2,048 rows; blocks of m rows would solve with C B =
   * 192 > sodm.train.auto.block.c 32) the default takes 2 blocks of 6,000 rows (98.10%; svm-train 98.48%), final blocks of m
   * rows (sodm.train.auto.block.rows = 2048, the shape before) 6 blocks of 2,000 rows (96.94%). At the default cache 12,000
   * rows are one block: the single-block optimum.
   */
  @Test
  void largerFinalBlocksAreTheMoreAccurateAtLargeC() throws Exception {
    conf.set(SodmConf.C, "32");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(SodmConf.CACHE_MB, "16");
    org.sodm.avro.LevelStats big = last("big");
    conf.set(Param.AUTO_BLOCK_ROWS.key(), "2048");
    org.sodm.avro.LevelStats small = last("small");
    assertEquals(2, big.getBlocks());
    assertEquals(6, small.getBlocks());
    assertTrue(big.getValidationAccuracy() >= small.getValidationAccuracy() + 0.005,
        "2 blocks of 6,000 rows " + big.getValidationAccuracy() + " vs 6 blocks of 2,000 " + small.getValidationAccuracy());
  }

  /** The default model within 0.3 point of the single-block optimum's accuracy, and of svm-train's when it is installed. */
  @Test
  void defaultModelWithinPointThreeOfTheSingleBlockAndLibsvm() throws Exception {
    double tree = accuracy("default");
    conf.set(SodmConf.PARTITIONS, "1");
    double single = accuracy("single");
    assertTrue(tree >= single - 0.003, "default model " + tree + " vs the single block's " + single);

    Double libsvm = svmTrainAccuracy();
    if (libsvm != null) {
      assertTrue(tree >= libsvm - 0.003, "default model " + tree + " vs svm-train's " + libsvm);
    }
  }

  /**
   * Block mode (no one-block end: sodm.train.exact.below.rows = 0) with two merge rounds, 8 -> 4 -> 2
   * blocks (C 8, 4, 2 per block, each round warm-started from the children's mean): the 2
   * averaged blocks within 0.3 point of svm-train.
   */
  @Test
  void blockModeWithinPointThreeOfLibsvm() throws Exception {
    Double libsvm = svmTrainAccuracy();
    Assumptions.assumeTrue(libsvm != null, "svm-train is not installed");
    conf.set(Param.EXACT_BELOW_ROWS.key(), "0");
    conf.set(SodmConf.PARTITIONS, "8");
    conf.set(SodmConf.FANOUT, "2");
    double tree = accuracy("block8");
    assertTrue(tree >= libsvm - 0.003, "8 -> 4 -> 2 averaged blocks " + tree + " vs svm-train's " + libsvm);
  }

  private static Double libsvmAccuracy;
  private static boolean libsvmRan;

  /** svm-train -c 1 (gamma 1/22, LIBSVM's default) on the same files (once per JVM), or null when it is not installed. */
  private synchronized Double svmTrainAccuracy() throws Exception {
    if (!libsvmRan) {
      libsvmAccuracy = runSvmTrain();
      libsvmRan = true;
    }
    return libsvmAccuracy;
  }

  private Double runSvmTrain() throws Exception {
    if (!onPath("svm-train") || !onPath("svm-predict")) return null;
    Path train = tmp.resolve("ij.train");
    Path test = tmp.resolve("ij.test");
    Files.write(train, xz(LocalConf.sampleData("ijcnn1-12k.xz")));
    Files.write(test, xz(LocalConf.sampleData("ijcnn1-5k.t.xz")));
    run("svm-train", "-q", "-c", "1", "-m", "200", train.toString(), tmp.resolve("ij.model").toString());
    String out = run("svm-predict", test.toString(), tmp.resolve("ij.model").toString(), tmp.resolve("ij.out").toString());
    Matcher m = Pattern.compile("Accuracy = ([0-9.]+)%").matcher(out);
    assertTrue(m.find(), out);
    return Double.parseDouble(m.group(1)) / 100;
  }

  private static byte[] xz(Path p) throws IOException {
    try (var in = new org.tukaani.xz.XZInputStream(Files.newInputStream(p))) {
      return in.readAllBytes();
    }
  }

  private static boolean onPath(String cmd) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, cmd))) return true;
    }
    return false;
  }

  private static String run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), String.join(" ", cmd) + " timed out");
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    return out;
  }
}
