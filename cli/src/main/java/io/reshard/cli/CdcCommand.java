package io.reshard.cli;

import io.reshard.cdc.ChangeRecords;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.LocalCluster;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code reshard cdc ...}: the change topics. */
@Command(
    name = "cdc",
    mixinStandardHelpOptions = true,
    description = "Read the change topics that capture writes.",
    subcommands = {CdcCommand.Tail.class})
final class CdcCommand {

  /** {@code cdc tail}. */
  @Command(
      name = "tail",
      mixinStandardHelpOptions = true,
      description = {
        "Print a shard's change events as JSON lines, as any read_committed Kafka consumer of",
        "<prefix>.<keyspace>.<shard> sees them: row changes (Debezium envelope), transaction",
        "BEGIN/END, schema changes and heartbeats. Without --from-beginning it starts at the end."
      })
  static final class Tail implements Callable<Integer> {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--cluster", required = true, description = "A local cluster directory.")
    Path cluster;

    @Option(names = "--keyspace", required = true, description = "The keyspace.")
    String keyspace;

    @Option(
        names = "--shard",
        required = true,
        description = "The source shard, e.g. c0- (write --shard=-80).")
    String shard;

    @Option(
        names = "--topic-prefix",
        defaultValue = "reshard",
        description = "Change topic prefix. Default: ${DEFAULT-VALUE}.")
    String prefix;

    @Option(names = "--from-beginning", description = "Start at the topic's first record.")
    boolean fromBeginning;

    @Option(names = "--max", description = "Stop after N records.")
    Long max;

    @Option(
        names = "--idle-timeout",
        description = "Stop after this many seconds without a new record (default: never).")
    Long idleSeconds;

    @Override
    public Integer call() {
      try {
        io.reshard.router.KeyRange.parse(shard);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--shard " + shard + ": " + e.getMessage());
      }
      ClusterDescriptor d = LocalCluster.require(cluster);
      String topic = ChangeRecords.changeTopic(prefix, keyspace, shard);
      PrintWriter out = spec.commandLine().getOut();
      TopicPartition tp = new TopicPartition(topic, 0);
      try (KafkaConsumer<byte[], byte[]> consumer =
          new KafkaConsumer<>(ChangeRecords.consumerProperties(d.kafka().bootstrap(), null))) {
        if (consumer.partitionsFor(topic, Duration.ofSeconds(30)).isEmpty()) {
          spec.commandLine()
              .getErr()
              .println(
                  "cdc tail: topic "
                      + topic
                      + " does not exist; is capture running for shard "
                      + shard
                      + "?");
          return ExitCodes.REFUSED;
        }
        consumer.assign(List.of(tp));
        if (fromBeginning) {
          consumer.seekToBeginning(List.of(tp));
        } else {
          consumer.seekToEnd(List.of(tp));
        }
        long printed = 0;
        long lastRecord = System.nanoTime();
        while (max == null || printed < max) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            out.println(new String(r.value(), StandardCharsets.UTF_8));
            lastRecord = System.nanoTime();
            if (max != null && ++printed >= max) {
              break;
            }
          }
          out.flush();
          if (idleSeconds != null
              && System.nanoTime() - lastRecord > idleSeconds * 1_000_000_000L) {
            break;
          }
        }
      }
      return ExitCodes.OK;
    }
  }
}
