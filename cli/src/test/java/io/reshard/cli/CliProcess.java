package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The CLI as an operator runs it: a JVM of its own ({@code java -cp ... ReshardCli ARGS}, what the
 * {@code ./reshard} launcher execs) on this test JVM's class path, its standard output and error in
 * files. Children get SIGINT as a terminal's Ctrl-C would deliver it: if this JVM was started with
 * SIGINT ignored (a background job of a shell without job control), which a child would inherit and
 * the JVM then cannot handle, the child starts through {@code perl}, which restores the default
 * before it execs java.
 */
final class CliProcess {
  private final Process process;
  private final Path out;
  private final Path err;

  /** What a finished run gave. */
  record Run(int exit, String out, String err) {}

  private CliProcess(Process process, Path out, Path err) {
    this.process = process;
    this.out = out;
    this.err = err;
  }

  /** Starts {@code reshard ARGS}. */
  static CliProcess start(String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    if (sigintIgnored()) {
      cmd.addAll(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die \"exec: $!\""));
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ReshardCli.class.getName());
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("reshard-out", ".txt");
    Path err = Files.createTempFile("reshard-err", ".txt");
    Process p =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    return new CliProcess(p, out, err);
  }

  /** Runs {@code reshard ARGS} to its end (at most 5 minutes). */
  static Run run(String... args) throws Exception {
    return start(args).await(300);
  }

  /** The process's pid. */
  long pid() {
    return process.pid();
  }

  /** What it has written to standard error so far. */
  String errSoFar() throws IOException {
    return Files.readString(err, StandardCharsets.UTF_8);
  }

  /** Whether it still runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  /** Sends it SIGINT, as Ctrl-C in its terminal would. */
  void interrupt() throws Exception {
    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(pid())).inheritIO().start();
    assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -INT " + pid());
  }

  /** Waits for its end, at most {@code seconds}, and returns what it gave. */
  Run await(long seconds) throws Exception {
    boolean ended = process.waitFor(seconds, TimeUnit.SECONDS);
    if (!ended) {
      process.destroyForcibly().waitFor();
    }
    Run r =
        new Run(
            ended ? process.exitValue() : -1,
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    Files.deleteIfExists(out);
    Files.deleteIfExists(err);
    assertTrue(ended, "reshard did not end within " + seconds + " s; stderr:\n" + r.err());
    return r;
  }

  /** Whether this JVM ignores SIGINT ({@code SigIgn} in {@code /proc/self/status}, bit 2). */
  private static boolean sigintIgnored() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & 0x2) != 0;
      }
    }
    return false;
  }
}
