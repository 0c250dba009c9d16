package org.sodm.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.util.Tool;
import org.sodm.jobs.spec.Param;
import org.sodm.jobs.support.Causes;
import org.sodm.jobs.support.SodmException;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
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

  @Option(names = "--debug", description = "Print the stack trace of a failure (also SODM_DEBUG=1).")
  boolean debug;

  private final PrintWriter stdout = new PrintWriter(System.out, true);

  /** Progress and report lines: standard output, or nowhere with --quiet. */
  private PrintWriter out = stdout;

  /** --quiet, on the commands that take it ({@link #quietSays()}). */
  private OptionSpec quiet;

  /** The error line printed for the failure of the last run (null: none), for {@link OozieAction}. */
  private String failure;

  String failure() {
    return failure;
  }

  protected PrintWriter out() {
    return out;
  }

  /** Where a command's result line goes that --quiet keeps (cv's and grid's accuracy, as svm-train -v -q prints it). */
  protected PrintWriter result() {
    return stdout;
  }

  /**
   * What --quiet leaves printed on this command (its help), or null when the command has no --quiet: those whose
   * progress and report lines a LIBSVM user's script silences with svm-train's or svm-predict's -q.
   */
  protected String quietSays() {
    return null;
  }

  /** Copies the options that were given onto configuration keys (beyond the table's, see {@link #params()}). */
  protected abstract void applyOptions(Configuration conf);

  /** The parameters of the table this command takes as options (added to its command line, in this order). */
  protected List<Param> params() {
    return List.of();
  }

  private final Map<Param, OptionSpec> paramOptions = new LinkedHashMap<>();

  /**
   * The option of a table parameter, derived from the table: names, label, help with key and default. picocli reads a
   * description as a format string, so the table's plain text has its '%' doubled.
   */
  static OptionSpec optionOf(Param p) {
    OptionSpec.Builder b =
        OptionSpec.builder(p.options().toArray(new String[0])).description(p.help().replace("%", "%%"));
    if (p.kind() == Param.Kind.VALUE) {
      b.paramLabel(p.label()).type(String.class);
    } else if (p.kind() == Param.Kind.AUTO_FLAG) {
      b.arity("0").type(Boolean.class).negatable(true); // --NAME: true, --no-NAME: false, neither: the key's value (auto)
    } else {
      b.arity("0").type(boolean.class);
    }
    return b.build();
  }

  /** Sets the key of every table option that was given. */
  private void applyParams(Configuration conf) {
    for (Map.Entry<Param, OptionSpec> e : paramOptions.entrySet()) {
      Param p = e.getKey();
      Object v = e.getValue().getValue();
      switch (p.kind()) {
        case VALUE -> {
          if (v != null) conf.set(p.key(), (String) v);
        }
        case FLAG -> {
          if (Boolean.TRUE.equals(v)) conf.setBoolean(p.key(), true);
        }
        case NEGATED_FLAG -> {
          if (Boolean.TRUE.equals(v)) conf.setBoolean(p.key(), false);
        }
        case AUTO_FLAG -> {
          if (v != null) conf.setBoolean(p.key(), (Boolean) v);
        }
        default -> throw new AssertionError(p.kind());
      }
    }
  }

  /** The command line of this command, with the table's options added. */
  CommandLine commandLine() {
    CommandLine cl = new CommandLine(this);
    CommandLine.Model.UsageMessageSpec usage = cl.getCommandSpec().usageMessage();
    usage.description(paragraphs(usage.description()));
    if (quietSays() != null) {
      quiet = OptionSpec.builder("-q", "--quiet").arity("0").type(boolean.class)
          .description("Print no progress, report or log lines, only warnings and errors" + quietSays() + " (as svm-train -q).").build();
      cl.getCommandSpec().addOption(quiet);
    }
    for (Param p : params()) {
      if (p.options().isEmpty()) throw new IllegalStateException(p.key() + " has no option");
      OptionSpec o = optionOf(p);
      cl.getCommandSpec().addOption(o);
      paramOptions.put(p, o);
    }
    return cl;
  }

  /**
   * A description written as source lines (about 110 characters each) as paragraphs: consecutive lines joined by a space,
   * an empty line kept as a break, so that the help wraps each paragraph to its width instead of breaking every source
   * line a second time ("... stratified" / "partition into K blocks ...").
   */
  static String[] paragraphs(String[] lines) {
    List<String> out = new java.util.ArrayList<>();
    StringBuilder p = new StringBuilder();
    for (String l : lines) {
      if (l.isEmpty()) {
        if (p.length() > 0) out.add(p.toString());
        p.setLength(0);
        out.add("");
      } else {
        if (p.length() > 0) p.append(' ');
        p.append(l.strip());
      }
    }
    if (p.length() > 0) out.add(p.toString());
    return out.toArray(new String[0]);
  }

  /** Does the work; returns the exit code. */
  protected abstract int execute(Configuration conf) throws Exception;

  protected static void set(Configuration conf, String key, Object value) {
    if (value != null) conf.set(key, String.valueOf(value));
  }

  private CommandLine parsedLine;

  /** Fails naming the option when a path option (DIR, FILE, PATH, MODEL) was given an empty value. */
  private void checkPathsNotEmpty() {
    if (parsedLine == null) return;
    List<CommandLine.Model.ArgSpec> args = new java.util.ArrayList<>(parsedLine.getCommandSpec().options());
    args.addAll(parsedLine.getCommandSpec().positionalParameters());
    for (CommandLine.Model.ArgSpec a : args) {
      if (!List.of("DIR", "FILE", "PATH", "MODEL").contains(a.paramLabel())) continue;
      Object v = a.getValue();
      boolean empty = v instanceof String s ? s.isBlank()
          : v instanceof java.util.Collection<?> c && c.stream().anyMatch(e -> e == null || e.toString().isBlank());
      if (empty) {
        String name = a instanceof OptionSpec o ? o.longestName() + " " + a.paramLabel() : "the " + a.paramLabel() + " argument";
        throw new SodmException(name + " is empty: give a path");
      }
    }
  }

  @Override
  public final Integer call() throws Exception {
    checkPathsNotEmpty();
    Configuration conf = getConf() == null ? new Configuration() : getConf();
    for (Map.Entry<String, String> e : defines.entrySet()) conf.set(e.getKey(), e.getValue());
    applyParams(conf);
    applyOptions(conf);
    Param.checkKnown(conf);
    boolean silent = quiet != null && Boolean.TRUE.equals(quiet.getValue());
    org.apache.log4j.Logger log = org.apache.log4j.Logger.getLogger("org.sodm");
    org.apache.log4j.Level level = log.getLevel();
    if (silent) {
      out = new PrintWriter(java.io.OutputStream.nullOutputStream());
      log.setLevel(org.apache.log4j.Level.WARN); // set back below: the daemon runs the next command in this JVM
    }
    try {
      return execute(conf);
    } finally {
      stdout.flush();
      if (silent) log.setLevel(level);
    }
  }

  /**
   * A command line that cannot be parsed: its error, picocli's suggestions, what svm-train's or svm-predict's options
   * among the unknown ones are called here, and where the options are listed - a few lines, not the whole help (the
   * error was the first of some 380 lines, scrolled away). Returns the exit code of invalid input (2).
   */
  private int usageError(CommandLine cl, String message, CommandLine.ParameterException ex, String[] args) {
    PrintWriter err = cl.getErr();
    String name = "sodm " + cl.getCommandName();
    failure = name + ": " + message;
    err.println(message);
    if (ex != null) {
      CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
      if (ex instanceof CommandLine.UnmatchedArgumentException u) {
        for (String h : LibsvmOptions.hints(cl.getCommandName(), u.getUnmatched(), List.of(args))) err.println(h);
      }
      if (ex instanceof CommandLine.MissingParameterException) {
        String files = LibsvmOptions.positionalHint(cl.getCommandName(), cl.getUnmatchedArguments());
        if (files != null) err.println(files);
      }
      String habit = LibsvmOptions.sodmHint(cl.getCommandName(), ex instanceof CommandLine.UnmatchedArgumentException u ? u.getUnmatched()
          : cl.getUnmatchedArguments(), List.of(args));
      if (habit != null) err.println(habit);
    }
    err.println("Run '" + name + " --help' for its options.");
    err.flush();
    return cl.getCommandSpec().exitCodeOnInvalidInput();
  }

  @Override
  public final int run(String[] args) {
    CommandLine cl = commandLine();
    parsedLine = cl;
    cl.setParameterExceptionHandler((ex, a) -> usageError(ex.getCommandLine(), ex.getMessage(), ex, a));
    String shrinking = LibsvmOptions.shrinkingSwitch(cl.getCommandName(), args);
    if (shrinking != null) return usageError(cl, shrinking, null, args);
    cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      String name = "sodm " + cmd.getCommandName();
      CommandLine.ParseResult pr = parsed;
      while (pr.hasSubcommand()) pr = pr.subcommand();
      String output = pr.hasMatchedOption("-o") ? String.valueOf((Object) pr.matchedOptionValue("-o", "")) : null;
      failure = name + ": error: " + Causes.describe(ex, name, output);
      cmd.getErr().println(failure);
      if (debug || "1".equals(System.getenv("SODM_DEBUG"))) {
        ex.printStackTrace(cmd.getErr());
      } else if (!(ex instanceof SodmException || ex instanceof IllegalArgumentException) && Causes.known(ex, name) == null) {
        cmd.getErr().println(name + ": (the stack trace: --debug or SODM_DEBUG=1)");
      }
      return 1;
    });
    return cl.execute(args);
  }
}
