package org.sodm.jobs.linear;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.sodm.avro.Instance;
import org.sodm.avro.TrainRecord;
import org.sodm.data.AvroClasses;
import org.sodm.data.InstanceBlockDecoder;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;
import org.sodm.jobs.allreduce.BlockSplit;
import org.sodm.jobs.support.AvroFiles;

/**
 * The K blocks of a resident linear solve read straight from the ingested instances, without a
 * partition job: split k lists every ingested data file, and its reader keeps the instances that
 * {@link Dealer} deals to block k (the same records, labels and scaling as {@link PartitionJob}'s
 * block k; the resident tasks sort them by id). Each task reads the whole ingested data once, so
 * this is for a few blocks: it saves the partition job's shuffle, sort and second write. A task that keeps rows in arrays reads
 * its split through {@link #dealRows} (the same rows, decoded from the Avro blocks without a record per row); the record
 * reader serves the others, and stratified blocks.
 *
 * <p>Configuration: {@link LinearKeys#INGEST_DIR} (the ingest directory, whose data it reads) and
 * {@link LinearKeys#BLOCKS} (K).
 */
public final class DealtInputFormat extends InputFormat<AvroKey<TrainRecord>, NullWritable> {

  /** A resident job's input when its tasks deal their blocks from the ingested data: this format, TrainRecord keys. */
  public static final org.sodm.jobs.allreduce.ResidentJob.Input INPUT = job -> {
    job.setInputFormatClass(DealtInputFormat.class);
    org.apache.avro.mapreduce.AvroJob.setInputKeySchema(job, TrainRecord.getClassSchema());
  };

  /** Block k of the ingested data files. */
  public static final class Split extends InputSplit implements Writable, BlockSplit {
    private int block;
    private List<String> files = new ArrayList<>();
    private long length;

    public Split() {}

    Split(int block, List<Path> files, long length) {
      this.block = block;
      for (Path p : files) this.files.add(p.toString());
      this.length = length;
    }

    @Override
    public int block() {
      return block;
    }

    @Override
    public String describe() {
      return "block " + block + " dealt from " + files.size() + " ingested file(s)";
    }

    List<Path> files() {
      List<Path> out = new ArrayList<>();
      for (String f : files) out.add(new Path(f));
      return out;
    }

    @Override
    public long getLength() {
      return length;
    }

    @Override
    public String[] getLocations() {
      return new String[0];
    }

    @Override
    public void write(DataOutput out) throws IOException {
      out.writeInt(block);
      out.writeLong(length);
      out.writeInt(files.size());
      for (String f : files) Text.writeString(out, f);
    }

    @Override
    public void readFields(DataInput in) throws IOException {
      block = in.readInt();
      length = in.readLong();
      int n = in.readInt();
      files = new ArrayList<>(n);
      for (int i = 0; i < n; i++) files.add(Text.readString(in));
    }
  }

  @Override
  public List<InputSplit> getSplits(JobContext context) throws IOException {
    Configuration conf = context.getConfiguration();
    int k = conf.getInt(LinearKeys.BLOCKS, 0);
    if (k < 1) throw new IOException(LinearKeys.BLOCKS + " is not set");
    List<Path> files = new ArrayList<>();
    long length = 0;
    for (Path p : AvroFiles.dataFiles(conf, dataDir(conf))) {
      if (!p.getName().endsWith(".avro")) continue;
      files.add(p);
      length += p.getFileSystem(conf).getFileStatus(p).getLen();
    }
    if (files.isEmpty()) throw new IOException("no ingested data files in " + dataDir(conf));
    List<InputSplit> out = new ArrayList<>(k);
    for (int b = 0; b < k; b++) out.add(new Split(b, files, length));
    return out;
  }

  static Path dataDir(Configuration conf) {
    return new Path(new Path(conf.get(LinearKeys.INGEST_DIR)), org.sodm.jobs.ingest.IngestJob.DATA);
  }

  /** Receives a block's rows as they are dealt; {@code indices} and {@code values} are the caller's, valid until it returns. */
  interface Rows {
    void row(long id, double y, int[] indices, double[] values, int nnz) throws IOException;
  }

