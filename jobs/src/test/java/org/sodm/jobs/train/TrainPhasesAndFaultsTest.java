package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.BlockModel;
import org.sodm.avro.ModelRecord;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.testing.LocalConf;

/**
 * Issue 7 in local mode: {@code --phase} (one phase per step, resume semantics), the test-only
 * fail-once switch (LocalJobRunner does not retry, so the phase fails and must leave nothing that
 * looks complete; the resumed run then gives the identical model), and a run killed with SIGKILL
 * between phases that {@code --resume} finishes with the identical model.
 */
class TrainPhasesAndFaultsTest {
  /** The small run every test here repeats: svmguide1, 4 blocks then 2 (levels 2 and 1). */
  static final String[] PARAMS = {"--scale", "0,1", "--loss", "hinge", "-c", "2", "-g", "2", "--partitions", "4", "--fanout", "2",
      "--landmarks", "16", "--seed", "7"};

  @TempDir static Path shared;
  static List<Object> reference;

  @TempDir Path tmp;
  private final List<String> progress = new ArrayList<>();

  static Configuration conf(Path scratch) {
    Configuration c = LocalConf.create(scratch);
    for (int i = 0; i < PARAMS.length; i += 2) {
      String v = PARAMS[i + 1];
      switch (PARAMS[i]) {
        case "--scale" -> c.set(SodmConf.INGEST_SCALE, v);
        case "--loss" -> c.set(SodmConf.LOSS, v);
        case "-c" -> c.set(SodmConf.C, v);
        case "-g" -> c.set(SodmConf.GAMMA, v);
        case "--partitions" -> c.set(SodmConf.PARTITIONS, v);
        case "--fanout" -> c.set(SodmConf.FANOUT, v);
        case "--landmarks" -> c.set(SodmConf.LANDMARKS, v);
        case "--seed" -> c.set(SodmConf.SEED, v);
        default -> throw new IllegalStateException(PARAMS[i]);
      }
    }
    return c;
  }

  /** Block ids, support vector ids, coefficients and biases: what "the identical model" means. */
  static List<Object> coefficients(ModelRecord r) {
    List<Object> all = new ArrayList<>();
    for (BlockModel b : r.getBlocks()) {
      all.add(b.getBlock());
      all.add(b.getIds());
      all.add(b.getCoef());
      all.add(b.getBias());
    }
    return all;
  }

