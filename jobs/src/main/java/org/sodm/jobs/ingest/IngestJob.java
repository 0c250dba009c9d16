package org.sodm.jobs.ingest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sodm.avro.FeatureStats;
import org.sodm.avro.Instance;
import org.sodm.avro.LabelMapRecord;
import org.sodm.avro.ScalerRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.LabelMap;
import org.sodm.data.Scaler;
import org.sodm.data.StatsAccumulator;
import org.sodm.jobs.support.AvroFiles;
import org.sodm.jobs.support.JobFailure;
import org.sodm.jobs.support.Jobs;
import org.sodm.jobs.support.OutputDir;
import org.sodm.jobs.support.OutputGuard;
import org.sodm.jobs.support.SodmConf;
import org.sodm.jobs.support.SodmException;
import org.sodm.jobs.support.XzCodec;

/**
 * The ingest job (map-only, one task per input file): LIBSVM text, CSV or Avro in; an ingest
 * directory out:
 *
 * <pre>
 * OUT/data/part-m-NNNNN.avro   Instances (id, canonical label, sparse features)
 * OUT/stats.avro               FeatureStats (rows, dimension, non-zeros, labels, per-feature min/max/sum)
 * OUT/labels.avro              LabelMapRecord, when exactly two labels were found (the classes of more: stats.avro's labels)
 * OUT/scaler.avro              ScalerRecord, when --scale was given
 * </pre>
 *
 * The directory appears only when everything succeeded (written under a temporary name first).
 */
public final class IngestJob {
  private static final Logger LOG = LoggerFactory.getLogger(IngestJob.class);
  public static final String DATA = "data";
  public static final String STATS = "stats.avro";
  public static final String LABELS = "labels.avro";
  public static final String SCALER = "scaler.avro";

  /** What an ingest produced. */
  public record Result(Path dir, FeatureStats stats, LabelMap labelMap, Scaler scaler, double seconds) {
    /** The same artifacts in {@code dir} (where the phase moved the directory they were written to). */
    public Result at(Path dir) {
      return new Result(dir, stats, labelMap, scaler, seconds);
    }
  }

  private IngestJob() {}

  /**
   * Resolves the inputs (files, directories, globs) to a sorted list of qualified files: a file's place in it is its ordinal,
   * part of its rows' ids, so the same inputs in any order give the same ids and model.
   */
  static List<Path> inputFiles(Configuration conf, List<String> inputs) throws IOException {
    List<String> files = new ArrayList<>(givenFiles(conf, inputs));
    java.util.Collections.sort(files);
    List<Path> out = new ArrayList<>();
    for (String f : files) out.add(new Path(f));
    return out;
  }

  /**
   * The place of each file of {@link #inputFiles} (by ordinal) in the order the inputs were given: the inputs in their order,
   * a directory's or glob's files sorted, a file named twice where first named. {@code predict --text} writes its lines so.
   */
  public static int[] givenOrder(Configuration conf, List<String> inputs) throws IOException {
    List<String> given = new ArrayList<>(givenFiles(conf, inputs));
    java.util.Map<String, Integer> at = new java.util.HashMap<>();
    for (int i = 0; i < given.size(); i++) at.put(given.get(i), i);
    List<String> sorted = new ArrayList<>(given);
    java.util.Collections.sort(sorted);
    int[] place = new int[sorted.size()];
    for (int i = 0; i < place.length; i++) place[i] = at.get(sorted.get(i)); // a directory of many files: no list search per file
    return place;
  }

  /**
   * What an input path or glob matches; fails with "{@code what} {@code in} does not exist{@code more}" when nothing.
   */
  public static FileStatus[] matches(Configuration conf, String in, String what, String more) throws IOException {
    Path p = new Path(in);
    FileStatus[] m = p.getFileSystem(conf).globStatus(p);
    if (m == null || m.length == 0) throw new SodmException(what + " " + in + " does not exist" + more);
    return m;
  }

