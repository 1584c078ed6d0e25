package io.reshard.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code reshard} operator command line: parses, calls into the modules, prints. It holds no
 * business logic.
 *
 * <p>Each subcommand is its own class registered here; each returns an exit code from {@link
 * ExitCodes}. Logs and progress go to standard error, results to standard output.
 */
@Command(
    name = "reshard",
    mixinStandardHelpOptions = true,
    versionProvider = ReshardCli.Version.class,
    description = "Split and merge the shards of a hash-sharded MySQL/MariaDB keyspace online.",
    footer = ExitCodes.HELP_TEXT,
    subcommands = {
      ClusterCommand.class,
      DemoCommand.class,
      KeyspaceIdCommand.class,
      CdcCommand.class,
      DaemonCommand.class,
      KeyspaceCommand.class,
      WorkflowCommand.class,
      ShardMapCommand.class,
      BenchCommand.class
    })
public final class ReshardCli {

  /**
   * Runs the command line and returns its exit code, without exiting the JVM.
   *
   * @param args the arguments after {@code reshard}
   * @return an exit code from {@link ExitCodes}
   */
  public static int run(String... args) {
    return newCommandLine().execute(args);
  }

  /** Builds the picocli command line with the project's error handling. */
  static CommandLine newCommandLine() {
    CommandLine cli = new CommandLine(new ReshardCli());
    cli.setExitCodeExceptionMapper(ErrorHandler::exitCodeOf);
    cli.setExecutionExceptionHandler(new ErrorHandler());
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
