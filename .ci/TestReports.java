import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Reads the Surefire reports of a build (MODULE/target/surefire-reports/TEST-*.xml under ROOT,
 * written at or after SINCE_MILLIS) and prints every failed test (class#method: message and the
 * first lines of its trace), every skipped test as class#method: message, or "skipped tests: none",
 * then one closing line "tests: N passed, N failed, N skipped".
 * Run by .ci/run as {@code java .ci/TestReports.java ROOT SINCE_MILLIS} (a single-file program: no build).
 */
public class TestReports {
  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : ".");
    long since = args.length > 1 ? Long.parseLong(args[1]) : 0;
    List<Path> reports = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path m : modules.sorted().toList()) {
        Path dir = m.resolve("target/surefire-reports");
        if (!Files.isDirectory(dir)) continue;
        try (Stream<Path> s = Files.list(dir)) {
          s.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml"))
              .filter(p -> p.toFile().lastModified() >= since).sorted().forEach(reports::add);
        }
      }
    }
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    long tests = 0, failed = 0, skipped = 0;
    List<String> lines = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    for (Path p : reports) {
      Element suite = f.newDocumentBuilder().parse(p.toFile()).getDocumentElement();
      tests += count(suite, "tests");
      failed += count(suite, "failures") + count(suite, "errors");
      skipped += count(suite, "skipped");
      NodeList cases = suite.getElementsByTagName("testcase");
      for (int i = 0; i < cases.getLength(); i++) {
        Element c = (Element) cases.item(i);
        for (String kind : new String[] {"failure", "error"}) {
          NodeList fl = c.getElementsByTagName(kind);
          for (int j = 0; j < fl.getLength(); j++) failures.add(c.getAttribute("classname") + "#"
              + c.getAttribute("name") + " (" + kind + "): " + trace((Element) fl.item(j)));
        }
        NodeList sk = c.getElementsByTagName("skipped");
        if (sk.getLength() == 0) continue;
        lines.add(c.getAttribute("classname") + "#" + c.getAttribute("name") + ": " + message((Element) sk.item(0)));
      }
    }
    if (!failures.isEmpty()) System.out.println("failed tests:");
    for (String l : failures) System.out.println("  " + l);
    System.out.println("skipped tests:" + (lines.isEmpty() ? " none" : ""));
    for (String l : lines) System.out.println("  " + l);
    System.out.printf("tests: %d passed, %d failed, %d skipped%n", tests - failed - skipped, failed, skipped);
  }

  private static long count(Element e, String attr) {
    String v = e.getAttribute(attr);
    return v.isEmpty() ? 0 : Long.parseLong(v);
  }

  /** The failure's message attribute and the first 12 lines of its stack trace. */
  private static String trace(Element failure) {
    String m = failure.getAttribute("message");
    String text = failure.getTextContent().strip();
    String head = String.join("\n      ", text.lines().limit(12).toList());
    return (m.isBlank() ? "" : m + "\n      ") + head;
  }

  /** The skip's message attribute, else the first line of its text without the exception's class name. */
  private static String message(Element skipped) {
    String m = skipped.getAttribute("message");
    if (m.isBlank()) {
      String text = skipped.getTextContent().strip();
      m = text.isEmpty() ? "(no message)" : text.lines().findFirst().orElse("");
    }
    return m.replaceFirst("^org\\.opentest4j\\.TestAbortedException: ", "");
  }
}
