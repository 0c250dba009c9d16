package org.sodm.cli;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.util.ToolRunner;
import org.sodm.data.AvroClasses;
import org.sodm.jobs.support.SodmConf;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sodm} command: one entry point, one subcommand per job. */
@Command(name = "sodm", mixinStandardHelpOptions = true, versionProvider = SodmMain.Version.class,
    subcommands = {IngestCommand.class, StatsCommand.class, GenerateCommand.class, TrainCommand.class,
        PredictCommand.class, EvaluateCommand.class, InspectCommand.class, ExportLibsvmCommand.class, ExportLiblinearCommand.class, ImportLibsvmCommand.class, ImportLiblinearCommand.class, CvCommand.class,
        GridCommand.class},
    description = {
        "Distributed kernel machines on Hadoop MapReduce (SODM and friends).",
        "Runs in Hadoop local mode by default; on a cluster use `hadoop jar` with -fs/-jt or a site configuration.",
        "Generic Hadoop options (-D key=value, -conf FILE, -fs URI, -jt HOST:PORT) go right after the subcommand.",
        "Every parameter and its default: conf/sodm-default.xml.",
        "SODM_DAEMON=1 bin/sodm runs local commands in a warm JVM kept between them (README: A warm JVM between commands).",
        "As the main class of an Oozie java action it also reads the action's configuration (oozie.action.conf.xml) beneath its "
            + "options, so sodm.* keys of a workflow's <global><configuration> apply (workflows/oozie)."},
    footer = {"", "Run 'sodm COMMAND --help' for a command's options."})
public final class SodmMain implements Runnable {

  static final Map<String, Supplier<SodmCommand>> COMMANDS = new LinkedHashMap<>();

  static {
    COMMANDS.put("ingest", IngestCommand::new);
    COMMANDS.put("stats", StatsCommand::new);
    COMMANDS.put("generate", GenerateCommand::new);
    COMMANDS.put("train", TrainCommand::new);
    COMMANDS.put("predict", PredictCommand::new);
    COMMANDS.put("evaluate", EvaluateCommand::new);
    COMMANDS.put("inspect", InspectCommand::new);
    COMMANDS.put("export-libsvm", ExportLibsvmCommand::new);
    COMMANDS.put("export-liblinear", ExportLiblinearCommand::new);
    COMMANDS.put("import-libsvm", ImportLibsvmCommand::new);
    COMMANDS.put("import-liblinear", ImportLiblinearCommand::new);
    COMMANDS.put("cv", CvCommand::new);
    COMMANDS.put("grid", GridCommand::new);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /**
   * Exits with the command's status; as the main class of an Oozie java action (the launcher sets
   * {@code oozie.action.conf.xml}, see {@link OozieAction}) it returns instead, or throws the
   * failure with sodm's own message, which Oozie shows as the action's error message.
   */
  public static void main(String[] args) throws Exception {
    String actionConf = OozieAction.confFile();
    Outcome o = execute(actionConf, args);
    if (actionConf == null) System.exit(o.code());
    if (o.code() != 0) throw OozieAction.failed(args.length > 0 ? args[0] : "", o.code(), o.failure());
  }

  /** Runs a command line; returns the exit code (0 ok, 1 failure, 2 usage error). */
  public static int run(String... args) throws Exception {
    return execute(null, args).code();
  }

  /** The exit code of a command line and its error line (null when it printed none). */
  record Outcome(int code, String failure) {}

  /** Runs a command line over sodm's configuration, with the Oozie action's configuration file beneath it when not null. */
  static Outcome execute(String actionConf, String... args) throws Exception {
    AvroClasses.trust();
    SodmConf.init();
    if (args.length > 0 && COMMANDS.containsKey(args[0])) {
      SodmCommand cmd = COMMANDS.get(args[0]).get();
      org.apache.hadoop.conf.Configuration conf = SodmConf.create();
      if (actionConf != null) OozieAction.addTo(conf, actionConf);
      int code = ToolRunner.run(conf, cmd, Arrays.copyOfRange(args, 1, args.length));
      return new Outcome(code, cmd.failure());
    }
    return new Outcome(new CommandLine(new SodmMain()).execute(args), null);
  }

  /** The project version, from the build. */
  public static String version() {
    return org.sodm.jobs.support.Version.get();
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"sodm " + version(), "Hadoop " + org.apache.hadoop.util.VersionInfo.getVersion()
          + ", Java " + System.getProperty("java.version")};
    }
  }
}
