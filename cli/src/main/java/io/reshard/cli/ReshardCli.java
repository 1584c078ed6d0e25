package io.reshard.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code reshard} operator command line: parses, calls into the modules, prints. It holds no
 * business logic.
 *
 * <p>Each subcommand is its own class registered here, or comes from a {@link CommandPlugin} on the
 * classpath (the lab's {@code demo} and {@code bench}); each returns an exit code from {@link
 * ExitCodes}. Logs and progress go to standard error, results to standard output.
 */
@Command(
    name = "reshard",
    mixinStandardHelpOptions = true,
    versionProvider = ReshardCli.Version.class,
    description = "Split and merge the shards of a hash-sharded MySQL/MariaDB keyspace online.",
    footer = ExitCodes.HELP_TEXT)
public final class ReshardCli {

  /**
   * The order of the verbs in {@code --help}; {@code demo} and {@code bench} come from the lab's
   * {@link CommandPlugin} and are left out when it is not on the classpath. A plugin's verb not
   * named here comes last.
   */
  private static final List<String> HELP_ORDER =
      List.of(
          "cluster",
          "demo",
          "keyspace-id",
          "cdc",
          "daemon",
          "keyspace",
          "plan",
          "workflow",
          "shardmap",
          "bench");

  /**
   * Runs the command line and returns its exit code, without exiting the JVM.
   *
   * @param args the arguments after {@code reshard}
   * @return an exit code from {@link ExitCodes}
   */
  public static int run(String... args) {
    logLevel(args, System.getProperty(DEFAULT_LOG_LEVEL))
        .ifPresent(l -> System.setProperty(DEFAULT_LOG_LEVEL, l));
    bridgeJavaUtilLogging();
    return newCommandLine().execute(args);
  }

  /** slf4j-simple's system property for the level of every logger not configured otherwise. */
  static final String DEFAULT_LOG_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

  /**
   * The default log level this command line needs, if not the one of {@code
   * simplelogger.properties} (WARN: operator commands print only their own output): INFO for the
   * daemon ({@code reshard daemon ...}), whose log is its output, unless the JVM was started with a
   * level of its own ({@code -Dorg.slf4j.simpleLogger.defaultLogLevel}). It is set before the first
   * logger is made, since slf4j-simple reads the default level once.
   *
   * @param args the arguments after {@code reshard}; the verb is the first that is no option (the
   *     top-level options take no values)
   * @param configured the level the JVM was started with, or null
   */
  static Optional<String> logLevel(String[] args, String configured) {
    if (configured != null) {
      return Optional.empty();
    }
    return Arrays.stream(args)
        .filter(a -> !a.startsWith("-"))
        .findFirst()
        .filter("daemon"::equals)
        .map(verb -> "info");
  }

  /**
   * Sends java.util.logging records (the binlog client's) through slf4j, so that standard error has
   * one log format, not two-line JUL records between slf4j's lines.
   */
  static void bridgeJavaUtilLogging() {
    if (!org.slf4j.bridge.SLF4JBridgeHandler.isInstalled()) {
      org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
      org.slf4j.bridge.SLF4JBridgeHandler.install();
    }
  }

  /**
   * Builds the picocli command line with the project's error handling (exceptions: {@link
   * ErrorHandler}; usage errors: {@link UsageErrorHandler}): the own verbs and every {@link
   * CommandPlugin}'s, in {@link #HELP_ORDER}. The handlers are set after the verbs are added, since
   * picocli gives them only to the subcommands present at that moment.
   */
  static CommandLine newCommandLine() {
    CommandLine cli = new CommandLine(new ReshardCli());
    // picocli makes the own verbs (some have private constructors) from their classes
    List<Object> commands =
        new ArrayList<>(
            List.of(
                ClusterCommand.class,
                KeyspaceIdCommand.class,
                CdcCommand.class,
                DaemonCommand.class,
                KeyspaceCommand.class,
                PlanCommand.class,
                WorkflowCommand.class,
                ShardMapCommand.class));
    for (CommandPlugin plugin : ServiceLoader.load(CommandPlugin.class)) {
      commands.addAll(plugin.commands());
    }
    Map<String, CommandLine> byName = new LinkedHashMap<>();
    for (Object c : commands) {
      CommandLine sub = c instanceof CommandLine l ? l : new CommandLine(c);
      if (byName.putIfAbsent(sub.getCommandName(), sub) != null) {
        throw new IllegalStateException("two commands named " + sub.getCommandName());
      }
    }
    for (String name : HELP_ORDER) {
      CommandLine sub = byName.remove(name);
      if (sub != null) {
        cli.addSubcommand(sub);
      }
    }
    byName.values().forEach(cli::addSubcommand);
    cli.setExitCodeExceptionMapper(ErrorHandler::exitCodeOf);
    cli.setExecutionExceptionHandler(new ErrorHandler());
    cli.setParameterExceptionHandler(new UsageErrorHandler());
    return cli;
  }

  /** Entry point of the {@code ./reshard} launcher. */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Reads the version from the jar manifest, or says it is a development build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = ReshardCli.class.getPackage().getImplementationVersion();
      return new String[] {"reshard " + (v == null ? "development build" : v)};
    }
  }
}
