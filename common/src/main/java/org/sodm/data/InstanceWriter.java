package org.sodm.data;

import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumWriter;
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

  @Override
  public void write(Instance d, Encoder out) throws IOException {
    if (!direct) {
      general.write(d, out);
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
