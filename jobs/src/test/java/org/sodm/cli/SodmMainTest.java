package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmReader;
import org.sodm.data.SyntheticData;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class SodmMainTest {
  @TempDir Path tmp;

  /** Runs the command line capturing stdout and stderr. */
  static String[] run(String... args) throws Exception {
    PrintStream o = System.out;
    PrintStream e = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int rc;
    try {
      rc = SodmMain.run(args);
    } finally {
      System.setOut(o);
      System.setErr(e);
    }
    return new String[] {Integer.toString(rc), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
  }

  private String[] local(String cmd, String... rest) {
    String[] a = new String[rest.length + 9];
    a[0] = cmd;
    a[1] = "-D";
    a[2] = "hadoop.tmp.dir=" + tmp.resolve("h");
    a[3] = "-D";
    a[4] = "mapreduce.jobtracker.staging.root.dir=" + tmp.resolve("st");
    a[5] = "-D";
    a[6] = "mapreduce.framework.name=local";
    a[7] = "-D";
    a[8] = "fs.defaultFS=file:///";
    System.arraycopy(rest, 0, a, 9, rest.length);
    return a;
  }

  @Test
  void helpListsCommandsAndVersionPrintsIt() throws Exception {
    String[] h = run("--help");
    assertEquals("0", h[0]);
    for (String c : SodmMain.COMMANDS.keySet()) assertTrue(h[1].contains(c), c + " in help: " + h[1]);
    String[] v = run("--version");
    assertEquals("0", v[0]);
    assertTrue(v[1].contains("sodm " + SodmMain.version()), v[1]);
    String[] ih = run("ingest", "--help");
    assertEquals("0", ih[0]);
    assertTrue(ih[1].contains("--skip-bad-records"), ih[1]);
  }

  @Test
  void everyCommandsHelpFormatsWithoutWarnings() throws Exception {
    // picocli reads a description as a format string: a bare '%' ("2% noise") made it warn on stderr and print raw text
    for (String c : SodmMain.COMMANDS.keySet()) {
      String[] h = run(c, "--help");
      assertEquals("0", h[0], c);
      assertFalse(h[2].contains("WARN"), c + " --help: " + h[2]);
      assertFalse(h[1].contains("%n"), c + " --help: " + h[1]);
    }
    assertTrue(run("train", "--help")[1].contains("2% noise"));
  }

  /**
   * A command's description is wrapped as paragraphs: between "Usage" and the options, no line but a paragraph's last is
   * cut far short of the help's 80 columns (the source's 110-character lines, wrapped again at 80, left lines of one word).
   */
  @Test
  void descriptionsWrapAsParagraphs() throws Exception {
    for (String c : SodmMain.COMMANDS.keySet()) {
      String h = run(c, "--help")[1];
      String[] lines = h.split("\\R");
      int i = 0;
      while (!lines[i].startsWith("Usage:")) i++;
      while (lines[i].startsWith("Usage:") || lines[i].startsWith(" ")) i++; // the synopsis
      List<String> text = new java.util.ArrayList<>();
      while (i < lines.length && !lines[i].startsWith(" ")) text.add(lines[i++]);
      assertFalse(text.isEmpty(), c + " has a description");
      for (int k = 0; k + 1 < text.size(); k++) {
        if (text.get(k + 1).isEmpty() || text.get(k).isEmpty()) continue;
        assertTrue(text.get(k).length() >= 60, c + " --help, a short line inside a paragraph: '" + text.get(k) + "'\n" + h);
      }
    }
    assertEquals(List.of("a b c", "", "d"), List.of(SodmCommand.paragraphs(new String[] {"a", " b", "c", "", "d"})));
  }

  /** The command list of `sodm --help` gives each command's whole one-line summary, not a description's first line cut mid-sentence. */
  @Test
  void theCommandListShowsWholeSummaries() throws Exception {
    String h = run("--help")[1];
    String list = h.substring(h.indexOf("Commands:") + "Commands:".length(), h.indexOf("Run 'sodm COMMAND --help'"));
    Map<String, String> entries = new java.util.LinkedHashMap<>();
    String current = null;
    for (String line : list.split("\\R")) {
      if (line.isBlank()) continue;
      Matcher m = Pattern.compile("^  (\\S+)\\s+(.*)$").matcher(line);
      if (m.matches() && SodmMain.COMMANDS.containsKey(m.group(1))) {
        current = m.group(1);
        entries.put(current, m.group(2).trim());
      } else {
        assertNotNull(current, line);
        entries.put(current, entries.get(current) + " " + line.trim());
      }
    }
    assertEquals(SodmMain.COMMANDS.keySet(), entries.keySet());
    entries.forEach((c, summary) -> assertTrue(summary.endsWith("."), c + ": '" + summary + "'"));
  }

  @Test
  void unknownOptionIsAUsageError() throws Exception {
    String[] r = run("ingest", "-i", "x", "-o", "y", "--bogus");
    assertEquals("2", r[0]);
    assertTrue(r[2].startsWith("Unknown option: '--bogus'"), r[2]);
    // the error, then where the options are: not the whole help after it (the error was the first of ~380 lines)
    assertEquals(List.of("Unknown option: '--bogus'", "Run 'sodm ingest --help' for its options."), List.of(r[2].split("\\R")));
    assertEquals("", r[1]);
  }

  /**
   * A LIBSVM user's svm-train and svm-predict options: each unknown one is named with what it is called here, in a usage
   * error of a few lines; svm-train's -h 0 is refused (not taken as help: exit 0, nothing trained); -t 2, a kernel type
   * there and the validation data here, fails before any work naming the kernel option.
   */
  @Test
  void libsvmOptionsAreNamedInAShortUsageError() throws Exception {
    String data = org.sodm.testing.LocalConf.sampleData("svmguide1").toString();
    Path out = tmp.resolve("m");
    String[] r = run("train", "-i", data, "-o", out.toString(), "-s", "0", "-b", "1", "-m", "500", "-w1", "5", "-d", "2");
    assertEquals("2", r[0]);
    assertEquals("", r[1]);
    String e = r[2];
    assertTrue(e.startsWith("Unknown options: '-s', '0', '-b', '1', '-m', '500', '-w1', '5', '-d', '2'"), e);
    for (String hint : List.of("svm-train's -s 0 (C-SVC) is --loss hinge", "svm-train's -b 1 is --probability",
        "svm-train's -m 500 is --cache-mb 500", "svm-train's -w1 5 (a class weight) is --class-weights 1:5",
        "svm-train's -d 2 is --degree 2", "Run 'sodm train --help' for its options.")) {
      assertTrue(e.contains(hint), hint + " in:\n" + e);
    }
    assertTrue(e.split("\\R").length <= 10, e);
    assertFalse(Files.exists(out));

    String[] v = run("train", "-i", data, "-o", out.toString(), "-v", "5");
    assertTrue(v[2].contains("svm-train's -v 5 (cross-validation) is sodm cv --folds 5"), v[2]);
    String[] s = run("train", "-i", data, "-o", out.toString(), "-s", "3");
    assertTrue(s[2].contains("no one-class SVM, no regression"), s[2]);

    String[] h = run("train", "-i", data, "-o", out.toString(), "-h", "0");
    assertEquals("2", h[0]);
    assertEquals("", h[1], "no help printed for svm-train's shrinking switch");
    assertTrue(h[2].startsWith("svm-train's -h 0: -h is help here; shrinking is on by default and --no-shrinking turns it off"), h[2]);
    assertEquals("0", run("train", "-h")[0], "-h alone is still help");

    String[] t = run(local("train", "-i", data, "-o", out.toString(), "-t", "2"));
    assertEquals("1", t[0]);
    assertTrue(t[2].contains("validation input 2 does not exist (-t is --validation here: svm-train's -t 2 is --kernel rbf"), t[2]);
    assertFalse(t[1].contains("ingest"), "failed before the training data's ingest: " + t[1]);
    assertFalse(Files.exists(out));

    String[] p = run("predict", "-m", out.toString(), "-i", data, "-o", tmp.resolve("p").toString(), "-b", "1");
    assertEquals("2", p[0]);
    assertTrue(p[2].contains("svm-predict's -b 1: a model trained with --probability gives the probabilities"), p[2]);
    assertEquals(List.of(), LibsvmOptions.hints("ingest", List.of("-b", "1"), List.of("-b", "1")), "ingest takes no LIBSVM option");
    String[] g = run("grid", "-i", data, "-o", out.toString(), "-log2c", "-1,3,2", "-png", "x.png");
    assertEquals("2", g[0]);
    assertTrue(g[2].contains("grid.py's -log2c -1,3,2 is --log2c -1,3,2 here"), g[2]);
    assertTrue(g[2].contains("grid.py's -png x.png: -o DIR here writes"), g[2]);
    // liblinear-train's -s with --kernel linear, its -B anywhere
    String[] ll = run("train", "-i", data, "-o", out.toString(), "--kernel", "linear", "-s", "3", "-B", "1");
    assertTrue(ll[2].contains("liblinear-train's -s 3 (L1-loss SVC) is --kernel linear --loss hinge here"), ll[2]);
    assertTrue(ll[2].contains("liblinear-train's -B 1 is --bias here"), ll[2]);
    assertEquals(List.of("liblinear-train's -s 1 (L2-loss SVC) is --kernel linear --loss squared-hinge here",
        "liblinear-train's -B -1 is the default here (no bias)"),
        LibsvmOptions.hints("train", List.of("-s", "1", "-B", "-1"), List.of("--kernel=linear", "-s", "1", "-B", "-1")));
    assertTrue(LibsvmOptions.hints("train", List.of("-s", "1"), List.of("-s", "1")).get(0).contains("(nu-SVC)"), "svm-train's without --kernel linear");
    assertEquals(List.of("liblinear-train's -s 0 (L2-regularised logistic regression) is --kernel linear --loss logistic here (TRON, as "
        + "-s 0; its models give probabilities)"), LibsvmOptions.hints("train", List.of("-s", "0"), List.of("--kernel", "linear", "-s", "0")));
    // liblinear-train's -C (no value): the linear grid
    String[] bigC = run("train", "-i", data, "-o", out.toString(), "-s", "2", "-C", "-v", "5");
    assertEquals("2", bigC[0]);
    assertTrue(bigC[2].contains("liblinear-train's -C (a search of C, each C warm-started from the previous one) is sodm grid "
        + "--kernel linear -i DATA -o DIR --log2c B,E,S here (--log2c auto: its range of C)"), bigC[2]);
    assertEquals(List.of("liblinear-train's -C is what sodm grid --kernel linear does (each C warm-started from the previous one): drop -C"),
        LibsvmOptions.hints("grid", List.of("-C"), List.of("--kernel", "linear", "-C")));
    assertEquals(List.of("svm-scale's -l -1: --scale L,U here (--scale 0,1 as svm-scale -l 0 -u 1, --scale -1,1 its default)"),
        LibsvmOptions.hints("ingest", List.of("-l", "-1"), List.of("-l", "-1")));
    assertTrue(run("ingest", "-i", data, "-o", out.toString(), "-s", "range")[2].contains("svm-scale's -s range: the ranges are kept"));

    // svm-train's and svm-predict's files after the options
    String[] f = run("train", "-c", "1", data, "m");
    assertEquals(List.of("Missing required options: '--input=PATH', '--output=DIR'",
        "svm-train's files TRAIN [MODEL] are options here: sodm train -i TRAIN -o DIR (the model is DIR/model.avro)",
        "Run 'sodm train --help' for its options."), List.of(f[2].split("\\R")));
    assertTrue(run("predict", data, "m", "out")[2].contains("sodm predict -i TEST -m MODEL_DIR -o DIR --text"));
    assertFalse(run("train", "-c", "1")[2].contains("svm-train's files"), "no file given: no such hint");

    // train's and predict's -i / -m on the commands that take their data or model as the argument, or -p
    assertEquals(List.of("Unknown option: '-m'", "the model is inspect's argument here, without -m: sodm inspect m",
        "Run 'sodm inspect --help' for its options."), List.of(run("inspect", "-m", "m")[2].split("\\R")));
    assertEquals(List.of("Missing required option: '--predictions=DIR'",
        "-i is -p (--predictions) here: sodm evaluate -p out (predict's output directory)", "Run 'sodm evaluate --help' for its options."),
        List.of(run("evaluate", "-i", "out")[2].split("\\R")));
    assertTrue(run("stats", "-i", data)[2].contains("the data are stats' argument here, without -i: sodm stats " + data));
    assertTrue(run("export-liblinear", "--model", "m", "-o", "f")[2].contains("sodm export-liblinear m -o FILE"));
    assertEquals(null, LibsvmOptions.sodmHint("predict", List.of("-x"), List.of("-x")), "predict takes -i and -m");
  }

  /**
   * -q as svm-train's and svm-predict's: no progress, report or log line (sodm's INFO lines, the in-process jobs' too);
   * cv keeps its Cross Validation Accuracy line as svm-train -v -q does; the outputs are written all the same, and the
   * next command in the same JVM (the daemon's case) logs again.
   */
  @Test
  void quietPrintsOnlyTheResult() throws Exception {
    String data = org.sodm.testing.LocalConf.sampleData("svmguide1").toString();
    Path model = tmp.resolve("q");
    String[] t = run(local("train", "-i", data, "-o", model.toString(), "--loss", "hinge", "--scale", "0,1", "-q"));
    assertEquals("0", t[0], t[2]);
    assertEquals("", t[1]);
    assertFalse(t[2].contains("INFO"), t[2]);
    assertTrue(Files.exists(model.resolve("model.avro")));
    String[] p = run(local("predict", "-m", model.toString(), "-i", data + ".t", "-o", tmp.resolve("qp").toString(), "--text", "-q"));
    assertEquals("0", p[0], p[2]);
    assertEquals("", p[1]);
    assertTrue(Files.exists(tmp.resolve("qp").resolve("predictions.txt")));
    String[] c = run(local("cv", "-i", data, "--loss", "hinge", "--scale", "0,1", "-v", "3", "--quiet"));
    assertEquals("0", c[0], c[2]);
    assertTrue(c[1].matches("Cross Validation Accuracy = [0-9.]+% \\(3 folds;[^\\n]*\\R"), c[1]);
    String[] loud = run(local("train", "-i", data, "-o", tmp.resolve("l").toString(), "--kernel", "linear", "--loss", "hinge"));
    assertTrue(loud[1].contains("sodm train: done in"), loud[1]);
    assertTrue(loud[2].contains("INFO"), "the logger's level set back after -q: " + loud[2]);
    assertFalse(run("evaluate", "--help")[1].contains("--quiet"), "a command that only reports takes no -q");
  }

  /**
   * Data of fewer rows than the automatic tree's planned 16 blocks trains in one block, as svm-train trains it (it failed
   * with "bad parameter --partitions: K = 16 blocks is more than the 6 training rows", an option never given); the kernel
   * and the linear model both separate these separable rows. An explicit --partitions above the rows still fails naming it.
   */
  @Test
  void tinyDataTrainsWithoutATree() throws Exception {
    Path data = tmp.resolve("tiny.libsvm");
    Files.writeString(data, "1 1:0.9 2:0.2\n-1 1:0.1 2:0.3\n1 1:0.8 2:0.7\n-1 1:0.2 2:0.9\n1 1:0.7 2:0.4\n-1 1:0.3 2:0.5\n");
    for (List<String> opts : List.<List<String>>of(List.of("--loss", "hinge", "-c", "100", "-g", "1"), List.of("--kernel", "linear", "--loss", "hinge", "-c", "100"),
        List.of())) {
      String tag = String.join("", opts).replaceAll("[^a-z0-9]", "");
      Path m = tmp.resolve("tiny-model-" + tag);
      List<String> a = new java.util.ArrayList<>(List.of("train", "-i", data.toString(), "-o", m.toString()));
      a.addAll(opts);
      String[] t = run(local(a.get(0), a.subList(1, a.size()).toArray(new String[0])));
      assertEquals("0", t[0], opts + ": " + t[2]);
      String[] p = run(local("predict", "-m", m.toString(), "-i", data.toString(), "-o", tmp.resolve("tiny-p-" + tag).toString()));
      assertEquals("0", p[0], p[2]);
      if (!opts.isEmpty()) assertTrue(p[1].contains("accuracy   100.0000%"), opts + ": " + p[1]);
    }
    String[] k = run(local("train", "-i", data.toString(), "-o", tmp.resolve("tiny-k").toString(), "--partitions", "16"));
    assertEquals("1", k[0]);
    assertTrue(k[2].contains("bad parameter --partitions (sodm.train.partitions): K = 16 blocks is more than the 6 training rows"), k[2]);
  }

  /**
   * A bad line of a small input (its ingest runs in this process) fails with the task's message alone, as through Hadoop's
   * local runner: it was printed "Failure: file:...:7: ... (in sodm train)", the exception's class and the command around it.
   */
  @Test
  void aBadLineIsNamedAsTheTaskSaidIt() throws Exception {
    Path data = tmp.resolve("nan.libsvm");
    Files.writeString(data, "1 1:0.9\n-1 1:0.1\n1 1:0.8\n-1 1:0.2\n1 1:0.7\n-1 1:0.3\n1 1:nan 2:0.1\n");
    String[] r = run(local("train", "-i", data.toString(), "-o", tmp.resolve("m").toString()));
    assertEquals("1", r[0]);
    assertEquals("sodm train: error: " + data.toUri().toString().replace("file:///", "file:/")
        + ":7: feature value is NaN or infinite (offending text: '1:nan')",
        java.util.Arrays.stream(r[2].split("\\R")).filter(l -> l.startsWith("sodm train: error")).reduce((a, b) -> a + "\n" + b).orElse(""), r[2]);
  }

  /**
   * A CSV as R's write.csv writes it (every string quoted, the label last): trained with --label-column -1, predict reads
   * the test file in the model's layout without being told (it failed: "column 3 is not a number (offending text:
   * 'yes')"), and takes --label-column for a file laid out otherwise.
   */
  @Test
  void evaluateFindsTheModelPredictUsedAndReplacesOnlyItsOwnDiagram() throws Exception {
    Path train = tmp.resolve("three.libsvm");
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      int c = i % 3;
      b.append(c + 1).append(" 1:").append(0.2 + 0.3 * c + 0.01 * (i % 5)).append(" 2:").append(0.5 - 0.01 * (i % 7)).append('\n');
    }
    Files.writeString(train, b.toString());
    Path m = tmp.resolve("pm");
    assertEquals("0", run(local("train", "-q", "-i", train.toString(), "-o", m.toString(), "--probability", "--loss", "hinge"))[0]);
    Path p = tmp.resolve("pp");
    assertEquals("0", run(local("predict", "-q", "-m", m.toString(), "-i", train.toString(), "-o", p.toString()))[0]);
    String[] e = run(local("evaluate", "-p", p.toString()));
    assertEquals("0", e[0], e[2]);
    assertTrue(e[1].contains("accuracy") && e[1].contains("(3 classes)"), e[1]);

    Path png = tmp.resolve("r.png");
    assertEquals("0", run(local("evaluate", "-p", p.toString(), "--reliability-png", png.toString()))[0]);
    byte[] drawn = Files.readAllBytes(png);
    String[] again = run(local("evaluate", "-p", p.toString(), "--reliability-png", png.toString()));
    assertEquals("1", again[0]);
    assertTrue(again[2].contains("already exists (remove it or pass --overwrite)"), again[2]);
    assertEquals("0", run(local("evaluate", "-p", p.toString(), "--reliability-png", png.toString(), "--overwrite"))[0]);
    Path foreign = tmp.resolve("photo.png");
    javax.imageio.ImageIO.write(new java.awt.image.BufferedImage(4, 4, java.awt.image.BufferedImage.TYPE_INT_RGB), "png", foreign.toFile());
    byte[] theirs = Files.readAllBytes(foreign);
    String[] f = run(local("evaluate", "-p", p.toString(), "--reliability-png", foreign.toString(), "--overwrite"));
    assertEquals("1", f[0]);
    assertTrue(f[2].contains("is not a reliability diagram drawn by sodm evaluate; refusing to replace it"), f[2]);
    assertArrayEquals(theirs, Files.readAllBytes(foreign), "a PNG sodm did not draw is left as it was");
    assertTrue(drawn.length > 1000);

    Files.delete(p.resolve("model.txt")); // predictions of an older sodm
    String[] none = run(local("evaluate", "-p", p.toString()));
    assertEquals("1", none[0]);
    assertTrue(none[2].contains("does not name the model that made it") && none[2].contains("--model MODEL"), none[2]);
    assertEquals("0", run(local("evaluate", "-p", p.toString(), "-m", m.toString()))[0]);
  }

  @Test
  void predictReadsACsvAsTheModelsTrainingDataWasRead() throws Exception {
    Path train = tmp.resolve("r.csv");
    StringBuilder b = new StringBuilder("\"a\",\"b\",\"label\"\n");
    String[] want = new String[8];
    for (int i = 0; i < 8; i++) {
      want[i] = i % 2 == 0 ? "yes" : "no";
      b.append(i % 2 == 0 ? 0.9 - 0.05 * i : 0.1 + 0.05 * i).append(",").append(0.5).append(",\"").append(want[i]).append("\"\n");
    }
    Files.writeString(train, b.toString());
    Path m = tmp.resolve("csv-model");
    assertEquals("0", run(local("train", "-i", train.toString(), "-o", m.toString(), "--label-column", "-1", "--loss", "hinge", "-c", "100",
        "-g", "4"))[0]);
    String[] p = run(local("predict", "-m", m.toString(), "-i", train.toString(), "-o", tmp.resolve("p1").toString(), "--text"));
    assertEquals("0", p[0], p[2]);
    assertTrue(p[2].contains("CSV input read as the model's training data was: --label-column -1"), p[2]);
    assertEquals(List.of(want), Files.readAllLines(tmp.resolve("p1").resolve("predictions.txt")));
    Path first = tmp.resolve("first.csv");
    Files.writeString(first, "label,a,b\nyes,0.9,0.5\nno,0.1,0.5\n");
    String[] q = run(local("predict", "-m", m.toString(), "-i", first.toString(), "-o", tmp.resolve("p2").toString(), "--text",
        "--label-column", "1"));
    assertEquals("0", q[0], q[2]);
    assertEquals(List.of("yes", "no"), Files.readAllLines(tmp.resolve("p2").resolve("predictions.txt")));
    assertTrue(q[1].contains("accuracy   100.0000%"), q[1]);
  }

  @Test
  void generateIngestStats() throws Exception {
    Path data = tmp.resolve("g.libsvm");
    String[] g = run(local("generate", "-o", data.toString(), "-n", "500", "-d", "4", "--seed", "3"));
    assertEquals("0", g[0], g[2]);
    LibsvmReader.Data d = LibsvmReader.read(data);
    assertEquals(500, d.size());
    int agree = 0;
    for (int i = 0; i < d.size(); i++) {
      if (SyntheticData.bayesLabel(d.x()[i].toDense(4)) == (int) d.y()[i]) agree++;
    }
    assertEquals(500, agree, "noise 0: every label is the Bayes label");
    int pos = 0;
    for (double y : d.y()) if (y > 0) pos++;
    assertTrue(pos > 150 && pos < 350, "classes roughly balanced: " + pos);

    // same seed, same bytes
    Path again = tmp.resolve("g2.libsvm");
    run(local("generate", "-o", again.toString(), "-n", "500", "-d", "4", "--seed", "3"));
    assertArrayEquals(Files.readAllBytes(data), Files.readAllBytes(again));

    Path out = tmp.resolve("ing");
    String[] i = run(local("ingest", "-i", data.toString(), "-o", out.toString(), "--scale", "0,1"));
    assertEquals("0", i[0], i[2]);
    assertTrue(i[1].contains("rows       500"), i[1]);
    String[] s = run(local("stats", out.toString()));
    assertEquals("0", s[0], s[2]);
    assertTrue(s[1].contains("scaler     to [0, 1]"), s[1]);
    assertTrue(s[1].contains("-> +1"), s[1]);

    // the data file itself: read as the ingest reads it, the same summary but for the data set's name, nothing left behind
    Path scratch = Files.createDirectories(tmp.resolve("scratch"));
    String previous = System.getProperty("java.io.tmpdir");
    System.setProperty("java.io.tmpdir", scratch.toString());
    String[] raw;
    try {
      raw = run(local("stats", data.toString(), "--scale", "0,1"));
    } finally {
      System.setProperty("java.io.tmpdir", previous);
    }
    assertEquals("0", raw[0], raw[2]);
    assertEquals(s[1].replace("file:" + out, data.toString()), raw[1]);
    try (var left = Files.list(scratch)) {
      assertEquals(List.of(), left.toList(), "the temporary ingest is removed");
    }
  }

  /** --offset sets sodm.train.offset=true, --no-offset false, neither leaves auto, which the hinge tree resolves to true. */
  @Test
  void offsetFlagsAndTheAutoDefault() throws Exception {
    String data = org.sodm.testing.LocalConf.sampleData("svmguide1").toString();
    String[][] cases = {{"", "true"}, {"--offset", "true"}, {"--no-offset", "false"}};
    for (String[] c : cases) {
      Path out = tmp.resolve("offset" + c[0]);
      List<String> args = new java.util.ArrayList<>(List.of("-i", data, "-o", out.toString(), "--loss", "hinge", "-c", "1", "-g", "0.25",
          "--scale", "0,1"));
      if (!c[0].isEmpty()) args.add(c[0]);
      String[] r = run(local("train", args.toArray(new String[0])));
      assertEquals("0", r[0], r[2]);
      String[] i = run(local("inspect", "--parameters", out.resolve("model.avro").toString()));
      assertEquals("0", i[0], i[2]);
      assertTrue(java.util.regex.Pattern.compile("sodm\\.train\\.offset\\s*=?\\s*" + c[1]).matcher(i[1]).find(),
          "'" + c[0] + "': " + i[1]);
    }
  }

  /**
   * sodm cv without -o runs in a temporary directory removed at the end: its progress names no path in it (the model line
   * said "-> file:/tmp/sodm-cv-.../model.avro", a file gone when the command ends) and says how to keep the run.
   */
  @Test
  void cvWithoutOutputNamesNoRemovedPath() throws Exception {
    String data = org.sodm.testing.LocalConf.sampleData("svmguide1").toString();
    String[] r = run(local("cv", "-i", data, "--loss", "hinge", "-c", "1", "-g", "0.25", "--scale", "0,1", "-v", "3"));
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("Cross Validation Accuracy = "), r[1]);
    assertTrue(r[1].contains("(3 folds;"), "-v 3 as svm-train -v 3: " + r[1]);
    assertTrue(r[1].contains("not kept (-o DIR keeps the run)"), r[1]);
    assertFalse(r[1].contains("sodm-cv-"), r[1]);
  }

  @Test
  void badParameterIsNamed() throws Exception {
    Path data = tmp.resolve("x.libsvm");
    Files.writeString(data, "1 1:1\n-1 1:2\n");
    String[] r = run(local("ingest", "-i", data.toString(), "-o", tmp.resolve("o").toString(), "--scale", "0,5"));
    assertEquals("1", r[0]);
    assertTrue(r[2].contains("--scale"), r[2]);
    String[] g = run(local("generate", "-o", tmp.resolve("y").toString(), "--noise", "0.7"));
    assertEquals("1", g[0]);
    assertTrue(g[2].contains("--noise"), g[2]);
  }

  /** Every key the code defines is documented in conf/sodm-default.xml, and every documented key exists in code. */
  @Test
  void everyParameterIsDocumentedInSodmDefault() throws Exception {
    Set<String> inCode = new HashSet<>();
    for (org.sodm.jobs.spec.Param p : org.sodm.jobs.spec.Param.values()) inCode.add(p.key());
    for (java.lang.reflect.Field f : SodmConf.class.getFields()) {
      Object v = f.get(null);
      if (v instanceof String s && s.startsWith("sodm.")) assertTrue(inCode.contains(s), s + " is in the table");
    }
    Path xml = LocalConf.projectDir().resolve("conf/sodm-default.xml");
    NodeList props = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile()).getElementsByTagName("property");
    Set<String> documented = new HashSet<>();
    for (int i = 0; i < props.getLength(); i++) {
      Element p = (Element) props.item(i);
      String name = p.getElementsByTagName("name").item(0).getTextContent().trim();
      assertEquals(1, p.getElementsByTagName("value").getLength(), name + " has a default");
      assertFalse(p.getElementsByTagName("description").item(0).getTextContent().isBlank(), name + " has a description");
      documented.add(name);
    }
    assertEquals(inCode, documented);
    // and every CLI option naming a key in its help names a documented one
    Matcher m = Pattern.compile("\\((sodm\\.[a-z.]+)").matcher((run("ingest", "--help")[1] + run("generate", "--help")[1]).replaceAll("\\R\\s+", ""));
    while (m.find()) assertTrue(documented.contains(m.group(1)), m.group(1));
  }
}
