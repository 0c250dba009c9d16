package org.sodm.data;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes a block of {@link org.sodm.avro.Instance} records in Avro's binary encoding (a data file's block as
 * {@link org.apache.avro.file.DataFileStream#nextBlock} returns it, written with this version's Instance schema) straight
 * from its bytes, into reused arrays: no decoder call per value, no record, list or vector per row. For a reader that
 * copies each row into its own store at once (a resident task's rows); it gives the values {@link InstanceReader} gives, row
 * by row (the encoding of <a href="https://avro.apache.org/docs/1.12.0/specification/#binary-encoding">the specification</a>:
 * zig-zag varints, little-endian doubles, arrays in counted blocks, a negative count followed by the block's byte size).
 * Not thread-safe; one per reader.
 */
public final class InstanceBlockDecoder {
  private static final VarHandle DOUBLE = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

  /** Receives each decoded row; {@code indices} and {@code values} are the decoder's, valid until the call returns. */
  public interface Rows {
    void row(long id, String label, int[] indices, double[] values, int nnz) throws IOException;
  }

  private int[] indices = new int[64];
  private double[] values = new double[64];
  /** The distinct labels seen lately, as their UTF-8 bytes and strings (a data set has a few; one String per label). */
  private final byte[][] labelBytes = new byte[16][];
  private final String[] labelStrings = new String[16];
  private int labelCount;

  private byte[] b;
  private int p;
  private int end;

  /**
   * Decodes the {@code count} records of {@code bytes[offset, offset + length)}, in order, into {@code out}.
   *
   * @throws IOException when the bytes do not hold exactly {@code count} Instance records (truncated or corrupt)
   */
  public void decode(byte[] bytes, int offset, int length, long count, Rows out) throws IOException {
    if (offset < 0 || length < 0 || offset + length > bytes.length) throw new IllegalArgumentException("block outside its array");
    b = bytes;
    p = offset;
    end = offset + length;
    try {
      for (long r = 0; r < count; r++) {
        long id = readLong();
        String label;
        int branch = readInt();
        if (branch == 0) {
          label = null;
        } else if (branch == 1) {
          label = readString();
        } else {
          throw new IOException("record " + r + " of the block (id " + id + "): label union branch " + branch
              + " (the schema has null and string)");
        }
        int n = readInts();
        int m = readDoubles();
        if (n != m) {
          throw new IOException("record " + r + " of the block (id " + id + "): " + n + " indices but " + m + " values");
        }
        out.row(id, label, indices, values, n);
      }
      if (p != end) throw new IOException((end - p) + " byte(s) after the block's " + count + " records");
    } finally {
      b = null;
    }
  }

  private int readInts() throws IOException {
    int k = 0;
    for (long n = arrayBlock(); n > 0; n = arrayBlock()) {
      if (k + n > Integer.MAX_VALUE - 8) throw new IOException("an array of more than 2^31 values");
      if (k + n > indices.length) indices = Arrays.copyOf(indices, (int) Math.max(k + n, 2L * indices.length));
      int[] a = indices;
      for (int e = k + (int) n; k < e; k++) a[k] = readInt();
    }
    return k;
  }

  private int readDoubles() throws IOException {
    int k = 0;
    for (long n = arrayBlock(); n > 0; n = arrayBlock()) {
      if (k + n > Integer.MAX_VALUE - 8) throw new IOException("an array of more than 2^31 values");
      if (n > (end - p) >> 3) throw truncated();
      if (k + n > values.length) values = Arrays.copyOf(values, (int) Math.max(k + n, 2L * values.length));
      double[] a = values;
      byte[] buf = b;
      int q = p;
      for (int e = k + (int) n; k < e; k++, q += 8) a[k] = (double) DOUBLE.get(buf, q);
      p = q;
    }
    return k;
  }

  /** The count of an array's next block (0 at its end); a negative count is followed by the block's size in bytes. */
  private long arrayBlock() throws IOException {
    long n = readLong();
    if (n < 0) {
      if (n == Long.MIN_VALUE) throw new IOException("array block count " + n);
      n = -n;
      readLong(); // the block's byte size, for readers that skip
    }
    return n;
  }

  private String readString() throws IOException {
    long len = readLong();
    if (len < 0 || len > end - p) throw len < 0 ? new IOException("negative string length " + len) : truncated();
    int n = (int) len;
    int from = p;
    p += n;
    for (int i = 0; i < labelCount; i++) {
      byte[] l = labelBytes[i];
      if (l.length == n && Arrays.equals(l, 0, n, b, from, from + n)) return labelStrings[i];
    }
    String s = new String(b, from, n, StandardCharsets.UTF_8);
    int slot = labelCount < labelBytes.length ? labelCount++ : labelBytes.length - 1;
    labelBytes[slot] = Arrays.copyOfRange(b, from, from + n);
    labelStrings[slot] = s;
    return s;
  }

  /** Avro's int: a zig-zag varint of at most 5 bytes. */
  private int readInt() throws IOException {
    byte[] a = b;
    int q = p;
    if (q >= end) throw truncated();
    int c = a[q++];
    int v = c & 0x7f;
    if (c < 0) {
      int shift = 7;
      do {
        if (q >= end) throw truncated();
        if (shift > 28) throw new IOException("invalid int encoding");
        c = a[q++];
        v |= (c & 0x7f) << shift;
        shift += 7;
      } while (c < 0);
    }
    p = q;
    return (v >>> 1) ^ -(v & 1);
  }

  /** Avro's long: a zig-zag varint of at most 10 bytes. */
  private long readLong() throws IOException {
    byte[] a = b;
    int q = p;
    long v = 0;
    int shift = 0;
    int c;
    do {
      if (q >= end) throw truncated();
      if (shift > 63) throw new IOException("invalid long encoding");
      c = a[q++];
      v |= (long) (c & 0x7f) << shift;
      shift += 7;
    } while (c < 0);
    p = q;
    return (v >>> 1) ^ -(v & 1);
  }

  private static IOException truncated() {
    return new IOException("the block ends inside a record (truncated or corrupt)");
  }
}
