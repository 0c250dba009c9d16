package org.sodm.jobs.support;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobContext;

/**
 * Avro keys read one file per task. For the tasks whose result depends on the order in which they
 * see rows (the stratified dealing, the landmark reservoir): with one split per ingested part
 * their seed and their row sequence depend only on the part, never on the file system's block
 * size, so a model is the same on the local file system (32 MB blocks) and on HDFS (128 MB).
 * The parts themselves are cut by {@code sodm.ingest.split.bytes}, also independent of it. Splits are
 * {@link FilePiece}s ({@link AvroPiecesInputFormat}).
 */
public class WholeFileAvroInputFormat<T> extends AvroPiecesInputFormat<T> {
  @Override
  protected boolean isSplitable(JobContext context, Path filename) {
    return false;
  }
}
