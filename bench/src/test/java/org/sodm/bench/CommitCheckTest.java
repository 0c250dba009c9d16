package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bench refuses a jar that is not the checkout's: another commit, other uncommitted changes, no record. */
class CommitCheckTest {
  @TempDir Path tmp;

  private static final String A = "1111111111111111111111111111111111111111";
  private static final String B = "2222222222222222222222222222222222222222";

  @Test
  void decisionTable() {
    Path jar = Path.of("x.jar");
    CommitCheck.State cleanA = new CommitCheck.State(A, false, "d0");
    assertTrue(CommitCheck.decide(jar, cleanA, cleanA).ok());
    assertEquals(A, CommitCheck.decide(jar, cleanA, cleanA).commit());
    // another commit: refused, whichever is dirty
    CommitCheck.Verdict v = CommitCheck.decide(jar, cleanA, new CommitCheck.State(B, false, "d0"));
    assertFalse(v.ok());
    assertTrue(v.message().contains("built from commit 111111111111 but the checkout is at 222222222222"), v.message());
    // same commit, the checkout has uncommitted changes the jar was built without: refused
    assertFalse(CommitCheck.decide(jar, cleanA, new CommitCheck.State(A, true, "d1")).ok());
    // built from other uncommitted changes: refused
    assertFalse(CommitCheck.decide(jar, new CommitCheck.State(A, true, "d2"), new CommitCheck.State(A, true, "d1")).ok());
    // built dirty, the changes since committed away or reverted: refused
    assertFalse(CommitCheck.decide(jar, new CommitCheck.State(A, true, "d1"), cleanA).ok());
    // the same uncommitted changes: accepted, and reported as dirty
    v = CommitCheck.decide(jar, new CommitCheck.State(A, true, "d1"), new CommitCheck.State(A, true, "d1"));
    assertTrue(v.ok());
    assertTrue(v.message().contains("DIRTY"), v.message());
    assertEquals(A + "+dirty", v.commit());
    // no record, or no git: refused
    assertFalse(CommitCheck.decide(jar, null, cleanA).ok());
    assertFalse(CommitCheck.decide(jar, new CommitCheck.State("unknown", false, ""), cleanA).ok());
    assertFalse(CommitCheck.decide(jar, cleanA, null).ok());
  }

  private static Path jar(Path p, String props) throws Exception {
    try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(p))) {
      j.putNextEntry(new ZipEntry("org/sodm/Some.class"));
      j.write(new byte[] {1, 2, 3});
      if (props != null) {
        j.putNextEntry(new ZipEntry(CommitCheck.ENTRY));
        j.write(props.getBytes(StandardCharsets.UTF_8));
      }
    }
    return p;
  }

  @Test
  void readsTheBuildRecord() throws Exception {
    CommitCheck.State s = CommitCheck.ofJar(jar(tmp.resolve("a.jar"), "# comment\ncommit=" + A + "\ndirty=true\ndiff=abc\n"));
    assertEquals(new CommitCheck.State(A, true, "abc"), s);
    assertNull(CommitCheck.ofJar(jar(tmp.resolve("b.jar"), null)));
    assertFalse(CommitCheck.check(tmp.resolve("missing.jar"), tmp).ok());
  }

  private static String git(Path dir, String... args) throws Exception {
    String[] cmd = new String[args.length + 3];
    cmd[0] = "git";
    cmd[1] = "-C";
    cmd[2] = dir.toString();
    System.arraycopy(args, 0, cmd, 3, args.length);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("GIT_AUTHOR_NAME", "t");
    pb.environment().put("GIT_AUTHOR_EMAIL", "t@t");
    pb.environment().put("GIT_COMMITTER_NAME", "t");
    pb.environment().put("GIT_COMMITTER_EMAIL", "t@t");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    return out.trim();
  }

  private static boolean hasGit() {
    try {
      Process p = new ProcessBuilder("git", "--version").start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * A real repository: a jar recording the commit (with the diff hash computed as the build does:
   * SHA-256 of git diff HEAD) is accepted; after another commit it is refused; with an uncommitted
   * change it is refused until a jar of that change is "built".
   */
  @Test
  void refusesAMismatchedJarInARealCheckout() throws Exception {
    assumeTrue(hasGit(), "git not installed");
    Path repo = Files.createDirectory(tmp.resolve("repo"));
    git(repo, "init", "-q");
    Files.writeString(repo.resolve("f.txt"), "one\n");
    git(repo, "add", "f.txt");
    git(repo, "commit", "-q", "-m", "one");
    String c1 = git(repo, "rev-parse", "HEAD");
    Path j1 = jar(tmp.resolve("c1.jar"), "commit=" + c1 + "\ndirty=false\ndiff=" + CommitCheck.sha256("") + "\n");
    assertTrue(CommitCheck.check(j1, repo).ok(), CommitCheck.check(j1, repo).message());

    Files.writeString(repo.resolve("f.txt"), "two\n");
    CommitCheck.Verdict dirty = CommitCheck.check(j1, repo);
    assertFalse(dirty.ok(), dirty.message());
    assertTrue(dirty.message().contains("uncommitted changes"), dirty.message());
    String diff = git(repo, "diff", "HEAD", "--no-ext-diff", "--no-color") + "\n";
    Path jDirty = jar(tmp.resolve("dirty.jar"), "commit=" + c1 + "\ndirty=true\ndiff=" + CommitCheck.sha256(diff) + "\n");
    CommitCheck.Verdict same = CommitCheck.check(jDirty, repo);
    assertTrue(same.ok(), same.message());
    assertTrue(same.message().contains("DIRTY"), same.message());

    git(repo, "commit", "-q", "-am", "two");
    CommitCheck.Verdict stale = CommitCheck.check(j1, repo);
    assertFalse(stale.ok(), stale.message());
    assertTrue(stale.message().contains("but the checkout is at"), stale.message());
    assertFalse(CommitCheck.check(jDirty, repo).ok());
  }
}
