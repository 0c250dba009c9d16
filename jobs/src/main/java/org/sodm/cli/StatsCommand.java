package org.sodm.cli;

import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.avro.FeatureStat;
import org.sodm.avro.FeatureStats;
import org.sodm.avro.LabelCount;
import org.sodm.jobs.ingest.IngestJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "stats", description = "Print a readable summary of an ingested data set (rows, features, labels, per-feature ranges).")
public final class StatsCommand extends SodmCommand {
  @Parameters(index = "0", paramLabel = "DIR", description = "An ingest output directory.")
  String dir;

  @Option(names = "--all", description = "List every feature (default: the first 20).")
  boolean all;

  @Override
  protected void applyOptions(Configuration conf) {}

  @Override
  protected int execute(Configuration conf) throws Exception {
    out().println(summary(IngestJob.read(conf, new Path(dir)), all));
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
