package org.sodm.jobs.support;

import java.util.Enumeration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Appender;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;

/**
 * Local mode's failure causes. LocalJobRunner only logs a failed job's exception (its status then
 * says "NA"), and a task that failed outside the mapper or reducer (a record writer's close, a
 * spill, a commit) has reported nothing itself: a disk that filled up during ingest said "ingest
 * failed: NA". This appender on LocalJobRunner's logger keeps the exception of each failed local
 * job, by job id, for {@link Jobs#run}; it forwards the events of level ERROR and above to the
 * root logger's appenders as before (sodm's log4j.properties keeps that logger at ERROR).
 */
final class LocalFailures extends AppenderSkeleton {
  private static final String LOGGER = "org.apache.hadoop.mapred.LocalJobRunner";
  private static final Map<String, Throwable> BY_JOB = new ConcurrentHashMap<>();
  private static boolean installed;

  private LocalFailures() {}

  static synchronized void install() {
    if (installed) return;
    installed = true;
    Logger l = Logger.getLogger(LOGGER);
    Level before = l.getEffectiveLevel();
    if (before.isGreaterOrEqual(Level.WARN) && !before.equals(Level.WARN)) {
      // see the WARN with the exception, and pass on only what the configuration let through
      l.setLevel(Level.WARN);
      l.setAdditivity(false);
      l.addAppender(new LocalFailures.Forward(before));
    }
    l.addAppender(new LocalFailures());
  }

  /** The exception LocalJobRunner logged for {@code jobId}, removed; or null. */
  static Throwable take(String jobId) {
    return BY_JOB.remove(jobId);
  }

  @Override
  protected void append(LoggingEvent e) {
    if (e.getThrowableInformation() == null || e.getThrowableInformation().getThrowable() == null) return;
    String msg = String.valueOf(e.getMessage());
    if (msg.startsWith("job_")) BY_JOB.putIfAbsent(msg.trim(), e.getThrowableInformation().getThrowable());
  }

  @Override
  public void close() {}

  @Override
  public boolean requiresLayout() {
    return false;
  }

  /** Passes events at or above the configured level to the root logger's appenders. */
  private static final class Forward extends AppenderSkeleton {
    private final Level level;

    Forward(Level level) {
      this.level = level;
    }

    @Override
    protected void append(LoggingEvent e) {
      if (!e.getLevel().isGreaterOrEqual(level)) return;
      for (Enumeration<?> a = Logger.getRootLogger().getAllAppenders(); a.hasMoreElements();) ((Appender) a.nextElement()).doAppend(e);
    }

    @Override
    public void close() {}

    @Override
    public boolean requiresLayout() {
      return false;
    }
  }
}
