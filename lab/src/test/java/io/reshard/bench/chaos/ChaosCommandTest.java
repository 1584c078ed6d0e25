package io.reshard.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.bench.BenchCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code bench chaos}: its refusals, each before anything starts, and the replayable plan. */
class ChaosCommandTest {
  @TempDir Path tmp;

  /** What one run of {@code bench ARGS} gave. */
  record Run(int exit, String out, String err) {}

  static Run bench(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new BenchCommand());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void everyBadOptionIsReportedAtOnceAsAUsageError() {
    Run r =
        bench(
            "chaos",
            "--faults",
            "0",
            "--kinds",
            "daemon-kill,disk-full",
            "--fault-probability",
            "1.5",
            "--rows",
            "10",
            "--writers",
            "0",
            "--heal-timeout-s",
            "0",
            "--daemon-set",
            "noequals",
            "--out",
            tmp.resolve("r.json").toString());
    assertEquals(2, r.exit(), r.err());
    for (String named :
        List.of(
            "--faults must be at least 1",
            "no fault kind disk-full",
            "--fault-probability must lie in (0, 1]",
            "--rows must lie in 100..2000000",
            "--writers must lie in 1..32",
            "--heal-timeout must be at least 1 s",
            "--daemon-set noequals: give KEY=VALUE")) {
      assertTrue(r.err().contains(named), named + " in " + r.err());
    }
    assertEquals(0, countFiles(tmp), "nothing was written");
  }

  @Test
  void aDirectoryThatHoldsAClusterIsRefused() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("c"));
    Files.writeString(dir.resolve("cluster.json"), "{}");
    Run r = bench("chaos", "--dir", dir.toString(), "--out", tmp.resolve("r.json").toString());
    assertEquals(2, r.exit(), r.err());
    assertTrue(r.err().contains("holds a cluster already"), r.err());
    assertEquals(1, countFiles(dir), "the directory is left as it was");
  }

  @Test
  void aReportPathThatCannotBeWrittenIsRefused() throws Exception {
    Path file = Files.writeString(tmp.resolve("plain-file"), "x");
    Run r = bench("chaos", "--out", file.resolve("report.json").toString());
    assertEquals(2, r.exit(), r.err());
    assertTrue(r.err().contains("cannot be written"), r.err());
  }

  @Test
  void thePlanOnlyDependsOnTheSeedAndTheOptions() {
    Run a = bench("chaos", "--plan-only", "--faults", "12", "--seed", "9");
    Run b = bench("chaos", "--plan-only", "--faults", "12", "--seed", "9");
    Run c = bench("chaos", "--plan-only", "--faults", "12", "--seed", "10");
    assertEquals(0, a.exit(), a.err());
    assertEquals(12, a.out().lines().count(), a.out());
    assertTrue(a.out().lines().allMatch(l -> l.startsWith("#")), a.out());
    assertEquals(a.out(), b.out());
    assertNotEquals(a.out(), c.out());
  }

  private static long countFiles(Path dir) {
    try (var s = Files.list(dir)) {
      return s.count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
