package io.reshard.cli;

import java.util.List;

/**
 * Verbs that join {@code reshard} from outside this module, found with {@link
 * java.util.ServiceLoader} on the classpath: the {@code lab} module adds {@code demo} and {@code
 * bench} this way, so the CLI does not depend on the demo and the benchmarks.
 *
 * <p>An implementation is a public class with a public no-argument constructor, named in {@code
 * META-INF/services/io.reshard.cli.CommandPlugin}. Each command it returns is a picocli
 * {@code @Command} object (or a {@code CommandLine}) whose {@code call()} returns an exit code from
 * {@link ExitCodes}; the CLI's error handling applies to it as to its own verbs.
 */
public interface CommandPlugin {

  /**
   * The commands this plugin adds, each under the name its {@code @Command} annotation gives.
   *
   * @return new command objects; called once per command line built
   */
  List<Object> commands();
}
