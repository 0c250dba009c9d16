package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tukaani.xz.XZInputStream;

class DataSplitTest {
  @TempDir Path tmp;

  @Test
  void maskIsSeededExactAndStable() {
    boolean[] a = DataSplit.testMask(1000, 0.2, 1);
    boolean[] b = DataSplit.testMask(1000, 0.2, 1);
    assertArrayEquals(a, b);
    int n = 0;
    for (boolean x : a) if (x) n++;
    assertEquals(200, n);
    assertFalse(Arrays.equals(a, DataSplit.testMask(1000, 0.2, 2)));
    // pinned: SplittableRandom's sequence is specified, so these are the same on every JVM
    assertEquals(PINNED, firstTestRows(a));
  }

  static final List<Integer> PINNED = List.of(3, 4, 6, 8, 11);

  private static List<Integer> firstTestRows(boolean[] m) {
    List<Integer> r = new ArrayList<>();
    for (int i = 0; i < m.length && r.size() < 5; i++) if (m[i]) r.add(i);
    return r;
  }

  @Test
  void splitsAFileKeepingOrderAndDroppingComments() throws Exception {
    StringBuilder sb = new StringBuilder("# header\n");
    for (int i = 0; i < 50; i++) sb.append(i % 2).append(" 1:").append(i).append("\n").append(i == 10 ? "\n" : "");
    Path in = tmp.resolve("in");
    Files.writeString(in, sb);
    int[] n = DataSplit.split(in, tmp.resolve("tr"), tmp.resolve("te"), 0.2, 3);
    assertArrayEquals(new int[] {40, 10}, n);
    List<String> tr = Files.readAllLines(tmp.resolve("tr"));
    List<String> te = Files.readAllLines(tmp.resolve("te"));
    List<String> all = new ArrayList<>(tr);
    all.addAll(te);
    all.sort(null);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) expected.add(i % 2 + " 1:" + i);
    List<String> sortedExpected = new ArrayList<>(expected);
    sortedExpected.sort(null);
    assertEquals(sortedExpected, all);
    assertEquals(tr, expected.stream().filter(tr::contains).toList()); // input order kept
    DataSplit.split(in, tmp.resolve("tr2"), tmp.resolve("te2"), 0.2, 3);
    assertEquals(Files.readString(tmp.resolve("te")), Files.readString(tmp.resolve("te2")));
  }

  /**
   * Duplicates (the same label and features, however written) are removed before the split: every
   * canonical row appears once in train + test, the first occurrence as written, and no test row
   * equals a training row. Rows with the same features and another label stay, and are counted.
   */
  @Test
  void dedupSplitRemovesDuplicatesSoNoTestRowIsATrainingRow() throws Exception {
    StringBuilder sb = new StringBuilder();
    java.util.Set<String> distinct = new java.util.HashSet<>();
    int rows = 0;
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
    for (int i = 0; i < 400; i++) {
      int a = rnd.nextInt(12);
      int b = rnd.nextInt(5);
      int y = a % 2 == 0 ? 1 : -1;
      // written three ways: "1:a 3:b", "3:b.0 1:a" and with a zero feature; all the same row
      String line = switch (i % 3) {
        case 0 -> y + " 1:" + a + " 3:" + b;
        case 1 -> (y == 1 ? "+1" : "-1") + " 3:" + b + ".0 1:" + a;
        default -> y + ".0 1:" + a + " 2:0 3:" + b;
      };
      sb.append(line).append('\n');
      rows++;
      distinct.add(y + "|" + a + "|" + b);
    }
    sb.append("1 1:99 3:1\n-1 1:99 3:1\n"); // one feature vector with two labels: two distinct rows
    rows += 2;
    distinct.add("1|99|1");
    distinct.add("-1|99|1");
    Path in = tmp.resolve("dups");
    Files.writeString(in, sb);
    DataSplit.Result r = DataSplit.dedupSplit(in, tmp.resolve("tr"), tmp.resolve("te"), 0.2, 5);
    assertEquals(rows, r.read());
    assertEquals(rows - distinct.size(), r.duplicates());
    assertEquals(distinct.size(), r.train() + r.test());
    assertEquals(Math.round(0.2 * distinct.size()), r.test());
    assertEquals(1, r.conflicting());
    List<String> tr = Files.readAllLines(tmp.resolve("tr"));
    List<String> te = Files.readAllLines(tmp.resolve("te"));
    java.util.Set<String> trCanon = new java.util.HashSet<>();
    for (String l : tr) assertTrue(trCanon.add(DataSplit.canonical(l)), "duplicate in train: " + l);
    java.util.Set<String> teCanon = new java.util.HashSet<>();
    for (String l : te) {
      assertTrue(teCanon.add(DataSplit.canonical(l)), "duplicate in test: " + l);
      assertFalse(trCanon.contains(DataSplit.canonical(l)), "test row equals a training row: " + l);
    }
    assertEquals(distinct.size(), trCanon.size() + teCanon.size());
    // the canonical form: numbers, not spellings
    assertEquals(DataSplit.canonical("+1 3:2.0 1:5"), DataSplit.canonical("1.0 1:5 2:0 3:2"));
    assertNotEquals(DataSplit.canonical("1 1:5"), DataSplit.canonical("-1 1:5"));
    assertNotEquals(DataSplit.canonical("1 1:5"), DataSplit.canonical("1 2:5"));
  }

  /** The deduplicated phishing split of the benchmarks (seed 1), pinned; skipped without ../shared/datasets. */
  @Test
  void phishingDedupSplitIsPinned() throws Exception {
    Path src = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().resolve("../shared/datasets/phishing/phishing.libsvm.xz").normalize();
    assumeTrue(Files.exists(src), "no shared data sets at " + src);
    Path raw = tmp.resolve("phishing");
    try (InputStream in = new XZInputStream(Files.newInputStream(src))) {
      Files.copy(in, raw);
    }
    DataSplit.Result r = DataSplit.dedupSplit(raw, tmp.resolve("tr"), tmp.resolve("te"), 0.2, 1);
    // counted independently: `xz -dc phishing.libsvm.xz | sort -u | wc -l` = 5849 (its values are written one way only)
    assertEquals(new DataSplit.Result(11055, 5206, 4679, 1170, 64), r);
    java.util.Set<String> train = new java.util.HashSet<>(Files.readAllLines(tmp.resolve("tr")));
    for (String l : Files.readAllLines(tmp.resolve("te"))) assertFalse(train.contains(l), l);
  }

  /** The phishing split of the benchmarks (seed 1), pinned by its digest; skipped without ../shared/datasets. */
  @Test
  void phishingSplitIsPinned() throws Exception {
    // the tests run in bench/; the data sets are beside the project root
    Path src = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().resolve("../shared/datasets/phishing/phishing.libsvm.xz").normalize();
    assumeTrue(Files.exists(src), "no shared data sets at " + src);
    Path raw = tmp.resolve("phishing");
    try (InputStream in = new XZInputStream(Files.newInputStream(src))) {
      Files.copy(in, raw);
    }
    int[] n = DataSplit.split(raw, tmp.resolve("tr"), tmp.resolve("te"), 0.2, 1);
    assertArrayEquals(new int[] {8844, 2211}, n);
    assertEquals("3bbf2974ace82d8217c0210986d27a6a0767f7e96ea2a1ed433d5827e498fd7c", sha256(tmp.resolve("te")));
    assertEquals("e8482652c8b0677250839f4c09dcb479c218dcf60262ae963eb6725d36163ea5", sha256(tmp.resolve("tr")));
  }

  static String sha256(Path p) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
  }

  static String text(Path p) throws Exception {
    return Files.readString(p, StandardCharsets.UTF_8);
  }
}
