package org.sodm.jobs.train;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Reducer;
import org.sodm.avro.TrainRecord;

/**
 * Solves one block per reduce call: receives its instances in id order (secondary sort) and hands
 * them to {@link BlockSolver} (warm start from the alpha they carry, the solve, every instance
 * written back with its new alpha and block); when the task has solved all its blocks, their
 * BlockStats go to one file of the level's stats directory (rewritten identically by a
 * re-executed attempt: the solves are deterministic).
 *
 * <p>TEST ONLY: the {@code sodm.internal.test.fail.once.*} keys inject a fault for the fault
 * tests (issue 7). When {@link #FAIL_ONCE_DIR} is set, the first attempt to solve block
 * {@link #FAIL_ONCE_BLOCK} (default 0) at level {@link #FAIL_ONCE_LEVEL} (default: every level)
 * fails after writing all its output; it leaves a marker file in that directory, so the
 * retried attempt (YARN) or the resumed run (local mode, which does not retry) succeeds. Never
 * set these keys outside tests; like every {@code sodm.internal.*} key they are not training
 * parameters (not checked by --resume, not in the model's provenance).
 */
public class BlockSolveReducer extends Reducer<BlockKey, TrainRow, AvroKey<TrainRecord>, NullWritable> {
  /** TEST ONLY: directory of fail-once markers; setting it turns the fault injection on. */
  public static final String FAIL_ONCE_DIR = "sodm.internal.test.fail.once.dir";
  /** TEST ONLY: the block whose first attempt fails (default 0). */
  public static final String FAIL_ONCE_BLOCK = "sodm.internal.test.fail.once.block";
  /** TEST ONLY: the level at which it fails (default: every level, once each). */
  public static final String FAIL_ONCE_LEVEL = "sodm.internal.test.fail.once.level";
  private BlockSolver solver;

  @Override
  public void run(Context context) throws IOException, InterruptedException {
    org.sodm.jobs.support.Causes.reporting(context, "BlockSolveReducer", () -> {
      super.run(context);
      solver.writeStats(); // after every block of the task solved: a failed attempt leaves no stats file
    });
  }

  @Override
  protected void setup(Context context) {
    solver = new BlockSolver(context);
  }

  @Override
  protected void reduce(BlockKey key, Iterable<TrainRow> values, Context context) throws IOException, InterruptedException {
    List<TrainRow> recs = new ArrayList<>();
    for (TrainRow v : values) recs.add(v.copy());
    solver.solve(key.block(), recs);
  }
}
