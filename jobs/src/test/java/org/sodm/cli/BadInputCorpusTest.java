package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.ModelRecord;
import org.sodm.jobs.support.OutputLock;
import org.sodm.testing.LocalConf;

/**
 * The bad-input corpus (issue 15 item 11): the probes a new user tried (bad data lines, bad
 * parameters, outputs that would destroy inputs, damaged models, changed inputs under --resume,
 * locked outputs), each run through the CLI entry point in-process. Every case asserts the exit
 * status, that the one error line names the file and line, the parameter or key, or the path,
 * that no stack trace is printed (without --debug), and that every file under the test's
 * directory (inputs, the shared model, earlier outputs) is byte-identical afterwards with nothing
 * added: no half-written output, no lock or temporary file left. The data is in
 * src/test/resources/bad-input (copied to a temporary directory, so nothing in the source tree
 * is touched).
 */
class BadInputCorpusTest {
  @TempDir static Path tmp;

  private static Path root;
  private static Path data;
  private static Path model;
  private static Path predictions;
  private static Path notSodm;
  private static Path badModels;
  private static List<String> localDefines;
  private static Process liveHolder;

  /** A stack trace line, as printed by Throwable.printStackTrace or a logger. */
  private static final Pattern TRACE = Pattern.compile("(?m)^\\s+at [\\w$.]+\\(|^Caused by: |Exception in thread ");

  @BeforeAll
  static void fixtures() throws Exception {
    root = tmp.toRealPath().resolve("corpus");
    data = root.resolve("data");
    Files.createDirectories(data);
    Path src = Paths.get(BadInputCorpusTest.class.getResource("/bad-input/train.libsvm").toURI()).getParent();
    try (Stream<Path> s = Files.list(src)) {
      for (Path f : s.toList()) Files.copy(f, data.resolve(f.getFileName().toString()));
    }
    Configuration lc = LocalConf.create(tmp.resolve("scratch"));
    localDefines = new ArrayList<>();
    for (String k : List.of("mapreduce.framework.name", "fs.defaultFS", "hadoop.tmp.dir", "mapreduce.jobtracker.staging.root.dir",
        "mapreduce.cluster.local.dir")) {
      localDefines.add("-D");
      localDefines.add(k + "=" + lc.get(k));
    }
    // log lines (and any stack trace a logger prints) go to the captured stderr, as on a terminal: sodm's log4j.properties has
    // its console appender follow System.err

    // one small model shared by every case (309 rows of svmguide1), and its predictions
    model = root.resolve("model");
    String[] t = sodm("train", "-i", d("train.libsvm"), "-o", model.toString(), "--scale", "0,1", "--gamma", "2");
    assertEquals("0", t[0], t[2]);
    predictions = root.resolve("predictions");
    String[] p = sodm("predict", "-m", model.toString(), "-i", d("train.libsvm"), "-o", predictions.toString());
    assertEquals("0", p[0], p[2]);
    assertTrue(p[1].contains("accuracy"), p[1]);

    // damaged copies of it, each without a .crc (as a copy with cp or scp would be)
    badModels = root.resolve("bad-models");
    byte[] good = Files.readAllBytes(model.resolve("model.avro"));
    byte[] flipped = good.clone();
    flipped[flipped.length - 16 - 40] ^= 0x10; // in the last data block (the file ends with a 16-byte sync marker)
    write(badModels.resolve("flipped/model.avro"), flipped);
    // the same records in an uncompressed container, then one byte of the first coefficient flipped:
    // the file still decodes, only the digest can tell
    Path plain = badModels.resolve("uncompressed/model.avro");
    Files.createDirectories(plain.getParent());
    double coef;
    try (DataFileReader<ModelRecord> in = new DataFileReader<>(model.resolve("model.avro").toFile(), new SpecificDatumReader<>(ModelRecord.class));
        DataFileWriter<ModelRecord> w = new DataFileWriter<>(new SpecificDatumWriter<>(ModelRecord.class))) {
      ModelRecord rec = in.next();
      coef = rec.getBlocks().get(0).getCoef().get(0);
      w.setCodec(CodecFactory.nullCodec());
      w.create(rec.getSchema(), plain.toFile());
      w.append(rec);
    }
    String[] control = sodm("inspect", plain.toString());
    assertEquals("0", control[0], "the uncompressed copy itself loads: " + control[2]);
    byte[] bytes = Files.readAllBytes(plain);
    byte[] le = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putDouble(coef).array();
    int at = indexOf(bytes, le);
    assertTrue(at > 0, "the coefficient's bytes are in the file");
    bytes[at] ^= 0x01; // the lowest mantissa byte: a valid double, slightly different
    write(badModels.resolve("changed-coefficient/model.avro"), bytes);
    Files.delete(plain);
    Files.delete(plain.getParent());
    write(badModels.resolve("not-avro/model.avro"), "this is not an Avro file\n".getBytes(StandardCharsets.UTF_8));
    write(badModels.resolve("truncated/model.avro"), Arrays.copyOf(good, good.length / 2));
    write(badModels.resolve("no-model/README.txt"), "a directory without model.avro\n".getBytes(StandardCharsets.UTF_8));

    // a directory sodm did not write
    notSodm = root.resolve("not-sodm");
    write(notSodm.resolve("precious.txt"), "the user's own file\n".getBytes(StandardCharsets.UTF_8));

    // a live process on this host, to hold locks as a running sodm would
    liveHolder = new ProcessBuilder("sleep", "600").start();
  }