  /**
   * Deals {@code split}'s block into {@code out} straight from the ingested files' Avro blocks ({@link InstanceBlockDecoder}:
   * no record, list or vector per row), the rows and order {@link Reader} gives; a file written with another Instance schema
   * goes through Avro's reader. Stratified blocks are dealt per stream by {@link Reader}: this returns false for them
   * without reading.
   *
   * @param progress called after each Avro block
   * @throws IOException naming the file, on a row or a block it cannot read
   */
  static boolean dealRows(Split split, Configuration conf, Rows out, Runnable progress) throws IOException {
    AvroClasses.trust();
    Dealer dealer = new Dealer(conf);
    if (dealer.stratified()) return false;
    int block = split.block();
    org.sodm.data.Scaler scaler = dealer.scaler();
    InstanceBlockDecoder.Rows rows = (id, label, idx, val, n) -> {
      if (dealer.blockOf(id) != block) return;
      double y = dealer.y(id, label);
      if (Double.isNaN(y)) return;
      if (scaler == null) {
        out.row(id, y, idx, val, n);
      } else {
        SparseVector x = scaler.apply(new SparseVector(java.util.Arrays.copyOf(idx, n), java.util.Arrays.copyOf(val, n)));
        out.row(id, y, x.indices(), x.values(), x.nnz());
      }
    };
    InstanceBlockDecoder decoder = new InstanceBlockDecoder();
    for (Path file : split.files()) {
      try (InputStream in = file.getFileSystem(conf).open(file);
          DataFileStream<Instance> stream = new DataFileStream<>(in, new org.sodm.data.InstanceReader())) {
        boolean direct = Instance.getClassSchema().equals(stream.getSchema());
        long blocks = 0;
        Instance reuse = null;
        while (stream.hasNext()) {
          if (direct) {
            long count = stream.getBlockCount();
            java.nio.ByteBuffer b = stream.nextBlock();
            blocks++;
            try {
              if (b.hasArray()) {
                decoder.decode(b.array(), b.arrayOffset() + b.position(), b.remaining(), count, rows);
              } else {
                byte[] copy = new byte[b.remaining()];
                b.duplicate().get(copy);
                decoder.decode(copy, 0, copy.length, count, rows);
              }
            } catch (IOException | RuntimeException e) {
              throw new IOException(file + ", Avro block " + blocks + ": " + e.getMessage(), e);
            }
            progress.run();
          } else {
            try {
              reuse = stream.next(reuse);
              SparseVector x = Instances.features(reuse.getFeatures());
              rows.row(reuse.getId(), reuse.getLabel() == null ? null : reuse.getLabel().toString(), x.indices(), x.values(), x.nnz());
            } catch (IOException | RuntimeException e) {
              throw new IOException(file + ": " + e.getMessage(), e);
            }
          }
        }
      }
    }
    return true;
  }

  @Override
  public RecordReader<AvroKey<TrainRecord>, NullWritable> createRecordReader(InputSplit split, TaskAttemptContext context) {
    return new Reader();
  }

  /** Streams the ingested files, keeping this block's records. */
  static final class Reader extends RecordReader<AvroKey<TrainRecord>, NullWritable> {
    private Configuration conf;
    private Dealer dealer;
    private int block;
    private List<Path> files;
    private int next;
    private Path current;
    private InputStream in;
    private DataFileStream<Instance> stream;
    private Instance reuse;
    private final AvroKey<TrainRecord> key = new AvroKey<>();
    private long read;
    private long total;

    @Override
    public void initialize(InputSplit split, TaskAttemptContext context) throws IOException {
      AvroClasses.trust();
      conf = context.getConfiguration();
      Split s = (Split) split;
      dealer = new Dealer(conf);
      block = s.block();
      files = s.files();
      total = s.getLength();
    }

    @Override
    public boolean nextKeyValue() throws IOException {
      while (true) {
        if (stream == null) {
          if (next >= files.size()) return false;
          current = files.get(next++);
          FileSystem fs = current.getFileSystem(conf);
          read += next > 1 ? fs.getFileStatus(files.get(next - 2)).getLen() : 0;
          in = fs.open(current);
          stream = new DataFileStream<>(in, new org.sodm.data.InstanceReader());
        }
        if (!stream.hasNext()) {
          stream.close();
          stream = null;
          continue;
        }
        try {
          reuse = stream.next(reuse);
        } catch (RuntimeException e) {
          throw new IOException(current + ": cannot read Instance: " + e.getMessage(), e);
        }
        if (dealer.blockOf(reuse) != block) continue;
        TrainRecord r = dealer.deal(reuse);
        if (r == null) continue;
        key.datum(r);
        return true;
      }
    }

    @Override
    public AvroKey<TrainRecord> getCurrentKey() {
      return key;
    }

    @Override
    public NullWritable getCurrentValue() {
      return NullWritable.get();
    }

    @Override
    public float getProgress() {
      return total == 0 ? 0 : Math.min(1f, (float) read / total);
    }

    @Override
    public void close() throws IOException {
      if (stream != null) stream.close();
      stream = null;
    }
  }
}
