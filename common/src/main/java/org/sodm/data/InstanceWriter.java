package org.sodm.data;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.io.BufferedBinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DirectBinaryEncoder;
import org.apache.avro.io.Encoder;
import org.apache.avro.specific.SpecificDatumWriter;
import org.sodm.avro.Instance;

/**
 * Writes {@link Instance} records without boxing: under this version's Instance schema the fields are encoded one by one,
 * the feature arrays from their primitive arrays when they are {@link PrimitiveLists} - the same encoder calls, and so the
 * same bytes, as Avro's {@link SpecificDatumWriter}; under any other schema it is that writer.
 */
public final class InstanceWriter implements DatumWriter<Instance> {
  private final SpecificDatumWriter<Instance> general;
  private boolean direct;

  public InstanceWriter() {
    AvroClasses.trust();
    general = new SpecificDatumWriter<>(Instance.class);
  }

  @Override
  public void setSchema(Schema schema) {
    direct = Instance.getClassSchema().equals(schema);
    general.setSchema(schema);
  }

  /** The record's bytes, encoded by {@link #encode}: {@code buf[0, len)}. */
  private byte[] buf = new byte[1024];
  private int len;
  /** The last label written and its UTF-8 bytes (a data set has few labels; rows repeat them). */
  private String lastLabel;
  private byte[] lastLabelBytes;
  private static final VarHandle LE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * An encoder that writes Avro's binary encoding as it is called (items of an array follow its count, no byte-counted
   * blocks): a whole record encoded here and written with one {@code writeFixed} gives its bytes.
   */
  private static boolean plainBinary(Encoder out) {
    return out.getClass() == DirectBinaryEncoder.class || out.getClass() == BufferedBinaryEncoder.class;
  }

  /**
   * The binary encoding of a record (Avro's spec: zig-zag varint longs and ints, the union's branch, a string as its UTF-8
   * length and bytes, an array as its item count - when not empty - its items and a zero, a double as the 8 little-endian
   * bytes of its raw bits) into {@link #buf}: one call per record instead of one per field and item.
   */
  private void encode(long id, String label, PrimitiveLists.Ints idx, PrimitiveLists.Doubles val) {
    int n = idx.size();
    int m = val.size();
    byte[] lb = null;
    if (label != null) {
      if (!label.equals(lastLabel)) {
        lastLabel = label;
        lastLabelBytes = label.getBytes(StandardCharsets.UTF_8);
      }
      lb = lastLabelBytes;
    }
    int max = 10 + 1 + (lb == null ? 0 : 5 + lb.length) + 11 + 5 * n + 11 + 8 * m;
    if (buf.length < max) buf = new byte[Math.max(max, 2 * buf.length)];
    byte[] b = buf;
    int p = varLong(b, 0, id);
    if (lb == null) {
      b[p++] = 0;
    } else {
      b[p++] = 2; // branch 1, zig-zag
      p = varLong(b, p, lb.length);
      System.arraycopy(lb, 0, b, p, lb.length);
      p += lb.length;
    }
    if (n > 0) {
      p = varLong(b, p, n);
      for (int k = 0; k < n; k++) p = varLong(b, p, idx.getInt(k));
    }
    b[p++] = 0;
    if (m > 0) {
      p = varLong(b, p, m);
      for (int k = 0; k < m; k++, p += 8) LE_LONG.set(b, p, Double.doubleToRawLongBits(val.getDouble(k)));
    }
    b[p++] = 0;
    len = p;
  }

  /** Zig-zag varint of {@code v} at {@code b[p]}; returns the position after it. An int's encoding is its long's. */
  private static int varLong(byte[] b, int p, long v) {
    long z = (v << 1) ^ (v >> 63);
    while ((z & ~0x7FL) != 0) {
      b[p++] = (byte) ((z & 0x7F) | 0x80);
      z >>>= 7;
    }
    b[p++] = (byte) z;
    return p;
  }

  @Override
  public void write(Instance d, Encoder out) throws IOException {
    if (!direct) {
      general.write(d, out);
      return;
    }
    if (plainBinary(out) && d.getFeatures().getIndices() instanceof PrimitiveLists.Ints idx
        && d.getFeatures().getValues() instanceof PrimitiveLists.Doubles val && (d.getLabel() == null || d.getLabel() instanceof String)) {
      encode(d.getId(), (String) d.getLabel(), idx, val);
      out.writeFixed(buf, 0, len);
      return;
    }
    out.writeLong(d.getId());
    if (d.getLabel() == null) {
      out.writeIndex(0);
      out.writeNull();
    } else {
      out.writeIndex(1);
      out.writeString(d.getLabel());
    }
    List<Integer> idx = d.getFeatures().getIndices();
    List<Double> val = d.getFeatures().getValues();
    out.writeArrayStart();
    out.setItemCount(idx.size());
    if (idx instanceof PrimitiveLists.Ints p) {
      for (int k = 0, n = p.size(); k < n; k++) {
        out.startItem();
        out.writeInt(p.getInt(k));
      }
    } else {
      for (Integer i : idx) {
        out.startItem();
        out.writeInt(i);
      }
    }
    out.writeArrayEnd();
    out.writeArrayStart();
    out.setItemCount(val.size());
    if (val instanceof PrimitiveLists.Doubles p) {
      for (int k = 0, n = p.size(); k < n; k++) {
        out.startItem();
        out.writeDouble(p.getDouble(k));
      }
    } else {
      for (Double v : val) {
        out.startItem();
        out.writeDouble(v);
      }
    }
    out.writeArrayEnd();
  }
}
