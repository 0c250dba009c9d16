package org.sodm.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.util.Tool;
import org.sodm.jobs.support.SodmException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Base of every {@code sodm} subcommand: a Hadoop {@link Tool} (so ToolRunner's generic options
 * -D, -conf, -fs, -jt, -files, -libjars work when given first) whose own options are parsed with
 * picocli. Options override configuration keys; {@code -D key=value} is accepted among the
 * options too.
 */
public abstract class SodmCommand extends Configured implements Tool, Callable<Integer> {

  @Option(names = "-D", paramLabel = "key=value", description = "Set a configuration key (see conf/sodm-default.xml).")
  Map<String, String> defines = new LinkedHashMap<>();

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  boolean help;

  private final PrintWriter out = new PrintWriter(System.out, true);

  protected PrintWriter out() {
    return out;
  }

  /** Copies the options that were given onto configuration keys. */
  protected abstract void applyOptions(Configuration conf);

  /** Does the work; returns the exit code. */
  protected abstract int execute(Configuration conf) throws Exception;

  protected static void set(Configuration conf, String key, Object value) {
    if (value != null) conf.set(key, String.valueOf(value));
  }

  @Override
  public final Integer call() throws Exception {
    Configuration conf = getConf() == null ? new Configuration() : getConf();
    for (Map.Entry<String, String> e : defines.entrySet()) conf.set(e.getKey(), e.getValue());
    applyOptions(conf);
    try {
      return execute(conf);
    } finally {
      out.flush();
    }
  }

  @Override
  public final int run(String[] args) {
    CommandLine cl = new CommandLine(this);
    cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      String name = "sodm " + cmd.getCommandName();
      if (ex instanceof SodmException || ex instanceof IllegalArgumentException) {
        cmd.getErr().println(name + ": error: " + ex.getMessage());
      } else {
        cmd.getErr().println(name + ": error: " + ex);
        ex.printStackTrace(cmd.getErr());
      }
      return 1;
    });
    return cl.execute(args);
  }
}
