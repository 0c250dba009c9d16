package org.sodm.data;

import java.io.IOException;
import java.util.Arrays;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.Decoder;
import org.apache.avro.specific.SpecificDatumReader;
import org.sodm.avro.Features;
import org.sodm.avro.Instance;

/**
 * Reads {@link Instance} records without boxing: a file written with this version's Instance schema is decoded field by
 * field, its feature arrays straight into int[] and double[] ({@link PrimitiveLists}, unwrapped by
 * {@link Instances#features} without a copy); a file with any other writer schema goes through Avro's own
 * {@link SpecificDatumReader} and its schema resolution. Both give equal records. A new record per call ({@code reuse} is
 * not reused on the direct path: its arrays may live on in a {@link SparseVector}).
 */
public final class InstanceReader implements DatumReader<Instance> {
  private final SpecificDatumReader<Instance> general;
  private boolean direct;

  public InstanceReader() {
    AvroClasses.trust();
    general = new SpecificDatumReader<>(Instance.class);
  }

  @Override
  public void setSchema(Schema writer) {
    direct = Instance.getClassSchema().equals(writer);
    general.setSchema(writer);
  }

  /** Whether the writer's schema is this version's (records are decoded directly). */
  public boolean direct() {
    return direct;
  }

  @Override
  public Instance read(Instance reuse, Decoder in) throws IOException {
    if (!direct) return general.read(reuse, in);
    long id = in.readLong();
    String label;
    int branch = in.readIndex();
    if (branch == 0) {
      in.readNull();
      label = null;
    } else if (branch == 1) {
      label = in.readString();
    } else {
      throw new IOException("Instance " + id + ": label union branch " + branch + " (the schema has null and string)");
    }
    int[] idx = ints(in);
    double[] val = doubles(in);
    return new Instance(id, label, new Features(new PrimitiveLists.Ints(idx), new PrimitiveLists.Doubles(val)));
  }

  private static int[] ints(Decoder in) throws IOException {
    long n = in.readArrayStart();
    int[] a = new int[(int) Math.min(Math.max(n, 0), 1 << 16)];
    int k = 0;
    while (n > 0) {
      for (long i = 0; i < n; i++) {
        if (k == a.length) a = Arrays.copyOf(a, 2 * a.length + 4);
        a[k++] = in.readInt();
      }
      n = in.arrayNext();
    }
    return k == a.length ? a : Arrays.copyOf(a, k);
  }

  private static double[] doubles(Decoder in) throws IOException {
    long n = in.readArrayStart();
    double[] a = new double[(int) Math.min(Math.max(n, 0), 1 << 16)];
    int k = 0;
    while (n > 0) {
      for (long i = 0; i < n; i++) {
        if (k == a.length) a = Arrays.copyOf(a, 2 * a.length + 4);
        a[k++] = in.readDouble();
      }
      n = in.arrayNext();
    }
    return k == a.length ? a : Arrays.copyOf(a, k);
  }
}
