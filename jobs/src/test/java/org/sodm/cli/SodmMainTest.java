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
    assertTrue(r[2].contains("--bogus"), r[2]);
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
    String[] r = run(local("cv", "-i", data, "--loss", "hinge", "-c", "1", "-g", "0.25", "--scale", "0,1", "--folds", "3"));
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("Cross Validation Accuracy = "), r[1]);
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
