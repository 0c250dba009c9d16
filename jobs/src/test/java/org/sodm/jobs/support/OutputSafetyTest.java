package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.cli.SodmMainAccess;
import org.sodm.testing.LocalConf;

/**
 * Issue 15's ways to destroy data, each refused before anything is deleted: an output equal to,
 * containing or inside an input, validation input or model, with --overwrite; and --overwrite of
 * a directory sodm did not write. Every case checks the exit status, that the message names the
 * paths, and that every file is byte-identical afterwards.
 */
class OutputSafetyTest {
  @TempDir Path tmp;
  private Path data;

  @BeforeEach
  void setUp() throws IOException {
    data = tmp.resolve("data");
    Files.createDirectories(data);
    Files.copy(LocalConf.sampleData("svmguide1"), data.resolve("train.libsvm"));
  }

  private String[] sodm(String cmd, String... rest) throws Exception {
    List<String> a = new ArrayList<>(List.of(cmd, "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D",
        "mapreduce.jobtracker.staging.root.dir=" + tmp.resolve("st"), "-D", "mapreduce.framework.name=local", "-D",
        "fs.defaultFS=file:///"));
    a.addAll(List.of(rest));
    return SodmMainAccess.run(a.toArray(new String[0]));
  }

  /** Path -> SHA-256 of every file under root. */
  private static Map<String, String> snapshot(Path root) throws Exception {
    Map<String, String> m = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        if (Files.isRegularFile(p)) {
          byte[] h = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p));
          m.put(root.relativize(p).toString(), java.util.HexFormat.of().formatHex(h));
        }
      }
    }
    return m;
  }

  private void refused(String[] r, String... mustContain) {
    assertEquals("1", r[0], r[1] + r[2]);
    for (String s : mustContain) assertTrue(r[2].contains(s), "'" + s + "' in: " + r[2]);
    assertFalse(r[2].contains("\tat "), "no stack trace for a user error: " + r[2]);
  }

  @Test
  void trainNeverWritesOverOrAroundItsInputs() throws Exception {
    Map<String, String> before = snapshot(tmp);
    String in = data.resolve("train.libsvm").toString();
    refused(sodm("train", "-i", data.toString(), "-o", data.toString(), "--overwrite"), "is the input");
    refused(sodm("train", "-i", in, "-o", tmp.toString(), "--overwrite"), "contains the input");
    refused(sodm("train", "-i", data.toString(), "-o", data.resolve("model").toString(), "--overwrite"), "lies inside the input");
    refused(sodm("train", "-i", in, "-t", in, "-o", data.toString(), "--overwrite"), "the input");
    Path val = tmp.resolve("val");
    Files.createDirectories(val);
    Files.copy(LocalConf.sampleData("svmguide1.t"), val.resolve("t.libsvm"));
    Map<String, String> withVal = snapshot(tmp);
    refused(sodm("train", "-i", in, "-t", val.toString(), "-o", val.toString(), "--overwrite"), "validation input");
    assertEquals(withVal, snapshot(tmp));
    before.putAll(withVal);
    assertEquals(before, snapshot(tmp));
  }

  @Test
  void overwriteDeletesOnlyWhatSodmWrote() throws Exception {
    Path mine = tmp.resolve("notes");
    Files.createDirectories(mine);
    Files.writeString(mine.resolve("thesis.tex"), "years of work");
    Map<String, String> before = snapshot(tmp);
    refused(sodm("train", "-i", data.toString(), "-o", mine.toString(), "--overwrite", "-g", "2", "--partitions", "1"),
        "was not written by sodm", mine.toString());
    refused(sodm("ingest", "-i", data.toString(), "-o", mine.toString(), "--overwrite"), "was not written by sodm");
    assertEquals(before, snapshot(tmp));
    // an empty directory, and an earlier sodm output, may be replaced
    Path empty = tmp.resolve("empty");
    Files.createDirectories(empty);
    assertEquals("0", sodm("ingest", "-i", data.toString(), "-o", empty.toString(), "--overwrite")[0]);
    assertTrue(Files.exists(empty.resolve(OutputGuard.MARKER)));
    String[] again = sodm("ingest", "-i", data.toString(), "-o", empty.toString(), "--overwrite");
    assertEquals("0", again[0], again[2]);
  }

  @Test
  void predictNeverWritesOverTheModelOrTheInput() throws Exception {
    Path model = tmp.resolve("model");
    String[] t = sodm("train", "-i", data.toString(), "-o", model.toString(), "--scale", "0,1", "-g", "2", "--loss", "hinge",
        "--partitions", "1");
    assertEquals("0", t[0], t[2]);
    Map<String, String> before = snapshot(tmp);
    refused(sodm("predict", "-m", model.toString(), "-i", data.toString(), "-o", model.toString(), "--overwrite"), "the model");
    refused(sodm("predict", "-m", model.toString(), "-i", data.toString(), "-o", data.toString(), "--overwrite"), "the input");
    refused(sodm("ingest", "-i", data.toString(), "-o", data.toString(), "--overwrite"), "is the input");
    assertEquals(before, snapshot(tmp));
  }

  @Test
  void aLockedOutputIsRefusedNamingTheHolderAndAStaleLockIsTakenOver() throws Exception {
    Path out = tmp.resolve("m");
    Path lock = tmp.resolve(".m.sodm-lock");
    Files.writeString(lock, "host elsewhere, pid 4242, user alice, started 2026-11-23T10:00:00Z");
    String[] args = {"-i", data.toString(), "-o", out.toString(), "--scale", "0,1", "-g", "2", "--loss", "hinge", "--partitions", "1"};
    String[] r = sodm("train", args);
    refused(r, "in use by another sodm run", "pid 4242", "user alice");
    assertFalse(Files.exists(out), "nothing written");
    assertTrue(Files.exists(lock), "the holder's lock is left alone");
    // the holder died an hour ago: its lease lapsed, the lock is taken over with a message
    Files.setLastModifiedTime(lock, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
    r = sodm("train", args);
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains("taking over the lock") && r[1].contains("pid 4242"), r[1]);
    assertFalse(Files.exists(lock), "released at the end of the run");
    // also released after a failed run
    r = sodm("train", "-i", data.toString(), "-o", out.toString(), "--resume", "-g", "3");
    assertEquals("1", r[0]);
    assertTrue(r[2].contains("different parameters"), r[2]);
    assertFalse(Files.exists(lock), "released after a failure");
    // a holder on this host that is gone (kill -9) is taken over at once
    String host = java.net.InetAddress.getLocalHost().getHostName();
    Files.writeString(lock, "host " + host + ", pid " + Long.MAX_VALUE / 2 + ", user bob, started now");
    assertTrue(OutputLock.holderIsDeadHere(Files.readString(lock)));
    assertFalse(OutputLock.holderIsDeadHere("host " + host + ", pid " + ProcessHandle.current().pid() + ", user me"));
    assertFalse(OutputLock.holderIsDeadHere("host elsewhere, pid 1, user root"));
  }

  @Test
  void resumeRefusesAnInputEditedInPlace() throws Exception {
    Path in = data.resolve("train.libsvm");
    String[] args = {"-i", in.toString(), "-o", tmp.resolve("m").toString(), "--scale", "0,1", "-g", "2", "--loss", "hinge",
        "--partitions", "4", "--fanout", "2"};
    List<String> first = new ArrayList<>(List.of(args));
    first.addAll(List.of("--phase", "ingest"));
    assertEquals("0", sodm("train", first.toArray(new String[0]))[0]);
    Files.writeString(in, Files.readString(in) + "+1 1:5 2:5 3:5 4:5\n");
    List<String> again = new ArrayList<>(List.of(args));
    again.add("--resume");
    String[] r = sodm("train", again.toArray(new String[0]));
    refused(r, "changed since the run started", "train.libsvm");
    assertFalse(Files.exists(tmp.resolve("m").resolve("model.avro")));
  }
}