  /** The qualified files the inputs name, in the order given (a directory's or glob's sorted), each once. */
  private static java.util.LinkedHashSet<String> givenFiles(Configuration conf, List<String> inputs) throws IOException {
    java.util.LinkedHashSet<String> files = new java.util.LinkedHashSet<>();
    for (String in : inputs) {
      Path p = new Path(in);
      FileSystem fs = p.getFileSystem(conf);
      FileStatus[] matches = matches(conf, in, "input", "");
      TreeSet<String> named = new TreeSet<>();
      for (FileStatus m : matches) {
        if (m.isDirectory()) {
          for (FileStatus f : fs.listStatus(m.getPath())) {
            String n = f.getPath().getName();
            if (f.isFile() && !n.startsWith("_") && !n.startsWith(".")) named.add(f.getPath().toString());
          }
        } else {
          named.add(m.getPath().toString());
        }
      }
      files.addAll(named);
    }
    if (files.isEmpty()) throw new SodmException("input " + inputs + " contains no files");
    return files;
  }

  /** Internal: the parameter that set sodm.ingest.max.labels, named by the too-many-labels message (sodm train: sodm.train.max.classes). */
  public static final String MAX_LABELS_NAME = "sodm.internal.ingest.max.labels.name";

  /** "a third distinct label", or "distinct label number n". */
  static String nthLabel(int n) {
    return n == 3 ? "a third distinct label" : "distinct label number " + n;
  }

  /** The tail of the too-many-labels message: the limit and the parameter that raises it. */
  static String limitText(Configuration conf, int max) {
    String name = conf.get(MAX_LABELS_NAME, SodmConf.INGEST_MAX_LABELS);
    return "at most " + max + " distinct labels are allowed (" + name + ")";
  }

  /** Format of one file: the configured one, or by extension when "auto". */
  static String formatOf(String configured, Path file) {
    String f = configured.toLowerCase(Locale.ROOT);
    if (!f.equals("auto")) {
      if (!f.equals("libsvm") && !f.equals("csv") && !f.equals("avro")) {
        throw new SodmException(SodmConf.INGEST_FORMAT + " (--format) must be auto, libsvm, csv or avro; got '" + configured + "'");
      }
      return f;
    }
    String n = file.getName().toLowerCase(Locale.ROOT).replaceAll("\\.(gz|bz2|xz)$", "");
    if (n.endsWith(".avro")) return "avro";
    if (n.endsWith(".csv") || n.endsWith(".tsv")) return "csv";
    return "libsvm";
  }

  /** Runs the ingest. Options come from {@code conf} (see sodm-default.xml, sodm.ingest.*). */
  public static Result run(Configuration base, List<String> inputs, Path output) throws IOException {
    Configuration conf = new Configuration(base);
    double[] range = parseScale(conf);
    OutputGuard.checkDisjoint(conf, output, inputs, "input");
    return run(Parse.prepare(conf, inputs), range, output);
  }

  /** Runs the ingest of inputs already listed and checked ({@link Parse#prepare}; its configuration holds the options). */
  public static Result run(Parse files, Path output) throws IOException {
    double[] range = parseScale(files.conf());
    OutputGuard.checkDisjoint(files.conf(), output, files.inputs(), "input");
    return run(files, range, output);
  }

  private static Result run(Parse files, double[] range, Path output) throws IOException {
    AvroClasses.trust();
    long t0 = System.nanoTime();
    Configuration conf = files.conf();
    List<String> inputs = files.inputs();
    boolean overwrite = conf.getBoolean(SodmConf.OVERWRITE, false);

    try (OutputDir out = OutputDir.create(conf, output, overwrite)) {
      Path data = new Path(out.temp(), DATA);
      conf.set(JobFailure.DIR_KEY, new Path(out.temp(), "_failures").toString());
      Path sampleParts = new Path(out.temp(), "_samples");
      if (IngestTask.sampleSize(conf) > 0) conf.set(IngestTask.SAMPLE_PARTS_KEY, sampleParts.toString());
      Parse parse = files.statsUnder(out.temp());
      Job job = parse.job("sodm ingest " + inputs, IngestMapper.class, Instance.getClassSchema(), data);
      LOG.info("ingest: {} file(s) -> {}", parse.files().size(), output);
      Jobs.run(job, "ingest");

      StatsAccumulator total = parse.finish();
      if (IngestTask.sampleSize(conf) > 0) mergeSamples(conf, sampleParts, new Path(out.temp(), sampleDirName(conf)));
      FeatureStats stats = total.toAvro();
      // uncompressed, as the ingested data beside it: read back at once, and a record per feature (2M features: 60 MB that
      // deflate took 0.8 s to write)
      AvroFiles.writeUncompressed(conf, new Path(out.temp(), STATS), FeatureStats.getClassSchema(), List.of(stats));
      LabelMap map = null;
      if (total.labelCount() == 2) {
        map = LabelMap.of(total.labels());
        AvroFiles.writeOne(conf, new Path(out.temp(), LABELS), LabelMapRecord.getClassSchema(), map.toAvro());
      } else {
        LOG.info("ingest: {} distinct label(s) {}: no binary label map written (the classes are stats.avro's labels)", total.labelCount(),
            total.labels());
      }
      Scaler scaler = null;
      if (range != null) {
        scaler = Scaler.fromStats(stats, range[0], range[1]);
        AvroFiles.writeOne(conf, new Path(out.temp(), SCALER), ScalerRecord.getClassSchema(), scaler.toAvro());
      }
      FileSystem fs = out.temp().getFileSystem(conf);
      fs.delete(new Path(out.temp(), "_failures"), true);
      out.commit();
      double secs = (System.nanoTime() - t0) / 1e9;
      LOG.info(String.format(Locale.ROOT, "ingest: %d rows, %d features, %d non-zeros, labels %s, %d bad skipped, %.1f s",
          stats.getRows(), stats.getDimension(), stats.getNonZeros(), total.labels(), stats.getBadRecords(), secs));
      return new Result(out.target(), stats, map, scaler, secs);
    }
  }

