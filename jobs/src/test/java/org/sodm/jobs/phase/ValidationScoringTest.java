package org.sodm.jobs.phase;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmReader;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.train.TrainPipeline;
import org.sodm.model.Model;
import org.sodm.testing.LocalConf;

/**
 * {@code --validation} scored by map tasks (the model through the distributed cache, the rows split
 * over two local tasks, counters) gives the accuracy the driver computes, and both equal the
 * accuracy of the final model's own per-row, per-block predictions of svmguide1.t.
 */
class ValidationScoringTest {
  @TempDir Path tmp;

  private TrainPipeline.Result train(String where) throws Exception {
    Configuration conf = LocalConf.create(tmp.resolve(where));
    conf.set(SodmConf.LOSS, "hinge");
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.PARTITIONS, "4");
    conf.set(SodmConf.LEVELS, "1"); // one level: its model is the final model
    conf.setLong(SodmConf.EXACT_BELOW_ROWS, 0);
    conf.set(ValidationScoring.WHERE_KEY, where);
    conf.setLong(ValidationScoring.MIN_SPLIT_KEY, 4096);
    conf.setInt(org.sodm.jobs.support.Jobs.LOCAL_PARALLELISM, 2);
    return TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        List.of(LocalConf.sampleData("svmguide1.t").toString()), new org.apache.hadoop.fs.Path(tmp.resolve(where + "-out").toString()),
        false), s -> {});
  }

  @Test
  void mapTasksEqualTheDriverAndTheDirectPredictions() throws Exception {
    int before = ValidationScoring.JOBS.get();
    TrainPipeline.Result tasks = train("tasks");
    int jobs = ValidationScoring.JOBS.get() - before;
    assertTrue(jobs >= 1, "the map tasks scored the validation rows");
    TrainPipeline.Result driver = train("driver");
    assertEquals(before + jobs, ValidationScoring.JOBS.get(), "the driver scored them itself");
    double a = tasks.levels().get(tasks.levels().size() - 1).getValidationAccuracy();
    double b = driver.levels().get(driver.levels().size() - 1).getValidationAccuracy();
    Model m = tasks.model();
    LibsvmReader.Data d = LibsvmReader.read(LocalConf.sampleData("svmguide1.t"));
    int ok = 0;
    for (int i = 0; i < d.size(); i++) if (m.predict(d.x()[i]).equals(d.labels()[i])) ok++;
    double direct = (double) ok / d.size();
    assertTrue(direct > 0.9, "svmguide1.t accuracy " + direct);
    assertEquals(direct, a, 0.0, "map tasks");
    assertEquals(direct, b, 0.0, "driver");
    try (var s = Files.walk(tmp.resolve("tasks-out"))) {
      assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith("_validation-scoring")), "the scoring scratch is removed");
    }
  }

  @Test
  void badWhereIsRefusedByName() {
    Configuration conf = new Configuration(false);
    conf.set(ValidationScoring.DIR_KEY, "/x");
    conf.set(ValidationScoring.WHERE_KEY, "both");
    Exception e = assertThrows(RuntimeException.class, () -> ValidationScoring.inTasks(conf));
    assertTrue(e.getMessage().contains(ValidationScoring.WHERE_KEY), e.getMessage());
  }
}
