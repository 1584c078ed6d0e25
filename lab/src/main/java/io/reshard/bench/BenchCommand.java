package io.reshard.bench;

import io.reshard.cli.ExitCodes;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code reshard bench ...}: benchmarks that print figures. Not part of the test run. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Benchmarks that print figures measured on this machine.",
    subcommands = {
      BenchCommand.Startup.class,
      BenchCommand.RouterReads.class,
      BenchCommand.Cutover.class,
      io.reshard.bench.chaos.ChaosCommand.class
    })
public final class BenchCommand {

  /** {@code bench startup}. */
  @Command(
      name = "startup",
      mixinStandardHelpOptions = true,
      description = {
        "Time a fresh local cluster from nothing until every MariaDB server answers a SQL query",
        "and Kafka commits a transactional produce; then time `down`. Prints each run and the median."
      })
  static final class Startup implements Callable<Integer> {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--servers",
        defaultValue = "5",
        description = "MariaDB servers. Default: ${DEFAULT-VALUE}.")
    int servers;

    @Option(
        names = "--runs",
        defaultValue = "3",
        description = "Repetitions. Default: ${DEFAULT-VALUE}.")
    int runs;

    @Option(
        names = "--work-dir",
        defaultValue = "target/bench",
        description = "Where each run's cluster directory goes. Default: ${DEFAULT-VALUE}.")
    Path workDir;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          "startup benchmark: %d MariaDB servers + 1 Kafka broker, %d runs%n", servers, runs);
      List<StartupBenchmark.Run> result =
          StartupBenchmark.run(
              workDir,
              servers,
              runs,
              line -> {
                out.println(line);
                out.flush();
              });
      out.printf(
          "median: cluster up %.2f s, ready for SQL and a Kafka transaction %.2f s, down %.2f s%n",
          median(result, StartupBenchmark.Run::clusterUp),
          median(result, StartupBenchmark.Run::total),
          median(result, StartupBenchmark.Run::down));
      return ExitCodes.OK;
    }

    private static double median(
        List<StartupBenchmark.Run> runs, ToDoubleFunction<StartupBenchmark.Run> f) {
      double[] v = runs.stream().mapToDouble(f).toArray();
      Arrays.sort(v);
      return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
  }

  /** {@code bench router}. */
  @Command(
      name = "router",
      mixinStandardHelpOptions = true,
      description = {
        "Routing costs on a fresh 4-shard cluster: targeted reads through the router vs plain JDBC,",
        "lookup-vindex reads and scatter reads, with QPS, p50 and p99."
      })
  static final class RouterReads implements Callable<Integer> {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--messages",
        defaultValue = "100000",
        description = "Rows to load. Default: ${DEFAULT-VALUE}.")
    int messages;

    @Option(
        names = "--seconds",
        defaultValue = "10",
        description = "Seconds per variant. Default: ${DEFAULT-VALUE}.")
    int seconds;

    @Option(
        names = "--threads",
        defaultValue = "8",
        description = "Client threads. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(
        names = "--work-dir",
        defaultValue = "target/bench",
        description = "Cluster directory parent. Default: ${DEFAULT-VALUE}.")
    Path workDir;

    @Override
    public Integer call() throws Exception {
      new RouterBenchmark(
              spec.commandLine().getOut(), messages, java.time.Duration.ofSeconds(seconds), threads)
          .run(workDir);
      return ExitCodes.OK;
    }
  }

  /** {@code bench cutover}. */
  @Command(
      name = "cutover",
      mixinStandardHelpOptions = true,
      description = {
        "The cutover write pause on a fresh cluster (the sources, a spare per target, Kafka): split",
        "- into -80 and 80- (or --shape merge: -80,80- into -; repartition: -80,80- onto",
        "-55,55-aa,aa-), then switch writes forward and back alternately while writer threads insert",
        "through router-lib with buffering on. Prints, per switch, the longest gap between",
        "acknowledged writes, the fenced window and each step's time; then p50 and max.",
        "Exit 0 only if no write failed and every acknowledged row is on its owner."
      })
  static final class Cutover implements Callable<Integer> {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--shape",
        defaultValue = "split",
        converter = ShapeChoice.class,
        paramLabel = "split|merge|repartition",
        description = "What the workflow moves. Default: ${DEFAULT-VALUE}.")
    CutoverBenchmark.Shape shape;

    @Option(
        names = "--switches",
        defaultValue = "6",
        description = "Switches, forward and reverse alternating. Default: ${DEFAULT-VALUE}.")
    int switches;

    @Option(
        names = "--writers",
        defaultValue = "4",
        description = "Writer threads. Default: ${DEFAULT-VALUE}.")
    int writers;

    @Option(
        names = "--rate",
        defaultValue = "200",
        description = "Writes per second, all writers together. Default: ${DEFAULT-VALUE}.")
    int rate;

    @Option(
        names = "--settle-ms",
        defaultValue = "2000",
        description = "Writing time after each switch. Default: ${DEFAULT-VALUE}.")
    long settleMillis;

    @Option(
        names = "--work-dir",
        defaultValue = "target/bench",
        description = "Cluster directory parent. Default: ${DEFAULT-VALUE}.")
    Path workDir;

    @Override
    public Integer call() throws Exception {
      boolean ok =
          new CutoverBenchmark(
                  spec.commandLine().getOut(),
                  shape,
                  switches,
                  writers,
                  rate,
                  java.time.Duration.ofMillis(settleMillis))
              .run(workDir);
      return ok ? ExitCodes.OK : ExitCodes.VERIFICATION_FAILED;
    }
  }

  /** {@code --shape}: split, merge or repartition, in any case. */
  static final class ShapeChoice
      implements picocli.CommandLine.ITypeConverter<CutoverBenchmark.Shape> {
    @Override
    public CutoverBenchmark.Shape convert(String value) {
      try {
        return CutoverBenchmark.Shape.valueOf(value.strip().toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException(
            "unknown shape '" + value + "': use split, merge or repartition");
      }
    }
  }
}
