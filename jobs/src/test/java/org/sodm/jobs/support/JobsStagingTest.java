package org.sodm.jobs.support;

import static org.junit.jupiter.api.Assertions.*;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Issue 15 item 8: local jobs stage under this process's own directory of the user's hadoop.tmp.dir, not a root shared by every user. */
class JobsStagingTest {
  @Test
  void localJobsStageInAPerProcessDirectoryUnlessTheUserChoseOne() {
    Configuration c = new Configuration(false);
    c.set("mapreduce.framework.name", "local");
    c.set("hadoop.tmp.dir", "/tmp/hadoop-alice");
    Jobs.localStaging(c);
    String dir = c.get(Jobs.STAGING_ROOT);
    assertTrue(dir.startsWith("/tmp/hadoop-") && dir.endsWith("sodm-staging-" + ProcessHandle.current().pid()), dir);
    Configuration mine = new Configuration(false);
    mine.set(Jobs.STAGING_ROOT, "/data/staging");
    Jobs.localStaging(mine);
    assertEquals("/data/staging", mine.get(Jobs.STAGING_ROOT), "the user's choice stands");
    Configuration yarn = new Configuration(false);
    yarn.set("mapreduce.framework.name", "yarn");
    Jobs.localStaging(yarn);
    assertNull(yarn.get(Jobs.STAGING_ROOT), "YARN stages where the cluster says");
  }
}
