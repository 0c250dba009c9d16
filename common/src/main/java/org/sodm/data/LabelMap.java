package org.sodm.data;

import java.util.List;
import org.sodm.avro.LabelMapRecord;

/**
 * Maps the two original labels of a binary problem to -1 and +1: the smaller label in
 * {@link Labels#ORDER} (numeric order for numbers) becomes -1. So {-1,1}, {0,1} and {1,2}
 * map their first member to -1.
 */
public record LabelMap(String negative, String positive) {

  public LabelMap {
    if (negative.equals(positive)) throw new IllegalArgumentException("the two labels are equal: " + negative);
  }

  /** From the distinct labels of a data set; exactly two are required. */
  public static LabelMap of(List<String> labels) {
    if (labels.size() != 2) {
      throw new IllegalArgumentException(
          "a binary problem needs exactly 2 distinct labels, found " + labels.size() + ": " + labels);
    }
    String a = labels.get(0);
    String b = labels.get(1);
    return Labels.ORDER.compare(a, b) < 0 ? new LabelMap(a, b) : new LabelMap(b, a);
  }

  /** -1 or +1 for a canonical label. */
  public double signed(String label) {
    if (positive.equals(label)) return 1.0;
    if (negative.equals(label)) return -1.0;
    throw new IllegalArgumentException(
        "label '" + label + "' is not one of the model's labels {" + negative + ", " + positive + "}");
  }

  /** The original label for a decision value's sign (ties go to +1, as LIBSVM's sign(f) > 0 rule does not; f == 0 -> +1). */
  public String original(double decision) {
    return decision >= 0 ? positive : negative;
  }

  public LabelMapRecord toAvro() {
    return new LabelMapRecord(negative, positive);
  }

  public static LabelMap fromAvro(LabelMapRecord r) {
    return new LabelMap(r.getNegative(), r.getPositive());
  }
}
