package org.sodm.cli;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.spec.Param;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "ingest", sortOptions = false,
    header = "Parse LIBSVM text, CSV or Avro into Avro rows with ids, a label map, per-feature statistics and a scaler.",
    description = {
        "Parse LIBSVM text, CSV or Avro (plain, .gz, .bz2, .xz) into Avro Instances with stable ids,",
        "a label map, per-feature statistics and (with --scale) a scaler. Map-only: uncompressed text files are split over several tasks.",
        "Output: OUT/data/*.avro, OUT/stats.avro, OUT/labels.avro, OUT/scaler.avro. Nothing is written on failure."})
public final class IngestCommand extends SodmCommand {
  @Option(names = {"-i", "--input"}, required = true, split = ",", paramLabel = "PATH",
      description = "Input files, directories or globs (repeat or separate with commas).")
  List<String> inputs;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Output directory (must not exist unless --overwrite).")
  String output;

  @Override
  protected List<Param> params() {
    List<Param> ps = new java.util.ArrayList<>();
    for (Param p : Param.of(Param.Group.INGEST)) if (!p.options().isEmpty()) ps.add(p);
    ps.add(Param.OVERWRITE);
    return ps;
  }

  @Override
  protected String quietSays() {
    return "";
  }

  @Override
  protected void applyOptions(Configuration conf) {
    // every option is a table parameter
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    IngestJob.Result r = IngestJob.run(conf, inputs, new Path(output));
    out().println(StatsCommand.summary(r, false));
    return 0;
  }
}
