package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sodm.avro.ModelRecord;
import org.sodm.jobs.predict.ModelFiles;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/**
 * {@code --phase NAME} for every phase of every method (the kernel tree with small data's exact
 * block, exact mode on the PBM path, BQO, DSVRG, Saddle): the run stops right after NAME with exactly the
 * phases up to NAME complete and no model; {@code --resume} from that point (on a copy) and the
 * phase-by-phase run carried on to the end both give the model of one uninterrupted run.
 */
class PhaseEveryMethodTest {
  @TempDir Path tmp;

  static Stream<Arguments> methods() {
    return Stream.of(
        Arguments.of("tree", new String[] {SodmConf.LOSS, "hinge", SodmConf.C, "2", SodmConf.GAMMA, "2", SodmConf.PARTITIONS, "4",
            SodmConf.FANOUT, "2", SodmConf.LANDMARKS, "8"},
            List.of("ingest", "validation", "landmarks", "level-2", "level-1", "level-0")),
        Arguments.of("pbm", new String[] {SodmConf.LOSS, "hinge", SodmConf.C, "2", SodmConf.GAMMA, "2", SodmConf.PARTITIONS, "4",
            SodmConf.FANOUT, "4", SodmConf.PARTITIONER, "random", SodmConf.EXACT, "true", SodmConf.EXACT_SINGLE, "never",
            SodmConf.EXACT_MAX_ITERATIONS, "2", org.sodm.jobs.spec.Param.EXACT_ALLOW_UNCONVERGED.key(), "true"},
            List.of("ingest", "validation", "level-1", "refine", "pbm-init", "pbm")),
        Arguments.of("pbm-jobs", new String[] {SodmConf.LOSS, "hinge", SodmConf.C, "2", SodmConf.GAMMA, "2", SodmConf.PARTITIONS, "4",
            SodmConf.FANOUT, "4", SodmConf.PARTITIONER, "random", SodmConf.EXACT, "true", SodmConf.EXACT_SINGLE, "never",
            SodmConf.EXACT_MAX_ITERATIONS, "2", org.sodm.jobs.spec.Param.ITERATION_MODE.key(), "jobs",
            org.sodm.jobs.spec.Param.EXACT_ALLOW_UNCONVERGED.key(), "true"},
            List.of("ingest", "validation", "level-1", "refine", "pbm-init", "pbm-0", "pbm-1")),
        // one block (the default here), dealt by the resident task itself: no partition phase
        Arguments.of("bqo", new String[] {SodmConf.KERNEL, "linear", SodmConf.LOSS, "hinge", SodmConf.LINEAR_EPS, "0.05"},
            List.of("ingest", "validation", "bqo")),
        Arguments.of("bqo-5-blocks", new String[] {SodmConf.KERNEL, "linear", SodmConf.LOSS, "hinge", SodmConf.LINEAR_EPS, "0.05",
            SodmConf.LINEAR_BLOCKS, "5"}, List.of("ingest", "validation", "partition", "bqo")),
        // DSVRG on one block: dealt by its task too
        Arguments.of("dsvrg", new String[] {SodmConf.KERNEL, "linear", SodmConf.LOSS, "odm", SodmConf.LINEAR_EPOCHS, "3"},
            List.of("ingest", "validation", "dsvrg")),
        Arguments.of("dsvrg-3-blocks", new String[] {SodmConf.KERNEL, "linear", SodmConf.LOSS, "odm", SodmConf.LINEAR_EPOCHS, "3",
            SodmConf.LINEAR_BLOCKS, "3"}, List.of("ingest", "validation", "partition", "dsvrg")),
        Arguments.of("saddle", new String[] {SodmConf.KERNEL, "linear", SodmConf.LOSS, "nu", SodmConf.LINEAR_EPS, "0.01"},
            List.of("ingest", "validation", "saddle")),
        Arguments.of("saddle-5-blocks", new String[] {SodmConf.KERNEL, "linear", SodmConf.LOSS, "nu", SodmConf.LINEAR_EPS, "0.01",
            SodmConf.LINEAR_BLOCKS, "5"}, List.of("ingest", "validation", "partition", "saddle")));
  }

  private Configuration conf(String[] kv) {
    Configuration c = LocalConf.create(tmp);
    c.set(SodmConf.INGEST_SCALE, "0,1");
    c.set(SodmConf.SEED, "5");
    for (int i = 0; i < kv.length; i += 2) c.set(kv[i], kv[i + 1]);
    return c;
  }

  private TrainPipeline.Result train(Configuration c, Path out, boolean resume, String phase, List<String> lines) throws IOException {
    return TrainPipeline.run(c, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        List.of(LocalConf.sampleData("svmguide1.t").toString()), new org.apache.hadoop.fs.Path(out.toString()), resume, phase),
        lines::add);
  }

  private static List<Object> model(Configuration c, Path out) throws IOException {
    ModelRecord r = ModelFiles.readRecord(c, new org.apache.hadoop.fs.Path(out.resolve("model.avro").toString()));
    List<Object> all = new ArrayList<>(TrainPhasesAndFaultsTest.coefficients(r));
    all.add(r.getLinear() == null ? null : r.getLinear().toString());
    return all;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
  }

  private static String dir(String phase) {
    if (phase.equals("pbm-init")) return "pbm/init";
    if (phase.equals("pbm")) return "pbm/resident";
    if (phase.startsWith("pbm-")) return String.format("pbm/iter-%04d", Integer.parseInt(phase.substring(4)));
    return phase;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("methods")
  void everyPhaseStopsAndResumeGivesTheOneRunModel(String method, String[] kv, List<String> phases) throws IOException {
    Configuration c = conf(kv);
    List<String> lines = new ArrayList<>();
    train(c, tmp.resolve("one"), false, null, lines);
    List<Object> reference = model(c, tmp.resolve("one"));

    Path out = tmp.resolve("phased");
    for (int i = 0; i < phases.size(); i++) {
      lines.clear();
      TrainPipeline.Result r = train(c, out, false, phases.get(i), lines);
      assertNull(r.modelPath(), method + " --phase " + phases.get(i));
      assertFalse(Files.exists(out.resolve("model.avro")));
      assertTrue(lines.contains("stopped after phase " + phases.get(i) + " (--phase)"), String.join("\n", lines));
      for (int j = 0; j < phases.size(); j++) {
        assertEquals(j <= i, Files.isDirectory(out.resolve("work").resolve(dir(phases.get(j)))),
            method + ": " + phases.get(j) + " after --phase " + phases.get(i) + "\n" + String.join("\n", lines));
      }
      // resume from here (on a copy) completes the identical model
      Path copy = tmp.resolve("copy-" + i);
      copyTree(out, copy);
      train(c, copy, true, null, new ArrayList<>());
      assertEquals(reference, model(c, copy), method + ": --resume after --phase " + phases.get(i));
    }
    lines.clear();
    train(c, out, false, "model", lines);
    assertEquals(reference, model(c, out), method + ": phase by phase to the end");
  }
}
