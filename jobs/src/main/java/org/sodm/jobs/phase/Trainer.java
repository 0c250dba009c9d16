package org.sodm.jobs.phase;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.sodm.avro.LevelStats;
import org.sodm.jobs.spec.TrainSpec;
import org.sodm.model.Model;

/**
 * A training method (the kernel merge tree, BQO, DSVRG, ...): chosen once from the spec, it
 * names the phases it adds after ingest and validation and runs them through the context's
 * {@link PhaseRunner}, returning its model.
 */
public interface Trainer {
  /** The phases between validation and model, in order ({@link PhaseRunner.Planned#present()} false: not in this run). */
  List<PhaseRunner.Planned> phases(TrainSpec spec);

  /** Names this run may have although they are not planned up front (exact mode's phases). */
  default boolean conditional(String name) {
    return false;
  }

  /**
   * Whether the run reads the ingest's per-file row sample (landmarks and k-means centres chosen in the driver, DSVRG's
   * strata). A trainer that does not gets an ingest that draws none.
   */
  default boolean readsIngestSample(TrainSpec spec) {
    return true;
  }

  /** Runs the phases and builds the model. */
  Trained train(TrainContext ctx) throws IOException;

  /**
   * What a trainer produced: the model (with its provenance), the per-level statistics, and the
   * method's own fields of {@code train-report.json}.
   */
  record Trained(Model model, List<LevelStats> levels, Map<String, Object> report) {}
}