  /**
   * One parse of the input files by map tasks (the ingest's, or a job that uses each row at once,
   * such as predict's scoring of raw input): the configuration every parsing task reads (files,
   * formats, split size, statistics directory under {@code temp}), the job, and the merged
   * statistics with the checks of the whole input (empty, bad records, labels).
   */
  public record Parse(Configuration conf, List<String> inputs, List<Path> files, String[] names, long maxBad, Path statsDir) {
    /** Validates the options and the inputs and sets the parsing keys on {@code conf}; then {@link #statsUnder}. */
    public static Parse prepare(Configuration conf, List<String> inputs) throws IOException {
      long maxBad = SodmConf.requireLong(conf, SodmConf.INGEST_SKIP_BAD);
      if (maxBad < 0) throw new SodmException(SodmConf.INGEST_SKIP_BAD + " (--skip-bad-records) must be >= 0, got " + maxBad);
      List<Path> files = inputFiles(conf, inputs);
      String format = SodmConf.require(conf, SodmConf.INGEST_FORMAT);
      String codecs = conf.get("io.compression.codecs", "");
      if (!codecs.contains(XzCodec.class.getName())) {
        conf.set("io.compression.codecs", (codecs.isEmpty() ? "" : codecs + ",") + XzCodec.class.getName());
      }
      Jobs.localParallelism(conf);
      conf.setBoolean("mapreduce.map.speculative", false);
      // split size fixed by sodm, not by the file system's block size: the parts are then the same everywhere
      long splitBytes = org.sodm.jobs.spec.Param.INGEST_SPLIT_BYTES.longValue(conf);
      conf.setLong(FileInputFormat.SPLIT_MINSIZE, splitBytes);
      conf.setLong(FileInputFormat.SPLIT_MAXSIZE, splitBytes);
      String[] names = new String[files.size()];
      for (int i = 0; i < names.length; i++) names[i] = files.get(i).toString();
      conf.setStrings(IngestTask.FILES_KEY, names);
      for (Path f : files) conf.set(IngestMapper.FORMATS_KEY + "." + f, formatOf(format, f));
      List<Path> csvFiles = files.stream().filter(f -> formatOf(format, f).equals("csv")).toList();
      if (csvFiles.size() > 1) {
        // every CSV file's first line is compared with the first file's (same header, same number of columns)
        String first = IngestMapper.firstLine(conf, csvFiles.get(0));
        if (first != null) conf.set(IngestMapper.CSV_FIRST_KEY, csvFiles.get(0) + "\n" + first);
      }
      if (!csvFiles.isEmpty()) {
        try {
          IngestMapper.csvParser(conf); // validate options before the job starts
        } catch (IllegalArgumentException e) {
          throw new SodmException(e.getMessage());
        }
      }
      return new Parse(conf, inputs, files, names, maxBad, null);
    }

    /** Whether every file is uncompressed text (LIBSVM, CSV), which map tasks read in splits of any size. */
    public boolean splittable() {
      CompressionCodecFactory codecs = new CompressionCodecFactory(conf);
      for (Path f : files) {
        if (conf.get(IngestMapper.FORMATS_KEY + "." + f, "libsvm").equals("avro") || codecs.getCodec(f) != null) return false;
      }
      return true;
    }

