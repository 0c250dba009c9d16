package org.sodm.allreduce;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** Checkpoint bytes: doubles by their exact bits, arrays with a length (-1 for null). */
public final class StateCodec {
  private StateCodec() {}

  /** Writes with a {@link DataOutputStream}. */
  public interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  public static byte[] encode(Writer w) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      w.write(out);
    }
    return b.toByteArray();
  }

  public static DataInputStream decode(byte[] bytes) {
    return new DataInputStream(new ByteArrayInputStream(bytes));
  }

  public static void writeArray(DataOutputStream out, double[] a) throws IOException {
    if (a == null) {
      out.writeInt(-1);
      return;
    }
    out.writeInt(a.length);
    for (double v : a) out.writeDouble(v);
  }

  public static double[] readArray(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0) return null;
    double[] a = new double[n];
    for (int k = 0; k < n; k++) a[k] = in.readDouble();
    return a;
  }
}
