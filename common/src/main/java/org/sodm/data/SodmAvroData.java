package org.sodm.data;

import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.specific.SpecificData;
import org.sodm.avro.Instance;

/**
 * Avro's specific data model, with {@link InstanceReader} and {@link InstanceWriter} for the {@link Instance} schema (the
 * ingested rows, read by most jobs): records without a boxed number per feature. Every other schema is Avro's own.
 */
public class SodmAvroData extends SpecificData {
  public SodmAvroData() {
    AvroClasses.trust();
  }

  /** The constructor avro-mapred calls (AvroSerialization.createDataModel). */
  public SodmAvroData(ClassLoader loader) {
    super(loader);
    AvroClasses.trust();
  }

  @Override
  @SuppressWarnings("rawtypes")
  public DatumReader createDatumReader(Schema schema) {
    return Instance.getClassSchema().equals(schema) ? new InstanceReader() : super.createDatumReader(schema);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public DatumReader createDatumReader(Schema writer, Schema reader) {
    if (Instance.getClassSchema().equals(reader)) {
      InstanceReader r = new InstanceReader();
      r.setSchema(writer);
      return r;
    }
    return super.createDatumReader(writer, reader);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public DatumWriter createDatumWriter(Schema schema) {
    if (!Instance.getClassSchema().equals(schema)) return super.createDatumWriter(schema);
    InstanceWriter w = new InstanceWriter();
    w.setSchema(schema);
    return w;
  }
}
