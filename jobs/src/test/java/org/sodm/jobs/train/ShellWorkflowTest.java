package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.testing.LocalConf;

/**
 * workflows/shell/train.sh in local mode: one process per phase; a failing phase (the test-only
 * fail-once switch at level 1) stops the script with that phase's exit status and nothing after
 * it runs; the same command again resumes after the last complete phase (here through a
 * stand-in `hadoop` command, so the `hadoop jar` path is exercised too) and ends with the model a
 * single run gives.
 */
class ShellWorkflowTest {
  static final Path SCRIPT = LocalConf.projectDir().resolve("workflows/shell/train.sh");

  @TempDir Path tmp;

  record Run(int rc, String out, String err) {}

  private Run run(List<String> args, Map<String, String> env) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(tmp.resolve("out.txt").toFile())
        .redirectError(tmp.resolve("err.txt").toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    assertTrue(p.waitFor(10, TimeUnit.MINUTES), "train.sh finished");
    return new Run(p.exitValue(), Files.readString(tmp.resolve("out.txt")), Files.readString(tmp.resolve("err.txt")));
  }

  private Path script(String name, String body) throws IOException {
    Path p = tmp.resolve("bin").resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, "#!/bin/sh\n" + body);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  @Test
  void runsPhaseByPhaseStopsAtTheFailingPhaseAndResumes() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = TrainPhasesAndFaultsTest.testClasspath();
    Path sodm = script("sodm-test", "exec '" + java + "' -Xmx768m -cp '" + cp + "' org.sodm.cli.SodmMain \"$@\"\n");
    Path out = tmp.resolve("model");
    List<String> args = new ArrayList<>(List.of("-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D",
        "mapreduce.jobtracker.staging.root.dir=" + tmp.resolve("st"), "-D", "mapreduce.framework.name=local",
        "-D", "fs.defaultFS=file:///",
        "-i", LocalConf.sampleData("svmguide1").toString(), "-t", LocalConf.sampleData("svmguide1.t").toString(),
        "-o", out.toString(),
        "-D", BlockSolveReducer.FAIL_ONCE_DIR + "=" + tmp.resolve("markers"), "-D", BlockSolveReducer.FAIL_ONCE_LEVEL + "=1"));
    args.addAll(List.of(TrainPhasesAndFaultsTest.PARAMS));

    // 1: no hadoop command: the launcher ($SODM, else bin/sodm); level 1 fails once
    Run a = run(args, Map.of("SODM", sodm.toString(), "HADOOP", tmp.resolve("no-such-hadoop").toString()));
    assertEquals(1, a.rc(), a.err());
    for (String phase : List.of("ingest", "validation", "landmarks", "level-2", "level-1")) {
      assertTrue(a.err().contains("train.sh: phase " + phase + ": " + sodm + " train "), phase + " ran:\n" + a.err());
    }
    assertTrue(a.err().contains("train.sh: phase level-1 failed (exit 1)"), a.err());
    assertTrue(a.out().contains("injected failure"), a.out());
    assertFalse(a.err().contains("train.sh: phase model:"), "nothing runs after the failing phase");
    assertTrue(Files.isDirectory(out.resolve("work/level-2")));
    assertFalse(Files.exists(out.resolve("work/level-1")));

    // 2: the same command with a `hadoop` on the PATH: hadoop jar JAR train ... (RunJar takes the main class from the
    // jar's manifest, as the stand-in does); resumes
    Path jar = Files.writeString(tmp.resolve("sodm-cluster.jar"), "stand-in");
    Path calls = tmp.resolve("hadoop-calls.txt");
    script("hadoop", "echo \"$@\" >> '" + calls + "'\n[ \"$1\" = jar ] && [ -f \"$2\" ] || exit 97\nshift 2\n"
        + "exec '" + java + "' -Xmx768m -cp '" + cp + "' org.sodm.cli.SodmMain \"$@\"\n");
    Run b = run(args, Map.of("PATH", tmp.resolve("bin") + ":" + System.getenv("PATH"), "SODM_JAR", jar.toString()));
    assertEquals(0, b.rc(), b.out() + b.err());
    for (String phase : List.of("validation", "landmarks", "level-2")) {
      assertTrue(b.err().contains("train.sh: phase " + phase + ": complete, skipped"), phase + " skipped:\n" + b.err());
    }
    List<String> hadoopCalls = Files.readAllLines(calls);
    assertEquals(3, hadoopCalls.size(), "ingest (lists the phases), level-1, model: " + hadoopCalls);
    for (int i = 0; i < 3; i++) {
      assertTrue(hadoopCalls.get(i).startsWith("jar " + jar + " train -D "), hadoopCalls.get(i));
      assertTrue(hadoopCalls.get(i).endsWith("--phase " + List.of("ingest", "level-1", "model").get(i)), hadoopCalls.get(i));
    }
    assertTrue(b.err().contains("train.sh: all phases complete"), b.err());

    // the model of one uninterrupted run
    Configuration c = TrainPhasesAndFaultsTest.conf(tmp.resolve("ref-scratch"));
    TrainPipeline.Result ref = TrainPhasesAndFaultsTest.train(c, tmp.resolve("ref"), false, null, new ArrayList<>());
    assertEquals(TrainPhasesAndFaultsTest.coefficients(ModelFiles.readRecord(c, ref.modelPath())),
        TrainPhasesAndFaultsTest.coefficients(ModelFiles.readRecord(c, new org.apache.hadoop.fs.Path(out.resolve("model.avro").toString()))));

    // usage errors
    assertEquals(2, run(List.of("-i", "x", "-o", "y", "--phase", "model"), Map.of()).rc());
  }
}
