package org.sodm.model;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sodm.data.Seeds;

class SubproblemsTest {

  /** The sub-problems of a (class, fold), enumerated directly from the definition. */
  private static List<String> direct(int k, Subproblems.Scheme scheme, int folds, boolean full, int c, int fold) {
    List<String> out = new ArrayList<>();
    int task = 0;
    List<int[]> tasks = new ArrayList<>();
    if (k == 2) {
      tasks.add(new int[] {0, 1});
    } else if (scheme == Subproblems.Scheme.OVO) {
      for (int i = 0; i < k; i++) for (int j = i + 1; j < k; j++) tasks.add(new int[] {i, j});
    } else {
      for (int i = 0; i < k; i++) tasks.add(new int[] {-1, i});
    }
    int slots = full ? folds + 1 : folds;
    for (int[] t : tasks) {
      double y = t[1] == c ? 1 : (t[0] == c || t[0] == -1) ? -1 : 0;
      if (y != 0) {
        if (full) out.add((task * slots) + ":" + y);
        for (int f = 0; f < folds; f++) if (f != fold) out.add((task * slots + (full ? f + 1 : f)) + ":" + y);
      }
      task++;
    }
    return out;
  }

  @Test
  void membershipsPerRowIsTheLargestMembershipOfTheDefinition() {
    for (int k : new int[] {2, 3, 5, 26}) {
      for (Subproblems.Scheme s : Subproblems.Scheme.values()) {
        for (int folds : new int[] {0, 2, 5}) {
          for (boolean full : new boolean[] {true, false}) {
            if (!full && folds == 0) continue;
            int most = 0;
            for (int c = 0; c < k; c++) {
              for (int fold = folds == 0 ? -1 : 0; fold < Math.max(folds, 0); fold++) {
                most = Math.max(most, direct(k, s, folds, full, c, fold).size());
              }
            }
            assertEquals(most, new Subproblems(k, s, folds, full).membershipsPerRow(), k + " " + s + " folds " + folds + " full " + full);
          }
        }
      }
    }
  }

  @Test
  void membershipMatchesTheDefinition() {
    for (int k : new int[] {2, 3, 5}) {
      for (Subproblems.Scheme s : Subproblems.Scheme.values()) {
        for (int folds : new int[] {0, 2, 5}) {
          for (boolean full : new boolean[] {true, false}) {
            if (!full && folds == 0) continue;
            Subproblems p = new Subproblems(k, s, folds, full);
            for (int c = 0; c < k; c++) {
              for (int fold = 0; fold < Math.max(1, folds); fold++) {
                List<String> got = new ArrayList<>();
                p.forEach(c, folds == 0 ? -1 : fold, (sub, y) -> got.add(sub + ":" + y));
                assertEquals(direct(k, s, folds, full, c, folds == 0 ? -1 : fold), got, k + " " + s + " " + folds + " " + full);
              }
            }
            for (int sub = 0; sub < p.count(); sub++) {
              assertEquals(sub, p.sub(p.task(sub), p.heldOutFold(sub)));
            }
          }
        }
      }
    }
  }

  @Test
  void ovoPairsInLibsvmOrderAndBinaryIsOneTask() {
    Subproblems p = new Subproblems(4, Subproblems.Scheme.OVO);
    assertEquals(6, p.tasks());
    int[][] want = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    for (int t = 0; t < 6; t++) {
      assertEquals(want[t][0], p.negativeClass(t));
      assertEquals(want[t][1], p.positiveClass(t));
    }
    Subproblems b = new Subproblems(2, Subproblems.Scheme.OVR);
    assertEquals(1, b.tasks(), "two classes are one binary problem whatever the scheme");
    assertEquals(-1, b.y(0, 0));
    assertEquals(1, b.y(0, 1));
    assertEquals(3, new Subproblems(3, Subproblems.Scheme.OVR).tasks());
    assertEquals(12 + 10, new Subproblems(4, Subproblems.Scheme.OVO).largestTaskRows(new long[] {5, 10, 12, 1}));
    assertEquals(28, new Subproblems(4, Subproblems.Scheme.OVR).largestTaskRows(new long[] {5, 10, 12, 1}));
  }

  @Test
  void foldsAreDeterministicAndRoughlyEven() {
    int[] n = new int[5];
    for (long id = 0; id < 50_000; id++) {
      int f = Seeds.fold(7, id, 5);
      assertEquals(f, Seeds.fold(7, id, 5));
      n[f]++;
    }
    for (int v : n) assertTrue(Math.abs(v - 10_000) < 400, java.util.Arrays.toString(n));
  }
}
