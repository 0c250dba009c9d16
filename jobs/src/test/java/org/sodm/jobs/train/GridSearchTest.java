package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.jobs.spec.BadParameterException;
import org.sodm.jobs.support.SodmConf;
import org.sodm.testing.LocalConf;

/**
 * sodm grid: every cell equals sodm cv with that C and gamma; warm starts along C reach the same
 * accuracy and objective (within the eps-KKT bound) as cold starts; the CSV and JSON hold every cell;
 * grid.py's notation, order and tie rule; nothing half-written when the run fails.
 */
class GridSearchTest {
  @TempDir Path tmp;

  private static final double[] LOG2C = {-1, 1, 3};
  private static final double[] LOG2G = {1, -1, -3};
  private static final int FOLDS = 3;

  private Configuration conf() {
    Configuration conf = LocalConf.create(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.set(SodmConf.LOSS, "hinge");
    return conf;
  }

  private GridSearch.Result grid(String name, boolean warm, GridSearch.Plotter plot) throws Exception {
    return GridSearch.run(conf(), new GridSearch.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
        new org.apache.hadoop.fs.Path(tmp.resolve(name).toString()), LOG2C, LOG2G, FOLDS, warm, false, false), plot, l -> {});
  }

  /** sodm cv's pooled accuracy (correct rows) with one C and gamma, run as sodm cv runs it. */
  @SuppressWarnings("unchecked")
  private long cvCorrect(double log2c, double log2g) throws Exception {
    Configuration conf = conf();
    conf.set(SodmConf.C, Double.toString(Math.pow(2, log2c)));
    conf.set(SodmConf.GAMMA, Double.toString(Math.pow(2, log2g)));
    conf.setInt(TrainKeys.CV_FOLDS, FOLDS);
    Path out = tmp.resolve("cv-" + log2c + "-" + log2g);
    TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(out.toString()), false), l -> {});
    Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(out.resolve(TrainPipeline.REPORT).toFile(), Map.class);
    Map<String, Object> cv = (Map<String, Object>) report.get("cv");
    long correct = 0;
    for (Object f : (List<Object>) cv.get("folds")) correct += ((Number) ((Map<String, Object>) f).get("correct")).longValue();
    return correct;
  }

  @Test
  void everyCellEqualsSodmCvAndWarmStartsMatchColdStarts() throws Exception {
    GridSearch.Result cold = grid("cold", false, null);
    GridSearch.Result warm = grid("warm", true, null);
    assertEquals(9, cold.cells().size());
    GridSearch.Cell bestCv = null;
    long bestCorrect = -1;
    long coldEvals = 0;
    long warmEvals = 0;
    for (int i = 0; i < cold.cells().size(); i++) {
      GridSearch.Cell c = cold.cells().get(i);
      GridSearch.Cell w = warm.cells().get(i);
      assertEquals(c.log2c(), w.log2c());
      assertEquals(c.log2g(), w.log2g());
      long cv = cvCorrect(c.log2c(), c.log2g());
      assertEquals(cv, c.correct(), "cell log2c " + c.log2c() + " log2g " + c.log2g() + ": sodm cv " + cv + " vs grid (cold) " + c.correct());
      assertEquals(cv, w.correct(), "cell log2c " + c.log2c() + " log2g " + c.log2g() + ": sodm cv " + cv + " vs grid (warm) " + w.correct());
      assertEquals(3089, c.rows());
      // both are eps-KKT points (max violation <= eps): the dual objectives differ by at most sum_i C eps over the folds' rows
      double bound = (FOLDS - 1) * 3089 * c.c() * 1e-3;
      assertTrue(Math.abs(c.objective() - w.objective()) <= bound, c.objective() + " vs " + w.objective() + " bound " + bound);
      assertTrue(c.converged() && w.converged());
      if (cv > bestCorrect) { // the loop's best, first in grid.py's order on ties (checked below with gridPyOrder)
        bestCorrect = cv;
        bestCv = c;
      }
      coldEvals += c.kernelEvaluations();
      warmEvals += w.kernelEvaluations();
    }
    assertEquals(bestCorrect, cold.best().correct());
    assertEquals(bestCorrect, warm.best().correct());
    assertEquals(cold.best().log2c(), warm.best().log2c());
    assertEquals(cold.best().log2g(), warm.best().log2g());
    assertEquals(bestCv.log2c(), cold.best().log2c()); // no tie at the top on this grid
    assertEquals(bestCv.log2g(), cold.best().log2g());
    System.out.printf("grid 3x3 svmguide1: kernel evaluations cold %,d warm %,d (%.1f%%)%n", coldEvals, warmEvals, 100.0 * warmEvals / coldEvals);
  }

  /**
   * In local mode a job takes the gamma rows that fill the task slots evenly (slots / gcd(slots, folds)); the cells are
   * the same whatever the grouping: 3 slots and 3 folds run a job per row, 2 slots two rows per job (work/grid-g0-1).
   */
  @Test
  void rowsPerJobFillTheSlotsAndLeaveTheCellsAsTheyAre() throws Exception {
    Configuration c = new Configuration(false);
    int[][] table = {{2, 5, 11, 2}, {2, 10, 11, 1}, {2, 3, 11, 2}, {4, 5, 11, 4}, {8, 6, 11, 4}, {4, 5, 3, 3}, {1, 5, 11, 1}};
    for (int[] t : table) {
      c.setInt(org.sodm.jobs.support.Jobs.LOCAL_PARALLELISM, t[0]);
      assertEquals(t[3], GridSearch.rowsPerJob(c, t[1], t[2]), t[0] + " slots, " + t[1] + " folds, " + t[2] + " rows");
    }
    c.set("mapreduce.framework.name", "yarn");
    assertEquals(1, GridSearch.rowsPerJob(c, 5, 11));

    GridSearch.Result[] r = new GridSearch.Result[2];
    for (int slots = 2; slots <= 3; slots++) {
      Configuration conf = conf();
      conf.setInt(org.sodm.jobs.support.Jobs.LOCAL_PARALLELISM, slots);
      Path out = tmp.resolve("slots" + slots);
      r[slots - 2] = GridSearch.run(conf, new GridSearch.Request(List.of(LocalConf.sampleData("svmguide1").toString()),
          new org.apache.hadoop.fs.Path(out.toString()), LOG2C, LOG2G, FOLDS, true, false, false), null, l -> {});
      Set<String> phases = new HashSet<>();
      try (var s = Files.list(out.resolve("work"))) {
        s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("grid-")).forEach(phases::add);
      }
      assertEquals(slots == 2 ? Set.of("grid-g0-1", "grid-g2") : Set.of("grid-g0", "grid-g1", "grid-g2"), phases);
    }
    assertEquals(9, r[0].cells().size());
    for (int i = 0; i < 9; i++) {
      GridSearch.Cell a = r[0].cells().get(i);
      GridSearch.Cell b = r[1].cells().get(i);
      assertEquals(a.log2c(), b.log2c());
      assertEquals(a.log2g(), b.log2g());
      assertEquals(a.correct(), b.correct());
      assertEquals(a.kernelEvaluations(), b.kernelEvaluations());
      assertEquals(a.objective(), b.objective(), 0.0);
    }
  }

  /** Multi-class (4 classes, ovo and ovr): every cell equals sodm cv with that C and gamma. */
  @Test
  @SuppressWarnings("unchecked")
  void multiclassCellsEqualSodmCv() throws Exception {
    String data = MulticlassTrainTest.resource("blobs4.libsvm").toString();
    Map<String, Double> accuracy = new java.util.HashMap<>();
    for (String variant : List.of("ovo", "ovr", "ovo-weighted")) { // weighted: --class-weights, each pair's task its classes'
      String scheme = variant.substring(0, 3);
      String weights = variant.endsWith("weighted") ? "2:5,3:0.5" : "";
      Configuration conf = LocalConf.create(tmp);
      conf.set(SodmConf.LOSS, "hinge");
      conf.set("sodm.train.multiclass", scheme);
      conf.set(org.sodm.jobs.spec.Param.CLASS_WEIGHTS.key(), weights);
      GridSearch.Result r = GridSearch.run(conf, new GridSearch.Request(List.of(data), new org.apache.hadoop.fs.Path(tmp.resolve("mc-" + variant).toString()),
          new double[] {1}, new double[] {0}, 3, true, false, false), null, l -> {});
      accuracy.put(variant, r.cells().get(0).accuracy());
      for (GridSearch.Cell c : r.cells()) {
        Configuration cv = LocalConf.create(tmp);
        cv.set(SodmConf.LOSS, "hinge");
        cv.set("sodm.train.multiclass", scheme);
        cv.set(org.sodm.jobs.spec.Param.CLASS_WEIGHTS.key(), weights);
        cv.set(SodmConf.C, Double.toString(c.c()));
        cv.set(SodmConf.GAMMA, Double.toString(c.gamma()));
        cv.setInt(TrainKeys.CV_FOLDS, 3);
        Path out = tmp.resolve("mc-cv-" + variant + c.log2c());
        TrainPipeline.run(cv, new TrainPipeline.Request(List.of(data), null, new org.apache.hadoop.fs.Path(out.toString()), false), l -> {});
        Map<String, Object> report = new com.fasterxml.jackson.databind.ObjectMapper().readValue(out.resolve(TrainPipeline.REPORT).toFile(), Map.class);
        Map<String, Object> m = (Map<String, Object>) report.get("cv");
        assertEquals(((Number) m.get("accuracy")).doubleValue(), c.accuracy(), 0, variant + " log2c " + c.log2c());
      }
    }
    assertNotEquals(accuracy.get("ovo"), accuracy.get("ovo-weighted"), "the class weights change the cross-validation");
  }

  @Test
  @SuppressWarnings("unchecked")
  void csvAndJsonHoldEveryCellAndThePlotIsAPng() throws Exception {
    GridSearch.Result r = grid("files", true, (t, title, o) -> {
      java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(4, 4, java.awt.image.BufferedImage.TYPE_INT_RGB);
      javax.imageio.ImageIO.write(img, "png", o);
    });
    Path out = tmp.resolve("files");
    List<String> lines = Files.readAllLines(out.resolve(GridSearch.CSV));
    assertEquals(10, lines.size());
    String[] head = lines.get(0).split(",");
    assertEquals(List.of("log2c", "log2g", "c", "gamma", "accuracy", "mean", "sd", "fold0", "fold1", "fold2"), List.of(head).subList(0, 10));
    Set<String> pairs = new HashSet<>();
    for (String l : lines.subList(1, lines.size())) {
      String[] f = l.split(",");
      pairs.add(f[0] + "/" + f[1]);
      assertEquals(Math.pow(2, Double.parseDouble(f[0])), Double.parseDouble(f[2]), 0);
      assertEquals(Math.pow(2, Double.parseDouble(f[1])), Double.parseDouble(f[3]), 0);
      double mean = (Double.parseDouble(f[7]) + Double.parseDouble(f[8]) + Double.parseDouble(f[9])) / 3;
      assertEquals(mean, Double.parseDouble(f[5]), 1e-6);
      assertEquals(Double.parseDouble(f[11]) / Double.parseDouble(f[10]), Double.parseDouble(f[4]), 1e-6);
    }
    assertEquals(9, pairs.size());
    Map<String, Object> json = new com.fasterxml.jackson.databind.ObjectMapper().readValue(out.resolve(GridSearch.JSON).toFile(), Map.class);
    List<Map<String, Object>> cells = (List<Map<String, Object>>) json.get("cells");
    assertEquals(9, cells.size());
    for (int i = 0; i < 9; i++) {
      assertEquals(r.cells().get(i).correct(), ((Number) cells.get(i).get("correct")).longValue());
      assertEquals(3, ((List<?>) cells.get(i).get("perFold")).size());
    }
    Map<String, Object> best = (Map<String, Object>) json.get("best");
    double max = cells.stream().mapToDouble(c -> ((Number) c.get("accuracy")).doubleValue()).max().getAsDouble();
    assertEquals(max, ((Number) best.get("accuracy")).doubleValue());
    assertNotNull(javax.imageio.ImageIO.read(out.resolve(GridSearch.PNG).toFile()));
  }

  @Test
  void nothingHalfWrittenWhenTheRunFails() throws Exception {
    Exception e = assertThrows(java.io.IOException.class, () -> grid("fails", true, (t, title, o) -> {
      o.write(1);
      throw new java.io.IOException("plot failed (test)");
    }));
    assertTrue(e.getMessage().contains("plot failed"));
    Path out = tmp.resolve("fails");
    for (String f : List.of(GridSearch.CSV, GridSearch.JSON, GridSearch.PNG)) assertFalse(Files.exists(out.resolve(f)), f);
    try (var s = Files.list(out)) {
      assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith(".grid")), "temporary files left");
    }
  }

  @Test
  void gridNotationAsGridPy() {
    assertArrayEquals(new double[] {-5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15}, GridSearch.range("--log2c", "-5,15,2"));
    assertArrayEquals(new double[] {3, 1, -1, -3, -5, -7, -9, -11, -13, -15}, GridSearch.range("--log2g", "3,-15,-2"));
    assertArrayEquals(new double[] {2.5}, GridSearch.range("--log2c", "2.5"));
    assertArrayEquals(new double[] {1, 3}, GridSearch.range("--log2c", "1,4,2"));
    assertArrayEquals(new double[] {4}, GridSearch.range("--log2c", "4,4,-1"));
    assertNull(GridSearch.range("--log2g", " NULL "), "grid.py's null: not searched");
    for (String[] bad : new String[][] {{"--log2c", "1,5,-2", "leads away"}, {"--log2g", "a,b,c", "not a number"}, {"--log2c", "1,5", "3 numbers"},
        {"--log2c", "1,5,0", "step is 0"}, {"--log2g", "", "empty"}, {"--log2c", "1,NaN,1", "not finite"}}) {
      BadParameterException e = assertThrows(BadParameterException.class, () -> GridSearch.range(bad[0], bad[1]), bad[1]);
      assertTrue(e.getMessage().contains(bad[0]) && e.getMessage().contains(bad[2]), e.getMessage());
    }
  }

  @Test
  void badNotationOnTheCommandLineNamesTheOptionAndWritesNothing() throws Exception {
    Path out = tmp.resolve("cli");
    String[] r = org.sodm.cli.SodmMainAccess.run("grid", "-D", "fs.defaultFS=file:///", "-i", LocalConf.sampleData("svmguide1").toString(),
        "-o", out.toString(), "--log2c", "1,5,-2");
    assertNotEquals("0", r[0]);
    assertTrue(r[2].contains("--log2c") && r[2].contains("1,5,-2"), r[2]);
    r = org.sodm.cli.SodmMainAccess.run("grid", "-D", "fs.defaultFS=file:///", "-i", LocalConf.sampleData("svmguide1").toString(),
        "-o", out.toString(), "--log2g", "1,x,1");
    assertNotEquals("0", r[0]);
    assertTrue(r[2].contains("--log2g") && r[2].contains("'x' is not a number"), r[2]);
    r = org.sodm.cli.SodmMainAccess.run("grid", "-D", "fs.defaultFS=file:///", "-i", LocalConf.sampleData("svmguide1").toString(),
        "-o", out.toString(), "--loss", "odm");
    assertNotEquals("0", r[0]);
    assertTrue(r[2].contains("--loss"), r[2]);
    assertFalse(Files.exists(out));
  }

  /** The command end to end: the PNG is drawn, and --train-best trains the final model with the best pair. */
  @Test
  void commandWritesThePlotAndTrainsTheBestPair() throws Exception {
    Path out = tmp.resolve("cmd");
    String[] r = org.sodm.cli.SodmMainAccess.run("grid", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D", "fs.defaultFS=file:///", "-D",
        "mapreduce.framework.name=local", "-i", LocalConf.sampleData("svmguide1").toString(), "-o", out.toString(), "--log2c", "1,3,2",
        "--log2g", "1", "--folds", "3", "--scale", "0,1", "--train-best");
    assertEquals("0", r[0], r[1] + r[2]);
    assertTrue(r[1].contains("best log2c 3 log2g 1 (C 8.0, gamma 2.0)"), r[1]);
    assertTrue(r[1].contains("sub-problems 6/6"), r[1]);
    java.awt.image.BufferedImage png = javax.imageio.ImageIO.read(out.resolve(GridSearch.PNG).toFile());
    assertTrue(png.getWidth() > 100 && png.getHeight() > 100);
    org.sodm.model.Model m = org.sodm.jobs.predict.ModelFiles.read(new Configuration(),
        new org.apache.hadoop.fs.Path(out.resolve(GridSearch.BEST).resolve("model.avro").toString()));
    Map<String, String> p = new java.util.HashMap<>();
    m.provenance().getParameters().forEach((k, v) -> p.put(k.toString(), v.toString()));
    assertEquals(8.0, Double.parseDouble(p.get(SodmConf.C)));
    assertEquals(2.0, Double.parseDouble(p.get(SodmConf.GAMMA)));
    assertEquals("hinge", p.get(SodmConf.LOSS));
  }

  /**
   * grid.py's "-log2g null" / "-log2c null": that parameter is not searched but taken as configured - gamma 1/d (here
   * 1/4: svmguide1 has 4 features) unless -g, C = -c (default 1) - and each cell equals sodm cv with those values. Both null
   * is refused (nothing to search).
   */
  @Test
  void nullAxisIsTheConfiguredValue() throws Exception {
    String[] r = org.sodm.cli.SodmMainAccess.run("grid", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D", "fs.defaultFS=file:///", "-D",
        "mapreduce.framework.name=local", "-i", LocalConf.sampleData("svmguide1").toString(), "-o", tmp.resolve("g-null").toString(),
        "--log2c", "-1,1,2", "--log2g", "null", "--folds", "3", "--scale", "0,1");
    assertEquals("0", r[0], r[1] + r[2]);
    List<String> csv = Files.readAllLines(tmp.resolve("g-null").resolve(GridSearch.CSV));
    assertEquals(3, csv.size(), String.join("\n", csv));
    for (String line : csv.subList(1, 3)) {
      String[] f = line.split(",");
      assertEquals(0.25, Double.parseDouble(f[3]), 0.0, "gamma 1/d: " + line);
      assertEquals(cvCorrect(Double.parseDouble(f[0]), -2), Long.parseLong(f[11]), "the cell equals sodm cv: " + line);
    }
    r = org.sodm.cli.SodmMainAccess.run("grid", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D", "fs.defaultFS=file:///", "-D",
        "mapreduce.framework.name=local", "-i", LocalConf.sampleData("svmguide1").toString(), "-o", tmp.resolve("c-null").toString(),
        "--log2c", "null", "--log2g", "-1", "--folds", "3", "--scale", "0,1", "-c", "4");
    assertEquals("0", r[0], r[1] + r[2]);
    assertTrue(r[1].contains("best log2c 2 log2g -1 (C 4.0, gamma 0.5)"), r[1]);
    r = org.sodm.cli.SodmMainAccess.run("grid", "-D", "fs.defaultFS=file:///", "-i", LocalConf.sampleData("svmguide1").toString(),
        "-o", tmp.resolve("both").toString(), "--log2c", "null", "--log2g", "null");
    assertNotEquals("0", r[0]);
    assertTrue(r[2].contains("both are null"), r[2]);
    assertFalse(Files.exists(tmp.resolve("both")));
  }

  /**
   * --kernel linear: grid.py's C-only search (-t 0 -log2g null), --log2g null by default, with the linear solvers: every
   * cell equals sodm cv --kernel linear with its C (the same folds), the best is grid.py's (the first most accurate, a
   * smaller C on a tie), --train-best trains the linear model with it, and the output holds no work directory. A gamma
   * axis or --resume is refused naming the option.
   */
  @Test
  void linearKernelSearchesCAlone() throws Exception {
    String[] common = {"grid", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D", "fs.defaultFS=file:///", "-D", "mapreduce.framework.name=local",
        "-i", LocalConf.sampleData("svmguide1").toString(), "--kernel", "linear", "--folds", "3", "--scale", "0,1"};
    java.util.function.Function<String[], String[]> run = more -> {
      String[] a = java.util.Arrays.copyOf(common, common.length + more.length);
      System.arraycopy(more, 0, a, common.length, more.length);
      try {
        return org.sodm.cli.SodmMainAccess.run(a);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
    Path out = tmp.resolve("lin");
    String[] r = run.apply(new String[] {"-o", out.toString(), "--log2c", "-3,3,3", "--train-best", "--no-warm-start"});
    assertEquals("0", r[0], r[1] + r[2]);
    assertFalse(r[1].contains("warm-started"), r[1]);
    List<String> csv = Files.readAllLines(out.resolve(GridSearch.CSV));
    assertEquals(4, csv.size(), String.join("\n", csv));
    long bestCorrect = -1;
    double bestC = 0;
    for (String line : csv.subList(1, 4)) {
      String[] f = line.split(",");
      double c = Double.parseDouble(f[2]);
      Configuration conf = conf();
      conf.set(SodmConf.KERNEL, "linear");
      conf.set(SodmConf.C, Double.toString(c));
      conf.setInt(TrainKeys.CV_FOLDS, 3);
      Path cvOut = tmp.resolve("lin-cv-" + c);
      TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
          new org.apache.hadoop.fs.Path(cvOut.toString()), false), l -> {});
      @SuppressWarnings("unchecked")
      Map<String, Object> cv = (Map<String, Object>) new com.fasterxml.jackson.databind.ObjectMapper()
          .readValue(cvOut.resolve(TrainPipeline.REPORT).toFile(), Map.class).get("cv");
      long correct = Math.round(((Number) cv.get("accuracy")).doubleValue() * ((Number) cv.get("rows")).longValue());
      assertEquals(correct, Long.parseLong(f[11]), "the cell equals sodm cv --kernel linear -c " + c + ": " + line);
      if (correct > bestCorrect) {
        bestCorrect = correct;
        bestC = c;
      }
    }
    assertTrue(r[1].contains("(C " + bestC + ")"), bestC + "\n" + r[1]);
    assertFalse(Files.exists(out.resolve("work")), "no work directory left");
    assertFalse(Files.exists(out.resolve(GridSearch.PNG)), "no plot for one axis, as grid.py");
    org.sodm.model.Model m = org.sodm.jobs.predict.ModelFiles.read(new Configuration(),
        new org.apache.hadoop.fs.Path(out.resolve(GridSearch.BEST).resolve("model.avro").toString()));
    assertInstanceOf(org.sodm.model.LinearModel.class, m);
    Map<String, String> p = new java.util.HashMap<>();
    m.provenance().getParameters().forEach((k, v) -> p.put(k.toString(), v.toString()));
    assertEquals(bestC, Double.parseDouble(p.get(SodmConf.C)));

    // the default: every C warm-started from the previous one in one run, the values given in any order; the smallest C starts
    // from zero, so its cell is the cold one exactly; the others within a point of it (the solver's gap, 1e-3)
    String[] w = run.apply(new String[] {"-o", tmp.resolve("lin-w").toString(), "--log2c", "3,-3,-3"});
    assertEquals("0", w[0], w[1] + w[2]);
    assertTrue(w[1].contains("3 values of C warm-started in one run"), w[1]);
    List<String> warm = Files.readAllLines(tmp.resolve("lin-w").resolve(GridSearch.CSV));
    assertEquals(4, warm.size(), String.join("\n", warm));
    for (int i = 1; i <= 3; i++) {
      String[] wf = warm.get(i).split(",");
      String[] cf = csv.get(4 - i).split(",");
      assertEquals(cf[2], wf[2], "the cells in the order given: " + warm);
      if (Double.parseDouble(wf[2]) == 0.125) assertEquals(csv.get(1), warm.get(3), "the first C from zero");
      assertEquals(Double.parseDouble(cf[4]), Double.parseDouble(wf[4]), 0.01, warm.get(i) + " / " + csv.get(4 - i));
    }
    assertFalse(Files.exists(tmp.resolve("lin-w").resolve("work")), "no work directory left");
    // the path's task fails once (before round 3, checkpoints every 2 rounds): the grid says so and its cells are the same
    String[] f = run.apply(new String[] {"-o", tmp.resolve("lin-f").toString(), "--log2c", "3,-3,-3", "-D",
        org.sodm.jobs.allreduce.AllReduceKeys.TEST_FAIL + "=0:3", "-D", SodmConf.ALLREDUCE_CHECKPOINT_ITERATIONS + "=2"});
    assertEquals("0", f[0], f[1] + f[2]);
    assertTrue(f[1].contains("attempt 1 failed: rank 0"), f[1]);
    assertEquals(warm, Files.readAllLines(tmp.resolve("lin-f").resolve(GridSearch.CSV)));
    assertTrue(Files.readString(tmp.resolve("lin-w").resolve(GridSearch.JSON)).contains("\"warmStart\" : \"a C path"));
    assertTrue(Files.readString(out.resolve(GridSearch.JSON)).contains("\"warmStart\" : \"none"));
    // a solver without a path (DSVRG): said, and every C from zero
    String[] d = run.apply(new String[] {"-o", tmp.resolve("lin-d").toString(), "--log2c", "0,1,1", "--loss", "odm", "--linear-solver",
        "dsvrg"});
    assertEquals("0", d[0], d[1] + d[2]);
    assertTrue(d[1].contains("warm start   none: dsvrg") && d[1].contains("every C from zero"), d[1]);
    assertEquals(3, Files.readAllLines(tmp.resolve("lin-d").resolve(GridSearch.CSV)).size());

    // the models of every C above the block budget (24 rows over 200,000 features, a 1 MB budget): said, every C from zero
    StringBuilder wide = new StringBuilder();
    for (int i = 0; i < 24; i++) {
      wide.append(i % 2 == 0 ? "+1" : "-1").append(' ').append(1 + i).append(":1 ").append(i % 2 == 0 ? 199_999 : 200_000).append(":1\n");
    }
    Path wideFile = tmp.resolve("wide.libsvm");
    Files.writeString(wideFile, wide);
    String[] h = org.sodm.cli.SodmMainAccess.run("grid", "-D", "hadoop.tmp.dir=" + tmp.resolve("h"), "-D", "fs.defaultFS=file:///",
        "-D", "mapreduce.framework.name=local", "-D", "sodm.train.linear.block.nonzeros=65536", "-i", wideFile.toString(), "--kernel",
        "linear", "--folds", "3", "--log2c", "0,1,1", "-o", tmp.resolve("lin-wide").toString());
    assertEquals("0", h[0], h[1] + h[2]);
    assertTrue(h[1].contains("warm start   none: the path keeps 3 sub-problems' models at 2 values of C over 200,000 features"), h[1]);
    assertEquals(3, Files.readAllLines(tmp.resolve("lin-wide").resolve(GridSearch.CSV)).size());

    String[] g = run.apply(new String[] {"-o", tmp.resolve("lin-g").toString(), "--log2g", "1"});
    assertNotEquals("0", g[0]);
    assertTrue(g[2].contains("--log2g") && g[2].contains("the linear kernel has no gamma"), g[2]);
    String[] resume = run.apply(new String[] {"-o", tmp.resolve("lin-r").toString(), "--resume"});
    assertNotEquals("0", resume[0]);
    assertTrue(resume[2].contains("--resume"), resume[2]);
    assertFalse(Files.exists(tmp.resolve("lin-g")) || Files.exists(tmp.resolve("lin-r")), "nothing written");
  }

  /** grid.py's job order visits every cell once; the best is the first most accurate cell, a same-gamma smaller C replacing it. */
  @Test
  void gridPyOrderAndTieRule() {
    List<int[]> order = GridSearch.gridPyOrder(11, 10);
    assertEquals(110, order.size());
    Set<String> seen = new HashSet<>();
    for (int[] o : order) assertTrue(seen.add(o[0] + "," + o[1]));
    // grid.py's first jobs for its default grid: permute_sequence puts the middle first (C index 5: log2c 5; gamma index 5: log2g -7)
    assertArrayEquals(new int[] {5, 5}, order.get(0));
    assertEquals(List.of(5, 2, 8, 1, 7, 4, 10, 0, 6, 3, 9), GridSearch.permute(java.util.stream.IntStream.range(0, 11).boxed().toList()));
    // ties: 2x2 table all equal -> the first cell in grid.py's order, unless a same-gamma smaller C follows
    GridSearch.Cell[][] t = new GridSearch.Cell[2][2];
    for (int g = 0; g < 2; g++) {
      for (int c = 0; c < 2; c++) t[g][c] = cell(c, g, 90);
    }
    List<int[]> o2 = GridSearch.gridPyOrder(2, 2);
    int[] first = o2.get(0);
    GridSearch.Cell b = GridSearch.best(t);
    assertEquals(t[first[1]][0].log2c(), b.log2c()); // the smallest C of the first gamma visited
    assertEquals(first[1], (int) b.log2g());
    t[1][1] = cell(1, 1, 91);
    assertEquals(1.0, GridSearch.best(t).log2c());
    assertEquals(1.0, GridSearch.best(t).log2g());
    List<Integer> l = new ArrayList<>();
    for (int[] x : o2) l.add(x[0] * 10 + x[1]);
    assertEquals(4, l.size());
  }

  private static GridSearch.Cell cell(int c, int g, long correct) {
    return new GridSearch.Cell(c, g, Math.pow(2, c), Math.pow(2, g), 100, correct, correct / 100.0, correct / 100.0, 0, new double[] {correct / 100.0},
        0, 0, 0, true);
  }
}