  static TrainPipeline.Result train(Configuration c, Path out, boolean resume, String phase, List<String> progress)
      throws IOException {
    return TrainPipeline.run(c, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        List.of(LocalConf.sampleData("svmguide1.t").toString()), new org.apache.hadoop.fs.Path(out.toString()), resume, phase),
        progress::add);
  }

  @BeforeAll
  static void referenceModel() throws IOException {
    Configuration c = conf(shared);
    TrainPipeline.Result r = train(c, shared.resolve("ref"), false, null, new ArrayList<>());
    assertEquals(List.of(2, 1, 0), r.levels().stream().map(l -> l.getLevel()).toList()); // 0: small data, one exact block
    reference = coefficients(ModelFiles.readRecord(c, r.modelPath()));
  }

  private static List<String> leftovers(Path work) throws IOException {
    try (Stream<Path> s = Files.list(work)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.contains(".tmp")).sorted().toList();
    }
  }

  @Test
  void phaseByPhaseGivesTheOneRunModel() throws IOException {
    Configuration c = conf(tmp);
    Path out = tmp.resolve("phased");
    String[] phases = {"ingest", "validation", "landmarks", "level-2", "level-1"};
    for (int i = 0; i < phases.length; i++) {
      progress.clear();
      TrainPipeline.Result r = train(c, out, false, phases[i], progress);
      assertNull(r.modelPath(), "stopped before the model");
      for (int j = 0; j < phases.length; j++) {
        assertEquals(j <= i, Files.isDirectory(out.resolve("work").resolve(phases[j])), phases[j] + " after --phase " + phases[i]);
      }
      assertFalse(Files.exists(out.resolve("model.avro")));
      String last = progress.get(progress.size() - 1);
      assertTrue(last.startsWith("phases: ingest=done validation=" + (i > 0 ? "done" : "todo")), last);
      assertTrue(last.contains(phases[i] + "=done") && last.endsWith("model=todo"), last);
      if (i > 0) assertTrue(progress.stream().anyMatch(l -> l.contains("resuming from")), "later steps resume: " + progress);
    }
    assertEquals("phases: ingest=done validation=done landmarks=done level-2=done level-1=done model=todo",
        progress.get(progress.size() - 1));
    progress.clear();
    TrainPipeline.Result m = train(c, out, false, "model", progress);
    assertNotNull(m.modelPath());
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 1*")), "level 1 reused: " + progress);
    assertEquals(reference, coefficients(ModelFiles.readRecord(c, m.modelPath())));

    // without validation data that phase is not part of the run
    progress.clear();
    TrainPipeline.run(c, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("noval").toString()), false, "ingest"), progress::add);
    assertEquals("phases: ingest=done validation=none landmarks=todo level-2=todo level-1=todo model=todo",
        progress.get(progress.size() - 1));

    // a phase this run does not have fails before anything runs, naming the phases it has
    SodmException e = assertThrows(SodmException.class, () -> train(c, tmp.resolve("bad"), false, "level-3", progress));
    assertTrue(e.getMessage().contains("ingest, validation, landmarks, level-2, level-1, model"), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("bad")));
    // --phase resumes, so a changed parameter is refused as with --resume
    Configuration changed = conf(tmp);
    changed.set(SodmConf.C, "4");
    e = assertThrows(SodmException.class, () -> train(changed, out, false, "level-1", progress));
    assertTrue(e.getMessage().contains("sodm.train.c was 2, now 4"), e.getMessage());
  }

  @Test
  void failedSolvePhaseIsNeverTakenAsCompleteAndResumeGivesTheSameModel() throws IOException {
    Configuration c = conf(tmp);
    c.set(BlockSolveReducer.FAIL_ONCE_DIR, tmp.resolve("markers").toString());
    c.setInt(BlockSolveReducer.FAIL_ONCE_LEVEL, 1);
    c.setInt(BlockSolveReducer.FAIL_ONCE_BLOCK, 1);
    Path out = tmp.resolve("faulty");
    SodmException e = assertThrows(SodmException.class, () -> train(c, out, false, null, progress));
    assertTrue(e.getMessage().contains("injected failure") && e.getMessage().contains("block 1 at level 1"), e.getMessage());
    assertTrue(Files.exists(tmp.resolve("markers/level-1-block-1")));
    Path work = out.resolve("work");
    assertTrue(Files.isDirectory(work.resolve("level-2")), "the level before is complete");
    assertFalse(Files.exists(work.resolve("level-1")), "the failed level is not complete");
    assertEquals(List.of(), leftovers(work), "the failed level's temporary output is removed");
    assertFalse(Files.exists(out.resolve("model.avro")));

    progress.clear();
    TrainPipeline.Result r = train(c, out, true, null, progress);
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 2*")), "level 2 reused: " + progress);
    assertTrue(progress.stream().anyMatch(l -> l.startsWith("level 1 ")), "level 1 rerun: " + progress);
    assertEquals(reference, coefficients(ModelFiles.readRecord(c, r.modelPath())));
    // the switch is not a training parameter: the model's provenance does not carry it
    assertFalse(ModelFiles.readRecord(c, r.modelPath()).getProvenance().getParameters().keySet().stream()
        .anyMatch(k -> k.toString().startsWith("sodm.internal")));
  }

  /**
   * Nothing on disk after a failed run but completed phases: a run that fails before any phase is
   * complete leaves no output directory (so the next run needs no --overwrite); one that fails
   * after the ingest keeps it (and only it) for --resume.
   */
  @Test
  void aFailedRunLeavesOnlyCompletedPhases() throws IOException {
    Path bad = tmp.resolve("bad.libsvm");
    Files.writeString(bad, "1 1:0.5 2:1\n-1 1:0.1 2:0.2\n1 1:0.7 2:x\n");
    Configuration c = conf(tmp);
    Path out = tmp.resolve("failed-early");
    SodmException e = assertThrows(SodmException.class, () -> TrainPipeline.run(c, new TrainPipeline.Request(List.of(bad.toString()), null,
        new org.apache.hadoop.fs.Path(out.toString()), false), progress::add));
    assertTrue(e.getMessage().contains("bad.libsvm:3"), e.getMessage());
    assertFalse(Files.exists(out), "no phase complete: nothing stays");
    assertFalse(Files.exists(out.resolveSibling(".failed-early.sodm-lock")), "the lock is released");

    Configuration late = conf(tmp);
    late.set(BlockSolveReducer.FAIL_ONCE_DIR, tmp.resolve("markers-late").toString());
    late.setInt(BlockSolveReducer.FAIL_ONCE_LEVEL, 2);
    late.setInt(BlockSolveReducer.FAIL_ONCE_BLOCK, 0);
    Path out2 = tmp.resolve("failed-late");
    assertThrows(SodmException.class, () -> train(late, out2, false, null, progress));
    assertTrue(Files.isDirectory(out2.resolve("work/ingest")), "the completed ingest stays for --resume");
    assertFalse(Files.exists(out2.resolve("work/level-2")));
    assertEquals(List.of(), leftovers(out2.resolve("work")));
  }

  /** The test JVM's classpath, for child JVMs (surefire's booter jar carries it in its manifest). */
  static String testClasspath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  static List<String> sodmCommand(Path scratch, String... args) {
    return sodmCommandWithHeap(scratch, "768m", args);
  }

  /** {@link #sodmCommand} in a child JVM of -Xmx{@code heap}. */
  static List<String> sodmCommandWithHeap(Path scratch, String heap, String... args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
        "-cp", testClasspath(), "org.sodm.cli.SodmMain"));
    cmd.add(args[0]);
    cmd.addAll(List.of("-D", "hadoop.tmp.dir=" + scratch.resolve("h"), "-D", "mapreduce.jobtracker.staging.root.dir="
        + scratch.resolve("st"), "-D", "mapreduce.framework.name=local", "-D", "fs.defaultFS=file:///"));
    cmd.addAll(List.of(args).subList(1, args.length));
    return cmd;
  }

  @Test
  void runKilledBetweenPhasesResumesToTheSameModel() throws Exception {
    Path out = tmp.resolve("killed");
    List<String> cmd = sodmCommand(tmp, "train", "-i", LocalConf.sampleData("svmguide1").toString(), "-t",
        LocalConf.sampleData("svmguide1.t").toString(), "-o", out.toString());
    cmd.addAll(List.of(PARAMS));
    Process p = new ProcessBuilder(cmd).redirectError(tmp.resolve("child.err").toFile()).start();
    List<String> seen = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        seen.add(line);
        if (line.startsWith("sodm train: level 2")) {
          p.destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
          break;
        }
      }
    }
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertNotEquals(0, p.exitValue(), "killed: " + seen + "\n" + Files.readString(tmp.resolve("child.err")));
    Path work = out.resolve("work");
    assertTrue(Files.isDirectory(work.resolve("level-2")), seen.toString());
    assertFalse(Files.exists(out.resolve("model.avro")), "killed before the model");
    boolean levelOneWasComplete = Files.exists(work.resolve("level-1"));

    // what a run killed inside a phase leaves (its temporary directory): --resume removes it
    Path stale = work.resolve(".level-1.tmp-" + java.util.UUID.randomUUID());
    Files.createDirectories(stale.resolve("data"));
    Files.writeString(stale.resolve("data").resolve("part-r-00000.avro"), "partial");

    // resume with the same command line (+ --resume), in this JVM
    List<String> again = new ArrayList<>(cmd.subList(cmd.indexOf("org.sodm.cli.SodmMain") + 1, cmd.size()));
    again.add("--resume");
    String[] res = org.sodm.cli.SodmMainAccess.run(again.toArray(String[]::new));
    assertEquals("0", res[0], res[1] + res[2]);
    assertTrue(res[1].contains("sodm train: level 2*"), res[1]);
    assertFalse(Files.exists(stale), "stale temporary directory removed");
    assertTrue(res[1].contains("unfinished phase director"), res[1]);
    try (var files = Files.list(work)) {
      assertEquals(List.of(), files.map(f -> f.getFileName().toString()).filter(f -> f.contains(".tmp-")).toList());
    }
    if (!levelOneWasComplete) assertTrue(res[1].contains("sodm train: level 1 "), res[1]);
    Configuration c = conf(tmp);
    assertEquals(reference, coefficients(ModelFiles.readRecord(c, new org.apache.hadoop.fs.Path(out.resolve("model.avro").toString()))));
  }
}
