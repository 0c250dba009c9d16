package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import org.junit.jupiter.api.Test;
import org.sodm.testing.LocalConf;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Every Oozie file under workflows/oozie validates against the XSD of its namespace (from
 * oozie-client), the workflow's transition graph is sound (every to/ok/error/start names a node,
 * every node is reachable from start, and end is reachable from every node), its actions are the
 * pipeline's phases in order with the same arguments, and every ${parameter} has a value.
 */
class OozieWorkflowTest {
  static final Path OOZIE = LocalConf.projectDir().resolve("workflows/oozie");

  static Map<String, String> xsdByNamespace() {
    return Map.of("uri:oozie:workflow:1.0", "oozie-workflow-1.0.xsd", "uri:oozie:workflow:0.5", "oozie-workflow-0.5.xsd",
        "uri:oozie:coordinator:0.5", "oozie-coordinator-0.5.xsd", "uri:oozie:coordinator:0.4", "oozie-coordinator-0.4.xsd",
        "uri:oozie:bundle:0.2", "oozie-bundle-0.2.xsd");
  }

  static List<Path> oozieFiles() throws IOException {
    try (Stream<Path> s = Files.walk(OOZIE)) {
      return s.filter(p -> p.toString().endsWith(".xml")).sorted().toList();
    }
  }

