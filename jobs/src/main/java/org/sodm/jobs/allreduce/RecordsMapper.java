package org.sodm.jobs.allreduce;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.sodm.avro.TrainRecord;

/**
 * A resident task that keeps its block's records (copies where the input format reuses its record)
 * and hands them to its program sorted by id, the order every resident solver sums in.
 */
public abstract class RecordsMapper extends ResidentMapper {
  private final List<TrainRecord> records = new ArrayList<>();

  @Override
  protected final void load(TrainRecord r) {
    records.add(freshRecords() ? r : TrainRecord.newBuilder(r).build());
  }

  /** The block's records by id; the task's own list, released by the caller when done ({@link List#clear}). */
  protected final List<TrainRecord> recordsById() {
    records.sort(Comparator.comparingLong(TrainRecord::getId));
    return records;
  }
}
