package org.sodm.jobs.train;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.BlockStats;
import org.sodm.avro.TrainRecord;
import org.sodm.jobs.support.AvroFiles;

/** Reading the records and statistics of the training phases. */
final class TrainIO {
  private TrainIO() {}

  static boolean isSupportVector(TrainRecord r) {
    double g = 0;
    List<Double> a = r.getAlpha();
    if (a.size() == 1) return a.get(0) != 0;
    if (a.size() == 2) g = a.get(0) - a.get(1);
    return g != 0;
  }

  /** Signed coefficient gamma_i of the prediction function (hinge: alpha; ODM: zeta - beta), times y. */
  static double coef(TrainRecord r) {
    List<Double> a = r.getAlpha();
    double g = a.size() == 1 ? a.get(0) : a.get(0) - a.get(1);
    return r.getY() * g;
  }

  /** All records of a directory of Avro part files. */
  static List<TrainRecord> readRecords(Configuration conf, Path dir) throws IOException {
    return AvroFiles.readDir(conf, dir, TrainRecord.class);
  }

  static List<BlockStats> readStats(Configuration conf, Path dir) throws IOException {
    List<BlockStats> out = AvroFiles.readDir(conf, dir, BlockStats.class);
    out.sort((a, b) -> Integer.compare(a.getBlock(), b.getBlock()));
    return out;
  }
}
