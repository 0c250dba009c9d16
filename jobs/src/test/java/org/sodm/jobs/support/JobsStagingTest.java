package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15 item 8: local jobs stage, spill and shuffle under this process's own directory of the
 * user's hadoop.tmp.dir (owner-only, removed at exit), not a root shared by every user.
 */
class JobsStagingTest {
  @TempDir Path tmp;

  @Test
  void localJobsUseAPerProcessOwnerOnlyDirectoryUnlessTheUserChoseOne() throws Exception {
    Configuration c = new Configuration(false);
    c.addResource("mapred-default.xml");
    c.set("mapreduce.framework.name", "local");
    c.set("hadoop.tmp.dir", tmp.resolve("hadoop-alice").toString());
    Jobs.localStaging(c);
    String staging = c.get(Jobs.STAGING_ROOT);
    String local = c.get(Jobs.LOCAL_DIR);
    Path process = Path.of(staging).getParent();
    assertEquals(process, Path.of(local).getParent(), "staging and task-local directories in one process directory");
    assertTrue(process.getFileName().toString().equals("sodm-" + ProcessHandle.current().pid()), process.toString());
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(process)),
        "spills and shuffle copies of the training data are the user's alone");
    assertEquals(tmp.resolve("hadoop-alice"), process.getParent(), "under this command's hadoop.tmp.dir");

    // a later command of the same JVM (the warm JVM, a test suite) with another hadoop.tmp.dir stages under that one, even
    // after the first is gone: the first's directory was reused, and brought back a removed directory that stayed at exit
    org.apache.hadoop.fs.FileUtil.fullyDelete(tmp.resolve("hadoop-alice").toFile());
    Configuration later = new Configuration(false);
    later.addResource("mapred-default.xml");
    later.set("mapreduce.framework.name", "local");
    later.set("hadoop.tmp.dir", tmp.resolve("hadoop-bob").toString());
    Jobs.localStaging(later);
    assertEquals(tmp.resolve("hadoop-bob"), Path.of(later.get(Jobs.STAGING_ROOT)).getParent().getParent());
    assertTrue(Files.isDirectory(Path.of(later.get(Jobs.STAGING_ROOT)).getParent()));
    assertFalse(Files.exists(tmp.resolve("hadoop-alice")), "the removed directory is not brought back");

    Configuration mine = new Configuration(false);
    mine.addResource("mapred-default.xml");
    mine.set(Jobs.STAGING_ROOT, "/data/staging");
    mine.set(Jobs.LOCAL_DIR, "/data/local");
    Jobs.localStaging(mine);
    assertEquals("/data/staging", mine.get(Jobs.STAGING_ROOT), "the user's choice stands");
    assertEquals("/data/local", mine.get(Jobs.LOCAL_DIR), "the user's choice stands");
    Configuration yarn = new Configuration(false);
    yarn.set("mapreduce.framework.name", "yarn");
    Jobs.localStaging(yarn);
    assertNull(yarn.get(Jobs.STAGING_ROOT), "YARN stages where the cluster says");
  }

  @Test
  void localJobsDoNotCopyTheJobJarButYarnJobsKeepIt() throws Exception {
    Configuration local = new Configuration(false);
    local.set("mapreduce.framework.name", "local");
    org.apache.hadoop.mapreduce.Job lj = org.apache.hadoop.mapreduce.Job.getInstance(local);
    lj.setJarByClass(org.apache.hadoop.mapreduce.Job.class); // a class from a jar: the setting the copy comes from
    assertNotNull(lj.getJar(), "the test's precondition: a jar was set");
    Jobs.noJarCopyInLocalMode(lj);
    assertNull(lj.getJar(), "LocalJobRunner runs on the class path: the jar would only be copied to staging");

    Configuration yarn = new Configuration(false);
    yarn.set("mapreduce.framework.name", "yarn");
    org.apache.hadoop.mapreduce.Job yj = org.apache.hadoop.mapreduce.Job.getInstance(yarn);
    yj.setJarByClass(org.apache.hadoop.mapreduce.Job.class);
    String jar = yj.getJar();
    Jobs.noJarCopyInLocalMode(yj);
    assertEquals(jar, yj.getJar(), "YARN's containers need the jar");
  }
}
