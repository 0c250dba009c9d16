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

  /**
   * Path -> SHA-256 of every file under root, except Hadoop's own scratch and staging directories ({@code h}, {@code st}:
   * the local job runner removes what it wrote there on its own schedule, so under load a run's staging folder may still
   * be on disk for a moment after the command returned).
   */
  private static Map<String, String> snapshot(Path root) throws Exception {
    Map<String, String> m = new TreeMap<>();
    java.util.Set<Path> scratch = java.util.Set.of(root.resolve("h"), root.resolve("st"));
    Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
      @Override
      public java.nio.file.FileVisitResult preVisitDirectory(Path dir, java.nio.file.attribute.BasicFileAttributes attrs) {
        return scratch.contains(dir) ? java.nio.file.FileVisitResult.SKIP_SUBTREE : java.nio.file.FileVisitResult.CONTINUE;
      }

      @Override
      public java.nio.file.FileVisitResult visitFile(Path p, java.nio.file.attribute.BasicFileAttributes attrs) throws java.io.IOException {
        if (attrs.isRegularFile()) {
          try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p));
            m.put(root.relativize(p).toString(), java.util.HexFormat.of().formatHex(h));
          } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
          }
        }
        return java.nio.file.FileVisitResult.CONTINUE;
      }
    });
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

  /**
   * Two trainings started at once into one directory: exactly one runs, the other fails naming the
   * lock's holder, and the model is the one a clean run gives.
   */
  @Test
  void twoConcurrentTrainingsIntoOneDirectory() throws Exception {
    String[] common = {"--scale", "0,1", "-g", "2", "--loss", "hinge", "--partitions", "2", "--fanout", "2", "-D", "sodm.train.exact.below.rows=0"};
    List<String> clean = new ArrayList<>(List.of("-i", data.toString(), "-o", tmp.resolve("clean").toString()));
    clean.addAll(List.of(common));
    assertEquals("0", sodm("train", clean.toArray(new String[0]))[0]);
    List<String> both = new ArrayList<>(List.of("-i", data.toString(), "-o", tmp.resolve("both").toString()));
    both.addAll(List.of(common));
    // two processes (one JVM's System.out and System.err cannot be told apart between two in-process runs); the
    // first holds its lock until the second has ended (at most 120 s), and the second starts once the lock is there,
    // so that they overlap however slow the machine is
    List<Process> procs = new ArrayList<>();
    Path lock = tmp.resolve(".both.sodm-lock");
    Path release = tmp.resolve("release");
    for (int i = 0; i < 2; i++) {
      List<String> cmd = new ArrayList<>(List.of(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
          "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")), "org.sodm.cli.SodmMain", "train",
          "-D", "hadoop.tmp.dir=" + tmp.resolve("h" + i), "-D", "mapreduce.jobtracker.staging.root.dir=" + tmp.resolve("st" + i),
          "-D", "mapreduce.framework.name=local", "-D", "fs.defaultFS=file:///"));
      if (i == 0) {
        cmd.addAll(List.of("-D", org.sodm.jobs.phase.PhaseRunner.TEST_PAUSE_AFTER_LOCK + "=120000", "-D",
            org.sodm.jobs.phase.PhaseRunner.TEST_PAUSE_UNTIL_FILE + "=" + release));
      }
      cmd.addAll(both);
      procs.add(new ProcessBuilder(cmd).redirectError(tmp.resolve("err" + i).toFile()).redirectOutput(tmp.resolve("out" + i).toFile()).start());
      long t0 = System.nanoTime();
      while (i == 0 && !Files.exists(lock) && procs.get(0).isAlive() && System.nanoTime() - t0 < 120e9) Thread.sleep(50);
    }
    int second = procs.get(1).waitFor();
    Files.createFile(release);
    int[] exit = {procs.get(0).waitFor(), second};
    String err = Files.readString(tmp.resolve("err1"));
    assertEquals(0, exit[0], Files.readString(tmp.resolve("err0")));
    assertEquals(1, exit[1], err);
    assertTrue(err.contains("is in use by another sodm run") && err.contains("pid " + procs.get(0).pid()), err);
    assertFalse(err.contains("\tat "), err);
    org.apache.hadoop.conf.Configuration conf = LocalConf.create(tmp);
    assertEquals(org.sodm.jobs.predict.ModelFiles.readRecord(conf, new org.apache.hadoop.fs.Path(tmp.resolve("clean/model.avro").toString())).getBlocks(),
        org.sodm.jobs.predict.ModelFiles.readRecord(conf, new org.apache.hadoop.fs.Path(tmp.resolve("both/model.avro").toString())).getBlocks());
  }

  /**
   * A 20 MB file system (tmpfs; skipped where this user cannot mount one) filled during training:
   * the message names the disk-full cause, the output path and the device with its free space;
   * the earlier model on it is intact, and the failed run leaves nothing half-written.
   */
  @Test
  void aFileSystemFilledDuringTrainingIsNamedAndAnEarlierModelIsIntact() throws Exception {
    Path mnt = tmp.resolve("small-fs");
    Files.createDirectories(mnt);
    Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", mnt.toString()).redirectErrorStream(true).start();
    String why = new String(m.getInputStream().readAllBytes());
    org.junit.jupiter.api.Assumptions.assumeTrue(m.waitFor() == 0, "cannot mount a 20 MB tmpfs here: " + why);
    try {
      String[] first = sodm("train", "-i", data.toString(), "-o", mnt.resolve("earlier").toString(), "--scale", "0,1", "-g", "2",
          "--loss", "hinge", "--partitions", "1");
      assertEquals("0", first[0], first[2]);
      Map<String, String> before = snapshot(mnt.resolve("earlier"));
      // fill the file system but for 64 KB
      java.nio.file.FileStore store = Files.getFileStore(mnt);
      try (java.io.OutputStream o = Files.newOutputStream(mnt.resolve("filler"))) {
        byte[] block = new byte[1 << 16];
        while (store.getUsableSpace() > (1 << 16)) o.write(block, 0, (int) Math.min(block.length, store.getUsableSpace() - (1 << 16)));
      }
      Path out = mnt.resolve("second");
      String[] r = sodm("train", "-i", data.toString(), "-o", out.toString(), "--scale", "0,1", "-g", "2", "--loss", "hinge",
          "--partitions", "1", "--overwrite");
      refused(r, "disk full", "No space left on device", out.toString(), "bytes free on", "device tmpfs");
      assertEquals(before, snapshot(mnt.resolve("earlier")), "the earlier model is intact");
      assertFalse(Files.exists(out.resolve("model.avro")));
    } finally {
      new ProcessBuilder("umount", "-l", mnt.toString()).start().waitFor(); // lazy: a failed task may still hold a file open
    }
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
