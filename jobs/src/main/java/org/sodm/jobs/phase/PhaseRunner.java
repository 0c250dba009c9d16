package org.sodm.jobs.phase;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.support.Fingerprints;
import org.sodm.jobs.support.OutputDir;
import org.sodm.jobs.support.OutputGuard;
import org.sodm.jobs.support.OutputLock;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.SodmException;

/**
 * Runs the named phases of one training run, in the manner of Mahout's {@code AbstractJob}
 * ({@code --startPhase/--endPhase}, {@code shouldRunNextPhase}). A phase's output is a directory
 * under {@code OUTPUT/work}, present only when the phase completed. The runner alone:
 *
 * <ul>
 *   <li>skips a phase whose directory is present (a resumed run);
 *   <li>otherwise has the phase write into a temporary sibling directory and renames it into
 *       place (removing the {@code _failures} reports of its tasks), so a failure leaves nothing
 *       under the phase's name;
 *   <li>prints the progress line;
 *   <li>stops the run after the phase named by {@code --phase} ({@link StopAfterPhase});
 *   <li>checks on {@code --resume} that the run in the work directory had the same parameters.
 * </ul>
 */
public final class PhaseRunner implements AutoCloseable {
  /** The work sub-directory of a training output. */
  public static final String WORK = "work";
  static final String PARAMS = "params.properties";

  /** A phase of a run as planned: {@code present} false when this run does not have it (shown as {@code none}). */
  public record Planned(String name, String dir, boolean present) {
    public static Planned of(String name, boolean present) {
      return new Planned(name, name, present);
    }
  }

  /** What a phase is: its name (for --phase), its directory under work/ and how it writes its output. */
  public interface Phase {
    String name();

    default String dir() {
      return name();
    }

    /** Writes the phase's output into {@code temp} (renamed to the phase's directory on success). */
    void write(Path temp) throws IOException;

    /** The progress line's text, given the complete directory. */
    String summary(Path dir, boolean resumed) throws IOException;
  }

  /** The result of a phase: its complete directory, whether an earlier run had made it, and the seconds it took. */
  public record Done(Path dir, boolean resumed, double seconds) {}

  /** Thrown after the phase named by --phase: the run ends there. */
  public static final class StopAfterPhase extends RuntimeException {
    StopAfterPhase(String phase) {
      super("stopped after phase " + phase, null, false, false);
    }
  }

  /** Decides whether a name not among the planned phases is still one this run may have (exact mode's). */
  public interface Conditional {
    boolean accepts(String name);
  }

  private final Configuration conf;
  private final FileSystem fs;
  private final Path out;
  private final Path work;
  private final Consumer<String> progress;
  private final long t0;
  private final String stopAfter;
  private final Map<String, String> passed = new LinkedHashMap<>();
  private List<Planned> planned = List.of();
  private OutputLock lock;
  /** Tests: milliseconds to wait once the output's lock is taken. */
  public static final String TEST_PAUSE_AFTER_LOCK = "sodm.internal.test.pause.after.lock.ms";
  /** Tests: with {@link #TEST_PAUSE_AFTER_LOCK}, a local file whose appearance ends the wait early. */
  public static final String TEST_PAUSE_UNTIL_FILE = "sodm.internal.test.pause.after.lock.until";
  /** This run created the output directory (not a --resume), phases it committed, and whether it ended as planned. */
  private boolean created;
  private int committed;
  private boolean ended;

  /**
   * @param stopAfter the phase named by --phase, or null for the whole run
   * @param t0 {@link System#nanoTime()} at the start of the run (progress lines show the total)
   */
  public PhaseRunner(Configuration conf, Path out, String stopAfter, Consumer<String> progress, long t0) throws IOException {
    this.conf = conf;
    this.fs = out.getFileSystem(conf);
    this.out = fs.makeQualified(out);
    this.work = new Path(this.out, WORK);
    this.stopAfter = stopAfter;
    this.progress = progress;
    this.t0 = t0;
  }

  public FileSystem fs() {
    return fs;
  }

  public Path out() {
    return out;
  }

  public Path work() {
    return work;
  }

  public Configuration conf() {
    return conf;
  }

  /**
   * Sets the run's phases (for --phase and the summary of a stopped run) and fails, before any
   * job, when --phase names none of them and {@code conditional} does not accept it either.
   */
  public void plan(List<Planned> phases, Conditional conditional) {
    this.planned = List.copyOf(phases);
    if (stopAfter == null) return;
    boolean known = phases.stream().anyMatch(p -> p.name().equals(stopAfter)) || conditional.accepts(stopAfter);
    if (!known) {
      throw new SodmException("--phase " + stopAfter + ": this run's phases are "
          + String.join(", ", phases.stream().map(Planned::name).toList()));
    }
  }

  /** Whether --phase was given. */
  public boolean phased() {
    return stopAfter != null;
  }

