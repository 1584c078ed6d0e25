package io.reshard.bench.chaos;

import io.reshard.cli.ReshardCli;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a {@code reshard ...} JVM started by the chaos run (the daemon, a CLI
 * command): this JVM's java and class path, every entry made absolute, since the child runs in the
 * cluster directory. Stateless.
 */
final class ChildJava {
  private ChildJava() {}

  /** {@code java OPTIONS -cp CLASSPATH io.reshard.cli.ReshardCli ARGS}. */
  static List<String> reshard(List<String> jvmOptions, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(absoluteClassPath());
    cmd.add(ReshardCli.class.getName());
    cmd.addAll(args);
    return cmd;
  }

  private static String absoluteClassPath() {
    List<String> entries = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (e.isEmpty()) {
        continue;
      }
      boolean wildcard = e.endsWith("*");
      String base = wildcard ? e.substring(0, e.length() - 1) : e;
      String abs = Path.of(base.isEmpty() ? "." : base).toAbsolutePath().normalize().toString();
      entries.add(wildcard ? abs + File.separator + "*" : abs);
    }
    return String.join(File.pathSeparator, entries);
  }
}
