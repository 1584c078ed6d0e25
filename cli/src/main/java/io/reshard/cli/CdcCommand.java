package io.reshard.cli;

import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.KeyspaceStreamConfig;
import io.reshard.cdc.RecordKind;
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
import org.apache.kafka.common.header.Header;
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
        "Print change events as JSON lines, as any read_committed Kafka consumer sees them.",
        "Without --shard: the keyspace change stream <prefix>.<keyspace>, every application",
        "row change of the keyspace, followed across every reshard (docs/keyspace-stream.md).",
        "With --shard: that shard's topic <prefix>.<keyspace>.<shard>: row changes (Debezium",
        "envelope), transaction BEGIN/END and schema changes (heartbeats with --heartbeats).",
        "Without --from-beginning it starts at the end. It ends when the output is closed",
        "(cdc tail ... | head -n 5)."
      })
  static final class Tail implements Callable<Integer> {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--cluster", required = true, description = "A local cluster directory.")
    Path cluster;

    @Option(names = "--keyspace", required = true, description = "The keyspace.")
    String keyspace;

    @Option(
        names = "--shard",
        description = {
          "A shard, e.g. c0- (write --shard=-80); without it, the keyspace change stream."
        })
    String shard;

    @Option(
        names = "--topic-prefix",
        defaultValue = "reshard",
        description = "Change topic prefix. Default: ${DEFAULT-VALUE}.")
    String prefix;

    @Option(names = "--from-beginning", description = "Start at the topic's first record.")
    boolean fromBeginning;

    @Option(names = "--max", description = "Stop after printing N records.")
    Long max;

    @Option(
        names = "--idle-timeout",
        description = {
          "Stop after this many seconds without a new change record (data, transaction or schema)",
          "(default: never). Heartbeats do not count: capture writes them to a quiet topic too."
        })
    Long idleSeconds;

    @Option(
        names = "--heartbeats",
        description = "Print capture's heartbeat records too (hidden by default).")
    boolean heartbeats;

    @Override
    public Integer call() {
      if (shard != null) {
        try {
          io.reshard.router.KeyRange.parse(shard);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--shard " + shard + ": " + e.getMessage());
        }
      }
      ClusterDescriptor d = LocalCluster.require(cluster);
      requireBrokerUp();
      String topic =
          shard == null
              ? KeyspaceStreamConfig.defaultTopic(prefix, keyspace)
              : ChangeRecords.changeTopic(prefix, keyspace, shard);
      try (KafkaConsumer<byte[], byte[]> consumer =
          new KafkaConsumer<>(ChangeRecords.consumerProperties(d.kafka().bootstrap(), null))) {
        List<TopicPartition> parts;
        try {
          parts =
              consumer.partitionsFor(topic, METADATA_WAIT).stream()
                  .map(p -> new TopicPartition(topic, p.partition()))
                  .toList();
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
          throw new CommandFailure(
              ExitCodes.RETRY_LATER,
              "the Kafka broker at "
                  + d.kafka().bootstrap()
                  + " did not answer within "
                  + METADATA_WAIT.toSeconds()
                  + " s; check it with `reshard cluster status --dir "
                  + cluster
                  + "` and start it with `reshard cluster up --dir "
                  + cluster
                  + "`");
        }
        if (parts.isEmpty()) {
          spec.commandLine().getErr().println("cdc tail: " + missingTopic(consumer, topic));
          return ExitCodes.REFUSED;
        }
        consumer.assign(parts);
        if (fromBeginning) {
          consumer.seekToBeginning(parts);
        } else {
          consumer.seekToEnd(parts);
        }
        print(consumer);
      }
      return ExitCodes.OK;
    }

    /** How long {@code cdc tail} waits for the broker to say which partitions a topic has. */
    static final Duration METADATA_WAIT = Duration.ofSeconds(30);

    /** Refuses at once when the cluster's own broker is not running, instead of waiting on it. */
    private void requireBrokerUp() {
      boolean down =
          LocalCluster.status(cluster).stream().anyMatch(p -> "broker".equals(p.role()) && !p.up());
      if (down) {
        throw new CommandFailure(
            ExitCodes.REFUSED,
            "the local cluster's Kafka broker is down; start it with `reshard cluster up --dir "
                + cluster
                + "`, then run this again");
      }
    }

    /**
     * Why {@code topic} does not exist, and what to do: a keyspace with no change topic at all is
     * not captured (or misspelt), so the keyspaces that are come with the message.
     */
    private String missingTopic(KafkaConsumer<byte[], byte[]> consumer, String topic) {
      java.util.SortedSet<String> keyspaces =
          capturedKeyspaces(prefix, consumer.listTopics(METADATA_WAIT).keySet());
      if (!keyspaces.contains(keyspace)) {
        return "no keyspace "
            + keyspace
            + " has change topics under prefix "
            + prefix
            + (keyspaces.isEmpty()
                ? "; no keyspace has any: is capture running?"
                : "; keyspaces with change topics: " + String.join(", ", keyspaces));
      }
      return "topic "
          + topic
          + " does not exist; "
          + (shard == null
              ? "is the daemon running with keyspace.stream.enabled=true for keyspace "
                  + keyspace
                  + "?"
              : "is capture running for shard " + shard + "?");
    }

    /**
     * The keyspaces with a shard change topic ({@code <prefix>.<keyspace>.<shard>}) among {@code
     * topics}.
     */
    static java.util.SortedSet<String> capturedKeyspaces(
        String prefix, java.util.Collection<String> topics) {
      java.util.SortedSet<String> keyspaces = new java.util.TreeSet<>();
      for (String t : topics) {
        if (!t.startsWith(prefix + ".")) {
          continue;
        }
        String rest = t.substring(prefix.length() + 1);
        int dot = rest.lastIndexOf('.');
        if (dot <= 0) {
          continue;
        }
        try {
          io.reshard.router.KeyRange.parse(rest.substring(dot + 1));
          keyspaces.add(rest.substring(0, dot));
        } catch (IllegalArgumentException notAShard) {
          // another topic under the prefix (the workflows', a keyspace stream's)
        }
      }
      return keyspaces;
    }

    /**
     * Prints records until {@code --max} are printed, {@code --idle-timeout} passes without a
     * change record, or the output is closed (the reader of a pipe, such as {@code head}, has
     * exited).
     */
    private void print(KafkaConsumer<byte[], byte[]> consumer) {
      PrintWriter out = spec.commandLine().getOut();
      long printed = 0;
      long lastChange = System.nanoTime();
      while (max == null || printed < max) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          boolean heartbeat = isHeartbeat(r);
          if (!heartbeat) {
            lastChange = System.nanoTime();
          }
          if (heartbeat && !heartbeats) {
            continue;
          }
          String value = new String(r.value(), StandardCharsets.UTF_8);
          out.println(value);
          if (isKind(r, RecordKind.GAP)) {
            // the document goes to standard output like every record; the warning to stderr
            spec.commandLine()
                .getErr()
                .println(
                    "cdc tail: offset "
                        + r.offset()
                        + " is a gap: changes were not captured there (see its from, to and"
                        + " reason)");
          }
          if (max != null && ++printed >= max) {
            break;
          }
        }
        out.flush();
        if (outputClosed(out)) {
          return;
        }
        if (idleSeconds != null && System.nanoTime() - lastChange > idleSeconds * 1_000_000_000L) {
          return;
        }
      }
    }

    private static boolean isHeartbeat(ConsumerRecord<byte[], byte[]> r) {
      return isKind(r, RecordKind.HEARTBEAT);
    }

    private static boolean isKind(ConsumerRecord<byte[], byte[]> r, RecordKind kind) {
      Header h = r.headers().lastHeader(ChangeRecords.KIND_HEADER);
      return h != null && kind.headerValue().equals(new String(h.value(), StandardCharsets.UTF_8));
    }

    /**
     * True once writing failed: standard output swallows the broken pipe, so both the writer and
     * the stream under it are asked.
     */
    private static boolean outputClosed(PrintWriter out) {
      return out.checkError() || System.out.checkError();
    }
  }
}