  /**
   * Prepares the work directory: on resume checks that {@code params} equal the earlier run's
   * (numbers compared as numbers) and removes the temporary directories a killed run left; else
   * creates the output (replacing an existing one only with {@code overwrite}) and records params.
   */
  public void prepare(Map<String, String> params, boolean resume, boolean overwrite) throws IOException {
    lock = OutputLock.acquire(fs, out, Param.LOCK_LEASE.longValue(conf) * 1000, progress);
    long pause = conf.getLong(TEST_PAUSE_AFTER_LOCK, 0); // tests: a run that holds its lock while another starts
    if (pause > 0) {
      String until = conf.get(TEST_PAUSE_UNTIL_FILE);
      long end = System.nanoTime() + pause * 1_000_000;
      try {
        do {
          Thread.sleep(until == null ? pause : 50);
        } while (until != null && !new java.io.File(until).exists() && System.nanoTime() < end);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Path pp = new Path(work, PARAMS);
    if (resume) {
      if (!fs.exists(pp)) throw new SodmException("--resume: " + work + " holds no earlier run (no " + PARAMS + ")");
      Properties old = new Properties();
      try (InputStream in = fs.open(pp)) {
        old.load(in);
      }
      List<String> diff = new ArrayList<>();
      TreeSet<String> keys = new TreeSet<>(old.stringPropertyNames());
      keys.addAll(params.keySet());
      for (String k : keys) {
        if (sameValue(old.getProperty(k), params.get(k))) continue;
        if (k.startsWith(Fingerprints.PREFIX)) {
          String file = k.substring(Fingerprints.PREFIX.length());
          throw new SodmException("--resume: the input " + file + (params.get(k) == null ? " is gone"
              : old.getProperty(k) == null ? " is new" : " changed since the run started (was " + old.getProperty(k) + ", now "
                  + params.get(k) + ")") + "; its ingested copy would be stale: start again (--overwrite) or restore the input");
        }
        diff.add(k + " was " + old.getProperty(k) + ", now " + params.get(k));
      }
      if (!diff.isEmpty()) throw new SodmException("--resume with different parameters: " + String.join("; ", diff));
      int stale = OutputDir.removeStale(fs, work);
      progress.accept("resuming from " + work + (stale > 0 ? " (removed " + stale + " unfinished phase director"
          + (stale == 1 ? "y" : "ies") + " of the interrupted run)" : ""));
      return;
    }
    if (fs.exists(out)) {
      if (!overwrite) throw new SodmException("output " + out + " already exists (pass --resume to continue it, or --overwrite)");
      OutputGuard.checkReplaceable(fs, out);
      fs.delete(out, true);
    }
    fs.mkdirs(work);
    OutputGuard.mark(fs, out, "sodm train");
    created = true;
    Properties p = new Properties();
    params.forEach(p::setProperty);
    try (OutputStream o = fs.create(pp, true)) {
      p.store(o, "sodm train parameters");
    }
  }

  /** The phase --phase names, or null. */
  public String stopAfter() {
    return stopAfter;
  }

  /** The run wrote its result (the model): the output stays whatever happens after. */
  public void ended() {
    ended = true;
  }

  /**
   * Removes the output when this run created it and failed before any phase was complete
   * (nothing half-written stays; completed phases stay for --resume), then releases the lock.
   */
  @Override
  public void close() throws IOException {
    if (created && committed == 0 && !ended && fs.exists(out)) {
      // failed before any phase was complete: nothing to resume, so nothing stays (the lock is still ours)
      fs.delete(out, true);
    }
    if (lock != null) lock.close();
    lock = null;
  }

  /** True when {@code out} holds an earlier run (its parameters file). */
  public boolean hasEarlierRun() throws IOException {
    return fs.exists(new Path(work, PARAMS));
  }

  /** Equal as text, or as numbers ("2" and "2.0" are the same C). */
  static boolean sameValue(String a, String b) {
    if (Objects.equals(a, b)) return true;
    if (a == null || b == null) return false;
    try {
      return Double.parseDouble(a.trim()) == Double.parseDouble(b.trim());
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Runs {@code phase} unless its directory is complete, prints its progress line under
   * {@code label}, and stops the run when --phase named it.
   */
  public Done run(String label, Phase phase) throws IOException {
    Path dir = new Path(work, phase.dir());
    long t = System.nanoTime();
    boolean resumed = fs.exists(dir);
    if (!resumed) {
      fs.mkdirs(dir.getParent());
      try (OutputDir od = OutputDir.create(conf, dir, false)) {
        phase.write(od.temp());
        fs.delete(new Path(od.temp(), "_failures"), true);
        od.commit();
        committed++;
      }
    }
    double seconds = (System.nanoTime() - t) / 1e9;
    say(resumed ? label + "*" : label, phase.summary(dir, resumed), seconds);
    passed(phase.name(), resumed ? "resumed" : "ran");
    return new Done(dir, resumed, seconds);
  }

  /**
   * Records that the run went past a phase it did not run here ({@code why}: an ingest directory
   * given as input, a phase this run does not have), stopping when --phase named it.
   */
  public void passed(String name, String why) {
    passed.put(name, why);
    if (name.equals(stopAfter)) ended = true;
    if (name.equals(stopAfter)) throw new StopAfterPhase(name);
  }

  /** The progress line of a phase (the bench harness parses this layout). */
  public void say(String phase, String what, double phaseSeconds) {
    progress.accept(progressLine(phase, what, phaseSeconds, elapsed()));
  }

  /** A line without the phase layout. */
  public void note(String line) {
    progress.accept(line);
  }

  public static String progressLine(String phase, String what, double phaseSeconds, double totalSeconds) {
    return String.format(Locale.ROOT, "%-12s %-70s %7.1f s  (total %.1f s)", phase, what, phaseSeconds, totalSeconds);
  }

  public double elapsed() {
    return (System.nanoTime() - t0) / 1e9;
  }

  /**
   * The end of a --phase run: one line per planned phase, {@code done} (complete), {@code todo}
   * or {@code none} (not part of this run); phases outside the plan that are complete are listed too.
   */
  public void reportStopped(Path modelFile) throws IOException {
    StringBuilder sb = new StringBuilder("phases:");
    for (Planned p : planned) {
      boolean done = p.name().equals("model") ? fs.exists(modelFile) : fs.exists(new Path(work, p.dir()))
          || "external".equals(passed.get(p.name()));
      sb.append(' ').append(p.name()).append('=').append(done ? "done" : p.present() ? "todo" : "none");
    }
    progress.accept(String.format(Locale.ROOT, "stopped after phase %s (--phase)", stopAfter));
    progress.accept(sb.toString());
  }
}
