package org.sodm.jobs.train;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.WritableComparable;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.mapreduce.Partitioner;

/**
 * Map output key of the solve jobs: (block, id). Partitioned and grouped by block, sorted by
 * id within a block (secondary sort), so each reducer call sees one whole block in id order
 * and every solve is deterministic.
 */
public final class BlockKey implements WritableComparable<BlockKey> {
  private int block;
  private long id;

  public BlockKey() {}

  public BlockKey(int block, long id) {
    this.block = block;
    this.id = id;
  }

  public BlockKey set(int block, long id) {
    this.block = block;
    this.id = id;
    return this;
  }

  public int block() {
    return block;
  }

  public long id() {
    return id;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeInt(block);
    out.writeLong(id);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    block = in.readInt();
    id = in.readLong();
  }

  @Override
  public int compareTo(BlockKey o) {
    int c = Integer.compare(block, o.block);
    return c != 0 ? c : Long.compare(id, o.id);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BlockKey k && k.block == block && k.id == id;
  }

  @Override
  public int hashCode() {
    return 31 * block + Long.hashCode(id);
  }

  @Override
  public String toString() {
    return block + ":" + id;
  }

  /** Raw comparator on the serialised form (block int, then id long). */
  public static final class Comparator extends WritableComparator {
    public Comparator() {
      super(BlockKey.class);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      int c = Integer.compare(readInt(b1, s1), readInt(b2, s2));
      return c != 0 ? c : Long.compare(readLong(b1, s1 + 4), readLong(b2, s2 + 4));
    }
  }

  /** Groups by block only. */
  public static final class GroupByBlock extends WritableComparator {
    public GroupByBlock() {
      super(BlockKey.class);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      return Integer.compare(readInt(b1, s1), readInt(b2, s2));
    }

    @Override
    @SuppressWarnings("rawtypes")
    public int compare(WritableComparable a, WritableComparable b) {
      return Integer.compare(((BlockKey) a).block, ((BlockKey) b).block);
    }
  }

  /** Block b goes to reducer b mod R (R = blocks at the level, so one block per reducer). */
  public static final class ByBlock<V> extends Partitioner<BlockKey, V> {
    @Override
    public int getPartition(BlockKey key, V value, int reducers) {
      return Math.floorMod(key.block, reducers);
    }
  }

  static {
    WritableComparator.define(BlockKey.class, new Comparator());
  }
}
