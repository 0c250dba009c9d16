package org.sodm.model;

import java.util.List;
import java.util.Locale;

/**
 * The binary sub-problems of a training run over {@code K} classes: the tasks of the
 * multi-class scheme, each once on all its rows (slot 0) and, for internal cross-validation
 * (probability estimates, {@code sodm cv}), once per fold without that fold's rows (slots
 * 1..F). Sub-problem {@code s = task * slots + slot}, slots = F + 1 (probabilities: the full
 * model and its F fold models) or F ({@code cv}: fold models only, {@link #withoutFull}).
 *
 * <ul>
 *   <li>K = 2: one task, the binary problem (the smaller class -1, the larger +1), whatever the scheme.
 *   <li>ovo (LIBSVM): K(K-1)/2 tasks, the pairs (i, j), i &lt; j, in LIBSVM's order (i = 0..K-2,
 *       j = i+1..K-1); class i is -1 and class j is +1, so f &gt;= 0 votes for j, f &lt; 0 for i.
 *   <li>ovr (LIBLINEAR): K tasks, class c is +1, every other class -1.
 * </ul>
 *
 * A row of class c and fold f belongs to sub-problem (task, slot) when c is one of the task's
 * classes (always, for ovr) and slot is 0 (the full problem) or the slot of a fold other than f.
 * Immutable.
 */
public final class Subproblems {
  /** The multi-class scheme. */
  public enum Scheme {
    OVO, OVR;

    public String id() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Scheme parse(String s) {
      return switch (s.trim().toLowerCase(Locale.ROOT)) {
        case "ovo" -> OVO;
        case "ovr" -> OVR;
        default -> throw new IllegalArgumentException("multi-class scheme must be ovo or ovr, got '" + s + "'");
      };
    }
  }

  private final int classes;
  private final Scheme scheme;
  private final int folds;
  private final boolean full;
  private final int[] negative;
  private final int[] positive;

  /**
   * @param classes K &gt;= 2
   * @param folds F: 0 (no internal cross-validation) or &gt;= 2
   * @param full whether slot 0 (the model on all rows) is a sub-problem (false only for cross-validation alone, F &gt;= 2)
   */
  public Subproblems(int classes, Scheme scheme, int folds, boolean full) {
    if (classes < 2) throw new IllegalArgumentException("a classification problem needs at least 2 classes, got " + classes);
    if (folds == 1 || folds < 0) throw new IllegalArgumentException("folds must be 0 or >= 2, got " + folds);
    if (!full && folds == 0) throw new IllegalArgumentException("without the full problem there must be folds");
    this.classes = classes;
    this.scheme = classes == 2 ? Scheme.OVO : scheme;
    this.folds = folds;
    this.full = full;
    int t = tasksOf(classes, this.scheme);
    negative = new int[t];
    positive = new int[t];
    if (this.scheme == Scheme.OVO) {
      int p = 0;
      for (int i = 0; i < classes; i++) {
        for (int j = i + 1; j < classes; j++) {
          negative[p] = i;
          positive[p++] = j;
        }
      }
    } else {
      for (int c = 0; c < classes; c++) {
        negative[c] = -1;
        positive[c] = c;
      }
    }
  }

  public Subproblems(int classes, Scheme scheme) {
    this(classes, scheme, 0, true);
  }

  /** Tasks of K classes under a scheme: 1 for K = 2, K(K-1)/2 for ovo, K for ovr. */
  public static int tasksOf(int classes, Scheme scheme) {
    if (classes == 2) return 1;
    return scheme == Scheme.OVO ? classes * (classes - 1) / 2 : classes;
  }

  public int classes() {
    return classes;
  }

  /** The scheme (ovo for K = 2). */
  public Scheme scheme() {
    return scheme;
  }

  public int folds() {
    return folds;
  }

  public boolean full() {
    return full;
  }

  public int tasks() {
    return negative.length;
  }

  /** Sub-problems per task: F + 1 with the full problem, else F. */
  public int slots() {
    return full ? folds + 1 : folds;
  }

  public int count() {
    return tasks() * slots();
  }

  public int task(int sub) {
    return sub / slots();
  }

  /** The fold left out of sub-problem {@code sub}, or -1 for the full problem. */
  public int heldOutFold(int sub) {
    int slot = sub % slots();
    return full ? slot - 1 : slot;
  }

  /** The sub-problem of a task trained without fold {@code fold} (-1: the full problem). */
  public int sub(int task, int fold) {
    return task * slots() + (full ? fold + 1 : fold);
  }

  /** The -1 class of a task (ovr: -1, every other class). */
  public int negativeClass(int task) {
    return negative[task];
  }

  /** The +1 class of a task. */
  public int positiveClass(int task) {
    return positive[task];
  }

  /** The label y (+-1) of class c in a task, or 0 when the task does not involve c. */
  public double y(int task, int c) {
    if (positive[task] == c) return 1;
    if (scheme == Scheme.OVR || negative[task] == c) return -1;
    return 0;
  }

  /**
   * Calls {@code out.accept(sub, y)} for every sub-problem a row of class {@code c} in fold
   * {@code fold} (ignored when there are no folds) belongs to, in increasing sub-problem order.
   */
  public void forEach(int c, int fold, Membership out) {
    if (c < 0 || c >= classes) throw new IllegalArgumentException("class index " + c + " out of [0, " + classes + ")");
    int slots = slots();
    for (int t = 0; t < tasks(); t++) {
      double y = y(t, c);
      if (y == 0) continue;
      int base = t * slots;
      if (full) out.accept(base, y);
      for (int f = 0; f < folds; f++) {
        if (f != fold) out.accept(base + (full ? f + 1 : f), y);
      }
    }
  }

  /**
   * The most sub-problems one row belongs to ({@link #forEach}'s calls for a row): per task of its class (ovo: K - 1 tasks,
   * ovr: all K), the full problem and every fold's but its own.
   */
  public int membershipsPerRow() {
    int perTask = (full ? 1 : 0) + Math.max(0, folds - 1);
    return (scheme == Scheme.OVO ? classes - 1 : tasks()) * perTask;
  }

  /** A (sub-problem, y) pair of {@link #forEach}. */
  @FunctionalInterface
  public interface Membership {
    void accept(int sub, double y);
  }

  /** Rows of the largest task, from the class counts (for the block plan of the tree). */
  public long largestTaskRows(long[] classCounts) {
    long best = 0;
    for (int t = 0; t < tasks(); t++) {
      long n = 0;
      for (int c = 0; c < classes; c++) if (y(t, c) != 0) n += classCounts[c];
      best = Math.max(best, n);
    }
    return best;
  }

  /** "ovo: 45 pairs" etc. */
  public String describe(List<String> classNames) {
    String s = classes == 2 ? "binary" : scheme == Scheme.OVO ? "ovo, " + tasks() + " class pairs" : "ovr, " + tasks() + " classes";
    if (folds > 0) s += (full ? " x (full + " : " x (") + folds + " folds)";
    return s;
  }
}