    /** The tasks write their statistics under {@code temp}/_stats (a temporary directory of the caller's output). */
    public Parse statsUnder(Path temp) {
      Path dir = new Path(temp, "_stats");
      conf.set(IngestTask.STATS_DIR_KEY, dir.toString());
      return new Parse(conf, inputs, files, names, maxBad, dir);
    }

    /** The map-only job of {@code mapper} (an {@link IngestMapper}) over the files, writing Avro of {@code schema} to {@code out}. */
    @SuppressWarnings("rawtypes")
    public Job job(String name, Class<? extends IngestMapper> mapper, org.apache.avro.Schema schema, Path out) throws IOException {
      Job job = Jobs.newJob(conf, name);
      job.setJarByClass(IngestJob.class);
      FileInputFormat.setInputPaths(job, files.toArray(new Path[0]));
      job.setInputFormatClass(IngestInputFormat.class);
      job.setMapperClass(mapper);
      job.setNumReduceTasks(0);
      job.setOutputFormatClass(org.sodm.jobs.support.UncountedAvroOutputFormat.class);
      AvroJob.setOutputKeySchema(job, schema);
      FileOutputFormat.setOutputPath(job, out);
      return job;
    }

    /** After the job: the tasks' statistics merged; fails on an empty input, too many bad records or labels. */
    public StatsAccumulator finish() throws IOException {
      StatsAccumulator total = mergeStats(conf, statsDir, names);
      if (total.rows() == 0) throw new SodmException("empty input: no rows in " + inputs);
      if (total.badRecords() > maxBad) {
        throw new SodmException(total.badRecords() + " bad records in all, more than --skip-bad-records " + maxBad);
      }
      int maxLabels = (int) SodmConf.requireLong(conf, SodmConf.INGEST_MAX_LABELS);
      List<String> byAppearance = total.labelsByAppearance();
      if (byAppearance.size() > maxLabels) {
        String third = byAppearance.get(maxLabels);
        throw new SodmException(total.firstSeen(third) + ": label '" + third + "' is " + nthLabel(maxLabels + 1) + " (after "
            + byAppearance.subList(0, maxLabels) + "); " + limitText(conf, maxLabels));
      }
      return total;
    }
  }

  /**
   * false: the ingest draws no per-file row sample (a training whose method never reads it, a validation set); the
   * {@code sodm ingest} command and the kernel methods keep the default, true.
   */
  public static final String SAMPLE_KEY = "sodm.internal.ingest.sample";

  /**
   * The directory (in an ingest directory) of the per-file row samples drawn with this
   * configuration's candidate count and seed: {@code sample-c<candidates>-s<seed>/sample-fNNNNNN.avro},
   * each a seeded reservoir sample of one input file's Instances in id order. Training selects its
   * landmarks from them without another pass over the data (LandmarkJob.fromSample).
   */
  public static String sampleDirName(Configuration conf) {
    return "sample-c" + IngestTask.sampleSize(conf) + "-s" + conf.getLong(SodmConf.SEED, 1);
  }

  /** The per-file sample files ({@code sample-f*.avro}) in {@code ingestDir}'s {@link #sampleDirName}, sorted; none when it has no sample. */
  public static List<Path> sampleFiles(Configuration conf, Path ingestDir) throws IOException {
    Path dir = new Path(ingestDir, sampleDirName(conf));
    FileSystem fs = dir.getFileSystem(conf);
    List<Path> files = new ArrayList<>();
    if (!fs.isDirectory(dir)) return files;
    for (FileStatus f : fs.listStatus(dir)) {
      String name = f.getPath().getName();
      if (name.startsWith("sample-f") && name.endsWith(".avro")) files.add(f.getPath());
    }
    files.sort(null);
    return files;
  }

  static double[] parseScale(Configuration conf) {
    try {
      return Scaler.parseRange(SodmConf.require(conf, SodmConf.INGEST_SCALE));
    } catch (IllegalArgumentException e) {
      throw new SodmException(SodmConf.INGEST_SCALE + " (--scale): " + e.getMessage());
    }
  }

