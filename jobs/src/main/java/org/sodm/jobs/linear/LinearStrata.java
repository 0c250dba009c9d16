package org.sodm.jobs.linear;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.Reservoir;
import org.sodm.data.Scaler;
import org.sodm.data.Seeds;
import org.sodm.data.SparseVector;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.kernel.Kernel;
import org.sodm.partition.LandmarkSelector;
import org.sodm.partition.Landmarks;
import org.sodm.partition.StratumAssigner;

/**
 * DSVRG's stratified partition (seed 000 Algorithm 2, lines 1-2, the partition of Algorithm 1):
 * S landmarks (eq. 8, {@code --landmarks}) selected in the driver from the ingest's row sample
 * (or, when the ingest has none for this seed and candidate count, a seeded reservoir sample of
 * {@code --landmark-candidates} rows read here); every row's stratum is its nearest landmark
 * (eq. 7), and the partition job deals each (stratum, class) pair evenly over the K blocks
 * ({@link org.sodm.partition.StreamingStratifiedAssigner}, one stream per ingested part).
 */
final class LinearStrata {
  static final String FILE = "landmarks.avro";

  private LinearStrata() {}

  /** Selects the landmarks and writes them to {@code file} (TrainRecords, stratum = index); returns their number. */
  static int select(Configuration conf, Path ingestDir, Path file) throws IOException {
    TrainSpec spec = TrainSpec.of(conf);
    Path dir = new Path(ingestDir, IngestJob.sampleDirName(conf));
    FileSystem fs = dir.getFileSystem(conf);
    List<Instance> rows = new ArrayList<>();
    if (fs.isDirectory(dir)) {
      for (Path p : AvroFiles.dataFiles(conf, dir)) if (p.getName().endsWith(".avro")) rows.addAll(AvroFiles.readAll(conf, p, Instance.class));
    } else {
      Reservoir<Instance> r = new Reservoir<>(spec.tree().candidates(), Seeds.offset(spec.seed(), 0x4C494E4C4D4BL),
          in -> Instance.newBuilder(in).build());
      AvroFiles.forEach(conf, new Path(ingestDir, IngestJob.DATA), Instance.class, r::offer);
      rows.addAll(r.items());
    }
    if (rows.isEmpty()) throw new IOException("no rows to select landmarks from in " + ingestDir);
    rows.sort((a, b) -> Long.compare(a.getId(), b.getId()));
    Scaler scaler = IngestJob.readScaler(conf, ingestDir);
    SparseVector[] x = new SparseVector[rows.size()];
    for (int i = 0; i < x.length; i++) {
      SparseVector v = Instances.features(rows.get(i).getFeatures());
      x[i] = scaler == null ? v : scaler.apply(v);
    }
    Landmarks lm = LandmarkSelector.select(x, spec.resolvedKernel().create(), Math.min(spec.tree().landmarks(), x.length), spec.seed());
    int[] src = lm.sourceIndex();
    List<TrainRecord> out = new ArrayList<>(src.length);
    for (int t = 0; t < src.length; t++) {
      out.add(TrainRecord.newBuilder().setId(rows.get(src[t]).getId()).setY(0.0).setFeatures(Instances.toAvro(x[src[t]])).setStratum(t)
          .setBlock(-1).setAlpha(List.of()).build());
    }
    AvroFiles.write(conf, file, TrainRecord.getClassSchema(), out);
    return out.size();
  }

  /** The strata of the landmarks written by {@link #select}. */
  static StratumAssigner read(Configuration conf, Path file, Kernel k) throws IOException {
    List<TrainRecord> lm = AvroFiles.readAll(conf, file, TrainRecord.class);
    lm.sort((a, b) -> Integer.compare(a.getStratum(), b.getStratum()));
    SparseVector[] pts = new SparseVector[lm.size()];
    for (int i = 0; i < pts.length; i++) pts[i] = Instances.features(lm.get(i).getFeatures());
    return new StratumAssigner(k, pts);
  }
}
