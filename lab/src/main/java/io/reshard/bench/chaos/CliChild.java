package io.reshard.bench.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one {@code reshard ...} command as an operator would, in a JVM of its own with this JVM's
 * class path, and keeps its exit code and output. Stateless.
 */
final class CliChild {
  /**
   * What the command gave.
   *
   * @param exit its exit code, -1 if it was stopped after the timeout
   * @param out its standard output
   * @param err its standard error
   */
  record Run(int exit, String out, String err) {
    /**
     * The first line of standard error, for a one-line note: the CLI's error message (a stack
     * trace, if any, follows it).
     */
    String errorLine() {
      return err.lines().filter(l -> !l.isBlank()).findFirst().orElse("");
    }
  }

  private CliChild() {}

  /** Runs {@code reshard args} in {@code workDir}, at most {@code timeout}. */
  static Run run(Path workDir, List<String> args, Duration timeout)
      throws IOException, InterruptedException {
    List<String> cmd =
        ChildJava.reshard(
            List.of("-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), args);
    Path out = Files.createTempFile(workDir, "cli-out", ".txt");
    Path err = Files.createTempFile(workDir, "cli-err", ".txt");
    try {
      Process p =
          new ProcessBuilder(cmd)
              .directory(workDir.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      int exit;
      if (p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        exit = p.exitValue();
      } else {
        p.destroyForcibly().waitFor();
        exit = -1;
      }
      return new Run(
          exit,
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
