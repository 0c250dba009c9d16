package org.sodm.cli;

import java.io.File;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.sodm.jobs.support.SodmException;

/**
 * sodm as the main class of an Oozie java action ({@code workflows/oozie/train}). Oozie's launcher
 * sets the system property {@value #CONF_PROPERTY} to the action's configuration file (the
 * cluster's settings, the workflow's {@code <global>} and {@code <action>} {@code <configuration>}
 * and the launcher's bookkeeping), as Oozie's documentation asks a java main to read it. sodm
 * reads it beneath its command line: sodm-default.xml, then the action's configuration (so
 * {@code sodm.*} keys written once in the workflow's global configuration reach every action),
 * then {@code -D} and the options. The launcher's child-job tag is added to
 * {@code mapreduce.job.tags}, so a rerun of the action finds and kills the jobs a killed
 * launcher left running. A failure is thrown with sodm's own message instead of
 * {@code System.exit}: Oozie shows the message of an exception as the action's error message,
 * but only "exit code [1]" for an exit.
 */
final class OozieAction {
  /** The system property Oozie's launcher sets to the action's configuration file. */
  static final String CONF_PROPERTY = "oozie.action.conf.xml";
  /** The tag Oozie gives the jobs an action starts (LauncherMain.CHILD_MAPREDUCE_JOB_TAGS). */
  static final String CHILD_TAGS = "oozie.child.mapreduce.job.tags";
  static final String TAGS = "mapreduce.job.tags";

  private OozieAction() {}

  /** The action's configuration file when sodm runs inside an Oozie launcher, else null. */
  static String confFile() {
    String f = System.getProperty(CONF_PROPERTY);
    return f == null || f.isBlank() ? null : f;
  }

  /** Adds the action's configuration file to {@code conf} (beneath what is set later) and the child-job tag. */
  static void addTo(Configuration conf, String file) {
    File f = new File(file);
    if (!f.isFile()) {
      throw new SodmException("the Oozie action configuration " + file + " (system property " + CONF_PROPERTY + ") is not a file");
    }
    conf.addResource(new Path(f.getAbsoluteFile().toURI()));
    String child = conf.getTrimmed(CHILD_TAGS);
    if (child != null && !child.isEmpty()) {
      String tags = conf.getTrimmed(TAGS);
      conf.set(TAGS, tags == null || tags.isEmpty() ? child : tags + "," + child);
    }
  }

  /** The failure of a command run as an Oozie action: its message becomes the action's error message. */
  static final class Failed extends SodmException {
    private static final long serialVersionUID = 1L;

    Failed(String message) {
      super(message);
    }
  }

  /** The exception for a command that ended with {@code code} != 0; {@code failure} is its error line (may be null). */
  static Failed failed(String command, int code, String failure) {
    return new Failed(failure != null ? failure
        : "sodm " + command + " ended with exit status " + code + " (its output is in the launcher's log)");
  }
}
