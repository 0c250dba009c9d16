package org.sodm.jobs.spec;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.cli.SodmMainAccess;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.testing.LocalConf;

/** The parameter table against conf/sodm-default.xml, --help, and the validation before any job. */
class ParamTableTest {
  @TempDir Path tmp;

  @Test
  void sodmDefaultXmlIsGeneratedFromTheTable() throws Exception {
    Path xml = LocalConf.projectDir().resolve("conf/sodm-default.xml");
    assertEquals(DefaultsXml.render(), Files.readString(xml, StandardCharsets.UTF_8),
        "conf/sodm-default.xml differs from the table: regenerate it (see DefaultsXml)");
    // and Hadoop reads the table's defaults from it
    Configuration c = new Configuration(false);
    c.addResource(xml.toUri().toURL());
    for (Param p : Param.values()) assertEquals(p.defaultValue(), c.get(p.key(), ""), p.key());
  }

  @Test
  void tableIsConsistent() {
    Set<String> keys = new HashSet<>();
    Set<String> options = new HashSet<>();
    for (Param p : Param.values()) {
      assertTrue(keys.add(p.key()), "duplicate key " + p.key());
      for (String o : p.options()) assertTrue(options.add(p.group() + o) , "duplicate option " + o);
      assertEquals(p.defaultValue().trim(), p.check(p.defaultValue()), p.key() + "'s default passes its own validator");
      assertFalse(p.description().isBlank(), p.key());
      if (p.kind() == Param.Kind.VALUE && !p.options().isEmpty()) assertNotNull(p.label(), p.key() + " needs a value label");
    }
  }

  @Test
  void trainHelpShowsEveryTrainingOptionWithItsKeyAndDefault() throws Exception {
    String[] r = SodmMainAccess.run("train", "--help");
    assertEquals("0", r[0]);
    String help = r[1].replaceAll("\\.\\R\\s+", ".").replaceAll("\\R\\s+", " "); // picocli wraps keys at dots
    for (Param p : TrainSpec.parameters()) {
      if (p.options().isEmpty()) continue;
      for (String o : p.options()) assertTrue(help.contains(o), o + " missing from train --help");
      assertTrue(help.contains(p.key()), p.key() + " missing from train --help");
      if (p.kind() == Param.Kind.VALUE && !p.defaultValue().isEmpty()) {
        assertTrue(help.contains(p.key() + ", default " + p.defaultValue()), p.key() + " default in help");
      }
    }
  }

  /**
   * Every invalid sample value of every parameter is refused by its validator naming the option
   * and key; for the training parameters, {@code sodm train} refuses it before any job (the
   * output directory is never created).
   */
  @Test
  void everyInvalidValueIsRejectedBeforeTheFirstJob() throws Exception {
    Set<Param> training = new HashSet<>(TrainSpec.parameters());
    List<String> checked = new ArrayList<>();
    for (Param p : Param.values()) {
      for (String bad : p.type().invalidSamples()) {
        BadParameterException e = assertThrows(BadParameterException.class, () -> p.check(bad), p.key() + "=" + bad);
        assertTrue(e.getMessage().contains(p.key()) && e.getMessage().contains(p.optionName()), e.getMessage());
        if (!training.contains(p)) continue;
        Configuration c = LocalConf.create(tmp);
        c.set(p.key(), bad);
        Path out = tmp.resolve("out");
        IllegalArgumentException t = assertThrows(IllegalArgumentException.class, () -> TrainPipeline.run(c, new TrainPipeline.Request(
            List.of(LocalConf.sampleData("svmguide1").toString()), null, new org.apache.hadoop.fs.Path(out.toString()), false),
            line -> { }), p.key() + "=" + bad);
        assertTrue(t.getMessage().contains(p.key()), t.getMessage());
        assertFalse(Files.exists(out), p.key() + "=" + bad + ": nothing may be written");
        checked.add(p.key());
      }
    }
    assertTrue(checked.size() > 100, "samples checked through train: " + checked.size());
  }

  @Test
  void choiceErrorsListTheChoices() {
    BadParameterException e = assertThrows(BadParameterException.class, () -> Param.MERGE.check("foo"));
    assertTrue(e.getMessage().contains("warm, cascade") && e.getMessage().contains("--merge"), e.getMessage());
  }

  @Test
  void specRoundTripsThroughTheJobConfiguration() {
    Configuration c = new Configuration(false);
    c.set(Param.LOSS.key(), "hinge");
    c.set(Param.C.key(), "2.5");
    c.set(Param.PARTITIONS.key(), "8");
    c.set(Param.MERGE.key(), "cascade");
    TrainSpec s = TrainSpec.from(c).withDimension(4);
    Configuration job = s.writeTo(new Configuration(false));
    TrainSpec t = TrainSpec.of(job);
    assertEquals(s.values(), t.values());
    assertEquals(s.loss(), t.loss());
    assertEquals(s.tree(), t.tree());
    assertEquals(s.resolvedKernel(), t.resolvedKernel());
    assertEquals(0.25, t.resolvedKernel().gamma(), 0, "gamma 0 resolved as 1/d");
    assertThrows(IllegalStateException.class, () -> TrainSpec.of(new Configuration(false)), "a task without a spec fails");
  }

  @Test
  void unknownSodmKeysAreRefusedNamingTheNearest() throws Exception {
    String[] r = SodmMainAccess.run("train", "-D", "sodm.kernel.gama=2", "-i", "x", "-o", tmp.resolve("o").toString());
    assertEquals("1", r[0]);
    assertTrue(r[2].contains("unknown configuration key sodm.kernel.gama") && r[2].contains("did you mean sodm.kernel.gamma?"), r[2]);
    assertFalse(Files.exists(tmp.resolve("o")));
    Configuration ok = new Configuration(false);
    ok.set("sodm.internal.anything", "1");
    ok.set("mapreduce.framework.name", "local");
    Param.checkKnown(ok); // the drivers' own keys and other systems' keys pass
  }

  @Test
  void validationLabelsMustBeTheTrainingLabels() throws Exception {
    Path val = tmp.resolve("val.libsvm");
    Files.writeString(val, "1 1:0.5\n7 1:0.2\n");
    Configuration c = LocalConf.create(tmp);
    RuntimeException e = assertThrows(SodmException.class, () -> TrainPipeline.run(c, new TrainPipeline.Request(
        List.of(LocalConf.sampleData("svmguide1").toString()), List.of(val.toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve("m").toString()), false), line -> { }));
    assertTrue(e.getMessage().contains("[7]") && e.getMessage().contains("0, 1"), e.getMessage());
  }
}
