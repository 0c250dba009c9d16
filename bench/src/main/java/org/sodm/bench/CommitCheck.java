package org.sodm.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * Refuses to time a jar that is not the checkout's. The jobs build writes {@value #ENTRY} into both
 * product jars (commit = {@code git rev-parse HEAD}, dirty = tracked files modified, diff = SHA-256
 * of {@code git diff HEAD --no-ext-diff --no-color}); this class reads it and compares it with the
 * checkout now:
 *
 * <ul>
 *   <li>no entry, or commit "unknown": refused (a jar built before the entry existed, or without git);
 *   <li>another commit: refused (rebuild);
 *   <li>same commit, clean tree, jar built clean: accepted;
 *   <li>same commit, dirty tree: accepted only if the jar was built from the same diff (same SHA-256),
 *       and reported as dirty; otherwise refused (the jar holds other uncommitted changes, or none).
 * </ul>
 *
 * Untracked files are not part of the check (git diff does not see them).
 */
public final class CommitCheck {
  private CommitCheck() {}

  public static final String ENTRY = "META-INF/sodm/build.properties";

  /** What the build recorded, or what the checkout is now. */
  public record State(String commit, boolean dirty, String diff) {
    String shortCommit() {
      return commit.length() > 12 ? commit.substring(0, 12) : commit;
    }
  }

  /** The verdict: ok or not, and a sentence for the log and config.txt. */
  public record Verdict(boolean ok, String message, String commit) {}

  /** The build's record in {@code jar}, or null when the jar has none. */
  public static State ofJar(Path jar) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      ZipEntry e = j.getEntry(ENTRY);
      if (e == null) return null;
      Properties p = new Properties();
      try (InputStream in = j.getInputStream(e)) {
        p.load(in);
      }
      return new State(p.getProperty("commit", "unknown").trim(), "true".equals(p.getProperty("dirty", "").trim()),
          p.getProperty("diff", "").trim());
    }
  }

  /** The checkout's state now (git must be installed and {@code root} a git work tree). */
  public static State ofCheckout(Path root) throws IOException, InterruptedException {
    String head = git(root, "rev-parse", "HEAD");
    if (head == null) return null;
    String status = git(root, "status", "--porcelain", "--untracked-files=no");
    String diff = git(root, "diff", "HEAD", "--no-ext-diff", "--no-color");
    return new State(head.trim(), status != null && !status.isBlank(), diff == null ? "" : sha256(diff));
  }

  static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String git(Path root, String... args) throws IOException, InterruptedException {
    String[] cmd = new String[args.length + 3];
    cmd[0] = "git";
    cmd[1] = "-C";
    cmd[2] = root.toString();
    System.arraycopy(args, 0, cmd, 3, args.length);
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    } catch (IOException e) {
      return null; // no git
    }
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return null;
    }
    return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
  }

  /** The decision for a jar's record against the checkout's state (either may be null: unknown). */
  public static Verdict decide(Path jar, State built, State now) {
    if (built == null || "unknown".equals(built.commit()) || built.commit().isEmpty()) {
      return new Verdict(false, jar + " records no git commit (" + ENTRY + " missing or 'unknown'): rebuild it from the checkout "
          + "(mvn -B -o -q -DskipTests package) before timing it", "unknown");
    }
    if (now == null) {
      return new Verdict(false, "the checkout is not a git work tree (or git is missing): cannot tell whether " + jar + " (commit "
          + built.shortCommit() + ") is the code here", built.commit());
    }
    if (!built.commit().equals(now.commit())) {
      return new Verdict(false, jar + " was built from commit " + built.shortCommit() + " but the checkout is at " + now.shortCommit()
          + ": rebuild it (mvn -B -o -q -DskipTests package) before timing it", built.commit());
    }
    if (!now.dirty()) {
      if (built.dirty()) {
        return new Verdict(false, jar + " was built from commit " + built.shortCommit() + " with uncommitted changes that the checkout "
            + "no longer has: rebuild it", built.commit());
      }
      return new Verdict(true, "jar commit " + built.commit() + " = checkout (clean)", built.commit());
    }
    if (built.dirty() && built.diff().equals(now.diff())) {
      return new Verdict(true, "jar commit " + built.commit() + " = checkout, DIRTY: both have the same uncommitted changes (git diff HEAD "
          + "sha256 " + now.diff().substring(0, Math.min(12, now.diff().length())) + "); the figures are not those of a commit",
          built.commit() + "+dirty");
    }
    return new Verdict(false, "the checkout at " + now.shortCommit() + " has uncommitted changes that " + jar + " was not built from"
        + (built.dirty() ? " (it was built from other uncommitted changes)" : " (it was built clean)") + ": rebuild it, or commit",
        built.commit());
  }

  /** {@link #decide} for a jar file and a checkout directory. */
  public static Verdict check(Path jar, Path root) throws IOException, InterruptedException {
    if (!Files.isRegularFile(jar)) return new Verdict(false, "no jar at " + jar, "unknown");
    return decide(jar, ofJar(jar), ofCheckout(root));
  }
}