  static Document parse(Path p) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    return f.newDocumentBuilder().parse(p.toFile());
  }

  static Schema schema(String xsd) throws SAXException, IOException {
    URL url = OozieWorkflowTest.class.getClassLoader().getResource(xsd);
    assertNotNull(url, xsd + " on the test classpath (oozie-client)");
    SchemaFactory sf = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
    try (InputStream in = url.openStream()) {
      return sf.newSchema(new StreamSource(in, url.toExternalForm())); // the system id resolves its includes
    }
  }

  static List<Element> children(Element e) {
    List<Element> out = new ArrayList<>();
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c) out.add(c);
    }
    return out;
  }

  static Element child(Element e, String name) {
    return children(e).stream().filter(c -> c.getLocalName().equals(name)).findFirst().orElse(null);
  }

  @Test
  void everyFileValidatesAgainstItsOozieSchema() throws Exception {
    List<Path> files = oozieFiles();
    assertTrue(files.stream().anyMatch(p -> p.endsWith("train/workflow.xml")), files.toString());
    assertTrue(files.stream().anyMatch(p -> p.getFileName().toString().equals("coordinator.xml")), files.toString());
    for (Path p : files) {
      String ns = parse(p).getDocumentElement().getNamespaceURI();
      String xsd = xsdByNamespace().get(ns);
      assertNotNull(xsd, p + ": unknown Oozie namespace " + ns);
      try {
        schema(xsd).newValidator().validate(new StreamSource(p.toFile()));
      } catch (SAXException e) {
        fail(p + " does not validate against " + xsd + ": " + e.getMessage());
      }
    }
  }

  /** A broken workflow is caught: the schema and the graph check both reject what they should. */
  @Test
  void theChecksRejectBrokenWorkflows() throws Exception {
    String ok = Files.readString(OOZIE.resolve("train/workflow.xml"));
    Path bad = Files.createTempFile("workflow", ".xml");
    try {
      Files.writeString(bad, ok.replace("<main-class>org.sodm.cli.SodmMain</main-class>", ""));
      assertThrows(SAXException.class, () -> schema("oozie-workflow-1.0.xsd").newValidator().validate(new StreamSource(bad.toFile())));
      Files.writeString(bad, ok.replace("<ok to=\"train\"/>", "<ok to=\"level-9\"/>"));
      AssertionError e = assertThrows(AssertionError.class, () -> checkGraph(parse(bad)));
      assertTrue(e.getMessage().contains("level-9"), e.getMessage());
      Files.writeString(bad, ok.replace("<ok to=\"validation\"/>", "<ok to=\"train\"/>"));
      e = assertThrows(AssertionError.class, () -> checkGraph(parse(bad)));
      assertTrue(e.getMessage().contains("unreachable") && e.getMessage().contains("validation"), e.getMessage());
    } finally {
      Files.deleteIfExists(bad);
    }
  }

  /** Checks the transition graph; returns the nodes in the order the ok transitions visit them. */
  static List<String> checkGraph(Document d) {
    Element app = d.getDocumentElement();
    Map<String, List<String>> edges = new LinkedHashMap<>();
    Map<String, String> okNext = new LinkedHashMap<>();
    String start = null;
    for (Element e : children(app)) {
      String kind = e.getLocalName();
      switch (kind) {
        case "start" -> start = e.getAttribute("to");
        case "end", "kill" -> edges.put(e.getAttribute("name"), List.of());
        case "action" -> {
          String ok = child(e, "ok").getAttribute("to");
          edges.put(e.getAttribute("name"), List.of(ok, child(e, "error").getAttribute("to")));
          okNext.put(e.getAttribute("name"), ok);
        }
        case "decision" -> {
          List<String> to = new ArrayList<>();
          for (Element c : children(child(e, "switch"))) to.add(c.getAttribute("to"));
          edges.put(e.getAttribute("name"), to);
        }
        case "fork" -> {
          List<String> to = new ArrayList<>();
          for (Element c : children(e)) to.add(c.getAttribute("start"));
          edges.put(e.getAttribute("name"), to);
        }
        case "join" -> edges.put(e.getAttribute("name"), List.of(e.getAttribute("to")));
        default -> { } // parameters, global, credentials
      }
    }
    assertNotNull(start, "no start node");
    List<String> dangling = new ArrayList<>();
    if (!edges.containsKey(start)) dangling.add("start -> " + start);
    edges.forEach((from, tos) -> tos.stream().filter(t -> !edges.containsKey(t)).forEach(t -> dangling.add(from + " -> " + t)));
    assertEquals(List.of(), dangling, "transitions to nodes that do not exist");
    // reachable from start
    Set<String> seen = new LinkedHashSet<>();
    Deque<String> todo = new ArrayDeque<>(List.of(start));
    while (!todo.isEmpty()) {
      String n = todo.pop();
      if (seen.add(n)) todo.addAll(edges.get(n));
    }
    Set<String> unreachable = new LinkedHashSet<>(edges.keySet());
    unreachable.removeAll(seen);
    assertEquals(Set.of(), unreachable, "unreachable nodes");
    // every node can finish (reach end or kill)
    for (String n : edges.keySet()) {
      Set<String> s = new HashSet<>();
      Deque<String> q = new ArrayDeque<>(List.of(n));
      boolean finishes = false;
      while (!q.isEmpty()) {
        String m = q.pop();
        if (!s.add(m)) continue;
        if (edges.get(m).isEmpty()) finishes = true;
        q.addAll(edges.get(m));
      }
      assertTrue(finishes, n + " never reaches end or kill");
    }
    List<String> chain = new ArrayList<>();
    for (String n = start; okNext.containsKey(n); n = okNext.get(n)) chain.add(n);
    return chain;
  }

  /**
   * One action per kind of phase (ingest, validation, then the method's phases and the model, which
   * sodm drives), each with the same arguments but its --phase; the phase each names exists for
   * any partitions and fanout and for the linear solvers too; the parameters are written once, as
   * sodm.* keys of the global configuration that sodm knows.
   */
  @Test
  void trainWorkflowHasOneActionPerKindOfPhaseWithTheParametersOnce() throws Exception {
    Document d = parse(OOZIE.resolve("train/workflow.xml"));
    List<String> chain = checkGraph(d);
    assertEquals(List.of("ingest", "validation", "train"), chain, "the actions in order");
    Map<String, String> phaseOf = Map.of("ingest", "ingest", "validation", "validation", "train", "model");

    List<String> first = null;
    NodeList actions = d.getElementsByTagNameNS("*", "action");
    assertEquals(3, actions.getLength());
    for (int i = 0; i < actions.getLength(); i++) {
      Element a = (Element) actions.item(i);
      Element java = child(a, "java");
      assertNotNull(java, a.getAttribute("name") + " is a java action");
      assertEquals("org.sodm.cli.SodmMain", child(java, "main-class").getTextContent());
      assertEquals("fail", child(a, "error").getAttribute("to"));
      assertEquals("", a.getAttribute("retry-max"), "no automatic retry: a failure goes to the kill node for a rerun");
      List<String> args = children(java).stream().filter(c -> c.getLocalName().equals("arg")).map(Node::getTextContent).toList();
      assertEquals("train", args.get(0));
      assertEquals(List.of("--phase", phaseOf.get(a.getAttribute("name"))), args.subList(args.size() - 2, args.size()));
      List<String> same = args.subList(0, args.size() - 2);
      if (first == null) first = same;
      assertEquals(first, same, a.getAttribute("name") + " has the same arguments as " + chain.get(0));
    }
    assertEquals(List.of("train", "--input", "${input}", "--validation", "${validation}", "--output", "${output}"), first);

    // the --phase names are phases of every run, whatever partitions, fanout or method
    Properties job = load(OOZIE.resolve("train/job.properties"));
    for (String[] pf : new String[][] {{"16", "4", "rbf"}, {"8", "2", "rbf"}, {"32", "4", "rbf"}, {"2", "2", "rbf"}, {"16", "4", "linear"}}) {
      job.setProperty("partitions", pf[0]);
      job.setProperty("fanout", pf[1]);
      job.setProperty("kernel", pf[2]);
      org.sodm.jobs.spec.TrainSpec spec = org.sodm.jobs.spec.TrainSpec.from(withParams(job));
      List<String> names = TrainPipeline.phases(spec, TrainPipeline.trainer(spec), true).stream()
          .map(org.sodm.jobs.phase.PhaseRunner.Planned::name).toList();
      assertTrue(names.containsAll(phaseOf.values()), names.toString());
      assertEquals("model", names.get(names.size() - 1), "model is the last phase: the train action runs everything after validation");
    }

    // the parameters: once, as sodm.* keys of <global><configuration>, each a key sodm knows, each from a workflow parameter
    Element global = child(d.getDocumentElement(), "global");
    Map<String, String> keys = new LinkedHashMap<>();
    for (Element p : children(child(global, "configuration"))) keys.put(child(p, "name").getTextContent(), child(p, "value").getTextContent());
    Map<String, String> sodmKeys = new LinkedHashMap<>();
    keys.forEach((k, v) -> {
      if (k.startsWith("sodm.")) sodmKeys.put(k, v);
    });
    org.sodm.jobs.spec.Param.checkKnown(sodmKeys.entrySet());
    Set<String> params = new LinkedHashSet<>();
    for (Element p : children(child(d.getDocumentElement(), "parameters"))) params.add(child(p, "name").getTextContent());
    Set<String> fromKeys = new LinkedHashSet<>();
    sodmKeys.values().forEach(v -> fromKeys.addAll(undefined(v, Set.of())));
    Set<String> training = new LinkedHashSet<>(params);
    training.removeAll(Set.of("input", "output", "validation", "queueName"));
    assertEquals(training, fromKeys, "every training parameter reaches sodm through one key");
    for (Map.Entry<String, String> e : sodmKeys.entrySet()) {
      String p = e.getValue().substring(2, e.getValue().length() - 1);
      String option = org.sodm.jobs.spec.Param.byKey(e.getKey()).options().toString();
      assertTrue(option.contains("--" + p) || (p.equals("cost") && option.contains("--cost")), e.getKey() + " <- " + p + " (options " + option + ")");
    }

    // every ${name} has a value: job.properties or the workflow's <parameters>
    Set<String> defined = new HashSet<>(job.stringPropertyNames());
    defined.addAll(params);
    assertEquals(Set.of(), undefined(Files.readString(OOZIE.resolve("train/workflow.xml")), defined), "parameters without a value");
    assertTrue(job.getProperty("oozie.wf.application.path") != null);
  }

  @Test
  void coordinatorRunsTheTrainWorkflowWithEveryParameterItNeeds() throws Exception {
    Path dir = OOZIE.resolve("retrain-daily");
    Document c = parse(dir.resolve("coordinator.xml"));
    Properties props = load(dir.resolve("coordinator.properties"));
    Set<String> defined = new HashSet<>(props.stringPropertyNames());
    assertEquals(Set.of(), undefined(Files.readString(dir.resolve("coordinator.xml")), defined), "coordinator parameters without a value");
    assertTrue(props.getProperty("trainApp").endsWith(load(OOZIE.resolve("train/job.properties"))
        .getProperty("oozie.wf.application.path").replaceFirst("^\\$\\{nameNode}", "")), "trainApp is where the train workflow is deployed");
    // what the workflow needs without a default: given by the coordinator's action or its properties
    Set<String> given = new HashSet<>(props.stringPropertyNames());
    NodeList names = c.getElementsByTagNameNS("*", "name");
    for (int i = 0; i < names.getLength(); i++) given.add(names.item(i).getTextContent());
    Document wf = parse(OOZIE.resolve("train/workflow.xml"));
    for (Element p : children((Element) wf.getElementsByTagNameNS("*", "parameters").item(0))) {
      if (child(p, "value") == null) assertTrue(given.contains(child(p, "name").getTextContent()), child(p, "name").getTextContent());
    }
    assertTrue(given.containsAll(List.of("nameNode", "resourceManager")));
  }

  /** ${name} references (not EL functions such as wf:..., coord:...) that have no value. */
  static Set<String> undefined(String xml, Set<String> defined) {
    Set<String> out = new LinkedHashSet<>();
    Matcher m = Pattern.compile("\\$\\{([^}]*)}").matcher(xml.replaceAll("(?s)<!--.*?-->", ""));
    while (m.find()) {
      String v = m.group(1);
      if (v.contains(":") || v.matches("YEAR|MONTH|DAY|HOUR|MINUTE")) continue;
      if (!defined.contains(v)) out.add(v);
    }
    return out;
  }

  static Properties load(Path p) throws IOException {
    Properties props = new Properties();
    try (Reader r = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
      props.load(r);
    }
    return props;
  }

  /** A configuration with the sodm parameters job.properties sets. */
  static org.apache.hadoop.conf.Configuration withParams(Properties job) {
    org.apache.hadoop.conf.Configuration conf = org.sodm.jobs.support.SodmConf.create();
    conf.set(org.sodm.jobs.support.SodmConf.PARTITIONS, job.getProperty("partitions"));
    conf.set(org.sodm.jobs.support.SodmConf.FANOUT, job.getProperty("fanout"));
    conf.set(org.sodm.jobs.support.SodmConf.GAMMA, job.getProperty("gamma"));
    conf.set(org.sodm.jobs.support.SodmConf.C, job.getProperty("cost"));
    conf.set(org.sodm.jobs.support.SodmConf.LOSS, job.getProperty("loss"));
    conf.set(org.sodm.jobs.support.SodmConf.KERNEL, job.getProperty("kernel"));
    return conf;
  }
}
