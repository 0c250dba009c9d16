package org.sodm.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.ModelRecord;
import org.sodm.avro.Provenance;
import org.sodm.jobs.phase.TrainOutput;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.OutputDir;
import org.sodm.jobs.support.OutputGuard;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.support.Version;
import org.sodm.model.LibsvmImport;
import org.sodm.model.Model;
import org.sodm.model.ModelCodec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What import-libsvm and import-liblinear share: the model file read whole (its SHA-256 in the provenance, its path under
 * {@code sodm.import.FORMAT}), an optional svm-scale range file, and OUTPUT/model.avro written through an output directory
 * (nothing half-written; an existing output replaced only with --overwrite).
 */
abstract class ImportCommand extends SodmCommand {
  @Parameters(index = "0", paramLabel = "MODEL_FILE", description = "The model file (local or on a Hadoop file system).")
  String file;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Output directory (DIR/model.avro).")
  String output;

  @Option(names = "--range", paramLabel = "FILE", description = "An svm-scale range file (svm-scale -s FILE's): the model then scales "
      + "rows as svm-scale -r FILE does, so sodm predict takes the raw data.")
  String range;

  private final String name;
  private final String source;

  /**
   * @param name the command's name, for messages
   * @param source the provenance parameter naming the file a model was imported from
   */
  ImportCommand(String name, String source) {
    this.name = name;
    this.source = source;
  }

  /** The model in {@code r}, read from the file {@code qualified}; a malformed file throws IllegalArgumentException naming it. */
  abstract Model read(BufferedReader r, String qualified, Provenance provenance, org.sodm.data.Scaler scaler) throws IOException;

  /** What the summary line says of the model. */
  abstract String describe(Model m);

  @Override
  protected List<Param> params() {
    return List.of(Param.OVERWRITE);
  }

  @Override
  protected void applyOptions(Configuration conf) {}

  @Override
  protected int execute(Configuration conf) throws Exception {
    Path in = new Path(file);
    FileSystem ifs = in.getFileSystem(conf);
    Path qualified = ifs.makeQualified(in);
    if (!ifs.exists(qualified) || ifs.getFileStatus(qualified).isDirectory()) throw new SodmException(name + ": " + qualified + " is not a file");
    OutputGuard.checkDisjoint(conf, new Path(output), List.of(file), "model file");
    byte[] bytes;
    try (InputStream s = ifs.open(qualified)) {
      bytes = s.readAllBytes();
    }
    Map<String, String> params = new HashMap<>();
    params.put(source, qualified.toString());
    Provenance provenance = new Provenance(Version.get(), Instant.now().toString(), qualified.toString(), sha256(bytes), params,
        new ArrayList<>(), null);
    Model m;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(new java.io.ByteArrayInputStream(bytes), StandardCharsets.UTF_8))) {
      org.sodm.data.Scaler scaler = null;
      if (range != null) {
        Path rp = new Path(range);
        FileSystem rfs = rp.getFileSystem(conf);
        Path rq = rfs.makeQualified(rp);
        if (!rfs.exists(rq) || rfs.getFileStatus(rq).isDirectory()) throw new SodmException(name + ": --range " + rq + " is not a file");
        OutputGuard.checkDisjoint(conf, new Path(output), List.of(range), "range file");
        try (BufferedReader rr = new BufferedReader(new InputStreamReader(rfs.open(rq), StandardCharsets.UTF_8))) {
          scaler = LibsvmImport.readRange(rr, rq.toString());
        }
        params.put(source + ".range", rq.toString());
      }
      m = read(r, qualified.toString(), provenance, scaler);
    } catch (LibsvmImport.BadModelException e) {
      throw new SodmException(name + ": " + e.getMessage());
    }
    ModelRecord record = ModelCodec.toAvro(m);
    try (OutputDir od = OutputDir.create(conf, new Path(output), Param.OVERWRITE.booleanValue(conf))) {
      AvroFiles.writeOne(conf, new Path(od.temp(), TrainOutput.MODEL), ModelRecord.getClassSchema(), record);
      od.commit();
      out().println("sodm " + name + ": " + qualified + " (" + describe(m) + ") -> " + new Path(od.target(), TrainOutput.MODEL));
    }
    return 0;
  }

  private static String sha256(byte[] b) throws java.security.NoSuchAlgorithmException {
    return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(b));
  }
}
