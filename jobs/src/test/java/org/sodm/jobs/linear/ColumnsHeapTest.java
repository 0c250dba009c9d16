package org.sodm.jobs.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.sodm.jobs.train.BlockMemory;

/** newGLMNET's column form keeps a block's rows a second time per sub-problem: the heap rule that falls back to OWL-QN (or refuses). */
class ColumnsHeapTest {
  @Test
  void theRowsTwicePerSubProblemWithinTheUsableHeap() {
    BlockMemory.Heap heap = new BlockMemory.Heap(1000L << 20, "test");
    // 20M stored values, 1M rows: (240 MB + 64 MB) x 2 = ~580 MB for one sub-problem, within 900 MB
    assertNull(TronTrainer.columnsTooLarge(1_000_000, 20_000_000, 1, 1, heap));
    // the same with 5 folds besides the problem: x 7, ~2,030 MB
    assertEquals("the rows by row and by column (6 sub-problem(s)) need ~2,029 MB, above a task's ~1,000 MB (test)",
        TronTrainer.columnsTooLarge(1_000_000, 20_000_000, 1, 6, heap));
    // the boundary: exactly 90% fits, one byte more does not
    long nnz = (long) (0.9 * (1000L << 20)) / 24;
    assertNull(TronTrainer.columnsTooLarge(0, nnz, 1, 1, heap));
    assertEquals(true, TronTrainer.columnsTooLarge(0, nnz + 1, 1, 1, heap) != null);
    // a multinomial model's rows keep 24 bytes more per class: 1M rows of 10 classes, no stored values, (64 + 240) MB x (1 + slots)
    assertNull(TronTrainer.columnsTooLarge(1_000_000, 0, 10, 1, heap));
    assertEquals("the rows by row and by column (3 sub-problem(s)) need ~1,159 MB, above a task's ~1,000 MB (test)",
        TronTrainer.columnsTooLarge(1_000_000, 0, 10, 3, heap));
  }
}
