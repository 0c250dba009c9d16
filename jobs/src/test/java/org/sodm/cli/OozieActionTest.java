package org.sodm.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.ModelRecord;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.testing.LocalConf;

/**
 * sodm as an Oozie java action's main class (issue 22): the action's configuration file named by
 * {@code oozie.action.conf.xml} sits beneath the command line (defaults, then the file, then -D
 * and options), the launcher's child tag joins {@code mapreduce.job.tags}, and a failure is
 * thrown with sodm's own error line (the action's error message) instead of an exit.
 */
class OozieActionTest {
  @TempDir Path tmp;

  /** An action configuration file as Oozie's launcher writes it (a Hadoop configuration XML). */
  private Path actionConf(Map<String, String> keys) throws Exception {
    Configuration c = new Configuration(false);
    keys.forEach(c::set);
    Path f = tmp.resolve("action.xml");
    try (OutputStream o = Files.newOutputStream(f)) {
      c.writeXml(o);
    }
    return f;
  }

  /** Local mode with scratch under tmp, then the arguments. */
  private String[] train(String out, String... rest) {
    List<String> a = new ArrayList<>(List.of("train", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D",
        "mapreduce.jobtracker.staging.root.dir=" + tmp.resolve("st"), "-D", "mapreduce.framework.name=local", "-D", "fs.defaultFS=file:///",
        "-i", LocalConf.sampleData("svmguide1").toString(), "-o", out));
    a.addAll(List.of(rest));
    return a.toArray(String[]::new);
  }

  private static SodmMain.Outcome quietly(String actionConf, String... args) throws Exception {
    PrintStream o = System.out;
    PrintStream e = System.err;
    System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    try {
      return SodmMain.execute(actionConf, args);
    } finally {
      System.setOut(o);
      System.setErr(e);
    }
  }

  @Test
  void theActionConfigurationSetsTheParametersAndTheCommandLineOverridesIt() throws Exception {
    Path conf = actionConf(Map.of("sodm.ingest.scale", "0,1", "sodm.train.loss", "hinge", "sodm.train.c", "2", "sodm.kernel.gamma", "2",
        "sodm.train.partitions", "4", "sodm.train.fanout", "2", "sodm.train.landmarks", "16", "sodm.seed", "3"));
    String viaConf = tmp.resolve("via-conf").toString();
    assertEquals(0, quietly(conf.toString(), train(viaConf)).code());
    String viaArgs = tmp.resolve("via-args").toString();
    assertEquals(0, quietly(null, train(viaArgs, "--scale", "0,1", "--loss", "hinge", "-c", "2", "-g", "2", "--partitions", "4", "--fanout",
        "2", "--landmarks", "16", "--seed", "3")).code());
    Configuration local = LocalConf.create(tmp);
    ModelRecord a = ModelFiles.readRecord(local, new org.apache.hadoop.fs.Path(viaConf, "model.avro"));
    ModelRecord b = ModelFiles.readRecord(local, new org.apache.hadoop.fs.Path(viaArgs, "model.avro"));
    assertEquals(b.getBlocks(), a.getBlocks(), "the action's sodm.* keys train the model the options train");
    assertEquals(b.getKernel(), a.getKernel());
    assertEquals(b.getLoss(), a.getLoss());
    assertEquals(b.getScaler(), a.getScaler());
    // the keys took effect (their defaults are C 1 and gamma 1/d), else this test proves nothing
    assertEquals(2.0, a.getLoss().getC());
    assertEquals(2.0, a.getKernel().getGamma());

    // the command line wins over the action's configuration: cost -1 there, 2 on the command line
    // (the parameters are checked before the first phase: --phase ingest is enough)
    Path bad = actionConf(Map.of("sodm.train.c", "-1"));
    assertEquals(0, quietly(bad.toString(), train(tmp.resolve("override").toString(), "-c", "2", "--phase", "ingest")).code());
    assertEquals(1, quietly(bad.toString(), train(tmp.resolve("no-override").toString(), "--phase", "ingest")).code());
  }

  @Test
  void aBadParameterInTheActionConfigurationIsThrownWithSodmsMessageAndWritesNothing() throws Exception {
    Path conf = actionConf(Map.of("sodm.train.c", "-1"));
    Path out = tmp.resolve("out");
    String old = System.getProperty(OozieAction.CONF_PROPERTY);
    System.setProperty(OozieAction.CONF_PROPERTY, conf.toString());
    PrintStream e = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    OozieAction.Failed f;
    try {
      f = assertThrows(OozieAction.Failed.class, () -> SodmMain.main(train(out.toString())));
    } finally {
      System.setErr(e);
      if (old == null) System.clearProperty(OozieAction.CONF_PROPERTY);
      else System.setProperty(OozieAction.CONF_PROPERTY, old);
    }
    assertTrue(f.getMessage().startsWith("sodm train: error: "), f.getMessage());
    assertTrue(f.getMessage().contains("sodm.train.c") && f.getMessage().contains("-1"), f.getMessage());
    assertTrue(err.toString(StandardCharsets.UTF_8).contains(f.getMessage()), "the same line is printed: " + err);
    assertFalse(Files.exists(out), "nothing written");

    // a usage error (unknown option) is the action's error message too
    SodmMain.Outcome o = quietly(conf.toString(), "train", "--no-such-option", "-i", "x", "-o", out.toString());
    assertEquals(2, o.code());
    assertTrue(o.failure().startsWith("sodm train: ") && o.failure().contains("--no-such-option"), o.failure());
    // an unknown sodm.* key in the action's configuration is refused, naming it
    Path typo = actionConf(Map.of("sodm.train.cots", "2"));
    o = quietly(typo.toString(), train(out.toString()));
    assertEquals(1, o.code());
    assertTrue(o.failure().contains("sodm.train.cots"), o.failure());
    assertFalse(Files.exists(out));
  }

  @Test
  void theLaunchersChildTagJoinsTheJobTagsAndAMissingFileIsNamed() throws Exception {
    Path conf = actionConf(Map.of(OozieAction.CHILD_TAGS, "oozie-abc", OozieAction.TAGS, "mine"));
    Configuration c = new Configuration(false);
    OozieAction.addTo(c, conf.toString());
    assertEquals("mine,oozie-abc", c.get(OozieAction.TAGS));
    Configuration d = new Configuration(false);
    OozieAction.addTo(d, actionConf(Map.of(OozieAction.CHILD_TAGS, "oozie-abc")).toString());
    assertEquals("oozie-abc", d.get(OozieAction.TAGS));
    String missing = tmp.resolve("nope.xml").toString();
    Exception ex = assertThrows(RuntimeException.class, () -> OozieAction.addTo(new Configuration(false), missing));
    assertTrue(ex.getMessage().contains(missing), ex.getMessage());
    assertEquals("sodm train ended with exit status 3 (its output is in the launcher's log)", OozieAction.failed("train", 3, null).getMessage());
  }
}
