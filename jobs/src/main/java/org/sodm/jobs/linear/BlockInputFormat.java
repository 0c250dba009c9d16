package org.sodm.jobs.linear;

import org.apache.avro.mapreduce.AvroKeyInputFormat;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobContext;
import org.sodm.avro.TrainRecord;

/** Block files, one map task per file (a block is never split: its task solves it whole). */
public final class BlockInputFormat extends AvroKeyInputFormat<TrainRecord> {
  @Override
  protected boolean isSplitable(JobContext context, Path filename) {
    return false;
  }
}
