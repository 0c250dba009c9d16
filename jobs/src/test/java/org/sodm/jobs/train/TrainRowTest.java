package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sodm.avro.TrainRecord;
import org.sodm.data.Instances;
import org.sodm.data.SparseVector;

/** The solve job's map output value: every field of the record survives write and read, the object reused as Hadoop does. */
class TrainRowTest {
  private static byte[] bytes(TrainRow... rows) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(b);
    for (TrainRow r : rows) r.write(out);
    out.flush();
    return b.toByteArray();
  }

  @Test
  void everyFieldSurvivesAndAReusedRowKeepsItsCopies() throws IOException {
    TrainRecord a = new TrainRecord(1L << 41 | 12345, -1.0, Instances.toAvro(new SparseVector(new int[] {2, 7, 100000},
        new double[] {0.5, -3.25, 1e-300})), 17, 3, List.of(0.25, 0.125), 2.5, List.of(-1.0, 4.0), -0.75);
    TrainRecord b = new TrainRecord(9L, 1.0, Instances.toAvro(new SparseVector(new int[0], new double[0])), -1, 0, List.of(),
        0.0, List.of(), 0.0);
    byte[] data = bytes(new TrainRow().set(a), new TrainRow().set(b));
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
    TrainRow reused = new TrainRow();
    reused.readFields(in);
    TrainRow first = reused.copy();
    reused.readFields(in);
    assertEquals(a, first.toRecord(), "every field of the first record");
    assertEquals(b, reused.toRecord(), "the second, read into the same object");
    assertEquals(a, first.toRecord(), "the copy is not changed by the next read");
    assertEquals(-1, in.read(), "nothing left over");
    assertTrue(first.isSupportVector());
    assertFalse(reused.isSupportVector());
  }

  @Test
  void aBottomRowSharesTheVectorAndCarriesNoAlpha() throws IOException {
    SparseVector x = new SparseVector(new int[] {1, 3}, new double[] {2, 4});
    TrainRow r = new TrainRow().set(5L, 1.0, x, 2, 1);
    TrainRow back = new TrainRow();
    back.readFields(new DataInputStream(new ByteArrayInputStream(bytes(r))));
    assertEquals(new TrainRecord(5L, 1.0, Instances.toAvro(x), 2, 1, List.of(), 0.0, List.of(), 0.0), back.toRecord());
    assertEquals(List.of(0.5), back.toRecord(List.of(0.5), 4).getAlpha());
    assertEquals(4, back.toRecord(List.of(0.5), 4).getBlock());
  }

  @Test
  void aDamagedLengthIsRefused() {
    byte[] d = {0, 0, 0, 3, 1, 2, 3};
    IOException e = assertThrows(IOException.class, () -> new TrainRow().readFields(new DataInputStream(new ByteArrayInputStream(d))));
    assertTrue(e.getMessage().contains("damaged"), e.getMessage());
  }
}
