package org.sodm.jobs.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.data.AvroClasses;

/** Small Avro container files on any Hadoop FileSystem: artifacts (stats, label map, scaler, model). */
public final class AvroFiles {
  private AvroFiles() {}

  static {
    AvroClasses.trust();
  }

  /** Instances through {@link org.sodm.data.InstanceReader} (no boxed number per feature), any other record through Avro's. */
  @SuppressWarnings("unchecked")
  private static <T extends SpecificRecord> org.apache.avro.io.DatumReader<T> reader(Class<T> type) {
    return type == org.sodm.avro.Instance.class ? (org.apache.avro.io.DatumReader<T>) new org.sodm.data.InstanceReader()
        : new SpecificDatumReader<>(type);
  }

  /** Instances through {@link org.sodm.data.InstanceWriter} (Avro's bytes, a record at a time), any other record through Avro's. */
  @SuppressWarnings("unchecked")
  private static <T extends SpecificRecord> org.apache.avro.io.DatumWriter<T> writer(Schema schema) {
    return org.sodm.avro.Instance.getClassSchema().equals(schema) ? (org.apache.avro.io.DatumWriter<T>) new org.sodm.data.InstanceWriter()
        : new SpecificDatumWriter<T>(schema);
  }

  public static CodecFactory codec(Configuration conf) {
    String c = conf.getTrimmed(SodmConf.AVRO_CODEC, "deflate");
    try {
      return c.equals("deflate") ? CodecFactory.deflateCodec(1) : CodecFactory.fromString(c);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(SodmConf.AVRO_CODEC + ": unknown codec '" + c + "'");
    }
  }

  public static <T extends SpecificRecord> void write(Configuration conf, Path file, Schema schema, List<T> records)
      throws IOException {
    write(conf, file, schema, records, codec(conf));
  }

  /**
   * Records uncompressed whatever {@code sodm.avro.codec} says, for files read back at once: a task's part that the driver
   * merges (the ingest's per-split samples) and the ingest's per-feature statistics (2M features: 60 MB that deflate took
   * 0.8 s to write).
   */
  public static <T extends SpecificRecord> void writeUncompressed(Configuration conf, Path file, Schema schema, List<T> records)
      throws IOException {
    write(conf, file, schema, records, CodecFactory.nullCodec());
  }

  private static <T extends SpecificRecord> void write(Configuration conf, Path file, Schema schema, List<T> records,
      CodecFactory codec) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    try (OutputStream out = fs.create(file, true);
        DataFileWriter<T> w = new DataFileWriter<>(writer(schema))) {
      w.setCodec(codec);
      w.create(schema, out);
      for (T r : records) w.append(r);
    }
  }

  public static <T extends SpecificRecord> void writeOne(Configuration conf, Path file, Schema schema, T record)
      throws IOException {
    write(conf, file, schema, List.of(record));
  }

  public static <T extends SpecificRecord> List<T> readAll(Configuration conf, Path file, Class<T> type)
      throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    List<T> out = new ArrayList<>();
    try (InputStream in = fs.open(file);
        DataFileStream<T> r = new DataFileStream<>(in, reader(type))) {
      while (r.hasNext()) out.add(r.next());
    } catch (IOException | RuntimeException e) {
      throw new IOException(file + ": cannot read " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
    return out;
  }

  public static <T extends SpecificRecord> T readOne(Configuration conf, Path file, Class<T> type) throws IOException {
    List<T> all = readAll(conf, file, type);
    if (all.size() != 1) throw new IOException(file + ": expected one " + type.getSimpleName() + " record, found " + all.size());
    return all.get(0);
  }

  /** Streams every record of the .avro data files of a directory (in file-name order) to {@code sink}. */
  public static <T extends SpecificRecord> void forEach(Configuration conf, Path dir, Class<T> type,
      java.util.function.Consumer<T> sink) throws IOException {
    forEach(conf, dir, type, sink, Long.MAX_VALUE);
  }

  /** The first {@code limit} records of the .avro data files of a directory (in file-name order); reads no further. */
  public static <T extends SpecificRecord> List<T> readFirst(Configuration conf, Path dir, Class<T> type, int limit) throws IOException {
    List<T> out = new ArrayList<>();
    forEach(conf, dir, type, out::add, limit);
    return out;
  }

  private static <T extends SpecificRecord> void forEach(Configuration conf, Path dir, Class<T> type,
      java.util.function.Consumer<T> sink, long limit) throws IOException {
    long n = 0;
    for (Path p : dataFiles(conf, dir)) {
      if (n >= limit) return;
      if (!p.getName().endsWith(".avro")) continue;
      FileSystem fs = p.getFileSystem(conf);
      try (InputStream in = fs.open(p);
          DataFileStream<T> r = new DataFileStream<>(in, reader(type))) {
        for (; n < limit && r.hasNext(); n++) sink.accept(r.next());
      } catch (SodmException e) {
        throw e; // the sink's own, already user-facing
      } catch (IOException | RuntimeException e) {
        throw new IOException(p + ": cannot read " + type.getSimpleName() + ": " + e.getMessage(), e);
      }
    }
  }

  /** Every record of the .avro data files of a directory. */
  public static <T extends SpecificRecord> List<T> readDir(Configuration conf, Path dir, Class<T> type) throws IOException {
    List<T> out = new ArrayList<>();
    forEach(conf, dir, type, out::add);
    return out;
  }

  /** Data files (part-*, *.avro, not hidden) of a directory, sorted by name; the file itself if not a directory. */
  public static List<Path> dataFiles(Configuration conf, Path dirOrFile) throws IOException {
    FileSystem fs = dirOrFile.getFileSystem(conf);
    List<Path> out = new ArrayList<>();
    FileStatus st = fs.getFileStatus(dirOrFile);
    if (!st.isDirectory()) {
      out.add(st.getPath());
      return out;
    }
    for (FileStatus f : fs.listStatus(dirOrFile)) {
      String n = f.getPath().getName();
      if (f.isFile() && !n.startsWith("_") && !n.startsWith(".")) out.add(f.getPath());
    }
    out.sort(null);
    return out;
  }
}
