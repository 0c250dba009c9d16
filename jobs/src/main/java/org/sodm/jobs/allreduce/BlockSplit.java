package org.sodm.jobs.allreduce;

/**
 * An input split that is one whole block of a resident job, not a block file (see {@link ResidentJob}). Its reader hands the
 * task a new record per row (a block file's Avro reader reuses one), so the task may keep them without copying.
 */
public interface BlockSplit {
  /** The block's id. */
  int block();

  /** What the split reads, for messages ("block 3 dealt from 2 ingested file(s)"). */
  String describe();
}
