package org.sodm.jobs.train;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.io.Writable;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;

/**
 * A {@link TrainRecord} on its way from the map side to a block's solve ({@link SolveJob}'s map output value): the same
 * fields in primitive arrays, written as one length-prefixed byte block. Avro's generic writer and reader, with the record's
 * boxed lists, were half of the stratify map's time (JFR, ijcnn1: 32 of 58 samples serialising), and each reducer deep-copied
 * every record it received; a row here is packed and unpacked by a few loops. The reducer turns rows back into records only
 * for what it writes. Hadoop reuses the value object between calls of {@link #readFields}: {@link #copy} keeps one.
 */
public final class TrainRow implements Writable {
  private static final double[] NONE = new double[0];

  long id;
  double y;
  int stratum;
  int block;
  int[] indices = new int[0];
  double[] values = NONE;
  double[] alpha = NONE;
  double qg;
  double[] delta = NONE;
  double qd;
  private byte[] buf = new byte[0];

  /** This row set from a record (its lists unboxed). */
  TrainRow set(TrainRecord r) {
    id = r.getId();
    y = r.getY();
    stratum = r.getStratum();
    block = r.getBlock();
    List<Integer> idx = r.getFeatures().getIndices();
    List<Double> val = r.getFeatures().getValues();
    indices = new int[idx.size()];
    values = new double[val.size()];
    for (int k = 0; k < indices.length; k++) indices[k] = idx.get(k);
    for (int k = 0; k < values.length; k++) values[k] = val.get(k);
    alpha = unbox(r.getAlpha());
    qg = r.getQg();
    delta = unbox(r.getDelta());
    qd = r.getQd();
    return this;
  }

  /** This row set to a bottom-level row: no alpha, no exact-mode fields; {@code x}'s arrays are shared, not copied. */
  TrainRow set(long id, double y, SparseVector x, int stratum, int block) {
    this.id = id;
    this.y = y;
    this.indices = x.indices();
    this.values = x.values();
    this.stratum = stratum;
    this.block = block;
    this.alpha = NONE;
    this.qg = 0;
    this.delta = NONE;
    this.qd = 0;
    return this;
  }

  /** A row of its own (the arrays this one holds are replaced, not changed, by {@link #readFields}). */
  TrainRow copy() {
    TrainRow c = new TrainRow();
    c.id = id;
    c.y = y;
    c.stratum = stratum;
    c.block = block;
    c.indices = indices;
    c.values = values;
    c.alpha = alpha;
    c.qg = qg;
    c.delta = delta;
    c.qd = qd;
    return c;
  }

  /** As {@link TrainIO#isSupportVector}: hinge alpha != 0, ODM zeta - beta != 0. */
  boolean isSupportVector() {
    if (alpha.length == 1) return alpha[0] != 0;
    return alpha.length == 2 && alpha[0] - alpha[1] != 0;
  }

  /** The features (sharing this row's arrays). */
  SparseVector features() {
    return new SparseVector(indices, values);
  }

  /** The record of this row as it is. */
  TrainRecord toRecord() {
    return toRecord(box(alpha), block);
  }

  /** The record of this row with {@code alpha} and {@code block} (the solve's result). */
  TrainRecord toRecord(List<Double> newAlpha, int newBlock) {
    return new TrainRecord(id, y, Instances.toAvro(features()), stratum, newBlock, newAlpha, qg, box(delta), qd);
  }

  @Override
  public void write(DataOutput out) throws IOException {
    int nnz = indices.length;
    int size = 8 + 8 + 4 + 4 + 4 + 12 * nnz + 4 + 8 * alpha.length + 8 + 4 + 8 * delta.length + 8;
    if (buf.length < size) buf = new byte[Math.max(size, 2 * buf.length)];
    ByteBuffer b = ByteBuffer.wrap(buf);
    b.putLong(id).putDouble(y).putInt(stratum).putInt(block).putInt(nnz);
    for (int k = 0; k < nnz; k++) b.putInt(indices[k]);
    for (int k = 0; k < nnz; k++) b.putDouble(values[k]);
    b.putInt(alpha.length);
    for (double a : alpha) b.putDouble(a);
    b.putDouble(qg).putInt(delta.length);
    for (double d : delta) b.putDouble(d);
    b.putDouble(qd);
    out.writeInt(size);
    out.write(buf, 0, size);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    int size = in.readInt();
    if (size < 52) throw new IOException("a training row of " + size + " bytes (at least 52 expected): the map output is damaged");
    if (buf.length < size) buf = new byte[Math.max(size, 2 * buf.length)];
    in.readFully(buf, 0, size);
    ByteBuffer b = ByteBuffer.wrap(buf, 0, size);
    id = b.getLong();
    y = b.getDouble();
    stratum = b.getInt();
    block = b.getInt();
    int nnz = b.getInt();
    indices = new int[nnz];
    values = new double[nnz];
    for (int k = 0; k < nnz; k++) indices[k] = b.getInt();
    for (int k = 0; k < nnz; k++) values[k] = b.getDouble();
    alpha = doubles(b, b.getInt());
    qg = b.getDouble();
    delta = doubles(b, b.getInt());
    qd = b.getDouble();
  }

  private static double[] doubles(ByteBuffer b, int n) {
    if (n == 0) return NONE;
    double[] d = new double[n];
    for (int k = 0; k < n; k++) d[k] = b.getDouble();
    return d;
  }

  private static double[] unbox(List<Double> l) {
    if (l.isEmpty()) return NONE;
    double[] d = new double[l.size()];
    for (int k = 0; k < d.length; k++) d[k] = l.get(k);
    return d;
  }

  static List<Double> box(double[] d) {
    List<Double> l = new ArrayList<>(d.length);
    for (double v : d) l.add(v);
    return l;
  }
}
