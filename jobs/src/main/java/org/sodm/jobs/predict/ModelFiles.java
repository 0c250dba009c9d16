package org.sodm.jobs.predict;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.ModelRecord;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.Causes;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.phase.TrainOutput;
import org.sodm.model.Model;
import org.sodm.model.ModelCodec;

/** Locating and loading model files. */
public final class ModelFiles {
  private ModelFiles() {}

  /** A model file, or a training output directory holding model.avro. */
  public static Path resolve(Configuration conf, String modelArg) throws IOException {
    Path p = new Path(modelArg);
    FileSystem fs = p.getFileSystem(conf);
    if (!fs.exists(p)) throw new SodmException("model " + p + " does not exist");
    if (fs.getFileStatus(p).isDirectory()) {
      Path m = new Path(p, TrainOutput.MODEL);
      if (!fs.exists(m)) throw new SodmException(p + " holds no " + TrainOutput.MODEL + " (is it a training output directory?)");
      return fs.makeQualified(m);
    }
    return fs.makeQualified(p);
  }

  /** The model record of {@code file}, its digest verified (a changed byte fails naming the file). */
  public static ModelRecord readRecord(Configuration conf, Path file) throws IOException {
    ModelRecord r = readUnverified(conf, file);
    try {
      return ModelCodec.verify(r);
    } catch (IllegalArgumentException e) {
      throw new SodmException(file + ": " + e.getMessage());
    }
  }

  /** The model of {@code file}, its digest verified. */
  public static Model read(Configuration conf, Path file) throws IOException {
    return decode(file, readRecord(conf, file));
  }

  /**
   * A task's copy of the model its driver read with {@link #read} before submitting the job: the
   * distributed cache localises that same file (YARN refuses a file changed since submission), so
   * the task does not compute the digest again. A task in the driver's JVM (local mode) takes the
   * driver's decoded model itself when the driver {@link #share shared} it: models are immutable, and
   * decoding letter's 26-class model (3.6 MB) took 0.4 s per task.
   */
  public static Model readVerifiedByDriver(Configuration conf, Path file) throws IOException {
    String token = conf.get(SHARED_KEY);
    Model shared = token == null ? null : SHARED.get(token);
    if (shared != null) return shared;
    return decode(file, readUnverified(conf, file));
  }

  /** Job key: the token under which the driver's model is {@link #share shared} with tasks in its JVM. */
  static final String SHARED_KEY = "sodm.internal.predict.model.shared";
  private static final java.util.Map<String, Model> SHARED = new java.util.concurrent.ConcurrentHashMap<>();

  /** A model shared with a job's tasks until closed. */
  public interface Shared extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Shares {@code model} (the driver's {@link #read} of the job's model file) with the tasks of the job configured by
   * {@code jobConf} that run in this JVM, until closed; tasks elsewhere (YARN) read the file.
   */
  public static Shared share(Configuration jobConf, Model model) {
    String token = java.util.UUID.randomUUID().toString();
    SHARED.put(token, model);
    jobConf.set(SHARED_KEY, token);
    return () -> SHARED.remove(token);
  }

  /** Models shared at present (for tests: none is left behind by a finished job). */
  static int sharedCount() {
    return SHARED.size();
  }

  private static ModelRecord readUnverified(Configuration conf, Path file) throws IOException {
    try {
      return AvroFiles.readOne(conf, file, ModelRecord.class);
    } catch (IOException | RuntimeException e) {
      throw new SodmException(file + " is not a readable sodm model (damaged, truncated or not a model: restore it from a copy or "
          + "train again): " + Causes.describe(e, "reading " + file));
    }
  }

  private static Model decode(Path file, ModelRecord verified) {
    try {
      return ModelCodec.fromVerified(verified);
    } catch (IllegalArgumentException e) {
      throw new SodmException(file + ": " + e.getMessage());
    }
  }
}
