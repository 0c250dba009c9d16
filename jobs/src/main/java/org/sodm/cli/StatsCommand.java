package org.sodm.cli;

import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.FeatureStats;
import org.sodm.avro.LabelCount;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.spec.Param;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "stats", sortOptions = false,
    header = "Print a readable summary of a data set (rows, features, labels, per-feature ranges).",
    description = {"Print a readable summary of a data set: rows, features, non-zeros, labels (with the file:line where each",
        "is first seen) and per-feature min, max, mean and non-zero count. DATA is an ingest directory (read as it is) or data",
        "files, directories or globs, read as sodm ingest reads them (--format, CSV and scaling options) into a temporary",
        "directory that is removed afterwards."})
public final class StatsCommand extends SodmCommand {
  @Parameters(index = "0", arity = "1", split = ",", paramLabel = "DATA",
      description = "An ingest output directory, or data files, directories or globs (separate with commas).")
  List<String> data;

  @Option(names = "--all", description = "List every feature (default: the first 20).")
  boolean all;

  @Override
  protected List<Param> params() {
    List<Param> ps = new java.util.ArrayList<>();
    for (Param p : Param.of(Param.Group.INGEST)) if (!p.options().isEmpty()) ps.add(p);
    return ps;
  }

  @Override
  protected void applyOptions(Configuration conf) {}

  @Override
  protected int execute(Configuration conf) throws Exception {
    if (data.size() == 1) {
      Path dir = new Path(data.get(0));
      FileSystem fs = dir.getFileSystem(conf);
      if (fs.exists(new Path(dir, IngestJob.STATS))) {
        out().println(summary(IngestJob.read(conf, dir), all));
        return 0;
      }
    }
    Path tmp = new Path(new java.io.File(System.getProperty("java.io.tmpdir"), "sodm-stats-" + java.util.UUID.randomUUID()).toURI());
    FileSystem fs = tmp.getFileSystem(conf);
    try {
      IngestJob.Result r = IngestJob.run(conf, data, tmp);
      out().println(summary(r, all).replace(r.dir().toString(), String.join(",", data)));
    } finally {
      fs.delete(tmp, true);
    }
    return 0;
  }

  static String summary(IngestJob.Result r, boolean all) {
    FeatureStats s = r.stats();
    StringBuilder sb = new StringBuilder();
    double density = s.getRows() == 0 || s.getDimension() == 0 ? 0 : (double) s.getNonZeros() / s.getRows() / s.getDimension();
    sb.append(String.format(Locale.ROOT, "data set   %s%n", r.dir()));
    sb.append(String.format(Locale.ROOT, "rows       %,d%n", s.getRows()));
    sb.append(String.format(Locale.ROOT, "features   %,d (largest index)%n", s.getDimension()));
    sb.append(String.format(Locale.ROOT, "non-zeros  %,d (%.1f per row, density %.4f)%n", s.getNonZeros(),
        s.getRows() == 0 ? 0.0 : (double) s.getNonZeros() / s.getRows(), density));
    if (s.getBadRecords() > 0) sb.append(String.format(Locale.ROOT, "skipped    %,d bad records%n", s.getBadRecords()));
    sb.append("labels\n");
    for (LabelCount l : s.getLabels()) {
      String signed = r.labelMap() == null ? "" : r.labelMap().signed(l.getLabel()) > 0 ? "  -> +1" : "  -> -1";
      sb.append(String.format(Locale.ROOT, "  %-10s %,10d  %5.1f%%  first at %s%s%n", l.getLabel(), l.getCount(),
          100.0 * l.getCount() / s.getRows(), l.getFirstSeen(), signed));
    }
    if (r.scaler() != null) {
      sb.append(String.format(Locale.ROOT, "scaler     to [%s, %s] (svm-scale rule)%n", fmt(r.scaler().lower()), fmt(r.scaler().upper())));
    }
    sb.append(String.format(Locale.ROOT, "%8s %12s %12s %12s %10s%n", "feature", "min", "max", "mean", "non-zero"));
    int shown = 0;
    for (FeatureStat f : s.getFeatures()) {
      if (!all && shown == 20) {
        sb.append(String.format(Locale.ROOT, "  ... %d more (--all)%n", s.getFeatures().size() - shown));
        break;
      }
      sb.append(String.format(Locale.ROOT, "%8d %12.6g %12.6g %12.6g %10d%n", f.getIndex(), f.getMin(), f.getMax(),
          f.getSum() / s.getRows(), f.getNonZeros()));
      shown++;
    }
    return sb.toString().stripTrailing();
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
