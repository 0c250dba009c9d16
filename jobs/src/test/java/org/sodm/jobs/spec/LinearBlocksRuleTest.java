package org.sodm.jobs.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.sodm.linear.BqoBlock;

/** --linear-blocks auto and --inner-passes auto: the rule, and what an explicit value overrides. */
class LinearBlocksRuleTest {
  private static TrainSpec.Linear linear(String blocks, String passes, String budget) {
    Configuration conf = new Configuration(false);
    conf.set(Param.KERNEL.key(), "linear");
    conf.set(Param.LOSS.key(), "hinge");
    if (blocks != null) conf.set(Param.LINEAR_BLOCKS.key(), blocks);
    if (passes != null) conf.set(Param.LINEAR_INNER_PASSES.key(), passes);
    if (budget != null) conf.set(Param.LINEAR_BLOCK_NONZEROS.key(), budget);
    return TrainSpec.from(conf).linear();
  }

  @Test
  void autoBlocksAreTheFewestThatHoldTheValues() {
    TrainSpec.Linear l = linear(null, null, null);
    assertEquals(1, l.blocksFor(32_561, 451_592)); // a9a
    assertEquals(1, l.blocksFor(1_000_000, 20_000_000)); // the 1M x 100k sparse set
    assertEquals(1, l.blocksFor(1_600_000, 32_000_000));
    assertEquals(2, l.blocksFor(1_600_001, 32_000_001));
    assertEquals(32, l.blocksFor(100_000_000, 1_000_000_000));
    assertEquals(1, l.blocksFor(0, 0), "no data: one block");
    TrainSpec.Linear small = linear(null, null, "1000");
    assertEquals(13, small.blocksFor(3_089, 12_356));
    assertEquals(3, small.blocksFor(3, 12_356), "never more blocks than rows");
  }

  @Test
  void anExplicitKWinsButNeverExceedsTheRows() {
    TrainSpec.Linear l = linear("4", null, null);
    assertEquals(4, l.blocksFor(32_561, 451_592));
    assertEquals(2, l.blocksFor(2, 10));
  }

  @Test
  void autoInnerSolvesOneBlockAsLiblinearAndMoreBlocksWithOnePass() {
    TrainSpec.Linear l = linear(null, null, null);
    BqoBlock.Options one = l.inner(1);
    assertEquals(1000, one.passes());
    assertEquals(0.1, one.at(0).innerEps());
    assertEquals(0.01, one.at(1).innerEps(), 1e-15);
    assertEquals(1e-4, one.at(3).innerEps(), 1e-15);
    assertEquals(1, l.inner(2).passes());
    assertEquals(1, l.inner(8).passes());
    assertEquals(1e-4, l.inner(8).at(5).innerEps(), "several blocks keep one tolerance");
    assertEquals(1e-4, linear(null, "3", null).inner(1).at(4).innerEps(), "given passes keep one tolerance");
    assertEquals(3, linear(null, "3", null).inner(1).passes());
    assertEquals(3, linear(null, "3", null).inner(4).passes());
  }

  @Test
  void badValuesNameTheOption() {
    for (String bad : new String[] {"0", "-1", "x", "1.5", ""}) {
      RuntimeException e = assertThrows(RuntimeException.class, () -> linear(bad, null, null));
      assertTrue(e.getMessage().contains("--linear-blocks") || e.getMessage().contains("sodm.train.linear.blocks"), e.getMessage());
      RuntimeException p = assertThrows(RuntimeException.class, () -> linear(null, bad, null));
      assertTrue(p.getMessage().contains("--inner-passes") || p.getMessage().contains("sodm.train.linear.inner.passes"), p.getMessage());
    }
  }
}
