package org.sodm.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.sodm.data.AvroClasses;
import org.sodm.jobs.support.SodmConf;

/** A local-mode configuration whose scratch space is under target/ (HADOOP-NOTES item 11). */
public final class LocalConf {
  private LocalConf() {}

  public static Configuration create(Path scratch) {
    AvroClasses.trust();
    Configuration conf = SodmConf.create();
    conf.set("mapreduce.framework.name", "local");
    conf.set("fs.defaultFS", "file:///");
    conf.set("hadoop.tmp.dir", scratch.resolve("hadoop-tmp").toAbsolutePath().toString());
    conf.set("mapreduce.jobtracker.staging.root.dir", scratch.resolve("staging").toAbsolutePath().toString());
    conf.set("mapreduce.cluster.local.dir", scratch.resolve("local").toAbsolutePath().toString());
    return conf;
  }

  /** The project root (sodm.project.dir from surefire, else found from the working directory). */
  public static Path projectDir() {
    String p = System.getProperty("sodm.project.dir");
    if (p != null) return Paths.get(p);
    Path d = Paths.get("").toAbsolutePath();
    while (d != null && !Files.isDirectory(d.resolve("sample-data"))) d = d.getParent();
    if (d == null) throw new IllegalStateException("cannot find the project root (no sample-data/)");
    return d;
  }

  public static Path sampleData(String name) {
    return projectDir().resolve("sample-data").resolve(name);
  }

  /** ../shared/datasets/NAME, or null when ../shared is absent (tests then skip). */
  public static Path sharedDataset(String relative) {
    String s = System.getProperty("sodm.shared.dir");
    Path shared = s != null ? Paths.get(s) : projectDir().resolve("../shared");
    Path f = shared.resolve("datasets").resolve(relative).normalize();
    return Files.isRegularFile(f) ? f : null;
  }
}
