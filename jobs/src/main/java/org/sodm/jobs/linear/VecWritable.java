package org.sodm.jobs.linear;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Writable;
import org.sodm.data.SparseVector;

/**
 * A few scalars and a sparse vector (0-based positions into a dense array): the map-to-reduce
 * value of the linear jobs (a block's Delta w and sums; a DSVRG gradient partial or one
 * instance with its label and snapshot margin).
 */
public final class VecWritable implements Writable {
  private double[] scalars = new double[0];
  private int[] idx = new int[0];
  private double[] val = new double[0];

  public VecWritable() {}

  public VecWritable(double[] scalars, int[] idx, double[] val) {
    set(scalars, idx, val);
  }

  public VecWritable set(double[] s, int[] i, double[] v) {
    if (i.length != v.length) throw new IllegalArgumentException("index and value arrays differ in length");
    this.scalars = s;
    this.idx = i;
    this.val = v;
    return this;
  }

  /** The non-zeros of a dense array. */
  public static VecWritable ofDense(double[] scalars, double[] dense) {
    int nz = 0;
    for (double v : dense) if (v != 0) nz++;
    int[] i = new int[nz];
    double[] v = new double[nz];
    int k = 0;
    for (int f = 0; f < dense.length; f++) {
      if (dense[f] != 0) {
        i[k] = f;
        v[k++] = dense[f];
      }
    }
    return new VecWritable(scalars, i, v);
  }

  /** A feature vector: position f - 1 for feature f. */
  public static VecWritable ofFeatures(double[] scalars, SparseVector x) {
    int[] i = x.indices().clone();
    for (int k = 0; k < i.length; k++) i[k]--;
    return new VecWritable(scalars, i, x.values());
  }

  public SparseVector toFeatures() {
    int[] i = idx.clone();
    for (int k = 0; k < i.length; k++) i[k]++;
    return new SparseVector(i, val.clone());
  }

  /** dense += this. */
  public void addTo(double[] dense) {
    for (int k = 0; k < idx.length; k++) dense[idx[k]] += val[k];
  }

  public double[] scalars() {
    return scalars;
  }

  public int nnz() {
    return idx.length;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeInt(scalars.length);
    for (double s : scalars) out.writeDouble(s);
    out.writeInt(idx.length);
    for (int k = 0; k < idx.length; k++) {
      out.writeInt(idx[k]);
      out.writeDouble(val[k]);
    }
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    int ns = in.readInt();
    scalars = new double[ns];
    for (int k = 0; k < ns; k++) scalars[k] = in.readDouble();
    int n = in.readInt();
    idx = new int[n];
    val = new double[n];
    for (int k = 0; k < n; k++) {
      idx[k] = in.readInt();
      val[k] = in.readDouble();
    }
  }
}
