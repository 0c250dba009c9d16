package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnlargeTest {
  @TempDir Path tmp;

  /** 5 rows to 23: labels and indices kept, values within sigma-ish of a source row, clipped, no exact copy, seeded. */
  @Test
  void enlargesWithNoiseKeepingLabelsPatternAndRange() throws Exception {
    Path in = tmp.resolve("in");
    Files.writeString(in, "+1 1:0.5 3:0.25\n-1 2:0.6\n-1 1:0 2:0.75\n+1 3:0.125\n-1 1:0.9 2:0.1 3:0.3\n");
    Enlarge.enlarge(in, tmp.resolve("a"), 23, 0.01, 3);
    Enlarge.enlarge(in, tmp.resolve("b"), 23, 0.01, 3);
    Enlarge.enlarge(in, tmp.resolve("c"), 23, 0.01, 4);
    assertEquals(Files.readString(tmp.resolve("a")), Files.readString(tmp.resolve("b")));
    assertFalse(Files.readString(tmp.resolve("a")).equals(Files.readString(tmp.resolve("c"))));
    List<String> src = Files.readAllLines(in);
    List<String> out = Files.readAllLines(tmp.resolve("a"));
    assertEquals(23, out.size());
    int[] uses = new int[src.size()];
    Set<String> canon = new HashSet<>();
    for (String l : src) canon.add(DataSplit.canonical(l));
    for (String l : out) {
      assertFalse(canon.contains(DataSplit.canonical(l)), "an exact copy of an input row: " + l);
      String[] t = l.split(" ");
      int match = -1;
      for (int i = 0; i < src.size(); i++) {
        String[] s = src.get(i).split(" ");
        if (!s[0].equals(t[0]) || s.length != t.length) continue;
        boolean ok = true;
        for (int k = 1; k < s.length && ok; k++) {
          String[] a = s[k].split(":");
          String[] b = t[k].split(":");
          double v = Double.parseDouble(b[1]);
          ok = a[0].equals(b[0]) && Math.abs(Double.parseDouble(a[1]) - v) < 0.06 && v >= 0 && v <= 1;
        }
        if (ok) match = i;
      }
      assertTrue(match >= 0, "no source row for " + l);
      uses[match]++;
    }
    // every pass is a permutation: 23 = 4 full passes + 3, so each row is used 4 or 5 times
    for (int u : uses) assertTrue(u == 4 || u == 5, java.util.Arrays.toString(uses));
  }
}
