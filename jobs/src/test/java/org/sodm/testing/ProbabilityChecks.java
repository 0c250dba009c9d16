package org.sodm.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.sodm.data.LibsvmReader;
import org.sodm.model.MulticlassModel;

/** Checks of a model with probability estimates on rows of known labels. */
public final class ProbabilityChecks {
  private ProbabilityChecks() {}

  /** The model has probabilities, each row's label is their argmax, and at least {@code minAccuracy} of the rows are right. */
  public static void assertArgmaxLabels(MulticlassModel m, LibsvmReader.Data d, double minAccuracy) {
    assertTrue(m.hasProbabilities());
    int correct = 0;
    for (int i = 0; i < d.size(); i++) {
      MulticlassModel.Scored s = m.score(d.x()[i]);
      for (double p : s.probabilities()) assertTrue(s.probabilities()[s.index()] >= p, "row " + i + ": the predicted class is the most probable");
      if (m.classes().get(s.index()).equals(d.labels()[i])) correct++;
    }
    assertTrue(correct >= minAccuracy * d.size(), "accuracy " + correct + " of " + d.size());
  }
}
