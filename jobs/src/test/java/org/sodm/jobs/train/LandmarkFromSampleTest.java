package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/**
 * Landmarks selected in the driver from the ingest's per-file samples: the sample is a seeded
 * subset of the file's rows of the configured size, and when it holds every row the selection
 * equals the landmark job's (which then also sees every row) record for record.
 */
class LandmarkFromSampleTest {
  @TempDir Path tmp;
  private Configuration conf;

  @BeforeEach
  void setUp() {
    conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.GAMMA, "2");
    conf.set(SodmConf.LANDMARKS, "16");
    conf.set(Param.LEVELS.key(), "2"); // a tree (the automatic one is a single block on data this small: no landmarks)
  }

  private org.apache.hadoop.fs.Path landmarks(String out) throws IOException {
    TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve(out).toString()), false, "landmarks"), s -> { });
    return new org.apache.hadoop.fs.Path(tmp.resolve(out).resolve("work").toString());
  }

  private static List<Object> flat(List<TrainRecord> rs) {
    List<Object> o = new ArrayList<>();
    for (TrainRecord r : rs) {
      o.add(r.getId());
      o.add(r.getStratum());
      o.add(r.getBlock());
      o.add(r.getFeatures().toString());
    }
    return o;
  }

  @Test
  void sampleIsASeededSubsetOfTheConfiguredSize() throws IOException {
    conf.setInt(SodmConf.LANDMARK_CANDIDATES, 500);
    org.apache.hadoop.fs.Path work = landmarks("a");
    org.apache.hadoop.fs.Path sample = new org.apache.hadoop.fs.Path(work, "ingest/" + IngestJob.sampleDirName(conf) + "/sample-f000000.avro");
    List<Instance> s = AvroFiles.readAll(conf, sample, Instance.class);
    assertEquals(500, s.size());
    List<Instance> rows = AvroFiles.readDir(conf, new org.apache.hadoop.fs.Path(work, "ingest/" + IngestJob.DATA), Instance.class);
    Set<String> all = new HashSet<>();
    for (Instance r : rows) all.add(r.toString());
    long prev = Long.MIN_VALUE;
    for (Instance r : s) {
      assertTrue(all.contains(r.toString()), "sampled row is a row of the file: " + r);
      assertTrue(r.getId() > prev, "id order, no repeats");
      prev = r.getId();
    }
    // both halves of the file are represented (a reservoir, not a prefix)
    long mid = rows.get(rows.size() / 2).getId();
    long late = s.stream().filter(r -> r.getId() > mid).count();
    assertTrue(late > 150 && late < 350, "rows after the middle: " + late + " of 500");

    // the same seed draws the same sample; another seed another one
    org.apache.hadoop.fs.Path again = landmarks("b");
    assertEquals(s, AvroFiles.readAll(conf, new org.apache.hadoop.fs.Path(again, "ingest/" + IngestJob.sampleDirName(conf) + "/sample-f000000.avro"), Instance.class));
    conf.setLong(SodmConf.SEED, 7);
    org.apache.hadoop.fs.Path other = landmarks("c");
    assertNotEquals(s, AvroFiles.readAll(conf, new org.apache.hadoop.fs.Path(other, "ingest/" + IngestJob.sampleDirName(conf) + "/sample-f000000.avro"), Instance.class));
  }

  @Test
  void driverSelectionEqualsTheJobsWhenBothSeeEveryRow() throws IOException {
    conf.setInt(SodmConf.LANDMARK_CANDIDATES, 4000); // svmguide1 has 3,089 rows: every row is a candidate
    conf.setLong(SodmConf.LANDMARK_DRIVER_ROWS, 0); // the job
    List<TrainRecord> job = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(landmarks("job"), "landmarks/data"));
    conf.setLong(SodmConf.LANDMARK_DRIVER_ROWS, 100_000); // the driver, from the ingest sample
    org.apache.hadoop.fs.Path work = landmarks("driver");
    assertTrue(Files.isDirectory(Path.of(work.toString()).resolve("ingest").resolve(IngestJob.sampleDirName(conf))));
    List<TrainRecord> driver = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(work, "landmarks/data"));
    assertEquals(16, job.size());
    assertEquals(flat(job), flat(driver));

    // k-means: the same sample, the same clusters
    conf.set(SodmConf.PARTITIONER, "kmeans");
    conf.setInt(SodmConf.PARTITIONS, 4);
    conf.setLong(SodmConf.LANDMARK_DRIVER_ROWS, 0);
    List<TrainRecord> kjob = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(landmarks("kjob"), "landmarks/data"));
    conf.setLong(SodmConf.LANDMARK_DRIVER_ROWS, 100_000);
    List<TrainRecord> kdriver = TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(landmarks("kdriver"), "landmarks/data"));
    assertEquals(1000, kjob.size()); // a uniform sample of --kmeans-sample (1000) of the 3,089 candidates
    assertEquals(flat(kjob), flat(kdriver));
  }

  @Test
  void tooLargeASampleOrAnotherSeedFallsBackToTheJob() throws IOException {
    conf.setInt(SodmConf.LANDMARK_CANDIDATES, 300);
    conf.setLong(SodmConf.LANDMARK_DRIVER_ROWS, 299); // 1 file x 300 > 299
    org.apache.hadoop.fs.Path work = landmarks("big");
    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(tmp.resolve("probe").toString());
    conf.set(TrainKeys.INGEST_DIR, new org.apache.hadoop.fs.Path(work, "ingest").toString());
    SpecForTests.kernel(conf, org.sodm.kernel.KernelSpec.rbf(2));
    SpecForTests.write(conf);
    assertFalse(LandmarkJob.fromSample(conf, new org.apache.hadoop.fs.Path(work, "ingest"), out, "stratified"));
    assertFalse(Files.exists(tmp.resolve("probe")), "nothing written");
    conf.setLong(SodmConf.LANDMARK_DRIVER_ROWS, 300);
    conf.setLong(SodmConf.SEED, 2); // the ingest drew its sample with seed 1
    SpecForTests.write(conf);
    assertFalse(LandmarkJob.fromSample(conf, new org.apache.hadoop.fs.Path(work, "ingest"), out, "stratified"));
    conf.setLong(SodmConf.SEED, 1);
    SpecForTests.write(conf);
    assertTrue(LandmarkJob.fromSample(conf, new org.apache.hadoop.fs.Path(work, "ingest"), out, "stratified"));
    assertEquals(16, TrainIO.readRecords(conf, out).size());
    // the run itself used the job (the cap was 299) and still produced 16 landmarks
    assertEquals(16, TrainIO.readRecords(conf, new org.apache.hadoop.fs.Path(work, "landmarks/data")).size());
  }
}
