package io.reshard.lab;

import io.reshard.bench.BenchCommand;
import io.reshard.cli.CommandPlugin;
import io.reshard.demo.DemoCommand;
import java.util.List;

/**
 * Adds the lab's verbs to {@code reshard}: {@code demo} ({@link DemoCommand}) and {@code bench}
 * ({@link BenchCommand}). Found by the CLI through {@link java.util.ServiceLoader} ({@code
 * META-INF/services/io.reshard.cli.CommandPlugin}) when the lab's jar is on the classpath, as the
 * {@code ./reshard} launcher puts it.
 */
public final class LabCommands implements CommandPlugin {

  /** Called by {@link java.util.ServiceLoader}. */
  public LabCommands() {}

  @Override
  public List<Object> commands() {
    return List.of(new DemoCommand(), new BenchCommand());
  }
}