  @AfterAll
  static void cleanup() {
    if (liveHolder != null) liveHolder.destroy();
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) if (hay[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }

  private static void write(Path f, byte[] bytes) throws IOException {
    Files.createDirectories(f.getParent());
    Files.write(f, bytes);
  }

  /** A data file (absolute). */
  private static String d(String name) {
    return data.resolve(name).toString();
  }

  /** Runs {@code sodm CMD} in local mode with scratch under the test's directory: {exit, stdout, stderr}. */
  static String[] sodm(String cmd, String... rest) throws Exception {
    List<String> a = new ArrayList<>();
    a.add(cmd);
    a.addAll(localDefines);
    a.addAll(List.of(rest));
    return SodmMainTest.run(a.toArray(new String[0]));
  }

  // ---------------------------------------------------------------------------------------------
  // The corpus

  @FunctionalInterface
  interface Setup {
    void run(Path dir) throws Exception;
  }

  /** One probe: a command line, its exit status, what its error must name. */
  static final class Case {
    final String name;
    final List<String> args = new ArrayList<>();
    int exit = 1;
    final List<String> says = new ArrayList<>();
    final List<List<String>> saysOneOf = new ArrayList<>();
    Setup setup = dir -> {};
    /** A failure after completed phases keeps them (for --resume) under this output; nothing else may change. */
    Path keepsPhasesIn;

    Case(String name) {
      this.name = name;
    }

    Case run(String... a) {
      args.addAll(List.of(a));
      return this;
    }

    Case says(String... s) {
      says.addAll(List.of(s));
      return this;
    }

    Case saysOneOf(String... s) {
      saysOneOf.add(List.of(s));
      return this;
    }

    Case exit(int code) {
      exit = code;
      return this;
    }

    Case setup(Setup s) {
      setup = s;
      return this;
    }

    Case keepsPhasesIn(Path out) {
      keepsPhasesIn = out;
      return this;
    }
  }

  /** The directory of one case (its own inputs and outputs). */
  private static Path dir(String name) {
    return root.resolve("cases").resolve(name);
  }

  private static String out(String name) {
    return dir(name).resolve("out").toString();
  }

  /** A lock file for {@code output} as a live run on this host would hold it ({@link OutputLock}'s format). */
  private static void lockAsLiveHolder(Path output) throws IOException {
    Path lock = Paths.get(OutputLock.fileOf(new org.apache.hadoop.fs.Path(output.toString())).toUri().getPath());
    write(lock, ("host " + InetAddress.getLocalHost().getHostName() + ", pid " + liveHolder.pid() + ", user "
        + System.getProperty("user.name") + ", started " + Instant.now() + " (" + liveHolder.pid() + "@"
        + InetAddress.getLocalHost().getHostName() + ")\n").getBytes(StandardCharsets.UTF_8));
  }

  /** A training run stopped after its ingest phase (an earlier output to resume). */
  private static void ingestPhase(String input, Path output, String... more) throws Exception {
    List<String> a = new ArrayList<>(List.of("-i", input, "-o", output.toString(), "--phase", "ingest"));
    a.addAll(List.of(more));
    String[] r = sodm("train", a.toArray(new String[0]));
    assertEquals("0", r[0], r[2]);
  }

  static List<Case> corpus() {
    List<Case> c = new ArrayList<>();
    String train = d("train.libsvm");

    // --- bad data lines: the message names file:line (ingest, and train where it matters)
    c.add(new Case("libsvm-malformed-token").run("ingest", "-i", d("token.libsvm"), "-o", out("libsvm-malformed-token"))
        .says(d("token.libsvm") + ":2:", "not a number", "1:abc"));
    c.add(new Case("libsvm-index-zero").run("ingest", "-i", d("index-zero.libsvm"), "-o", out("libsvm-index-zero"))
        .says(d("index-zero.libsvm") + ":2:", ">= 1"));
    c.add(new Case("libsvm-indices-not-ascending").run("ingest", "-i", d("not-ascending.libsvm"), "-o", out("libsvm-indices-not-ascending"))
        .says(d("not-ascending.libsvm") + ":2:", "ascend"));
    c.add(new Case("libsvm-nan").run("ingest", "-i", d("nan.libsvm"), "-o", out("libsvm-nan"))
        .says(d("nan.libsvm") + ":2:", "NaN"));
    c.add(new Case("libsvm-infinity").run("ingest", "-i", d("inf.libsvm"), "-o", out("libsvm-infinity"))
        .says(d("inf.libsvm") + ":3:", "infinite"));
    c.add(new Case("libsvm-missing-label").run("ingest", "-i", d("missing-label.libsvm"), "-o", out("libsvm-missing-label"))
        .says(d("missing-label.libsvm") + ":2:", "missing label"));
    // multi-class trains any number of classes up to --max-classes: a third label past that bound is the error
    c.add(new Case("libsvm-third-label-train").run("train", "-i", d("third-label.libsvm"), "-o", out("libsvm-third-label-train"),
        "--max-classes", "2").says(d("third-label.libsvm") + ":3:", "'2'", "--max-classes"));
    c.add(new Case("libsvm-bad-line-train").run("train", "-i", d("token.libsvm"), "-o", out("libsvm-bad-line-train"))
        .says(d("token.libsvm") + ":2:"));
    c.add(new Case("empty-input").run("ingest", "-i", d("empty.libsvm"), "-o", out("empty-input"))
        .says(d("empty.libsvm"), "empty"));
    c.add(new Case("missing-input").run("train", "-i", d("no-such-file.libsvm"), "-o", out("missing-input"))
        .says(d("no-such-file.libsvm"), "does not exist"));
    c.add(new Case("dangling-symlink-input").setup(dir -> Files.createSymbolicLink(dir.resolve("link.libsvm"), dir.resolve("gone.libsvm")))
        .run("ingest", "-i", dir("dangling-symlink-input").resolve("link.libsvm").toString(), "-o", out("dangling-symlink-input"))
        .says(dir("dangling-symlink-input").resolve("link.libsvm").toString()));
    c.add(new Case("unreadable-input").setup(dir -> {
      Path f = dir.resolve("secret.libsvm");
      Files.copy(data.resolve("train.libsvm"), f);
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
      Assumptions.assumeFalse(Files.isReadable(f), "running as root: a file without permissions is still readable");
    }).run("ingest", "-i", dir("unreadable-input").resolve("secret.libsvm").toString(), "-o", out("unreadable-input"))
        .says("permission denied", dir("unreadable-input").resolve("secret.libsvm").toString()));
    c.add(new Case("not-gzip").run("ingest", "-i", d("not-gzip.libsvm.gz"), "-o", out("not-gzip"))
        .says(d("not-gzip.libsvm.gz")));
    c.add(new Case("gzip-bad-line").setup(dir -> {
      try (var z = new java.util.zip.GZIPOutputStream(Files.newOutputStream(dir.resolve("token.libsvm.gz")))) {
        z.write(Files.readAllBytes(data.resolve("token.libsvm")));
      }
    }).run("ingest", "-i", dir("gzip-bad-line").resolve("token.libsvm.gz").toString(), "-o", out("gzip-bad-line"))
        .says(dir("gzip-bad-line").resolve("token.libsvm.gz") + ":2:", "1:abc"));
    c.add(new Case("avro-input-not-avro").run("ingest", "-i", d("not-avro.avro"), "-o", out("avro-input-not-avro"))
        .says(d("not-avro.avro"), "not an Avro file"));
    c.add(new Case("input-directory-without-files").setup(dir -> Files.createDirectories(dir.resolve("empty-dir")))
        .run("train", "-i", dir("input-directory-without-files").resolve("empty-dir").toString(), "-o", out("input-directory-without-files"))
        .says(dir("input-directory-without-files").resolve("empty-dir").toString(), "no files"));
    c.add(new Case("csv-empty-delimiter").run("ingest", "-i", d("header-a.csv"), "-o", out("csv-empty-delimiter"), "--delimiter", "")
        .says("--delimiter"));
    c.add(new Case("skip-bad-records-negative").run("train", "-i", train, "-o", out("skip-bad-records-negative"), "--skip-bad-records", "-1")
        .says("--skip-bad-records", "-1"));
    c.add(new Case("generate-noise-out-of-range").run("generate", "-o", out("generate-noise-out-of-range"), "--noise", "0.7")
        .says("--noise", "0.7"));
    c.add(new Case("stats-not-an-ingest-directory").run("stats", data.toString()).says(data.toString()));
    c.add(new Case("csv-ragged-short-row").run("ingest", "-i", d("ragged-short.csv"), "-o", out("csv-ragged-short-row"), "--label-column", "3")
        .says(d("ragged-short.csv") + ":4:", "3 columns", "found 2"));
    c.add(new Case("csv-ragged-long-row").run("train", "-i", d("ragged-long.csv"), "-o", out("csv-ragged-long-row"), "--label-column", "3")
        .says(d("ragged-long.csv") + ":4:", "found 4"));
    c.add(new Case("csv-rows-wider-than-header").run("ingest", "-i", d("rows-wider-than-header.csv"), "-o",
        out("csv-rows-wider-than-header"), "--label-column", "-1").says(d("rows-wider-than-header.csv") + ":3:", "header"));
    c.add(new Case("csv-bad-cell").run("ingest", "-i", d("bad-cell.csv"), "-o", out("csv-bad-cell"), "--label-column", "-1")
        .says(d("bad-cell.csv") + ":2:", "column 2"));
    c.add(new Case("csv-label-column-99").run("ingest", "-i", d("header-a.csv"), "-o", out("csv-label-column-99"), "--label-column", "99")
        .says(d("header-a.csv") + ":2:", "label column 99"));
    c.add(new Case("csv-label-column-0").run("train", "-i", d("header-a.csv"), "-o", out("csv-label-column-0"), "--label-column", "0")
        .says("--label-column", "sodm.ingest.csv.label.column"));
    c.add(new Case("csv-header-mismatch").run("ingest", "-i", d("header-a.csv") + "," + d("header-x.csv"), "-o", out("csv-header-mismatch"),
        "--label-column", "-1").says(d("header-x.csv") + ":1:", d("header-a.csv"), "x,y,label"));
    c.add(new Case("csv-column-count-mismatch").run("ingest", "-i", d("header-a.csv") + "," + d("four-columns.csv"), "-o",
        out("csv-column-count-mismatch"), "--label-column", "-1").says(d("four-columns.csv") + ":1", d("header-a.csv") + ":1", "3 columns", "has 4", "same columns"));
    c.add(new Case("skip-bad-records-past-bound-train").run("train", "-i", d("two-bad.libsvm"), "-o", out("skip-bad-records-past-bound-train"),
        "--skip-bad-records", "1").says(d("two-bad.libsvm") + ":4:", "--skip-bad-records 1"));
    c.add(new Case("skip-bad-records-past-bound-ingest").run("ingest", "-i", d("two-bad.libsvm"), "-o",
        out("skip-bad-records-past-bound-ingest"), "--skip-bad-records", "1").says(d("two-bad.libsvm") + ":4:", "--skip-bad-records 1"));
    c.add(new Case("validation-bad-line").run("train", "-i", train, "-t", d("validation-bad-line.libsvm"), "-o", out("validation-bad-line"))
        .says(d("validation-bad-line.libsvm") + ":2:").keepsPhasesIn(dir("validation-bad-line").resolve("out")));
    c.add(new Case("validation-labels-not-training-labels").run("train", "-i", train, "-t", d("validation-other-labels.libsvm"), "-o",
        out("validation-labels-not-training-labels")).says("--validation", d("validation-other-labels.libsvm"), "[7]")
        .keepsPhasesIn(dir("validation-labels-not-training-labels").resolve("out")));

    // --- bad parameters: the message names the option and its key
    c.add(new Case("cost-negative").run("train", "-i", train, "-o", out("cost-negative"), "-c", "-1").says("--cost", "sodm.train.c", "-1"));
    c.add(new Case("cost-zero").run("train", "-i", train, "-o", out("cost-zero"), "-c", "0").says("--cost", "sodm.train.c"));
    c.add(new Case("gamma-negative").run("train", "-i", train, "-o", out("gamma-negative"), "--gamma", "-2")
        .says("--gamma", "sodm.kernel.gamma", "-2"));
    c.add(new Case("gamma-not-a-number").run("train", "-i", train, "-o", out("gamma-not-a-number"), "--gamma", "abc")
        .says("--gamma", "abc"));
    c.add(new Case("theta-out-of-range").run("train", "-i", train, "-o", out("theta-out-of-range"), "--theta", "1")
        .says("--theta", "sodm.train.theta"));
    c.add(new Case("unknown-key-train").run("train", "-D", "sodm.kernel.gama=2", "-i", train, "-o", out("unknown-key-train"))
        .says("sodm.kernel.gama", "did you mean sodm.kernel.gamma"));
    c.add(new Case("unknown-key-ingest").run("ingest", "-D", "sodm.ingest.scal=0,1", "-i", train, "-o", out("unknown-key-ingest"))
        .says("sodm.ingest.scal", "did you mean sodm.ingest.scale"));
    c.add(new Case("merge-foo").run("train", "-i", train, "-o", out("merge-foo"), "--merge", "foo").says("--merge", "warm", "cascade", "foo"));
    c.add(new Case("kernel-foo").run("train", "-i", train, "-o", out("kernel-foo"), "--kernel", "foo")
        .says("--kernel", "linear", "poly", "rbf", "sigmoid"));
    c.add(new Case("scale-bad-train").run("train", "-i", train, "-o", out("scale-bad-train"), "--scale", "2,1").says("--scale", "2,1"));
    c.add(new Case("scale-bad-ingest").run("ingest", "-i", train, "-o", out("scale-bad-ingest"), "--scale", "0,5").says("--scale", "0,5"));
    c.add(new Case("format-bad-train").run("train", "-i", train, "-o", out("format-bad-train"), "--format", "xml")
        .says("--format", "libsvm", "csv", "avro", "xml"));
    c.add(new Case("format-bad-ingest").run("ingest", "-i", train, "-o", out("format-bad-ingest"), "--format", "xml")
        .says("--format", "libsvm", "csv", "avro", "xml"));
    c.add(new Case("predict-mode-bad").run("predict", "-m", model.toString(), "-i", train, "-o", out("predict-mode-bad"), "--mode", "foo")
        .says("--mode", "global", "local"));
    c.add(new Case("phase-unknown").run("train", "-i", train, "-o", out("phase-unknown"), "--phase", "nosuch").says("--phase nosuch", "ingest"));
    c.add(new Case("partitions-more-than-rows").run("train", "-i", train, "-o", out("partitions-more-than-rows"), "--partitions", "100000")
        .says("--partitions", "309").keepsPhasesIn(dir("partitions-more-than-rows").resolve("out")));
    c.add(new Case("unknown-option").run("train", "-i", train, "-o", out("unknown-option"), "--bogus").exit(2).says("--bogus"));
    c.add(new Case("output-empty").run("train", "-i", train, "-o", "").says("--output", "empty"));
    c.add(new Case("input-empty").run("ingest", "-i", "", "-o", out("input-empty")).says("--input", "empty"));
    c.add(new Case("model-empty").run("inspect", "").says("MODEL", "empty"));
    c.add(new Case("resume-without-earlier-run").run("train", "-i", train, "-o", out("resume-without-earlier-run"), "--resume")
        .says("--resume", out("resume-without-earlier-run")));

    // --- output safety: never write over an input, a model or what sodm did not write
    c.add(new Case("train-output-is-input").run("train", "-i", train, "-o", train).says(train, "is the input"));
    c.add(new Case("train-output-is-input-overwrite").run("train", "-i", train, "-o", train, "--overwrite").says(train, "is the input"));
    c.add(new Case("train-output-contains-input-overwrite").setup(dir -> Files.copy(data.resolve("train.libsvm"), dir.resolve("a.libsvm")))
        .run("train", "-i", dir("train-output-contains-input-overwrite").resolve("a.libsvm").toString(), "-o",
            dir("train-output-contains-input-overwrite").toString(), "--overwrite")
        .says(dir("train-output-contains-input-overwrite").toString(), "contains the input"));
    c.add(new Case("train-output-inside-input").setup(dir -> Files.copy(data.resolve("train.libsvm"), dir.resolve("a.libsvm")))
        .run("train", "-i", dir("train-output-inside-input").toString(), "-o", out("train-output-inside-input"), "--overwrite")
        .says(out("train-output-inside-input"), "lies inside the input"));
    c.add(new Case("train-output-contains-validation").setup(dir -> Files.copy(data.resolve("train.libsvm"), dir.resolve("v.libsvm")))
        .run("train", "-i", train, "-t", dir("train-output-contains-validation").resolve("v.libsvm").toString(), "-o",
            dir("train-output-contains-validation").toString(), "--overwrite")
        .says(dir("train-output-contains-validation").toString(), "validation input"));
    c.add(new Case("train-overwrite-not-sodm").run("train", "-i", train, "-o", notSodm.toString(), "--overwrite")
        .says(notSodm.toString(), "not written by sodm"));
    c.add(new Case("train-overwrite-a-file").run("train", "-i", train, "-o", notSodm.resolve("precious.txt").toString(), "--overwrite")
        .says(notSodm.resolve("precious.txt").toString(), "not written by sodm"));
    c.add(new Case("train-output-exists").run("train", "-i", train, "-o", model.toString()).says(model.toString(), "already exists"));
    c.add(new Case("predict-output-is-model-dir-overwrite").run("predict", "-m", model.toString(), "-i", train, "-o", model.toString(),
        "--overwrite").says(model.toString(), "model"));
    c.add(new Case("predict-output-inside-model-dir").run("predict", "-m", model.toString(), "-i", train, "-o",
        model.resolve("predictions").toString(), "--overwrite").says(model.resolve("predictions").toString(), "lies inside the model"));
    c.add(new Case("predict-output-is-model-file-overwrite").run("predict", "-m", model.resolve("model.avro").toString(), "-i", train, "-o",
        model.resolve("model.avro").toString(), "--overwrite").says(model.resolve("model.avro").toString(), "model"));
    c.add(new Case("predict-output-is-input-overwrite").run("predict", "-m", model.toString(), "-i", train, "-o", train, "--overwrite")
        .says(train, "is the input"));
    c.add(new Case("predict-output-inside-input").setup(dir -> Files.copy(data.resolve("train.libsvm"), dir.resolve("a.libsvm")))
        .run("predict", "-m", model.toString(), "-i", dir("predict-output-inside-input").toString(), "-o", out("predict-output-inside-input"))
        .says(out("predict-output-inside-input"), "lies inside the input"));
    c.add(new Case("predict-overwrite-not-sodm").run("predict", "-m", model.toString(), "-i", train, "-o", notSodm.toString(), "--overwrite")
        .says(notSodm.toString(), "not written by sodm"));
    c.add(new Case("predict-output-exists").run("predict", "-m", model.toString(), "-i", train, "-o", predictions.toString())
        .says(predictions.toString(), "already exists"));
    c.add(new Case("ingest-output-is-input-overwrite").run("ingest", "-i", train, "-o", train, "--overwrite").says(train, "is the input"));
    c.add(new Case("ingest-output-contains-input-overwrite").setup(dir -> Files.copy(data.resolve("train.libsvm"), dir.resolve("a.libsvm")))
        .run("ingest", "-i", dir("ingest-output-contains-input-overwrite").resolve("a.libsvm").toString(), "-o",
            dir("ingest-output-contains-input-overwrite").toString(), "--overwrite")
        .says(dir("ingest-output-contains-input-overwrite").toString(), "contains the input"));
    c.add(new Case("ingest-overwrite-not-sodm").run("ingest", "-i", train, "-o", notSodm.toString(), "--overwrite")
        .says(notSodm.toString(), "not written by sodm"));
    c.add(new Case("ingest-overwrite-a-file").run("ingest", "-i", train, "-o", notSodm.resolve("precious.txt").toString(), "--overwrite")
        .says(notSodm.resolve("precious.txt").toString(), "not written by sodm"));
    c.add(new Case("generate-output-exists").run("generate", "-o", train, "-n", "10").says(train, "already exists"));
    c.add(new Case("generate-overwrite-data").run("generate", "-o", train, "-n", "10", "--overwrite")
        .says(train, "not written by sodm generate"));
    c.add(new Case("generate-overwrite-model").run("generate", "-o", model.resolve("model.avro").toString(), "-n", "10", "--overwrite")
        .says(model.resolve("model.avro").toString(), "not written by sodm generate"));
    c.add(new Case("generate-overwrite-edited").setup(dir -> {
      String f = dir.resolve("g.libsvm").toString();
      assertEquals("0", sodm("generate", "-o", f, "-n", "10")[0]);
      Files.writeString(Path.of(f), "1 1:1\n", java.nio.file.StandardOpenOption.APPEND); // the user's edit
    }).run("generate", "-o", dir("generate-overwrite-edited").resolve("g.libsvm").toString(), "-n", "10", "--overwrite")
        .says(dir("generate-overwrite-edited").resolve("g.libsvm").toString(), "not written by sodm generate"));
    c.add(new Case("export-output-is-data").run("export-libsvm", model.toString(), "-o", train).says(train, "already exists"));
    c.add(new Case("export-output-is-data-overwrite").run("export-libsvm", model.toString(), "-o", train, "--overwrite")
        .says(train, "not a LIBSVM model written by sodm"));
    c.add(new Case("export-output-is-model-overwrite").run("export-libsvm", model.toString(), "-o", model.resolve("model.avro").toString(),
        "--overwrite").says(model.resolve("model.avro").toString(), "is the model"));
    c.add(new Case("export-range-is-data-overwrite").run("export-libsvm", model.toString(), "-o", dir("export-range-is-data-overwrite")
        .resolve("m.txt").toString(), "--range", train, "--overwrite").says(train, "not an svm-scale range file"));

    // --- damaged models, for every command that loads one
    for (String kind : List.of("flipped", "changed-coefficient", "not-avro", "truncated", "no-model")) {
      Path m = badModels.resolve(kind);
      String named = kind.equals("no-model") ? m.toString() : m.resolve("model.avro").toString();
      String[] why = switch (kind) {
        case "flipped" -> new String[] {"corrupt", "not a readable sodm model"};
        case "changed-coefficient" -> new String[] {"the model is corrupt: its content does not match the SHA-256 digest"};
        case "not-avro" -> new String[] {"not an Avro file"};
        case "truncated" -> new String[] {"not a readable sodm model"};
        default -> new String[] {"no model.avro"};
      };
      String n = "model-" + kind;
      c.add(new Case(n + "-predict").run("predict", "-m", m.toString(), "-i", train, "-o", out(n + "-predict")).says(named).saysOneOf(why));
      c.add(new Case(n + "-inspect").run("inspect", m.toString()).says(named).saysOneOf(why));
      c.add(new Case(n + "-evaluate").run("evaluate", "-p", predictions.toString(), "-m", m.toString()).says(named).saysOneOf(why));
      c.add(new Case(n + "-export").run("export-libsvm", m.toString(), "-o", dir(n + "-export").resolve("m.txt").toString()).says(named)
          .saysOneOf(why));
    }
    c.add(new Case("predict-bad-line").run("predict", "-m", model.toString(), "-i", d("token.libsvm"), "-o", out("predict-bad-line"))
        .says(d("token.libsvm") + ":2:", "1:abc"));
    c.add(new Case("predict-empty-input").run("predict", "-m", model.toString(), "-i", d("empty.libsvm"), "-o", out("predict-empty-input"))
        .says(d("empty.libsvm"), "empty"));
    c.add(new Case("model-missing").run("predict", "-m", d("no-such-model"), "-i", train, "-o", out("model-missing"))
        .says(d("no-such-model"), "does not exist"));
    c.add(new Case("evaluate-not-predictions").setup(dir -> Files.copy(data.resolve("train.libsvm"), dir.resolve("train.libsvm")))
        .run("evaluate", "-p", dir("evaluate-not-predictions").toString(), "-m", model.toString())
        .says(dir("evaluate-not-predictions").toString(), "holds no predictions"));
    c.add(new Case("evaluate-predictions-not-avro").run("evaluate", "-p", data.toString(), "-m", model.toString())
        .says(d("not-avro.avro"), "not an Avro file"));

    // --- --resume after the input changed, with other parameters; locked outputs
    c.add(new Case("resume-input-changed").setup(dir -> {
      Path in = dir.resolve("in.libsvm");
      Files.copy(data.resolve("train.libsvm"), in);
      ingestPhase(in.toString(), dir.resolve("out"));
      Files.writeString(in, "1 1:5 2:5\n", java.nio.file.StandardOpenOption.APPEND); // edited in place
    }).run("train", "-i", dir("resume-input-changed").resolve("in.libsvm").toString(), "-o", out("resume-input-changed"), "--resume")
        .says("--resume", dir("resume-input-changed").resolve("in.libsvm").toString(), "changed"));
    c.add(new Case("resume-different-parameters").setup(dir -> ingestPhase(train, dir.resolve("out"), "--gamma", "2"))
        .run("train", "-i", train, "-o", out("resume-different-parameters"), "--resume", "--gamma", "3")
        .says("--resume", "sodm.kernel.gamma", "was 2", "now 3"));
    c.add(new Case("phase-different-parameters").setup(dir -> ingestPhase(train, dir.resolve("out"), "--gamma", "2"))
        .run("train", "-i", train, "-o", out("phase-different-parameters"), "--phase", "landmarks", "--gamma", "3")
        .says("sodm.kernel.gamma", "was 2", "now 3"));
    c.add(new Case("locked-output").setup(dir -> lockAsLiveHolder(dir.resolve("out")))
        .run("train", "-i", train, "-o", out("locked-output")).says(out("locked-output"), "in use", "pid " + liveHolder.pid()));
    c.add(new Case("locked-output-resume").setup(dir -> {
      ingestPhase(train, dir.resolve("out"));
      lockAsLiveHolder(dir.resolve("out"));
    }).run("train", "-i", train, "-o", out("locked-output-resume"), "--resume").says(out("locked-output-resume"), "in use",
        "pid " + liveHolder.pid()));
    c.add(new Case("locked-output-overwrite").setup(dir -> {
      ingestPhase(train, dir.resolve("out"));
      lockAsLiveHolder(dir.resolve("out"));
    }).run("train", "-i", train, "-o", out("locked-output-overwrite"), "--overwrite").says(out("locked-output-overwrite"), "in use",
        "pid " + liveHolder.pid()));
    return c;
  }

  @TestFactory
  Stream<DynamicTest> corpusCases() {
    List<Case> all = corpus();
    assertTrue(all.size() >= 40, "the corpus has " + all.size() + " cases");
    assertEquals(all.size(), all.stream().map(k -> k.name).distinct().count(), "case names are unique");
    return all.stream().map(k -> DynamicTest.dynamicTest(k.name, () -> check(k)));
  }

  private static void check(Case k) throws Exception {
    Files.createDirectories(dir(k.name));
    k.setup.run(dir(k.name));
    Map<String, String> before = tree(root);
    String[] r = sodm(k.args.get(0), k.args.subList(1, k.args.size()).toArray(new String[0]));
    String all = "exit " + r[0] + "\n--- stdout\n" + r[1] + "--- stderr\n" + r[2];
    System.out.println("case " + k.name + ": exit " + r[0] + ": "
        + r[2].lines().filter(l -> l.startsWith("sodm ") || l.startsWith("Unknown")).findFirst().orElse("(no error line)"));
    assertEquals(Integer.toString(k.exit), r[0], all);
    String err = r[2];
    if (k.exit == 1) {
      long errorLines = err.lines().filter(l -> l.startsWith("sodm " + k.args.get(0) + ": error: ")).count();
      assertEquals(1, errorLines, "one error line\n" + all);
    }
    for (String s : k.says) assertTrue(err.contains(s), "the error names '" + s + "'\n" + all);
    for (List<String> any : k.saysOneOf) assertTrue(any.stream().anyMatch(err::contains), "the error says one of " + any + "\n" + all);
    assertFalse(TRACE.matcher(err).find() || TRACE.matcher(r[1]).find(), "no stack trace without --debug\n" + all);
    assertFalse(err.contains("the stack trace: --debug"), "a user error, not an unexpected exception\n" + all);

    Map<String, String> after = tree(root);
    if (k.keepsPhasesIn == null) {
      assertEquals(before, after, "inputs, models and earlier outputs unchanged, nothing added\n" + all);
    } else {
      String kept = root.relativize(k.keepsPhasesIn).toString() + "/";
      for (Map.Entry<String, String> e : before.entrySet()) {
        assertEquals(e.getValue(), after.get(e.getKey()), e.getKey() + " unchanged\n" + all);
      }
      for (String p : after.keySet()) {
        if (before.containsKey(p)) continue;
        assertTrue((p + "/").startsWith(kept), p + " added outside the run's output\n" + all);
        assertFalse(p.contains(".tmp") || p.contains("sodm-lock"), p + ": a temporary file or lock was left\n" + all);
      }
      assertTrue(after.keySet().stream().anyMatch(p -> p.startsWith(kept + "work/ingest/")), "the completed ingest phase is kept\n" + all);
    }
  }

  /** Every file (SHA-256) and directory under {@code dir}, by relative path. */
  private static Map<String, String> tree(Path dir) throws IOException {
    Map<String, String> m = new TreeMap<>();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.toList()) {
        String rel = dir.relativize(p).toString();
        if (Files.isSymbolicLink(p)) m.put(rel, "link -> " + Files.readSymbolicLink(p));
        else if (Files.isDirectory(p)) m.put(rel, "dir");
        else if (!Files.isReadable(p)) m.put(rel, "unreadable " + Files.size(p));
        else m.put(rel, sha256(p));
      }
    }
    return m;
  }

  private static String sha256(Path f) {
    try (InputStream in = Files.newInputStream(f)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
      return HexFormat.of().formatHex(md.digest());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The stack-trace check can fail: with --debug the trace is printed and seen. */
  @Test
  void debugPrintsTheStackTrace() throws Exception {
    String[] r = sodm("train", "-i", d("train.libsvm"), "-o", tmp.resolve("debug-out").toString(), "-c", "-1", "--debug");
    assertEquals("1", r[0], r[2]);
    assertTrue(TRACE.matcher(r[2]).find(), r[2]);
    assertFalse(Files.exists(tmp.resolve("debug-out")));
  }

  /** export-libsvm replaces an earlier export with --overwrite (and only then), leaving no temporary file. */
  @Test
  void exportOverwritesAnEarlierExport() throws Exception {
    Path dir = tmp.resolve("export");
    Files.createDirectories(dir);
    String out = dir.resolve("m.libsvm").toString();
    String[] a = sodm("export-libsvm", model.toString(), "-o", out);
    assertEquals("0", a[0], a[2]);
    byte[] first = Files.readAllBytes(Path.of(out));
    byte[] range = Files.readAllBytes(Path.of(out + ".range"));
    assertTrue(new String(first, StandardCharsets.UTF_8).startsWith("svm_type "));
    String[] b = sodm("export-libsvm", model.toString(), "-o", out);
    assertEquals("1", b[0], b[2]);
    assertTrue(b[2].contains("already exists"), b[2]);
    String[] c = sodm("export-libsvm", model.toString(), "-o", out, "--overwrite");
    assertEquals("0", c[0], c[2]);
    assertArrayEquals(first, Files.readAllBytes(Path.of(out)));
    assertArrayEquals(range, Files.readAllBytes(Path.of(out + ".range")));
    // export-liblinear does not take a LIBSVM model file for one of its own, even with --overwrite
    String[] d = sodm("export-liblinear", model.toString(), "-o", out, "--overwrite");
    assertEquals("1", d[0], d[2]);
    assertTrue(d[2].contains("is not a LIBLINEAR model written by sodm export-liblinear (it does not start with 'solver_type')"), d[2]);
    assertArrayEquals(first, Files.readAllBytes(Path.of(out)));
    try (Stream<Path> s = Files.list(dir)) {
      assertEquals(List.of(".m.libsvm.crc", ".m.libsvm.range.crc", "m.libsvm", "m.libsvm.range"),
          s.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }

  /** generate --overwrite replaces its own earlier output. */
  @Test
  void generateOverwritesItsOwnFile() throws Exception {
    String f = tmp.resolve("gen/g.libsvm").toString();
    assertEquals("0", sodm("generate", "-o", f, "-n", "10", "--seed", "1")[0]);
    String[] again = sodm("generate", "-o", f, "-n", "20", "--seed", "2", "--overwrite");
    assertEquals("0", again[0], again[2]);
    assertEquals(20, Files.readAllLines(Path.of(f)).size());
    String[] third = sodm("generate", "-o", f, "-n", "5", "--overwrite");
    assertEquals("0", third[0], third[2]);
    assertEquals(5, Files.readAllLines(Path.of(f)).size());
  }

  /** A lock whose holder is gone (killed on this host) is taken over, with a message naming it. */
  @Test
  void aDeadHoldersLockIsTakenOver() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path out = tmp.resolve("stale-lock/out");
    Path lock = Paths.get(OutputLock.fileOf(new org.apache.hadoop.fs.Path(out.toString())).toUri().getPath());
    write(lock, ("host " + InetAddress.getLocalHost().getHostName() + ", pid " + gone.pid() + ", user x, started "
        + Instant.now() + " (gone)\n").getBytes(StandardCharsets.UTF_8));
    String[] r = sodm("train", "-i", d("train.libsvm"), "-o", out.toString(), "--phase", "ingest");
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("taking over the lock of") && r[1].contains("pid " + gone.pid()), r[1]);
    assertFalse(Files.exists(lock), "the lock is released at the end");
  }

  /** The CSV check across files refuses only files whose columns differ. */
  @Test
  void csvFilesWithTheSameColumnsIngestTogether() throws Exception {
    Path dir = tmp.resolve("csv-together");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("b.csv"), "a,b,label\n5,6,1\n7,8,0\n");
    Files.writeString(dir.resolve("c.csv"), "9,9,1\n"); // no header, as many columns
    String[] r = sodm("ingest", "-i", d("header-a.csv") + "," + dir.resolve("b.csv") + "," + dir.resolve("c.csv"), "-o",
        dir.resolve("out").toString(), "--label-column", "-1");
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("rows       5"), r[1]);
  }

  /** A training run that failed before completing a phase left nothing, so the next run needs no --overwrite. */
  @Test
  void aFailedRunNeedsNoOverwrite() throws Exception {
    String out = tmp.resolve("after-failure").toString();
    String[] bad = sodm("train", "-i", d("token.libsvm"), "-o", out);
    assertEquals("1", bad[0], bad[2]);
    assertFalse(Files.exists(Path.of(out)), "no output after a run that completed no phase");
    String[] good = sodm("train", "-i", d("train.libsvm"), "-o", out, "--phase", "ingest");
    assertEquals("0", good[0], good[2]);
    assertTrue(Files.isDirectory(Path.of(out, "work", "ingest")), "a run stopped by --phase keeps its phase");
  }

  /** The shared fixtures are what the cases assume: the model predicts its training data well. */
  @Test
  void sharedModelIsSound() throws Exception {
    String[] r = sodm("inspect", model.toString());
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("labels     0 -> -1, 1 -> +1"), r[1]);
  }
}
