package org.sodm.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** LIBSVM's command-line tools for the comparison tests (which skip when they are not installed). */
public final class LibsvmTools {
  private LibsvmTools() {}

  public static boolean installed() {
    return Files.isExecutable(Path.of("/usr/bin/svm-train")) && Files.isExecutable(Path.of("/usr/bin/svm-predict"))
        && Files.isExecutable(Path.of("/usr/bin/svm-scale"));
  }

  /** Runs a command, its standard output to {@code out} (or returned when null); fails with its output on a non-zero exit. */
  public static String run(Path out, String... cmd) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cmd);
    if (out != null) pb.redirectOutput(out.toFile());
    else pb.redirectErrorStream(true);
    Process p = pb.start();
    String text = out == null ? new String(p.getInputStream().readAllBytes()) : new String(p.getErrorStream().readAllBytes());
    if (p.waitFor() != 0) throw new IOException(String.join(" ", cmd) + " failed: " + text);
    return text;
  }

  /** svm-predict's labels for a LIBSVM file with a model file. */
  public static List<String> predict(Path data, Path model, Path scratch) throws IOException, InterruptedException {
    Path out = scratch.resolve("svm-predict-" + System.nanoTime());
    run(null, "svm-predict", data.toString(), model.toString(), out.toString());
    return new ArrayList<>(Files.readAllLines(out));
  }

  /** Accuracy of svm-train (with {@code args}) on train, tested with svm-predict on test. */
  public static double trainAndTest(Path train, Path test, Path scratch, String... args) throws IOException, InterruptedException {
    List<String> pred = trainAndPredict(train, test, scratch, args);
    List<String> truth = labels(test);
    int ok = 0;
    for (int i = 0; i < truth.size(); i++) if (Double.parseDouble(truth.get(i)) == Double.parseDouble(pred.get(i))) ok++;
    return (double) ok / truth.size();
  }

  /** svm-predict's labels on test of the model svm-train (with {@code args}) fits on train. */
  public static List<String> trainAndPredict(Path train, Path test, Path scratch, String... args) throws IOException, InterruptedException {
    Path model = scratch.resolve("svm-model-" + System.nanoTime());
    List<String> cmd = new ArrayList<>(List.of("svm-train", "-q"));
    cmd.addAll(List.of(args));
    cmd.add(train.toString());
    cmd.add(model.toString());
    run(null, cmd.toArray(new String[0]));
    return predict(test, model, scratch);
  }

  /** The first token of every non-empty line. */
  public static List<String> labels(Path libsvm) throws IOException {
    List<String> out = new ArrayList<>();
    for (String l : Files.readAllLines(libsvm)) if (!l.isBlank()) out.add(l.trim().split("\\s+")[0]);
    return out;
  }
}
