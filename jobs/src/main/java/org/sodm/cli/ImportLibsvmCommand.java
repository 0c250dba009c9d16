package org.sodm.cli;

import java.io.BufferedReader;
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
import org.sodm.model.MulticlassModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "import-libsvm",
    header = "Read a LIBSVM model file (svm-train's) into a sodm model for sodm predict.",
    description = {
    "Read a model file written by svm-train (C-SVC or nu-SVC; linear, polynomial, rbf or sigmoid kernel; two or more",
    "classes; with -b 1's probability estimates or without) into OUTPUT/model.avro, so that sodm predict scores data in",
    "HDFS with it as svm-predict would: predict --text writes svm-predict's output file, with -b 1 models svm-predict -b 1's",
    "(the pairwise probabilities coupled as LIBSVM couples them). With --range (svm-scale's range file) the model scales rows as svm-scale -r does and takes the raw",
    "data; without it, give it data scaled as svm-predict's was. The inverse of export-libsvm."})
public final class ImportLibsvmCommand extends SodmCommand {
  /** The provenance parameter naming the LIBSVM model file a model was imported from. */
  static final String SOURCE = "sodm.import.libsvm";

  @Parameters(index = "0", paramLabel = "MODEL_FILE", description = "A LIBSVM model file (local or on a Hadoop file system).")
  String file;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Output directory (DIR/model.avro).")
  String output;

  @Option(names = "--range", paramLabel = "FILE", description = "An svm-scale range file (svm-scale -s FILE's): the model then scales "
      + "rows as svm-scale -r FILE does, so sodm predict takes the raw data.")
  String range;

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
    if (!ifs.exists(qualified) || ifs.getFileStatus(qualified).isDirectory()) throw new SodmException("import-libsvm: " + qualified + " is not a file");
    OutputGuard.checkDisjoint(conf, new Path(output), List.of(file), "model file");
    byte[] bytes;
    try (InputStream s = ifs.open(qualified)) {
      bytes = s.readAllBytes();
    }
    Map<String, String> params = new HashMap<>();
    params.put(SOURCE, qualified.toString());
    Provenance provenance = new Provenance(Version.get(), Instant.now().toString(), qualified.toString(), sha256(bytes), params,
        new ArrayList<>(), null);
    Model m;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(new java.io.ByteArrayInputStream(bytes), StandardCharsets.UTF_8))) {
      org.sodm.data.Scaler scaler = null;
      if (range != null) {
        Path rp = new Path(range);
        FileSystem rfs = rp.getFileSystem(conf);
        Path rq = rfs.makeQualified(rp);
        if (!rfs.exists(rq) || rfs.getFileStatus(rq).isDirectory()) throw new SodmException("import-libsvm: --range " + rq + " is not a file");
        OutputGuard.checkDisjoint(conf, new Path(output), List.of(range), "range file");
        try (BufferedReader rr = new BufferedReader(new InputStreamReader(rfs.open(rq), StandardCharsets.UTF_8))) {
          scaler = LibsvmImport.readRange(rr, rq.toString());
        }
        params.put(SOURCE + ".range", rq.toString());
      }
      m = LibsvmImport.read(r, qualified.toString(), provenance, scaler);
    } catch (LibsvmImport.BadModelException e) {
      throw new SodmException("import-libsvm: " + e.getMessage());
    }
    ModelRecord record = ModelCodec.toAvro(m);
    try (OutputDir od = OutputDir.create(conf, new Path(output), Param.OVERWRITE.booleanValue(conf))) {
      AvroFiles.writeOne(conf, new Path(od.temp(), TrainOutput.MODEL), ModelRecord.getClassSchema(), record);
      od.commit();
      String what = m instanceof MulticlassModel mm
          ? mm.classes().size() + " classes, one-vs-one, " + mm.distinctSupportVectors() + " support vectors"
              + (mm.hasProbabilities() ? ", with probabilities" : "")
          : "2 classes, " + m.supportVectors() + " support vectors";
      out().println("sodm import-libsvm: " + qualified + " (" + what + ") -> " + new Path(od.target(), TrainOutput.MODEL));
    }
    return 0;
  }

  private static String sha256(byte[] b) throws java.security.NoSuchAlgorithmException {
    return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(b));
  }
}