  /**
   * Merges the per-split statistics (in file and split order) and removes them. A label's first
   * occurrence recorded by a split that does not start its file carries a split-relative line:
   * made absolute here from the line counts of the file's earlier splits (in the stats file names).
   */
  static StatsAccumulator mergeStats(Configuration conf, Path statsDir, String[] files) throws IOException {
    FileSystem fs = statsDir.getFileSystem(conf);
    StatsAccumulator total = new StatsAccumulator();
    List<Path> statsFiles = new ArrayList<>();
    if (fs.exists(statsDir)) {
      for (FileStatus f : fs.listStatus(statsDir)) {
        if (IngestTask.isStatsFile(f.getPath().getName())) statsFiles.add(f.getPath());
      }
    }
    statsFiles.sort(null); // zero-padded ordinal, then start
    long linesBefore = 0;
    long lastOrdinal = -1;
    for (Path p : statsFiles) {
      long[] osn = IngestTask.parseStatsFileName(p.getName());
      if (osn[0] != lastOrdinal) linesBefore = 0;
      lastOrdinal = osn[0];
      long before = linesBefore;
      IngestTask.mergeStats(conf, p, total, where -> where != null && !where.isEmpty() && where.charAt(0) == IngestTask.RELATIVE
          ? files[(int) osn[0]] + ":" + (before + Long.parseLong(where.substring(1))) : where);
      linesBefore += osn[2];
    }
    fs.delete(statsDir, true);
    return total;
  }

  /**
   * Merges the tasks' parts of each file's sample (bottom-k by a seeded hash of the id, so the
   * merge is exactly the sample of the whole file whatever the splits) into
   * {@code sample-fNNNNNN.avro}, in id order, and removes the parts.
   */
  static void mergeSamples(Configuration conf, Path parts, Path sampleDir) throws IOException {
    FileSystem fs = parts.getFileSystem(conf);
    if (!fs.exists(parts)) return;
    java.util.TreeMap<Integer, org.sodm.data.BottomK<Instance>> byFile = new java.util.TreeMap<>();
    int k = IngestTask.sampleSize(conf);
    for (FileStatus f : fs.listStatus(parts)) {
      String name = f.getPath().getName();
      if (!name.startsWith("part-f") || !name.endsWith(".avro")) continue;
      int ordinal = IngestTask.samplePartOrdinal(name);
      long seed = IngestTask.sampleSeed(conf, ordinal);
      org.sodm.data.BottomK<Instance> s = byFile.computeIfAbsent(ordinal, o -> new org.sodm.data.BottomK<>(k));
      for (Instance in : AvroFiles.readAll(conf, f.getPath(), Instance.class)) {
        s.offer(org.sodm.data.Seeds.ingestSampleRank(seed, in.getId()), in);
      }
    }
    for (var e : byFile.entrySet()) {
      List<Instance> rows = new ArrayList<>(e.getValue().items());
      rows.sort((a, b) -> Long.compare(a.getId(), b.getId()));
      AvroFiles.write(conf, new Path(sampleDir, IngestTask.sampleFileName(e.getKey())), Instance.getClassSchema(), rows);
    }
    fs.delete(parts, true);
  }

  /** Reads an ingest directory's artifacts. */
  public static Result read(Configuration conf, Path dir) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    Path statsPath = new Path(dir, STATS);
    if (!fs.exists(statsPath)) throw new SodmException(dir + " is not an ingest directory (no " + STATS + ")");
    FeatureStats stats = AvroFiles.readOne(conf, statsPath, FeatureStats.class);
    LabelMap map = fs.exists(new Path(dir, LABELS)) ? readLabels(conf, dir) : null;
    return new Result(fs.makeQualified(dir), stats, map, readScaler(conf, dir), 0);
  }

  /** The label map of an ingest directory (fails naming the file when it has none). */
  public static LabelMap readLabels(Configuration conf, Path dir) throws IOException {
    AvroClasses.trust();
    return LabelMap.fromAvro(AvroFiles.readOne(conf, new Path(dir, LABELS), LabelMapRecord.class));
  }

  /** The scaler of an ingest directory, or null when it was ingested without --scale. */
  public static Scaler readScaler(Configuration conf, Path dir) throws IOException {
    AvroClasses.trust();
    Path sp = new Path(dir, SCALER);
    return sp.getFileSystem(conf).exists(sp) ? Scaler.fromAvro(AvroFiles.readOne(conf, sp, ScalerRecord.class)) : null;
  }
}
