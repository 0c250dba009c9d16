package org.sodm.cli;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.ingest.IngestJob;
import org.sodm.jobs.support.SodmConf;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "ingest", sortOptions = false,
    description = {
        "Parse LIBSVM text, CSV or Avro (plain, .gz, .bz2, .xz) into Avro Instances with stable ids,",
        "a label map, per-feature statistics and (with --scale) a scaler. Map-only, one task per file.",
        "Output: OUT/data/*.avro, OUT/stats.avro, OUT/labels.avro, OUT/scaler.avro. Nothing is written on failure."})
public final class IngestCommand extends SodmCommand {
  @Option(names = {"-i", "--input"}, required = true, split = ",", paramLabel = "PATH",
      description = "Input files, directories or globs (repeat or separate with commas).")
  List<String> inputs;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Output directory (must not exist unless --overwrite).")
  String output;

  @Option(names = "--format", paramLabel = "F", description = "auto | libsvm | csv | avro (sodm.ingest.format, default auto: by extension).")
  String format;

  @Option(names = "--label-column", paramLabel = "N", description = "CSV label column, 1-based, negative from the end (sodm.ingest.csv.label.column, default 1).")
  Integer labelColumn;

  @Option(names = "--delimiter", paramLabel = "C", description = "CSV delimiter, or 'tab' (sodm.ingest.csv.delimiter, default ,).")
  String delimiter;

  @Option(names = "--header", paramLabel = "auto|true|false", description = "CSV header line (sodm.ingest.csv.header, default auto).")
  String header;

  @Option(names = "--skip-bad-records", paramLabel = "N", description = "Skip up to N bad lines (counted, samples logged), fail past N (sodm.ingest.skip.bad.records, default 0).")
  Long skipBad;

  @Option(names = "--scale", paramLabel = "RANGE", description = "none | 0,1 | -1,1: scale features as svm-scale does (sodm.ingest.scale, default none).")
  String scale;

  @Option(names = "--overwrite", description = "Replace an existing output directory (sodm.overwrite).")
  Boolean overwrite;

  @Override
  protected void applyOptions(Configuration conf) {
    set(conf, SodmConf.INGEST_FORMAT, format);
    set(conf, SodmConf.INGEST_LABEL_COLUMN, labelColumn);
    set(conf, SodmConf.INGEST_DELIMITER, delimiter);
    set(conf, SodmConf.INGEST_HEADER, header);
    set(conf, SodmConf.INGEST_SKIP_BAD, skipBad);
    set(conf, SodmConf.INGEST_SCALE, scale);
    set(conf, SodmConf.OVERWRITE, overwrite);
  }

  @Override
  protected int execute(Configuration conf) throws Exception {
    IngestJob.Result r = IngestJob.run(conf, inputs, new Path(output));
    out().println(StatsCommand.summary(r, false));
    return 0;
  }
}
